// Public content API: throughput of the list and single-article endpoints of the compiled binary,
// as a ratio to a bare Bun.serve answering the same bytes with the same headers in the same run,
// at 1 and 32 connections. `bun run bench/public.ts` (after compiling dist/spyglass).
//
// Two figures per case, because the machine may be shared with other work:
//   - rps ratio: requests per second of spyglass over those of the bare server, each pair measured
//     back to back (alternating which goes first), ROUNDS times, median reported (what was asked;
//     noisy on a busy machine);
//   - CPU ratio: CPU time the bare server spends per request over what spyglass spends, both read
//     from /proc for the same number of requests (robust to other load: what throughput would be
//     when the server, not the machine, is the limit).
// The bare server runs in its own process, like the binary, so neither shares the load generator's.
// To tell whether a change made serving cheaper, compare binaries with bench/compare.ts instead:
// it interleaves their rounds, which one run of this file cannot do for two commits.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createBrand } from "../src/brands/service";
import { publishArticle } from "../src/content/publishing";
import { createArticle } from "../src/content/service";
import { openDatabase } from "../src/db/client";
import { accounts } from "../src/db/schema";
import { EventHub } from "../src/events";
import { newId } from "../src/ids";
import { scratchDir } from "../test/support/scratch";
import { type LoadResult, load, median, PLAIN_BODY, pin, report, requireBinary, type Sandbox, sandbox, startPortPrinter } from "./lib";

const NAME = "public";
const ARTICLES = 50;
// Many short rounds rather than a few long ones: on a shared 2-core VM one round's ratio ranges
// from 0.6 to 1.2, and the median of 15 moves much less from run to run than the median of 7.
const ROUNDS = 15;
const REQUESTS = 10_000;
const PARAGRAPH =
  "Acme CRM keeps small teams organised: contacts, deals and follow-ups in one place, with **no setup** and [a free plan](https://acme.com/pricing).\n\n";

const BARE = `
const bytes = await Bun.file(process.env.BARE_BODY).bytes();
const body = process.env.BARE_BLOB ? new Blob([bytes]) : bytes;
const headers = JSON.parse(process.env.BARE_HEADERS);
const fetch = process.env.BARE_READ
  ? async (request) => {
      JSON.parse(await request.text());
      return new Response(body, { headers });
    }
  : () => new Response(body, { headers });
const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch });
process.stdout.write(server.port + "\\n");
`;

/** A brand with ARTICLES published articles of about 8 KB of markdown each. */
export async function seed(box: Sandbox): Promise<{ siteKey: string; slug: string }> {
  const db = openDatabase(join(box.dataDir, "spyglass.db"));
  try {
    const accountId = newId("acc");
    db.orm
      .insert(accounts)
      .values({ id: accountId, email: "bench@example.com", passwordHash: "!", plan: "autopilot", createdAt: Date.now() })
      .run();
    const brand = await createBrand(db, accountId, { name: "Acme CRM", domain: "acme.com" });
    let slug = "";
    for (let i = 0; i < ARTICLES; i++) {
      const markdown = `# Article ${i}\n\n${PARAGRAPH.repeat(55)}| plan | price |\n|---|---|\n| Free | 0 |\n| Pro | 12 |\n`;
      const draft = await createArticle(db, brand.id, { title: `Article ${i}`, description: `About topic ${i}.`, markdown });
      slug = (await publishArticle({ db, events: new EventHub() }, brand.id, draft.id)).slug;
    }
    return { siteKey: brand.site_key, slug };
  } finally {
    db.close();
  }
}

/**
 * CPU time a process has run, in microseconds: the sum over its threads of the scheduler's own
 * account (/proc/PID/task/TID/schedstat, nanoseconds). /proc/PID/stat's utime + stime count in
 * 10 ms ticks, too coarse for a round of a few hundred milliseconds (one tick was a sixth of a
 * tools/list round); a thread that ends during a round takes its time with it, so rounds avoid
 * starting or stopping workers.
 */
export function cpuMicros(pid: number): number {
  let micros = 0;
  for (const ns of cpuReading(pid).threads.values()) micros += ns / 1000;
  return micros;
}

/**
 * The process's CPU time so far: each live thread's, in ns, by thread id (/proc/PID/task/TID/schedstat),
 * and the whole process's in clock ticks (/proc/PID/stat's utime + stime, ended threads included).
 */
export interface CpuReading {
  threads: Map<string, number>;
  ticks: number;
}

const TICK_MICROS = 10_000; // USER_HZ is 100 on Linux (getconf CLK_TCK)

/**
 * Each live thread's CPU time so far in ns (/proc/PID/task/TID/schedstat) by thread id, with its name
 * when asked (comm: "JITWorker", "HeapHelper"…; bench/door.ts and door-threads.ts).
 */
export function threadTimes(pid: number, named = false): Map<string, { ns: number; name: string }> {
  const threads = new Map<string, { ns: number; name: string }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      threads.set(tid, { ns, name: named ? readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trim() : "" });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return threads;
}

export function cpuReading(pid: number): CpuReading {
  const threads = new Map([...threadTimes(pid)].map(([tid, { ns }]) => [tid, ns]));
  // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { threads, ticks: Number(fields[11]) + Number(fields[12]) };
}

/**
 * The CPU microseconds the process used between two readings, summed over its threads, or null when
 * some of it went with a thread that ended: a thread alive at the first reading and gone by the
 * second, or (seen in the whole process's ticks, to their 10 ms) one that started and ended between
 * them. A sum over live threads then undercounts, or even goes backwards.
 */
export function cpuBetween(before: CpuReading, after: CpuReading): number | null {
  for (const tid of before.threads.keys()) if (!after.threads.has(tid)) return null;
  let ns = 0;
  for (const [tid, time] of after.threads) ns += time - (before.threads.get(tid) ?? 0);
  const micros = ns / 1000;
  // Ticks are counted in whole units on each side: two of slack.
  if ((after.ticks - before.ticks) * TICK_MICROS > micros + 2 * TICK_MICROS) return null;
  return micros;
}

/** CPU nanoseconds so far of the process's JIT compiler threads (JavaScriptCore's "JITWorker"). */
function jitNs(pid: number): number {
  let ns = 0;
  for (const thread of threadTimes(pid, true).values()) if (thread.name.startsWith("JITWorker")) ns += thread.ns;
  return ns;
}

/** A server under load: its URL and its process (whose CPU time is read from /proc). */
export interface Endpoint {
  url: string;
  pid: number;
}

// Warm-up: a server is measured as it runs for days, once the JIT has compiled its hot path, not
// while it still compiles. Spyglass's binary has far more code on a request's path than a bare
// server, and JavaScriptCore keeps optimizing it for tens of thousands of requests (measured,
// tools/list: the JIT threads took 15–43 µs of CPU a request over the first 8,000 requests, on top
// of 50–70 on the serving thread, and nothing after ~30,000; a bare server settles within 500).
// Each side is loaded in chunks until the JIT's share of two chunks' CPU in a row is under 2%, at most
// WARM_UP_MAX requests: the figures came from wrk rounds of seconds each, tens of
// thousands of requests a round, where a warm-up of 500 left the JIT's work inside the rounds.
const WARM_UP_CHUNK = 2_000;
const WARM_UP_MAX = Number(process.env.DOOR_WARM_UP_MAX ?? 60_000);

/** Loads `side` until its JIT is quiet (see above); the requests it took. */
export async function warmUp(side: Endpoint, run: (side: Endpoint, requests: number) => Promise<{ requests: number }>): Promise<number> {
  let requests = 0;
  // Two quiet chunks in a row: the JIT works in bursts.
  for (let quiet = 0; quiet < 2 && requests < WARM_UP_MAX; ) {
    const before = cpuReading(side.pid);
    const jitBefore = jitNs(side.pid);
    requests += (await run(side, WARM_UP_CHUNK)).requests;
    const micros = cpuBetween(before, cpuReading(side.pid));
    quiet = micros !== null && (jitNs(side.pid) - jitBefore) / 1000 < 0.02 * micros ? quiet + 1 : 0;
  }
  return requests;
}

/**
 * One side's round: `load` run once, with the server's requests per second and CPU per request. A
 * round during which one of the server's threads ended (a worker stopping when idle; JavaScriptCore's
 * JITWorker, Collector Thread and JSCWarmUp threads end and start while a server runs) loses that
 * thread's CPU time: it is run again, at most twice (`rerun` says how many times). A third such
 * round is counted from the whole process's ticks (10 ms each: about 2% of a round of 4,000
 * tools/list requests), said on stderr: on a slow host session 48 saw three in a row end two runs.
 */
export async function measuredRound(
  side: Endpoint,
  load: () => Promise<LoadResult>,
  label: string,
): Promise<{ rps: number; cpuUs: number; requests: number; rerun: number }> {
  for (let attempt = 0; ; attempt++) {
    const before = cpuReading(side.pid);
    const result = await load();
    if (result.errors > 0) throw new Error(`${label}: ${result.errors} failed requests`);
    const after = cpuReading(side.pid);
    const micros = cpuBetween(before, after);
    if (micros !== null) return { rps: result.rps, cpuUs: micros / result.requests, requests: result.requests, rerun: attempt };
    if (attempt === 2) {
      process.stderr.write(
        `${label}: a thread of the server ended in each of three attempts at a round; its CPU counted from the process's ticks\n`,
      );
      const ticked = (after.ticks - before.ticks) * TICK_MICROS;
      return { rps: result.rps, cpuUs: ticked / result.requests, requests: result.requests, rerun: attempt };
    }
  }
}

/** A response's headers for a bare server to answer with: all but those Bun.serve sets per response. */
export function replayableHeaders(response: Response): Record<string, string> {
  const kept: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!["content-length", "date", "x-request-id"].includes(name)) kept[name] = value;
  });
  return kept;
}

/**
 * A bare Bun.serve answering `body` with `headers` to every request, as `new Response(bytes)`:
 * `readBody` first reads and parses the request's body; `blob` answers from a Blob made once (which
 * a Response shares instead of copying: the door's listing and the public cache answer so).
 */
export async function startBare(
  dir: string,
  body: Uint8Array,
  headers: Record<string, string>,
  { readBody = false, blob = false }: { readBody?: boolean; blob?: boolean } = {},
) {
  const script = join(dir, "bare.mjs");
  const bodyFile = join(dir, "body.bin");
  writeFileSync(script, BARE);
  writeFileSync(bodyFile, body);
  return startPortPrinter([process.execPath, script], {
    BARE_BODY: bodyFile,
    BARE_HEADERS: JSON.stringify(headers),
    ...(readBody ? { BARE_READ: "1" } : {}),
    ...(blob ? { BARE_BLOB: "1" } : {}),
  });
}

/** What measure() found at one connection count: medians over the rounds, and each round's ratios. */
export interface PublicMeasure {
  connections: number;
  rps: number;
  bareRps: number;
  /** Spyglass's requests per second over the bare server's, per round. */
  rpsRatios: number[];
  cpuUs: number;
  bareCpuUs: number;
  /** The bare server's CPU per request over spyglass's, per round. */
  cpuRatios: number[];
}

export interface MeasureOptions {
  connections?: number[];
  rounds?: number;
  requests?: number;
}

/** `url` of the server `serverPid` against a bare Bun.serve answering its bytes, rounds interleaved; reported and returned. */
export async function measure(
  label: string,
  url: string,
  serverPid: number,
  dir: string,
  { connections: counts = [1, 32], rounds = ROUNDS, requests = REQUESTS }: MeasureOptions = {},
): Promise<PublicMeasure[]> {
  const measures: PublicMeasure[] = [];
  // The same bytes on both sides: the plain body (Spyglass gzips an article for a client that takes it).
  const sample = await fetch(url, { headers: PLAIN_BODY });
  const body = new Uint8Array(await sample.arrayBuffer());
  const headers: Record<string, string> = {};
  sample.headers.forEach((value, name) => {
    if (!["content-length", "date", "x-request-id"].includes(name)) headers[name] = value;
  });
  const bare = await startBare(dir, body, headers);
  const { pathname, search } = new URL(url);
  const bareUrl = `${bare.url}${pathname}${search}`;
  report(NAME, `${label}: body`, body.length, "bytes");
  try {
    // Both servers on CPU 0 and the load generator on CPU 1 (when pinning is possible: bench/lib.ts),
    // as bench/door.ts measures: unpinned, a server's CPU per request moved with where the scheduler
    // put it and the load generator (the bare server's from 15 to 26 µs between runs).
    pin(serverPid, 0);
    pin(bare.pid, 0);
    const ours: Endpoint = { url, pid: serverPid };
    const theirs: Endpoint = { url: bareUrl, pid: bare.pid };
    for (const connections of counts) {
      const run = (side: Endpoint, maxRequests: number) => load({ url: side.url, connections, maxRequests, maxMs: 60_000, cpu: 1 });
      await warmUp(ours, run);
      await warmUp(theirs, run);
      const rps: Array<[number, number]> = [];
      const cpu: Array<[number, number]> = [];
      for (let round = 0; round < rounds; round++) {
        // Which server goes first alternates, so that neither always meets a machine the other
        // has just warmed (or slowed).
        const measured = new Map<Endpoint, { rps: number; cpuUs: number }>();
        for (const side of round % 2 ? [theirs, ours] : [ours, theirs]) {
          measured.set(side, await measuredRound(side, () => run(side, requests), `${label}, ${connections} conn`));
        }
        rps.push([measured.get(ours)!.rps, measured.get(theirs)!.rps]);
        cpu.push([measured.get(ours)!.cpuUs, measured.get(theirs)!.cpuUs]);
      }
      const rpsRatio = median(rps.map(([a, b]) => a / b));
      const cpuRatio = median(cpu.map(([a, b]) => b / a));
      report(
        NAME,
        `${label}: rps, ${connections} conn (spyglass / bare)`,
        `${Math.round(median(rps.map((r) => r[0])))} / ${Math.round(median(rps.map((r) => r[1])))}`,
        "req/s",
      );
      report(
        NAME,
        `${label}: rps ratio, ${connections} conn`,
        rpsRatio,
        `x of bare (rounds ${rps.map(([a, b]) => (a / b).toFixed(2)).join(" ")})`,
      );
      report(
        NAME,
        `${label}: CPU per request, ${connections} conn (spyglass / bare)`,
        `${median(cpu.map((c) => c[0])).toFixed(1)} / ${median(cpu.map((c) => c[1])).toFixed(1)}`,
        "µs",
      );
      report(NAME, `${label}: CPU ratio, ${connections} conn`, cpuRatio, "x of bare (bare CPU/request over spyglass's)");
      measures.push({
        connections,
        rps: median(rps.map((r) => r[0])),
        bareRps: median(rps.map((r) => r[1])),
        rpsRatios: rps.map(([a, b]) => a / b),
        cpuUs: median(cpu.map((c) => c[0])),
        bareCpuUs: median(cpu.map((c) => c[1])),
        cpuRatios: cpu.map(([a, b]) => b / a),
      });
    }
  } finally {
    bare.stop();
  }
  return measures;
}

export async function run(): Promise<void> {
  requireBinary();
  const dir = scratchDir("spyglass-bench-public-");
  const box = await sandbox({ toml: "[tracking]\nenabled = false\n" });
  try {
    const { siteKey, slug } = await seed(box);
    const server = await box.serve({ timeoutMs: 60_000, stdoutToFile: true });
    await Bun.sleep(2_000);
    report(NAME, "server RSS when idle after start", Math.round(server.rssKb() / 1024), "MiB");
    await measure("list", `${server.url}/api/public/articles?key=${siteKey}`, server.pid, dir);
    await measure("single", `${server.url}/api/public/articles/${slug}?key=${siteKey}`, server.pid, dir);
    await measure("/healthz (reference)", `${server.url}/healthz`, server.pid, dir);
    // Over 300k requests by now: a growing figure here is a leak (the access log once was one).
    report(NAME, "server RSS after all of the above", Math.round(server.rssKb() / 1024), "MiB");
    await server.stop();
  } finally {
    box.cleanup();
  }
}

if (import.meta.main) await run();
