// Where the tool door's CPU goes beyond a bare server, measured in server context: bare Bun.serve
// processes that each add one of the door's steps to the one before, beside the compiled binary,
// all answering the same tools/list, in interleaved rounds. `bun run bench/door-layers.ts` (after
// compiling dist/spyglass). Not one of ./build.sh bench's scenarios: an investigation's tool, as
// bench/door-primitives.ts (the same steps in a loop, where each costs well under a microsecond) and
// bench/door-threads.ts (the door's CPU by thread) are.
//
// Session 41's run: 41.4 µs a request for the bare server, 39.1 from a Blob, 42.3 reading the body,
// 47.2 / 46.2 with the door's steps, 53.3 for the door. The same simulation served from inside the
// binary's own process (a scratch experiment) cost the same ~47: the binary's heap, route table and
// threads cost nothing measurable, and the ~6 µs left are our code's own bookkeeping around those
// steps (the key cache's lookups and last-use note, the origin and plan checks, the message's checks,
// the access log's line), a dozen steps of well under a microsecond each.
//
// LAYERS_ROUNDS (7), LAYERS_REQUESTS (10,000 a round and server), LAYERS_WARM_UP (30,000).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { seedToolServerData } from "../test/support/fixtures";
import { scratchDir } from "../test/support/scratch";
import { load, median, pin, requireBinary, sandbox, startPortPrinter } from "./lib";
import { type Endpoint, measuredRound } from "./public";

const ROUNDS = Number(process.env.LAYERS_ROUNDS ?? 7);
const REQUESTS = Number(process.env.LAYERS_REQUESTS ?? 10_000);
const WARM_UP = Number(process.env.LAYERS_WARM_UP ?? 30_000);
const MCP = "/api/mcp/mcp";

// Each layer is the one before it plus one step of the door's (src/mcp/routes.ts, credential.ts,
// keys/service.ts, direct.ts), written as plainly as a bare server would write it.
const LAYER_SERVER = `
const { openSync, readFileSync, readSync } = require("node:fs");
const layer = Number(process.env.LAYER);
const bytes = readFileSync(process.env.LAYER_BODY);
const blob = new Blob([bytes]);
const headers = { "content-type": "application/json" };
const shm = openSync(process.env.LAYER_SHM, "r");
const header = new Uint8Array(96);
const words = new Uint32Array(header.buffer);
const keys = new Map([[process.env.LAYER_KEY_HASH, { ok: true }]]);
const bearer = /^Bearer[ ]+(\\S+)\\s*$/i;
const pending = [];
setInterval(() => { for (const fields of pending) JSON.stringify(fields); pending.length = 0; }, 100).unref();

function credential(request) {
  const key = bearer.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
  keys.get(Bun.SHA256.hash(key, "hex"));
  readSync(shm, header, 0, 96, 0);
  return words[2] + "." + words[4] + "." + words[6] + "." + words[7] + "." + words[8] + "." + words[9];
}
function answer(request, text) {
  JSON.parse(text);
  request.headers.get("accept");
  request.headers.get("content-type");
  request.headers.get("mcp-protocol-version");
  return new Response(blob, { headers });
}
// The credential, then the Origin and the body's declared length, as the door reads them first.
function checks(request) {
  credential(request);
  request.headers.get("origin");
  request.headers.get("content-length");
}
function door(request) {
  checks(request);
  return request.text().then((text) => answer(request, text));
}
function logged(response, id, started) {
  response.headers.set("x-request-id", id);
  pending.push({ request_id: id, method: "POST", path: "${MCP}", status: response.status, ms: Math.round((performance.now() - started) * 10) / 10 });
  return response;
}
async function nestedDoor(request) {
  checks(request);
  return answer(request, await request.text());
}
const fetches = [
  () => new Response(bytes, { headers }),
  () => new Response(blob, { headers }),
  async (request) => { JSON.parse(await request.text()); return new Response(blob, { headers }); },
  (request) => { const started = performance.now(); const id = crypto.randomUUID(); return door(request).then((r) => logged(r, id, started)); },
  async (request) => {
    const started = performance.now();
    const id = crypto.randomUUID();
    let response;
    try { response = await nestedDoor(request); } catch { response = new Response("", { status: 500 }); }
    return logged(response, id, started);
  },
];
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: fetches[layer] });
process.stdout.write(server.port + "\\n");
`;

const LAYERS = [
  "bare, answering the listing's bytes",
  "bare, answering the listing as a Blob (as the door does)",
  "+ reads and parses the request's body",
  "+ the door's steps: header reads, the key's SHA-256, a -shm pread, a request id and its header, a log record",
  "+ the same inside two async functions, as the door has them",
];

export async function run(): Promise<void> {
  requireBinary();
  const box = await sandbox({ toml: "[tracking]\nenabled = false\n" });
  const stops: Array<() => void> = [];
  try {
    const seed = await seedToolServerData(join(box.dataDir, "spyglass.db"));
    const server = await box.serve({ timeoutMs: 60_000, stdoutToFile: true });
    stops.push(() => server.proc.kill("SIGKILL"));
    const headers = {
      authorization: `Bearer ${seed.a.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    };
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
    const listing = new Uint8Array(await (await fetch(`${server.url}${MCP}`, { method: "POST", headers, body })).arrayBuffer());

    const dir = scratchDir("spyglass-bench-layers-");
    writeFileSync(join(dir, "layer.js"), LAYER_SERVER);
    writeFileSync(join(dir, "listing.json"), listing);
    writeFileSync(join(dir, "db-shm"), new Uint8Array(32_768));
    const env = {
      LAYER_BODY: join(dir, "listing.json"),
      LAYER_SHM: join(dir, "db-shm"),
      LAYER_KEY_HASH: Bun.SHA256.hash(seed.a.key, "hex") as string,
    };
    const sides: Array<{ what: string; endpoint: Endpoint }> = [];
    for (const [layer, what] of LAYERS.entries()) {
      const started = await startPortPrinter([process.execPath, join(dir, "layer.js")], { ...env, LAYER: String(layer) });
      stops.push(started.stop);
      sides.push({ what, endpoint: { url: `${started.url}${MCP}`, pid: started.pid } });
    }
    sides.push({ what: "the door (dist/spyglass)", endpoint: { url: `${server.url}${MCP}`, pid: server.pid } });

    const run = (side: Endpoint, maxRequests: number) =>
      load({ url: side.url, method: "POST", headers, body, connections: 1, maxRequests, maxMs: 120_000, cpu: 1 });
    for (const { endpoint } of sides) {
      pin(endpoint.pid, 0);
      await run(endpoint, WARM_UP);
    }
    const cpu = new Map<Endpoint, number[]>(sides.map(({ endpoint }) => [endpoint, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Each round in another order, so that no side always follows the same one.
      const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
      for (const { what, endpoint } of round % 2 ? order.reverse() : order) {
        const measured = await measuredRound(endpoint, () => run(endpoint, REQUESTS), what);
        cpu.get(endpoint)!.push(measured.cpuUs);
      }
    }
    console.log(
      `tools/list (${(listing.length / 1024).toFixed(0)} KB), 1 connection, CPU µs a request: medians of ${ROUNDS} rounds of ${REQUESTS}`,
    );
    let previous: number | null = null;
    for (const { what, endpoint } of sides) {
      const values = cpu.get(endpoint)!;
      const value = median(values);
      const step = previous === null ? "" : ` (${value - previous >= 0 ? "+" : ""}${(value - previous).toFixed(1)})`;
      console.log(
        `${value.toFixed(1).padStart(6)}${step.padEnd(9)} ${what}  [${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}]`,
      );
      previous = value;
    }
  } finally {
    for (const stop of stops) stop();
    box.cleanup();
  }
}

if (import.meta.main) {
  await run();
  process.exit(0);
}
