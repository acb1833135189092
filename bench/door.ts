// Issue 19, parts 1, 3 and 4: the MCP door, start-up and memory, each row a ratio to a baseline
// measured in the same run, printed as one table. `bun run bench/door.ts` (after compiling
// dist/spyglass), or `./build.sh bench`.
//
//   tools/list (Autopilot, ~71 KB), 1 connection   vs a bare Bun.serve answering the same bytes
//                                                  (and, for reference, against the bare one: a bare
//                                                  one that first reads and parses the body, and one
//                                                  answering from a Blob instead of the bytes)
//   tools/call list_prompts (50 prompts), 1 conn   vs a stateless peer hand-built on the same MCP SDK
//                                                  returning the same result without SQL (sdk-peer.ts)
//   public API list / single article, 1 conn       vs a bare Bun.serve answering the same bytes
//   spawn → first /healthz 200                     vs a compiled Bun hello-world, measured the same way
//   RSS idle / after the loads                     vs the bare server after the same loads
//
// Every server (ours and each baseline) runs in a process of its own, and the load generator in
// another (bench/lib.ts); the servers are pinned to one CPU and the load generator to the other,
// as the issue's figures were measured. Rounds are interleaved: each round measures ours and the
// baseline back to back, alternating which goes first, so drift on a shared machine falls on both.
// Two ratios per throughput row: requests per second (what was asked; noisy when the machine is
// shared) and CPU time per request read from /proc (the baseline's over ours: robust to other load,
// what the throughput ratio is when the server, not the machine, is the limit). Medians, with the
// rounds' spread (min–max).
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../src/db/client";
import { createPrompts } from "../src/prompts/service";
import { seedToolServerData } from "../test/support/fixtures";
import { scratchDir } from "../test/support/scratch";
import {
  target as addTarget,
  baseEnv,
  type LoadOptions,
  load,
  median,
  PLAIN_BODY,
  pin,
  pinning,
  printTargets,
  report,
  requireBinary,
  rssKbOf,
  sandbox,
  startPortPrinter,
  type TargetRow,
} from "./lib";
import { type Endpoint, measuredRound, replayableHeaders, seed as seedArticles, startBare, warmUp } from "./public";

const NAME = "door";
const MCP = "/api/mcp/mcp";
const ROUNDS = Number(process.env.DOOR_ROUNDS ?? 7);
// Requests per round and side. Rounds of 1,500 (~0.2 s) let a collection or a timer of either server
// weigh on a whole round: two runs on one machine, one after the other, read the rounds' CPU ratios
// at 0.68–0.85 (tools/list), 0.52–0.88 and 0.62–0.95 (public list and article) with 1,500, and at
// 0.76–0.85, 0.78–0.88 and 0.76–0.91 with 10,000. The issue's own figures came from wrk rounds of
// tens of thousands of requests.
const REQUESTS = Number(process.env.DOOR_REQUESTS ?? 10_000);
const START_ROUNDS = Number(process.env.DOOR_START_ROUNDS ?? 7);
// Another build to measure (an older commit's, for a before/after table); dist/spyglass by default.
const BINARY_UNDER_TEST = process.env.DOOR_BINARY || undefined;

const rows: TargetRow[] = [];

const spread = (values: number[], digits = 2) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;

/** Interleaved rounds of `ours` and `theirs` under the same request; rps and CPU/request each. */
async function sideBySide(
  label: string,
  target: string,
  ours: Endpoint,
  theirs: Endpoint,
  request: Omit<LoadOptions, "url" | "connections" | "maxRequests" | "maxMs">,
  requests = REQUESTS,
) {
  // Both servers on CPU 0 and the load generator on CPU 1 (when pinning is possible: bench/lib.ts).
  pin(ours.pid, 0);
  pin(theirs.pid, 0);
  const run = (side: Endpoint, maxRequests: number) =>
    load({ ...request, url: side.url, connections: 1, maxRequests, maxMs: 30_000, cpu: 1 });
  const warmed = [await warmUp(ours, run), await warmUp(theirs, run)];
  const rps: Array<[number, number]> = [];
  const cpu: Array<[number, number]> = [];
  let rerun = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const measured = new Map<Endpoint, { rps: number; cpuUs: number }>();
    for (const side of round % 2 ? [theirs, ours] : [ours, theirs]) {
      const m = await measuredRound(side, () => run(side, requests), `${label} (${side === ours ? "spyglass" : "baseline"})`);
      rerun += m.rerun;
      measured.set(side, m);
    }
    rps.push([measured.get(ours)!.rps, measured.get(theirs)!.rps]);
    cpu.push([measured.get(ours)!.cpuUs, measured.get(theirs)!.cpuUs]);
  }
  const rpsRatios = rps.map(([a, b]) => a / b);
  const cpuRatios = cpu.map(([a, b]) => b / a);
  // The target's first number is the ratio to reach ("≥ 0.8", "0.87–0.97 (keep)"); a row without
  // one is there for reference.
  const minimum = Number(/[\d.]+/.exec(target)?.[0] ?? Number.NaN);
  const met = (ratios: number[]) => (Number.isNaN(minimum) ? "" : median(ratios) >= minimum ? "yes" : "no");
  rows.push({
    what: `${label}, 1 conn: req/s`,
    value: String(Math.round(median(rps.map((r) => r[0])))),
    baseline: String(Math.round(median(rps.map((r) => r[1])))),
    ratio: median(rpsRatios).toFixed(2),
    target,
    met: met(rpsRatios),
    rounds: `${ROUNDS}${rerun ? ` (${rerun} run again)` : ""}, ${spread(rpsRatios)}; warm-up ${warmed[0]} / ${warmed[1]} requests`,
  });
  rows.push({
    what: `${label}, 1 conn: CPU µs/request`,
    value: median(cpu.map((c) => c[0])).toFixed(0),
    baseline: median(cpu.map((c) => c[1])).toFixed(0),
    ratio: median(cpuRatios).toFixed(2),
    target,
    met: met(cpuRatios),
    rounds: `${ROUNDS}${rerun ? ` (${rerun} run again)` : ""}, ${spread(cpuRatios)}`,
  });
}

const HELLO = `
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ status: "ok" }) });
console.log(JSON.stringify({ msg: "listening", url: "http://127.0.0.1:" + server.port }));
process.on("SIGTERM", () => process.exit(0));
`;

/**
 * Milliseconds from spawn to the first /healthz 200, measured as test/support/binary.ts's serve()
 * measures the server: its "listening" line read from stdout, then /healthz polled every 2 ms.
 */
async function spawnToHealthz(argv: string[], cwd: string): Promise<{ ms: number; pid: number; stop(): Promise<void> }> {
  const env = baseEnv();
  const spawned = performance.now();
  const proc = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.getReader();
  const decoder = new TextDecoder();
  let out = "";
  let url = "";
  while (!url) {
    const next = await reader.read();
    if (next.done) throw new Error(`${argv[0]} exited before listening: ${out}${await new Response(proc.stderr).text()}`);
    out += decoder.decode(next.value, { stream: true });
    url = /"msg":"listening","url":"(http:\/\/[^"]+)"/.exec(out)?.[1] ?? "";
  }
  // Keep draining stdout so that the process never blocks on a full pipe.
  void (async () => {
    for (let next = await reader.read(); !next.done; next = await reader.read());
  })();
  for (;;) {
    const ok = await fetch(`${url}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) break;
    if (performance.now() - spawned > 30_000) throw new Error(`${argv[0]} never answered /healthz`);
    await Bun.sleep(2);
  }
  const ms = performance.now() - spawned;
  return {
    ms,
    pid: proc.pid,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

/**
 * The binary serving a data directory whose config logs warnings only: it prints no "listening" line
 * (an info line), so it is given a free port and asked for /healthz until it answers.
 */
async function serveQuietly(binary: string, cwd: string): Promise<Endpoint & { stop(): void }> {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port;
  probe.stop(true);
  const env = baseEnv();
  const proc = Bun.spawn([binary, "serve", "--host", "127.0.0.1", "--port", String(port)], { cwd, env, stdin: "ignore", stdout: "ignore" });
  const url = `http://127.0.0.1:${port}`;
  const deadline = performance.now() + 30_000;
  while (
    !(await fetch(`${url}/healthz`).then(
      (r) => r.status === 200,
      () => false,
    ))
  ) {
    if (proc.exitCode !== null || performance.now() > deadline) throw new Error(`the quiet server did not start (exit ${proc.exitCode})`);
    await Bun.sleep(20);
  }
  return { url, pid: proc.pid, stop: () => proc.kill("SIGTERM") };
}

function rssMiB(pid: number): number {
  return Math.round(rssKbOf(pid) / 1024);
}

export async function run(): Promise<void> {
  requireBinary(BINARY_UNDER_TEST);
  rows.length = 0;
  const dir = scratchDir("spyglass-bench-door-");
  const box = await sandbox({ toml: "[tracking]\nenabled = false\n", binary: BINARY_UNDER_TEST });
  const stops: Array<() => void> = [];
  try {
    // --- start-up: the binary and a compiled hello-world, interleaved, each started on an empty data dir
    const helloSource = join(dir, "hello.ts");
    writeFileSync(helloSource, HELLO);
    const hello = join(dir, "hello");
    const built = await Bun.build({ entrypoints: [helloSource], compile: { outfile: hello }, minify: true, target: "bun" });
    if (!built.success) throw new Error(`the hello-world did not compile: ${built.logs.join("\n")}`);
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let round = 0; round < START_ROUNDS; round++) {
      for (const which of round % 2 ? ["hello", "spyglass"] : ["spyglass", "hello"]) {
        const started =
          which === "hello"
            ? await spawnToHealthz([hello], dir)
            : await spawnToHealthz([box.binary, "serve", "--host", "127.0.0.1", "--port", "0"], box.dir);
        (which === "hello" ? theirs : ours).push(started.ms);
        await started.stop();
      }
    }
    const helloIdle = await spawnToHealthz([hello], dir);
    await Bun.sleep(3_000);
    const helloIdleMiB = rssMiB(helloIdle.pid);
    await helloIdle.stop();
    rows.push({
      what: "spawn → first /healthz 200, ms",
      value: median(ours).toFixed(0),
      baseline: median(theirs).toFixed(0),
      ratio: (median(ours) / median(theirs)).toFixed(1),
      target: "≤ 150 ms",
      met: median(ours) <= 150 ? "yes" : "no",
      rounds: `${START_ROUNDS}, ${spread(ours, 0)} / ${spread(theirs, 0)} ms`,
    });

    // --- one server for the rest, seeded with the MCP bench's data and the public bench's articles
    const dbPath = join(box.dataDir, "spyglass.db");
    const toolSeed = await seedToolServerData(dbPath);
    const db = openDatabase(dbPath);
    await createPrompts(
      db,
      toolSeed.a.brandId,
      Array.from({ length: 60 }, (_, i) => ({ text: `which analytics tool fits team type ${i}?`, tags: ["bench", `group ${i % 5}`] })),
    );
    db.close();
    const { siteKey, slug } = await seedArticles(box);
    const server = await box.serve({ timeoutMs: 60_000, stdoutToFile: true });
    await Bun.sleep(3_000);
    const idle = server.rssKb() / 1024;

    const headers = {
      authorization: `Bearer ${toolSeed.a.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    };
    const rpc = (method: string, params: object) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
    const listBody = rpc("tools/list", {});
    const callBody = rpc("tools/call", { name: "list_prompts", arguments: { limit: 50 } });
    const mcpUrl = `${server.url}${MCP}`;
    const sample = async (body: string) => {
      const response = await fetch(mcpUrl, { method: "POST", headers, body });
      const text = await response.text();
      if (response.status !== 200 || text.includes('"isError":true')) throw new Error(`${response.status} ${text.slice(0, 200)}`);
      return { text, headers: replayableHeaders(response) };
    };

    // tools/list against a bare Bun.serve answering its bytes
    const list = await sample(listBody);
    const bareList = await startBare(scratchDir("spyglass-bench-bare-"), new TextEncoder().encode(list.text), list.headers);
    stops.push(bareList.stop);
    await sideBySide(
      `tools/list (Autopilot, ${(list.text.length / 1024).toFixed(0)} KB)`,
      "≥ 0.8",
      { url: mcpUrl, pid: server.pid },
      { url: `${bareList.url}${MCP}`, pid: bareList.pid },
      { method: "POST", headers, body: listBody },
    );

    // For reference, the ceiling of any JSON-RPC server on this row: a bare server that reads and
    // parses the request's body before answering the same bytes (it cannot know the id otherwise).
    const bareReading = await startBare(scratchDir("spyglass-bench-bare-"), new TextEncoder().encode(list.text), list.headers, {
      readBody: true,
    });
    stops.push(bareReading.stop);
    await sideBySide(
      "a bare server reading the body first (the ceiling), tools/list",
      "(reference)",
      { url: `${bareReading.url}${MCP}`, pid: bareReading.pid },
      { url: `${bareList.url}${MCP}`, pid: bareList.pid },
      { method: "POST", headers, body: listBody },
    );

    // For reference too: the bare server answering from a Blob made once, which a Response shares
    // where it copies a Uint8Array. The door's kept listings and the public API's cache answer so;
    // the baselines answer as a bare server is most simply written, with the bytes.
    const bareBlob = await startBare(scratchDir("spyglass-bench-bare-"), new TextEncoder().encode(list.text), list.headers, { blob: true });
    stops.push(bareBlob.stop);
    await sideBySide(
      "a bare server answering from a Blob, tools/list",
      "(reference)",
      { url: `${bareBlob.url}${MCP}`, pid: bareBlob.pid },
      { url: `${bareList.url}${MCP}`, pid: bareList.pid },
      { method: "POST", headers, body: listBody },
    );

    // For reference: the same server with its access log off (log_level = "warn"), on a copy of the
    // data. Each request's id and log line are part of what the door costs over a bare server.
    const quietBox = await sandbox({ toml: 'log_level = "warn"\n[tracking]\nenabled = false\n', binary: BINARY_UNDER_TEST });
    // Its cleanup stops the server too.
    stops.push(quietBox.cleanup);
    mkdirSync(quietBox.dataDir, { recursive: true });
    for (const suffix of ["", "-wal"]) {
      if (existsSync(`${dbPath}${suffix}`)) copyFileSync(`${dbPath}${suffix}`, join(quietBox.dataDir, `spyglass.db${suffix}`));
    }
    const quiet = await serveQuietly(quietBox.binary, quietBox.dir);
    stops.push(quiet.stop);
    await sideBySide(
      "the door with its access log off (log_level = warn), tools/list",
      "(reference)",
      { url: `${quiet.url}${MCP}`, pid: quiet.pid },
      { url: `${bareList.url}${MCP}`, pid: bareList.pid },
      { method: "POST", headers, body: listBody },
    );

    // The same with a new request id every time: answers are kept per plan and id (64 ids; clients
    // number their requests from 0 or 1), so this is the cost of an id seen for the first time.
    await sideBySide(
      `tools/list, a new id each request`,
      "≥ 0.8",
      { url: mcpUrl, pid: server.pid },
      { url: `${bareList.url}${MCP}`, pid: bareList.pid },
      { method: "POST", headers, body: listBody, freshIds: true },
    );

    // list_prompts against the hand-built SDK peer returning the same result
    const call = await sample(callBody);
    const resultFile = join(dir, "list-prompts-result.json");
    writeFileSync(resultFile, JSON.stringify((JSON.parse(call.text) as { result: unknown }).result));
    const peer = await startPortPrinter([process.execPath, join(import.meta.dir, "sdk-peer.ts")], { PEER_RESULT: resultFile });
    stops.push(peer.stop);
    const peerText = await (await fetch(peer.url, { method: "POST", headers, body: callBody })).text();
    if (JSON.stringify(JSON.parse(peerText)) !== JSON.stringify(JSON.parse(call.text)))
      throw new Error("the SDK peer's answer differs from spyglass's");
    await sideBySide(
      `tools/call list_prompts (50, ${(call.text.length / 1024).toFixed(0)} KB)`,
      "≥ 0.8",
      { url: mcpUrl, pid: server.pid },
      { url: peer.url, pid: peer.pid },
      { method: "POST", headers, body: callBody },
    );

    // the public content API against a bare Bun.serve answering its bytes
    for (const [label, path] of [
      ["public API list (50 articles)", `/api/public/articles?key=${siteKey}`],
      ["public API single article", `/api/public/articles/${slug}?key=${siteKey}`],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, { headers: PLAIN_BODY });
      const body = new Uint8Array(await response.arrayBuffer());
      const bare = await startBare(scratchDir("spyglass-bench-bare-"), body, replayableHeaders(response));
      stops.push(bare.stop);
      await sideBySide(
        label,
        "0.87–0.97 (keep)",
        { url: `${server.url}${path}`, pid: server.pid },
        { url: `${bare.url}${path}`, pid: bare.pid },
        {},
      );
    }

    // the same loads at 32 connections (the peak a memory figure must survive), on ours and on the bare server
    for (const target of [
      { url: mcpUrl, method: "POST", headers, body: listBody },
      { url: mcpUrl, method: "POST", headers, body: callBody },
      { url: `${server.url}/api/public/articles?key=${siteKey}` },
    ]) {
      await load({ ...target, connections: 32, maxRequests: 10_000, maxMs: 15_000 });
      await load({ ...target, url: target.url.replace(server.url, bareList.url), connections: 32, maxRequests: 10_000, maxMs: 15_000 });
    }
    await Bun.sleep(2_000);
    const after = server.rssKb() / 1024;
    const bareAfter = rssMiB(bareList.pid);
    rows.push({
      what: "RSS idle (3 s after start), MiB",
      value: idle.toFixed(0),
      baseline: String(helloIdleMiB),
      ratio: (idle / helloIdleMiB).toFixed(1),
      target: "≤ 100 MiB",
      met: idle <= 100 ? "yes" : "no",
      rounds: "1 (baseline: the compiled hello-world, idle)",
    });
    rows.push({
      what: "RSS after the loads, MiB",
      value: after.toFixed(0),
      baseline: String(bareAfter),
      ratio: (after / bareAfter).toFixed(1),
      target: "≤ 130 MiB",
      met: after <= 130 ? "yes" : "no",
      rounds: "1 (baseline: bare server, same loads)",
    });
    // What the render worker (jsdom) holds: one article saved starts it (and its self-test).
    const saved = await fetch(mcpUrl, {
      method: "POST",
      headers,
      body: rpc("tools/call", { name: "create_article", arguments: { title: "Memory", markdown: "# Memory\n\nOne paragraph." } }),
    });
    if (!(await saved.text()).includes('"slug"')) throw new Error("the article was not saved");
    await Bun.sleep(2_000);
    const withWorker = server.rssKb() / 1024;
    rows.push({
      what: "RSS with the render worker running (after a save), MiB",
      value: withWorker.toFixed(0),
      baseline: after.toFixed(0),
      ratio: (withWorker / after).toFixed(2),
      target: "(what jsdom holds)",
      met: "",
      rounds: "1 (baseline: the same server before the save)",
    });
    await server.stop();
  } finally {
    for (const stop of stops) stop();
    box.cleanup();
  }
  report(NAME, "servers pinned to CPU 0, load to CPU 1", pinning ? "yes" : "no (one CPU, no taskset, or BENCH_PIN=0)");
  printTargets(rows);
  for (const r of rows) addTarget(r);
  for (const r of rows)
    report(NAME, r.what, `${r.value} (baseline ${r.baseline}, ratio ${r.ratio}; target ${r.target}; rounds ${r.rounds})`);
}

if (import.meta.main) await run();
