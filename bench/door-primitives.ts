// What each thing the MCP door does beyond a bare server costs, in process, beside the baseline of
// the bare server's own answer (a Response of the listing's bytes from a Blob), measured in the same
// run: `taskset -c 1 bun run bench/door-primitives.ts`. Issue 19's door row is ~50 µs of CPU a
// request against the "reads the body" ceiling's ~39 µs (bench/door.ts); this shows that no single
// call the door adds is that difference (each is under a microsecond), so it is spread over the
// async layers and allocation rather than one call to remove. Not one of ./build.sh bench's scenarios.
import { openSync, readSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDir } from "../test/support/scratch";

const N = Number(process.env.PRIMITIVE_CALLS ?? 200_000);
const listing = new Blob([new Uint8Array(112_000)]);
const headers = { "content-type": "application/json" };
const id = "0c0e0d4e-4b1c-4f6e-9d7e-2f7a7f9e2b11";
const header = `Bearer svc_live_${"A".repeat(43)}`;
const bearer = /^Bearer[ ]+(\S+)\s*$/i;
const shm = join(scratchDir("door-primitives"), "db-shm");
writeFileSync(shm, new Uint8Array(32_768));
const fd = openSync(shm, "r");
const header96 = new Uint8Array(96);

/** Microseconds a call, after a warm-up. */
function cost(fn: () => unknown): number {
  for (let i = 0; i < 20_000; i++) fn();
  const start = performance.now();
  for (let i = 0; i < N; i++) fn();
  return ((performance.now() - start) * 1000) / N;
}

const baseline = cost(() => new Response(listing, { headers }));
const rows: Array<[string, number]> = [
  ["x-request-id set on the answer", cost(() => new Response(listing, { headers }).headers.set("x-request-id", id)) - baseline],
  ["crypto.randomUUID (the request id)", cost(() => crypto.randomUUID())],
  ["SHA-256 of the key (the key cache's lookup)", cost(() => Bun.SHA256.hash(header, "hex"))],
  ["the bearer regex", cost(() => bearer.exec(header))],
  ["the WAL stamp's pread of 96 bytes", cost(() => readSync(fd, header96, 0, 96, 0))],
  ["JSON.parse of a tools/list request", cost(() => JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'))],
  ["performance.now (the access log's time)", cost(() => performance.now())],
];
console.log(`baseline: a Response of the listing from a Blob, ${baseline.toFixed(3)} µs (${N} calls each)`);
for (const [what, us] of rows) console.log(`${what.padEnd(48)} ${us.toFixed(3)} µs  (${(us / baseline).toFixed(2)}× the baseline)`);
