// The demo on PostgreSQL and the move over, through the compiled binary (issue 21): `spyglass demo`
// seeds an SQLite instance, `spyglass migrate-to-postgres` copies it into an empty PostgreSQL database
// and prints each table's rows and checksum, verified on both sides; an instance started on the copy
// serves the same figures; `spyglass demo` run directly against PostgreSQL seeds the same dataset.
import { afterAll, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, sandbox } from "../support/binary";
import { raw, rpc } from "../support/mcp";
import { freshPostgresUrl } from "../support/postgres";

setDefaultTimeout(180_000);

const boxes: Sandbox[] = [];
afterAll(() => {
  for (const box of boxes) box.cleanup();
});

interface DemoRecord {
  brand: { id: string; name: string };
  answers: number;
  prompts: number;
  api_key: string;
}

// The period every overview below is asked for, fixed once: the default one ends today, and a test
// running across midnight (UTC) would compare two different periods.
const DAY_MS = 86_400_000;
const PERIOD = {
  start_date: new Date(Date.now() - 29 * DAY_MS).toISOString().slice(0, 10),
  end_date: new Date().toISOString().slice(0, 10),
};

/** The demo brand's overview through the tool server, with the key the demo printed. */
async function overview(box: Sandbox, key: string): Promise<unknown> {
  const server = await box.serve();
  try {
    const res = await raw(server.url, {
      headers: { authorization: `Bearer ${key}` },
      body: rpc("tools/call", { name: "get_visibility_overview", arguments: PERIOD }),
    });
    expect(res.status).toBe(200);
    const result = JSON.parse(res.text).result;
    expect(result.isError).toBeFalsy();
    return result.structuredContent;
  } finally {
    await server.stop();
  }
}

test("demo on SQLite, migrate-to-postgres with counts and checksums, the same overview on the copy; demo straight on PostgreSQL", async () => {
  const sqlite = await sandbox({ database: "sqlite" });
  boxes.push(sqlite);
  const seeded = await sqlite.cliJson<DemoRecord>(["demo", "--json"]);
  expect(seeded.answers).toBeGreaterThan(1000);
  const key = seeded.api_key;
  const before = await overview(sqlite, key);

  const url = await freshPostgresUrl();
  const moved = await sqlite.cli(["migrate-to-postgres", "--json"], { env: { SPYGLASS_DATABASE_URL: url } });
  expect(moved.code).toBe(0);
  const report = JSON.parse(moved.stdout) as { rows: number; tables: Array<{ table: string; rows: number; checksum: string }> };
  const rows = Object.fromEntries(report.tables.map((t) => [t.table, t.rows]));
  expect(rows.answers).toBe(seeded.answers);
  expect(rows.prompts).toBe(seeded.prompts);
  for (const table of report.tables) expect(table.checksum).toMatch(/^[0-9a-f]{16}$/);
  // The SQLite database is marked moved: a command run without the URL (a sudo without the service's
  // environment, a cron line) refuses it rather than act on the old copy (the PostgreSQL walk revoked
  // a key there, told it was revoked, while it still worked on PostgreSQL), and so does a backup.
  const marker = join(sqlite.dataDir, "spyglass.db.moved-to-postgres");
  const record = JSON.parse(readFileSync(marker, "utf8")) as { at: string; to: string };
  expect(record.at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  expect(record.to).toStartWith("postgres");
  expect(new URL(url).password).not.toBe("");
  expect(record.to).not.toContain(new URL(url).password);
  for (const args of [
    ["key", "list", "--email", "demo@spyglass-demo.example.com"],
    ["backup", "stale.db"],
  ]) {
    const stale = await sqlite.cli(args);
    expect([args[0], stale.code]).toEqual([args[0], 1]);
    expect(stale.stderr).toContain("was copied to PostgreSQL");
    expect(stale.stderr).toContain(`to use this SQLite database again instead, delete ${marker}.`);
    expect(stale.stderr).not.toContain(new URL(url).password);
  }
  expect(existsSync(join(sqlite.dir, "stale.db"))).toBe(false);
  // A second copy into the now full database is refused, and changes nothing.
  const again = await sqlite.cli(["migrate-to-postgres"], { env: { SPYGLASS_DATABASE_URL: url } });
  expect(again.code).not.toBe(0);
  expect(again.stderr).toMatch(/not empty|holds/i);

  // Deleting the marker uses SQLite again.
  rmSync(marker);
  expect((await sqlite.cli(["key", "list", "--email", "demo@spyglass-demo.example.com"])).code).toBe(0);

  // An instance on the copy (another directory: no SQLite file there) gives the same overview.
  const onCopy = await sandbox({ env: { SPYGLASS_DATABASE_URL: url } });
  boxes.push(onCopy);
  expect(await overview(onCopy, key)).toEqual(before);

  // The demo seeded straight into PostgreSQL.
  const pgUrl = await freshPostgresUrl();
  const onPostgres = await sandbox({ env: { SPYGLASS_DATABASE_URL: pgUrl } });
  boxes.push(onPostgres);
  const direct = await onPostgres.cliJson<DemoRecord>(["demo", "--json"]);
  expect(direct.answers).toBe(seeded.answers);
  expect(direct.prompts).toBe(seeded.prompts);
  const figures = (await overview(onPostgres, direct.api_key)) as Record<string, unknown>;
  expect(Object.keys(figures).sort()).toEqual(Object.keys(before as object).sort());
});

test("serve waits for a PostgreSQL it cannot reach yet, says so once, and serves once it is up", async () => {
  const real = new URL(await freshPostgresUrl());
  // A port nothing listens on yet: the PostgreSQL of a machine or a compose file still starting.
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  const waiting = new URL(real);
  waiting.port = String(port);
  const box = await sandbox({ env: { SPYGLASS_DATABASE_URL: waiting.toString() } });
  boxes.push(box);
  const serving = box.serve({ timeoutMs: 40_000 });
  await Bun.sleep(3_000);
  // It came up: a proxy on that port to the real server.
  const proxy = Bun.listen<{ upstream?: Promise<Bun.Socket<unknown>> }>({
    hostname: "127.0.0.1",
    port,
    socket: {
      open(client) {
        client.data = {
          upstream: Bun.connect({
            hostname: real.hostname,
            port: Number(real.port),
            socket: {
              data(_s, chunk) {
                client.write(chunk);
              },
              close() {
                client.end();
              },
            },
          }),
        };
      },
      async data(client, chunk) {
        (await client.data.upstream!).write(chunk);
      },
      async close(client) {
        (await client.data.upstream)?.end();
      },
    },
  });
  try {
    const server = await serving;
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      const waited = server
        .logs()
        .split("\n")
        .filter((line) => line.includes('"msg":"waiting for PostgreSQL"'));
      expect(waited).toHaveLength(1);
      expect(waited[0]).toContain("cannot be reached");
      expect(waited[0]).not.toContain(real.password);
    } finally {
      await server.stop();
    }
  } finally {
    proxy.stop(true);
  }
});
