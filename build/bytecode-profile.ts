// The run that lays out the executable's bytecode (build/compile.ts: Bun's profile-guided bytecode
// layout). An executable started with BUN_BYTECODE_ORDER_OUT writes, as it exits, which of its
// functions it loaded and in what order; built again with that file, it has those functions' bytecode
// together at the front, so a server touches fewer of the binary's pages (measured: idle RSS 98 → 90
// MiB, the layout alone) and starts sooner. Recorded here at every build, so it is never older than the code it orders.
//
// The run is `serve` as a self-hoster's day has it: start, the warm-up and the sanitizer's self-test,
// then the dashboard, its sign-in and a tool, the MCP door (tools/list, tool calls) and the public
// content API, on the demo's data (`spyglass demo`, seeded first without recording). Only loopback,
// in a scratch data directory, with no variable of the builder's environment but PATH and HOME (no
// provider key, no PostgreSQL URL).
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

type Demo = {
  login: { email: string; password: string };
  brand: { id: string; site_key: string };
  api_key: string;
  article: { slug: string };
};

/** How long `serve` is left to itself after listening: past the warm-up (0.5 s) and the self-test. */
const SETTLE_MS = 2_500;
/** Limits, so that a wedged executable fails the build instead of hanging it. */
const DEMO_LIMIT_MS = 120_000;
const LISTEN_LIMIT_MS = 10_000;
const REQUEST_LIMIT_MS = 10_000;
/** How long `serve` has to stop after SIGTERM (it writes the record as it exits) before it is killed. */
const STOP_LIMIT_MS = 15_000;

export async function recordBytecodeOrder(binary: string, orderFile: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "spyglass-bytecode-"));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? dir, SPYGLASS_DATA: dir };
  rmSync(orderFile, { force: true });
  try {
    const seeding = Bun.spawnSync([binary, "demo", "--json"], { env, stdout: "pipe", stderr: "pipe", timeout: DEMO_LIMIT_MS });
    if (seeding.exitCode !== 0) {
      const why = seeding.exitedDueToTimeout ? `did not finish within ${DEMO_LIMIT_MS / 1000} s` : `failed (exit ${seeding.exitCode})`;
      throw new Error(`\`spyglass demo\` ${why}: ${seeding.stderr.toString().trim()}`);
    }
    const demo = JSON.parse(seeding.stdout.toString()) as Demo;
    const server = Bun.spawn([binary, "serve", "--host", "127.0.0.1", "--port", "0"], {
      env: { ...env, BUN_BYTECODE_ORDER_OUT: orderFile },
      stdout: "pipe",
      stderr: "pipe",
    });
    const stderr = new Response(server.stderr).text();
    let failure: Error | null = null;
    try {
      const url = await listeningUrl(server.stdout);
      await Bun.sleep(SETTLE_MS);
      await visit(url, demo);
    } catch (error) {
      failure = error as Error;
    }
    // Stopped and gone before its directory is removed, whatever happened: no server outlives the build.
    server.kill("SIGTERM");
    const stopped = await Promise.race([server.exited, Bun.sleep(STOP_LIMIT_MS).then(() => null)]);
    if (stopped === null) {
      server.kill("SIGKILL");
      await server.exited;
    }
    const said = (await stderr).trim();
    if (failure)
      throw new Error(`${failure.message} (\`spyglass serve\`: exit ${server.exitCode ?? server.signalCode}${said ? `, ${said}` : ""})`);
    if (stopped === null) throw new Error(`\`spyglass serve\` did not stop within ${STOP_LIMIT_MS / 1000} s of SIGTERM`);
    if (stopped !== 0) throw new Error(`\`spyglass serve\` exited ${stopped}: ${said}`);
    if (!((statSync(orderFile, { throwIfNoEntry: false })?.size ?? 0) > 0)) throw new Error(`the run left ${orderFile} missing or empty`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The URL of the server's "listening" log line (within LISTEN_LIMIT_MS). */
async function listeningUrl(stdout: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stdout.getReader();
  let late = false;
  const deadline = setTimeout(() => {
    late = true;
    void reader.cancel();
  }, LISTEN_LIMIT_MS);
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) {
        const why = late ? `did not say it was listening within ${LISTEN_LIMIT_MS / 1000} s` : "stopped before it was listening";
        throw new Error(`\`spyglass serve\` ${why}: ${text.slice(-500)}`);
      }
      text += decoder.decode(value, { stream: true });
      const match = /"msg":"listening","url":"(http:\/\/[^"]+)"/.exec(text);
      if (match) {
        // The rest of its log is not read: drained so that a full pipe never holds the server up.
        void (async () => {
          while (!(await reader.read()).done);
        })().catch(() => {});
        return match[1]!;
      }
    }
  } finally {
    clearTimeout(deadline);
  }
}

/** What a day of use asks of the server; every answer must be a success. */
async function visit(url: string, demo: Demo): Promise<void> {
  const ask = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const response = await fetch(`${url}${path}`, { ...init, signal: AbortSignal.timeout(REQUEST_LIMIT_MS) });
    if (!response.ok)
      throw new Error(`${init.method ?? "GET"} ${path} answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
    return response;
  };
  const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

  await ask("/healthz");
  // The dashboard: its page and assets (gzipped, as a browser asks), the sign-in, a tool.
  const page = await (await ask("/", { headers: { "accept-encoding": "gzip" } })).text();
  for (const [, asset] of page.matchAll(/(?:src|href)="(\/[^"]+\.(?:js|css))"/g))
    await ask(asset!, { headers: { "accept-encoding": "gzip" } });
  const signIn = await ask("/api/auth/login", json({ email: demo.login.email, password: demo.login.password }));
  const cookie = (signIn.headers.get("set-cookie") ?? "").split(";", 1)[0]!;
  await ask("/api/auth/me", { headers: { cookie } });
  const tools = `/api/brands/${demo.brand.id}/tools`;
  await ask(tools, { headers: { cookie } });
  await ask(`${tools}/get_visibility_overview`, json({}, { cookie }));

  // The MCP door, as a client with the brand's key.
  const mcp = { authorization: `Bearer ${demo.api_key}`, accept: "application/json, text/event-stream" };
  // A JSON-RPC error, or a tool's own error, comes back as HTTP 200: the run would record the error path.
  const rpc = async (id: number, method: string, params: unknown = {}) => {
    const answer = (await (await ask("/api/mcp/mcp", json({ jsonrpc: "2.0", id, method, params }, mcp))).json()) as {
      error?: { message: string };
      result?: { isError?: boolean; content?: unknown };
    };
    if (answer.error || answer.result?.isError)
      throw new Error(`${method} ${JSON.stringify(params)} failed: ${JSON.stringify(answer.error ?? answer.result?.content)}`);
  };
  await rpc(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "spyglass-build", version: "1" } });
  await rpc(2, "tools/list");
  let id = 3;
  for (const name of ["get_visibility_overview", "get_prompt_performance", "get_content_gaps", "get_top_sources", "list_prompts"]) {
    await rpc(id++, "tools/call", { name, arguments: {} });
  }

  // The public content API, as a brand's site fetches it.
  const key = `key=${encodeURIComponent(demo.brand.site_key)}`;
  await ask(`/api/public/articles?${key}`);
  await ask(`/api/public/articles/${encodeURIComponent(demo.article.slug)}?${key}`);
}
