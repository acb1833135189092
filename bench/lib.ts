// Benchmark building blocks, shared by every bench/*.ts scenario:
//
//   const box = await sandbox();  const server = await box.serve();      // the compiled binary (test/support/binary.ts)
//   const r = await load({ url: `${server.url}/healthz`, connections: 32, maxRequests: 20_000, maxMs: 5_000 });
//   r.rps, r.p50Ms, r.p95Ms, r.errors
//   const base = baseline('{"status":"ok"}', { "content-type": "application/json" });   // bare Bun.serve
//   base.url; base.stop();
//
// The load generator runs in a separate Bun process (so it does not share an event loop with the
// server it measures), uses keep-alive fetch with N concurrent loops, is bounded by both a request
// count and a time limit, and only talks to loopback addresses.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDir } from "../test/support/scratch";

export { BINARY, baseEnv, requireBinary, rssKbOf, type Sandbox, type ServerProcess, sandbox } from "../test/support/binary";

/** Headers that ask for the plain body: samples replayed by a bare server are fetched with them. */
export const PLAIN_BODY: Readonly<Record<string, string>> = { "accept-encoding": "identity" };

export interface LoadOptions {
  url: string;
  connections: number;
  maxRequests: number;
  maxMs: number;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** Each request's JSON-RPC id made new (`"id":1` in the body replaced by a counter from 1,000). */
  freshIds?: boolean;
  /** The CPU the load generator runs on (see pinning), when pinning is possible. */
  cpu?: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
}

const WORKER = `
const o = JSON.parse(process.env.SPYGLASS_LOAD);
const latencies = [];
let started = 0, errors = 0;
const t0 = performance.now();
const deadline = t0 + o.maxMs;
async function loop() {
  while (started < o.maxRequests && performance.now() < deadline) {
    started++;
    const s = performance.now();
    try {
      const body = o.freshIds ? o.body.replace('"id":1', '"id":' + (1000 + started)) : o.body;
      const r = await fetch(o.url, { method: o.method, headers: o.headers, body, keepalive: true });
      await r.arrayBuffer();
      if (r.status >= 400) errors++;
    } catch { errors++; }
    latencies.push(performance.now() - s);
  }
}
await Promise.all(Array.from({ length: o.connections }, loop));
const seconds = (performance.now() - t0) / 1000;
latencies.sort((a, b) => a - b);
const q = (p) => latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] : NaN;
process.stdout.write(JSON.stringify({ requests: latencies.length, errors, seconds, rps: latencies.length / seconds, p50Ms: q(0.5), p95Ms: q(0.95), p99Ms: q(0.99) }));
`;

let workerFile: string | null = null;

export async function load(options: LoadOptions): Promise<LoadResult> {
  const host = new URL(options.url).hostname;
  if (!["127.0.0.1", "localhost", "[::1]"].includes(host)) throw new Error(`load() only targets loopback, not ${host}`);
  if (!workerFile) {
    workerFile = join(scratchDir("spyglass-bench-"), "load-worker.mjs");
    writeFileSync(workerFile, WORKER);
  }
  const pinned = options.cpu !== undefined && pinning ? ["taskset", "-c", String(options.cpu)] : [];
  const proc = Bun.spawn([...pinned, process.execPath, workerFile], {
    // The plain body unless told otherwise: the public API gzips an article for a client that takes
    // it (fetch's default), where a bare server answering the same bytes would not.
    env: { ...process.env, SPYGLASS_LOAD: JSON.stringify({ method: "GET", ...options, headers: { ...PLAIN_BODY, ...options.headers } }) },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`load generator failed (${code}): ${err.trim()}`);
  return JSON.parse(out) as LoadResult;
}

/**
 * Whether processes can be pinned to a CPU: a server on one, its load generator on another (as the
 * issues' side-by-side figures were measured), so that neither takes the other's core and neither
 * migrates between them mid-round. Needs two CPUs and util-linux's `taskset`; BENCH_PIN=0 turns it off.
 */
export const pinning = process.env.BENCH_PIN !== "0" && navigator.hardwareConcurrency >= 2 && Bun.which("taskset") !== null;

/** Pins every thread of process `pid` (and the threads it starts later) to `cpu`, when pinning is possible. */
export function pin(pid: number, cpu: number): void {
  if (!pinning) return;
  const done = Bun.spawnSync(["taskset", "-a", "-c", "-p", String(cpu), String(pid)], { stdout: "ignore", stderr: "pipe" });
  if (done.exitCode !== 0) throw new Error(`taskset could not pin ${pid} to CPU ${cpu}: ${done.stderr.toString().trim()}`);
}

/** A bare Bun.serve on loopback answering every request with `body`: the ceiling to compare with. */
export function baseline(body: string | Uint8Array, headers: Record<string, string> = {}): { url: string; stop(): void } {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(body as BodyInit, { headers }) });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => void server.stop(true) };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** One result line per measurement, aligned, so runs can be compared by eye or by diff. */
export function report(scenario: string, name: string, value: number | string, unit = ""): void {
  const shown = typeof value === "number" ? (Number.isInteger(value) ? String(value) : value.toFixed(2)) : value;
  console.log(`${scenario.padEnd(12)} ${name.padEnd(44)} ${shown}${unit ? ` ${unit}` : ""}`);
}

/** One row of the targets table: a measurement, its baseline measured in the same run, and its target. */
export interface TargetRow {
  what: string;
  value: string;
  baseline: string;
  ratio: string;
  target: string;
  /** Whether the target is met ("yes"/"no"), or "" where the row has no pass mark (a figure to know). */
  met: "yes" | "no" | "";
  rounds: string;
}

const targetRows: TargetRow[] = [];

/** Adds a row to the table `./build.sh bench` prints at the end (printTargets). */
export function target(row: TargetRow): void {
  targetRows.push(row);
}

/** The rows of `rows` (or of every scenario run so far) as one aligned table. */
export function printTargets(rows: TargetRow[] = targetRows): void {
  if (rows.length === 0) return;
  const header: Record<keyof TargetRow, string> = {
    what: "what",
    value: "spyglass",
    baseline: "baseline",
    ratio: "ratio",
    target: "target",
    met: "met",
    rounds: "rounds, spread",
  };
  const keys = ["what", "value", "baseline", "ratio", "target", "met", "rounds"] as const;
  const all = [header, ...rows];
  const width = (key: (typeof keys)[number]) => Math.max(...all.map((r) => r[key].length));
  const right = new Set(["value", "baseline", "ratio"]);
  const line = (r: Record<keyof TargetRow, string>) =>
    `| ${keys.map((k) => (right.has(k) ? r[k].padStart(width(k)) : r[k].padEnd(width(k)))).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${keys.map((k) => "-".repeat(width(k) + 2)).join("|")}|`);
  for (const r of rows) console.log(line(r));
}

/** A process of our own (a baseline) that prints its port on its first line of stdout. */
export async function startPortPrinter(argv: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn(argv, { env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const next = await reader.read();
    if (next.done) throw new Error(`${argv.join(" ")} did not start`);
    text += new TextDecoder().decode(next.value);
  }
  return { url: `http://127.0.0.1:${text.trim()}`, pid: proc.pid, stop: () => proc.kill() };
}
