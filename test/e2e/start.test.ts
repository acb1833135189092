// Start-up on the compiled binary: the server answers before the article sanitizer's self-test has
// finished (jsdom loads in the render worker meanwhile), a save made at once waits for the self-test
// and is stored sanitized, and a sanitizer that fails its self-test stops the server (exit 1, the
// reason logged) with nothing stored that it would have rendered. The executable's bytecode is laid
// out by the build's profiling run (build/bytecode-profile.ts).

import { afterEach, expect, test } from "bun:test";
import { readlinkSync } from "node:fs";
import { join } from "node:path";
import { processAlive, SANDBOX_DATABASE, type Sandbox, sandbox } from "../support/binary";
import { seedToolServerDb } from "../support/fixtures";
import { call, connect } from "../support/mcp";

let box: Sandbox | null = null;
afterEach(() => {
  box?.cleanup();
  box = null;
});

const HOSTILE = "# Launch\n\nWe shipped.<script>alert(1)</script><img src=x onerror=alert(1)>";

function createArticle(url: string, key: string, title: string): Promise<Response> {
  return fetch(`${url}/api/mcp/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "create_article", arguments: { title, markdown: HOSTILE } },
    }),
  });
}

function storedArticles(box: Sandbox): Promise<Array<{ title: string; html: string }>> {
  return box.withDb((db) => db.all<{ title: string; html: string }>("SELECT title, html FROM articles ORDER BY title"));
}

test("a save sent as soon as the server answers waits for the self-test and is stored sanitized", async () => {
  box = await sandbox({ toml: "[tracking]\nenabled = false\n" });
  const seed = await box.withDb(seedToolServerDb);
  const server = await box.serve({ timeoutMs: 60_000 });
  const response = await createArticle(server.url, seed.a.key, "Launch");
  const body = await response.json();
  expect(response.status).toBe(200);
  expect(body.result.isError).toBeUndefined();
  const html = body.result.structuredContent.article.html as string;
  expect(html).toContain("We shipped.");
  expect(html).not.toContain("<script");
  expect(html).not.toContain("onerror");
  expect(await server.stop()).toBe(0);
  const stored = (await storedArticles(box)).find((a) => a.title === "Launch");
  expect(stored?.html).toBe(html);
}, 90_000);

test("a sanitizer that fails its self-test stops the server with the reason, and nothing it would render is stored", async () => {
  box = await sandbox({ toml: "[tracking]\nenabled = false\n", env: { SPYGLASS_TEST_BROKEN_SANITIZER: "1" } });
  const seed = await box.withDb(seedToolServerDb);
  const before = await storedArticles(box);
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith("SPYGLASS_")) env[k] = v;
  const proc = Bun.spawn([box.binary, "serve", "--host", "127.0.0.1", "--port", "0"], {
    cwd: box.dir,
    env: { ...env, SPYGLASS_TEST_BROKEN_SANITIZER: "1", ...(box.databaseUrl ? { SPYGLASS_DATABASE_URL: box.databaseUrl } : {}) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const stderr = new Response(proc.stderr).text();
  const reader = proc.stdout.getReader();
  let stdout = "";
  let url = "";
  while (!url) {
    const next = await reader.read();
    if (next.done) break;
    stdout += new TextDecoder().decode(next.value);
    url = /"msg":"listening","url":"(http:\/\/[^"]+)"/.exec(stdout)?.[1] ?? "";
  }
  // It listens first (the self-test has not run yet)…
  expect(url).not.toBe("");
  // …and saves sent meanwhile, until it stops, are never stored.
  const saves: Array<Promise<number | string>> = [];
  let exited = false;
  void proc.exited.then(() => (exited = true));
  for (let i = 0; !exited && i < 200; i++) {
    saves.push(
      createArticle(url, seed.a.key, `Attempt ${i}`).then(
        (r) => r.status,
        (error: Error) => error.message,
      ),
    );
    await Bun.sleep(20);
  }
  expect(saves.length).toBeGreaterThan(0);
  const code = await proc.exited;
  for (let next = await reader.read(); !next.done; next = await reader.read()) stdout += new TextDecoder().decode(next.value);
  expect(code).toBe(1);
  const err = await stderr;
  expect(err).toContain("refusing to serve");
  expect(err).toContain('let the "script element" attack through');
  expect(stdout).toContain("the article sanitizer failed its self-test");
  await Promise.all(saves);
  expect(await storedArticles(box)).toEqual(before);
}, 90_000);

test("the executable's bytecode is laid out by the build's profiling run: what a start loads comes from its front", async () => {
  box = await sandbox({ toml: 'log_level = "debug"\n\n[tracking]\nenabled = false\n' });
  const server = await box.serve({ timeoutMs: 60_000 });
  let line: { ms: number; bytecode: { hot: number; unknown: number; cold: number } | null } | undefined;
  for (let i = 0; i < 300 && !line; i++) {
    await Bun.sleep(20);
    const found = server
      .logs()
      .split("\n")
      .find((l) => l.includes('"msg":"warmed up"'));
    if (found) line = JSON.parse(found);
  }
  expect(await server.stop()).toBe(0);
  if (!line) throw new Error('the server logged no "warmed up" line within 6 s');
  // null in an executable built without the layout (build/compile.ts's second pass).
  const bytecode = line.bytecode;
  expect(bytecode).toBeTruthy();
  const { hot, unknown, cold } = bytecode!;
  expect(hot).toBeGreaterThan(500);
  // The build's run is on SQLite: on PostgreSQL, its driver's and dialect's code was not in it (79% measured, 99% on SQLite).
  expect(hot / (hot + unknown + cold)).toBeGreaterThan(SANDBOX_DATABASE === "sqlite" ? 0.9 : 0.6);
}, 90_000);

// SQLite's write-ahead log alone: PostgreSQL checkpoints its own.
test.if(SANDBOX_DATABASE === "sqlite")(
  "the server's WAL checkpoints run on its worker thread: a write reaches the database file while the server is up",
  async () => {
    box = await sandbox({ toml: "[tracking]\nenabled = false\n" });
    const seed = await box.withDb(seedToolServerDb);
    const server = await box.serve({ timeoutMs: 60_000 });
    const file = join(box.dataDir, "spyglass.db");
    const fileHash = async () => Bun.hash(await Bun.file(file).arrayBuffer());
    // Start-up's own writes are in the file first.
    let before = await fileHash();
    for (let i = 0; i < 20; i++) {
      await Bun.sleep(100);
      const now = await fileHash();
      if (now === before) break;
      before = now;
    }
    // One small write: too small for SQLite's automatic checkpoint (1,000 pages), so only the
    // checkpointer copies it into the file before the server stops.
    expect((await createArticle(server.url, seed.a.key, "Checkpointed")).status).toBe(200);
    let changed = false;
    for (let i = 0; i < 50 && !changed; i++) {
      await Bun.sleep(100);
      changed = (await fileHash()) !== before;
    }
    expect(changed).toBe(true);
    expect(server.logs()).not.toContain("checkpointer stopped");
    expect(await server.stop()).toBe(0);
  },
  90_000,
);

// SQLite's alone: on PostgreSQL the database server does the summing.
test.if(SANDBOX_DATABASE === "sqlite")(
  "rankings of a period without windows are summed by the server's reader process, the binary itself, which ends with it",
  async () => {
    box = await sandbox({ toml: "[tracking]\nenabled = false\n" });
    const seed = await box.withDb(seedToolServerDb);
    const server = await box.serve({ timeoutMs: 60_000 });
    const client = await connect(server.url, seed.a.key);
    try {
      // The last 7 days: not the default period, so summed from the prompts' days (a scan).
      const week = new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10);
      const ranked = await call(client, "get_prompt_performance", { start_date: week });
      expect(ranked.error).toBeNull();
      expect(ranked.data.prompts).toEqual([
        expect.objectContaining({
          id: seed.a.ids.promptId,
          answers: { total: 1, valid: 1 },
          top_competitor: expect.objectContaining({ answers: 1 }),
        }),
      ]);
      // The seeded answer names a competitor and not the brand: a gap.
      const gaps = await call(client, "get_content_gaps", { start_date: week });
      expect(gaps.error).toBeNull();
      expect(gaps.data.gaps.map((gap: { prompt_id: string }) => gap.prompt_id)).toEqual([seed.a.ids.promptId]);
      // Had the binary not started as a reader process, the scans would have run on the serving
      // thread, and the server would have said so.
      expect(server.logs()).not.toContain("reader process stopped");
    } finally {
      await client.close();
    }
    // The reader: one child of the server, the same executable, alive until the server stops.
    const readers = server.children();
    expect(readers.length).toBe(1);
    expect(readlinkSync(`/proc/${readers[0]}/exe`)).toBe(readlinkSync(`/proc/${server.pid}/exe`));
    expect(await server.stop()).toBe(0);
    for (let i = 0; i < 100 && processAlive(readers[0]!); i++) await Bun.sleep(50);
    expect(processAlive(readers[0]!)).toBe(false);
  },
  90_000,
);
