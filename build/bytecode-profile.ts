// The run that lays out the executable's bytecode (build/compile.ts: Bun's profile-guided bytecode
// layout). An executable started with BUN_BYTECODE_ORDER_OUT writes, as it exits, which of its
// functions it loaded and in what order; built again with that file, it has those functions' bytecode
// together at the front, so a server touches fewer of the binary's pages (measured: idle RSS 92 → 83
// MiB) and starts sooner. Recorded here at every build, so it is never older than the code it orders.
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

export async function recordBytecodeOrder(binary: string, orderFile: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "spyglass-bytecode-"));
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? dir, SPYGLASS_DATA: dir };
  rmSync(orderFile, { force: true });
  try {
    const seeding = Bun.spawnSync([binary, "demo", "--json"], { env, stdout: "pipe", stderr: "pipe" });
    if (seeding.exitCode !== 0) throw new Error(`\`spyglass demo\` failed (exit ${seeding.exitCode}): ${seeding.stderr.toString().trim()}`);
    const demo = JSON.parse(seeding.stdout.toString()) as Demo;
    const server = Bun.spawn([binary, "serve", "--host", "127.0.0.1", "--port", "0"], {
      env: { ...env, BUN_BYTECODE_ORDER_OUT: orderFile },
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const url = await listeningUrl(server.stdout);
      await Bun.sleep(SETTLE_MS);
      await visit(url, demo);
    } finally {
      server.kill("SIGTERM");
    }
    const code = await server.exited;
    if (code !== 0) throw new Error(`\`spyglass serve\` exited ${code}: ${(await new Response(server.stderr).text()).trim()}`);
    if (statSync(orderFile, { throwIfNoEntry: false })?.size === undefined) throw new Error(`the run wrote no ${orderFile}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The URL of the server's "listening" log line (within 10 s). */
async function listeningUrl(stdout: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stdout.getReader();
  const deadline = setTimeout(() => void reader.cancel(), 10_000);
  let text = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`\`spyglass serve\` did not say it was listening: ${text.slice(-500)}`);
      text += new TextDecoder().decode(value);
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
    const response = await fetch(`${url}${path}`, init);
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
  const rpc = (id: number, method: string, params: unknown = {}) => ask("/api/mcp/mcp", json({ jsonrpc: "2.0", id, method, params }, mcp));
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
