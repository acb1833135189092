// Issue 21, "Measured": Spyglass on PostgreSQL against Spyglass on SQLite, same machine, same binary,
// same data, every row a ratio to the SQLite figure measured in the same run. `bun run bench/index.ts pg`
// (after compiling dist/spyglass), or `./build.sh bench`.
//
// The data: `spyglass demo --scale N` on SQLite (scale.ts's cache), public.ts's 50 published articles
// added to it, then `spyglass migrate-to-postgres` into a fresh database of a temporary cluster this
// process owns (test/support/postgres.ts; stopped when the bench ends, failed or not). The copy rather
// than a second `spyglass demo` on PostgreSQL: it is the same data row for row (the same API key and
// answers, checked by the command's counts and checksums), and at scale 60 it took 9.4 minutes where
// seeding SQLite took 20 (`spyglass demo` straight onto PostgreSQL was not timed: its writes go through
// the same transactions, each about 30× dearer there, README). Two servers then run side by side, one on the SQLite file and one with
// SPYGLASS_DATABASE_URL, tracking off on both; the rounds visit them alternately, in alternating order.
//
//   analytics  get_visibility_overview, get_prompt_performance, get_content_gaps through the MCP SDK
//              client, as scale.ts calls them: p95 per round on each; PG ÷ SQLite per round
//   keys       small authenticated MCP requests, 1 connection (tools/list: the key and nothing else;
//              tools/call list_tags: the key and one small query): req/s, and CPU per request of the
//              server process and, on PostgreSQL, of the backends serving its pool (pg_stat_activity;
//              PostgreSQL reads the key on every request, SQLite in the server's own process)
//   public     public.ts's measure (list of 50 articles, single article; 1 connection) on each, as its
//              ratio to a bare Bun.serve answering the same bytes
//
// Not here: tracking throughput with 1, 2 and 3 instances against a stand-in provider (issue 21) waits
// for the shared work queue. It belongs here as a fourth part, "tracking": startServer(…, pgUrl) N
// times on the same database, and a stand-in provider counting what each instance sent.
//
// Environment: BENCH_PG_SCALE (60), BENCH_PG_PARTS ("analytics,keys,public"), BENCH_PG_ROUNDS (5),
// BENCH_PG_CALLS (20 tool calls per p95), BENCH_PG_REQUESTS (1,000 per keys round),
// BENCH_PG_PUBLIC_ROUNDS (7), BENCH_PG_PUBLIC_REQUESTS (3,000).
import { copyFileSync, existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import postgres from "postgres";
import { freshPostgresUrl, stopTestPostgres } from "../test/support/postgres";
import { scratchDir } from "../test/support/scratch";
import { load, median, report, requireBinary, type Sandbox, type ServerProcess, sandbox, type TargetRow, target } from "./lib";
import { cpuMicros, measure, type PublicMeasure, seed as seedArticles } from "./public";
import { seeded, TOOLS, toolP95 } from "./scale";

const NAME = "pg";
const SCALE = Number(process.env.BENCH_PG_SCALE ?? 60);
const PARTS = (process.env.BENCH_PG_PARTS ?? "analytics,keys,public").split(",");
const ROUNDS = Number(process.env.BENCH_PG_ROUNDS ?? 5);
const CALLS = Number(process.env.BENCH_PG_CALLS ?? 20);
const REQUESTS = Number(process.env.BENCH_PG_REQUESTS ?? 1_000);
const PUBLIC_ROUNDS = Number(process.env.BENCH_PG_PUBLIC_ROUNDS ?? 7);
const PUBLIC_REQUESTS = Number(process.env.BENCH_PG_PUBLIC_REQUESTS ?? 3_000);
const MCP = "/api/mcp/mcp";
const TOML = "[tracking]\nenabled = false\n";

type Side = "SQLite" | "PostgreSQL";

interface Server {
  side: Side;
  box: Sandbox;
  server: ServerProcess;
  client: Client;
  /** CPU microseconds spent so far for this server outside its own process (PostgreSQL's backends). */
  databaseCpu(): Promise<number>;
}

const spread = (values: number[], digits = 2) => `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;

/** Per round, the PostgreSQL figure over the SQLite one. */
const ratios = (pg: number[], sqlite: number[]) => pg.map((v, k) => v / sqlite[k]!);

async function startServer(side: Side, box: Sandbox, apiKey: string, databaseCpu: () => Promise<number>): Promise<Server> {
  const server = await box.serve({ timeoutMs: 60_000, stdoutToFile: true });
  const client = new Client({ name: "spyglass-bench", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}${MCP}`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    }),
  );
  return { side, box, server, client, databaseCpu };
}

/** CPU microseconds of the backends that the spyglass servers on `admin`'s database hold open. */
function backendCpu(admin: postgres.Sql): () => Promise<number> {
  return async () => {
    const rows = await admin<{ pid: number }[]>`
      SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'spyglass'`;
    let micros = 0;
    for (const { pid } of rows) {
      try {
        micros += cpuMicros(pid);
      } catch {
        // The backend ended between the listing and the read.
      }
    }
    return micros;
  };
}

async function analytics(servers: Server[]): Promise<void> {
  const p95s = new Map<string, number[]>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of round % 2 ? [...servers].reverse() : servers) {
      for (const tool of TOOLS) {
        const key = `${tool} ${s.side}`;
        p95s.set(key, [...(p95s.get(key) ?? []), await toolP95(s.client, tool, CALLS)]);
      }
    }
  }
  for (const tool of TOOLS) {
    const pg = p95s.get(`${tool} PostgreSQL`)!;
    const lite = p95s.get(`${tool} SQLite`)!;
    const r = ratios(pg, lite);
    report(
      NAME,
      `${tool} p95`,
      `PostgreSQL ${median(pg).toFixed(1)} ms (${spread(pg, 1)}), SQLite ${median(lite).toFixed(1)} ms (${spread(lite, 1)}) → ${median(r).toFixed(2)}×`,
    );
    target({
      what: `${tool} p95, ms`,
      value: median(pg).toFixed(1),
      baseline: `${median(lite).toFixed(1)} (SQLite)`,
      ratio: median(r).toFixed(2),
      target: "(PG ÷ SQLite, to know)",
      met: "",
      rounds: `${ROUNDS}, ${spread(r)}`,
    });
  }
}

async function keys(servers: Server[], apiKey: string): Promise<void> {
  const headers = {
    authorization: `Bearer ${apiKey}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2025-11-25",
  };
  const rpc = (method: string, params: object) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
  for (const [label, body] of [
    ["tools/list", rpc("tools/list", {})],
    ["tools/call list_tags", rpc("tools/call", { name: "list_tags", arguments: {} })],
  ] as const) {
    const request = (s: Server, maxRequests: number) =>
      load({ url: `${s.server.url}${MCP}`, method: "POST", headers, body, connections: 1, maxRequests, maxMs: 60_000 });
    for (const s of servers) {
      const check = await fetch(`${s.server.url}${MCP}`, { method: "POST", headers, body });
      const text = await check.text();
      if (check.status !== 200 || text.includes('"isError":true'))
        throw new Error(`${label} on ${s.side}: ${check.status} ${text.slice(0, 200)}`);
      await request(s, 300);
    }
    const figures = new Map<Side, { rps: number[]; cpu: number[]; withDb: number[] }>(
      servers.map((s) => [s.side, { rps: [], cpu: [], withDb: [] }]),
    );
    for (let round = 0; round < ROUNDS; round++) {
      for (const s of round % 2 ? [...servers].reverse() : servers) {
        const cpuBefore = cpuMicros(s.server.pid);
        const dbBefore = await s.databaseCpu();
        const result = await request(s, REQUESTS);
        const cpu = (cpuMicros(s.server.pid) - cpuBefore) / result.requests;
        const db = ((await s.databaseCpu()) - dbBefore) / result.requests;
        if (result.errors > 0) throw new Error(`${label} on ${s.side}: ${result.errors} failed requests`);
        const f = figures.get(s.side)!;
        f.rps.push(result.rps);
        f.cpu.push(cpu);
        f.withDb.push(cpu + db);
      }
    }
    const pg = figures.get("PostgreSQL")!;
    const lite = figures.get("SQLite")!;
    const rows: Array<[string, number[], number[]]> = [
      [`${label}, 1 conn: req/s`, pg.rps, lite.rps],
      [`${label}, 1 conn: CPU µs/request, server process`, pg.cpu, lite.cpu],
      [`${label}, 1 conn: CPU µs/request, server + PG backends`, pg.withDb, lite.withDb],
    ];
    for (const [what, ours, theirs] of rows) {
      const r = ratios(ours, theirs);
      report(
        NAME,
        what,
        `PostgreSQL ${median(ours).toFixed(0)}, SQLite ${median(theirs).toFixed(0)} → ${median(r).toFixed(2)}× (${spread(r)})`,
      );
      target({
        what: `key check: ${what}`,
        value: median(ours).toFixed(0),
        baseline: `${median(theirs).toFixed(0)} (SQLite)`,
        ratio: median(r).toFixed(2),
        target: "(PG ÷ SQLite, to know)",
        met: "",
        rounds: `${ROUNDS}, ${spread(r)}`,
      });
    }
  }
}

async function publicApi(servers: Server[], siteKey: string, slug: string): Promise<void> {
  const dir = scratchDir("spyglass-bench-pg-public-");
  for (const [label, path] of [
    ["public API list (50 articles)", `/api/public/articles?key=${siteKey}`],
    ["public API single article", `/api/public/articles/${slug}?key=${siteKey}`],
  ] as const) {
    const found = new Map<Side, PublicMeasure>();
    // One database after the other: each is measured against its own bare server, rounds interleaved.
    for (const s of servers) {
      const [m] = await measure(`${label}, ${s.side}`, `${s.server.url}${path}`, s.server.pid, dir, {
        connections: [1],
        rounds: PUBLIC_ROUNDS,
        requests: PUBLIC_REQUESTS,
      });
      found.set(s.side, m!);
    }
    for (const side of ["SQLite", "PostgreSQL"] as const) {
      const m = found.get(side)!;
      const row = (what: string, value: number, base: number, rs: number[]): TargetRow => ({
        what: `${label}, ${side}, 1 conn: ${what}`,
        value: value.toFixed(0),
        baseline: `${base.toFixed(0)} (bare)`,
        ratio: median(rs).toFixed(2),
        target: "0.87–0.97 (keep)",
        met: median(rs) >= 0.87 ? "yes" : "no",
        rounds: `${PUBLIC_ROUNDS}, ${spread(rs)}`,
      });
      target(row("req/s", m.rps, m.bareRps, m.rpsRatios));
      target(row("CPU µs/request", m.cpuUs, m.bareCpuUs, m.cpuRatios));
    }
    const pg = found.get("PostgreSQL")!;
    const lite = found.get("SQLite")!;
    report(
      NAME,
      `${label}: ratio to bare, PG ÷ SQLite`,
      `req/s ${(median(pg.rpsRatios) / median(lite.rpsRatios)).toFixed(2)}×, CPU ${(median(pg.cpuRatios) / median(lite.cpuRatios)).toFixed(2)}×`,
    );
  }
}

export async function run(): Promise<void> {
  requireBinary();
  const boxes: Sandbox[] = [];
  const servers: Server[] = [];
  let admin: postgres.Sql | null = null;
  try {
    const data = await seeded(SCALE);
    const lite = await sandbox({ toml: TOML });
    boxes.push(lite);
    mkdirSync(lite.dataDir, { recursive: true });
    for (const suffix of ["", "-wal"]) {
      if (existsSync(`${data.db}${suffix}`)) copyFileSync(`${data.db}${suffix}`, join(lite.dataDir, `spyglass.db${suffix}`));
    }
    const { siteKey, slug } = await seedArticles(lite);

    let started = performance.now();
    const pgUrl = await freshPostgresUrl();
    report(NAME, "temporary PostgreSQL cluster, migrated database", Math.round(performance.now() - started), "ms");
    started = performance.now();
    const copy = await lite.cli(["migrate-to-postgres", "--json"], { env: { SPYGLASS_DATABASE_URL: pgUrl } });
    if (copy.code !== 0) throw new Error(`migrate-to-postgres exited ${copy.code}: ${copy.stderr.trim()}`);
    const moved = JSON.parse(copy.stdout) as { rows: number };
    report(NAME, `migrate-to-postgres: ${moved.rows} rows`, ((performance.now() - started) / 1000).toFixed(1), "s");
    admin = postgres(pgUrl, { max: 1, onnotice: () => {} });
    const pg = await sandbox({ toml: TOML, env: { SPYGLASS_DATABASE_URL: pgUrl } });
    boxes.push(pg);

    servers.push(await startServer("SQLite", lite, data.apiKey, async () => 0));
    servers.push(await startServer("PostgreSQL", pg, data.apiKey, backendCpu(admin)));
    report(NAME, `data: demo --scale ${SCALE}`, `${data.answers} answers, the same on both`);

    if (PARTS.includes("analytics")) await analytics(servers);
    if (PARTS.includes("keys")) await keys(servers, data.apiKey);
    if (PARTS.includes("public")) await publicApi(servers, siteKey, slug);
  } finally {
    for (const s of servers) {
      await s.client.close();
      await s.server.stop();
    }
    for (const box of boxes) box.cleanup();
    await admin?.end({ timeout: 1 });
    await stopTestPostgres();
  }
}

if (import.meta.main) await run();
