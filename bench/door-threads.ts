// Where the MCP door's CPU goes, by thread: a tools/list load on the compiled binary and on a bare
// server that reads the body first (bench/door.ts's ceiling), each thread's CPU per request read from
// /proc/PID/task/*/{comm,schedstat}, rounds interleaved. `bun run bench/door-threads.ts` (after
// compiling dist/spyglass); ROUNDS (3) rounds of N (4,000) requests, each after 500 of warm-up.
// The server gets this process's BUN_JSC_* variables (JavaScriptCore's options, e.g.
// BUN_JSC_useDFGJIT=false to see the door without its optimizing tiers).
//
// What it showed (Bun 1.4.5, issue 19): the JIT compiler threads (JITWorker) took 15–43 µs of CPU a
// request over the first 8,000 requests and none after ~30,000 (ROUNDS=5 N=15000); the serving
// thread itself 49–54 µs against the bare server's 42–46 once settled. bench/door.ts warms each
// server up until its JIT has settled accordingly.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../src/db/client";
import { createPrompts } from "../src/prompts/service";
import { seedToolServerData } from "../test/support/fixtures";
import { scratchDir } from "../test/support/scratch";
import { load, pin, sandbox, startPortPrinter } from "./lib";
import { startBare, threadTimes } from "./public";

const N = Number(process.env.N ?? 4000);
async function measure(
  label: string,
  url: string,
  pid: number,
  request: { method: string; headers: Record<string, string>; body: string },
) {
  pin(pid, 0);
  await load({ ...request, url, connections: 1, maxRequests: Number(process.env.WARM ?? 500), maxMs: 60_000, cpu: 1 });
  const before = threadTimes(pid, true);
  const result = await load({ ...request, url, connections: 1, maxRequests: N, maxMs: 30_000, cpu: 1 });
  const after = threadTimes(pid, true);
  const byName = new Map<string, number>();
  let total = 0;
  for (const [tid, t] of after) {
    const d = (t.ns - (before.get(tid)?.ns ?? 0)) / 1000 / result.requests;
    total += d;
    byName.set(t.name, (byName.get(t.name) ?? 0) + d);
  }
  const parts = [...byName]
    .filter(([, v]) => v > 0.05)
    .sort((a, b) => b[1] - a[1])
    .map(([n, v]) => `${n} ${v.toFixed(1)}`);
  console.log(`${label}: ${result.rps.toFixed(0)} req/s, ${total.toFixed(1)} µs/req [${parts.join(", ")}]`);
}

const box = await sandbox({ toml: "[tracking]\nenabled = false\n" });
const toolSeed = await seedToolServerData(join(box.dataDir, "spyglass.db"));
const jscEnv = Object.fromEntries(
  Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith("BUN_JSC_") && entry[1] !== undefined),
);
const server = await box.serve({ timeoutMs: 60_000, stdoutToFile: true, env: jscEnv });
const headers = {
  authorization: `Bearer ${toolSeed.a.key}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-11-25",
};
const url = `${server.url}/api/mcp/mcp`;
// CALL=list_prompts: a tools/call of list_prompts (60 prompts, 50 listed) against bench/door.ts's SDK peer.
const call = process.env.CALL === "list_prompts";
if (call) {
  const db = openDatabase(join(box.dataDir, "spyglass.db"));
  await createPrompts(
    db,
    toolSeed.a.brandId,
    Array.from({ length: 60 }, (_, i) => ({ text: `which analytics tool fits team type ${i}?`, tags: ["bench", `group ${i % 5}`] })),
  );
  db.close();
}
const body = call
  ? JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_prompts", arguments: { limit: 50 } } })
  : JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });
const sample = await fetch(url, { method: "POST", headers, body });
const text = await sample.text();
let other: { label: string; url: string; pid: number; stop(): void };
if (call) {
  const resultFile = join(box.dataDir, "list-prompts-result.json");
  writeFileSync(resultFile, JSON.stringify((JSON.parse(text) as { result: unknown }).result));
  const peer = await startPortPrinter([process.execPath, join(import.meta.dir, "sdk-peer.ts")], { PEER_RESULT: resultFile });
  other = { label: "SDK peer", url: peer.url, pid: peer.pid, stop: peer.stop };
} else {
  const bare = await startBare(
    scratchDir("bench-bare-"),
    new TextEncoder().encode(text),
    { "content-type": "application/json" },
    { readBody: true },
  );
  other = { label: "bare reading", url: `${bare.url}/api/mcp/mcp`, pid: bare.pid, stop: bare.stop };
}
for (let round = 0; round < Number(process.env.ROUNDS ?? 3); round++) {
  await measure("door", url, server.pid, { method: "POST", headers, body });
  await measure(other.label, other.url, other.pid, { method: "POST", headers, body });
}
other.stop();
await server.stop();
box.cleanup();
