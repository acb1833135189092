// Tracking and analytics benchmarks against the compiled binary (run: `bun run bench/tracking.ts`).
//
// 1. Analytics: `spyglass demo --scale N` (default 60 → 2,400 prompts × 3 engines × 60 days =
//    432,000 answers), then `serve`, then every analytics read tool through the MCP SDK client:
//    median and p95 over repeated calls.
// 2. A run: 1,000 prompts × 3 stand-in engines answering in 200 ms, via `spyglass track`, against the
//    ideal time the per-engine concurrency limit allows (engines run in parallel):
//    ideal = prompts × latency / concurrency.
//
// Environment: BENCH_SCALE (60), BENCH_CALLS (30), BENCH_PROMPTS (1000), BENCH_LATENCY_MS (200),
// BENCH_CONCURRENCY (8).
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { sandbox } from "../test/support/binary";
import { answer, startFakeAnthropic, startFakeOpenAI } from "../test/support/fake-providers";

const SCALE = Number(process.env.BENCH_SCALE ?? 60);
const CALLS = Number(process.env.BENCH_CALLS ?? 30);
const PROMPTS = Number(process.env.BENCH_PROMPTS ?? 1000);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);

/** Every analytics read tool, with the default filter (the last 30 days, all engines). */
const ANALYTICS_CALLS: [string, Record<string, unknown>][] = [
  ["get_visibility_overview", {}],
  ["get_visibility_trend", {}],
  ["get_competitor_ranking", {}],
  ["get_prompt_performance", {}],
  ["get_top_sources", {}],
  ["get_top_sources", { level: "url" }],
  ["get_content_gaps", {}],
  ["list_answers", {}],
  ["get_article_impact", {}],
];

function quantile(sorted: number[], q: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

async function analyticsBench(): Promise<void> {
  const box = await sandbox();
  try {
    const t0 = performance.now();
    const seeded = await box.cliJson<{ api_key: string; answers: number; prompts: number; seconds: number }>([
      "demo",
      "--scale",
      String(SCALE),
    ]);
    const seedSeconds = (performance.now() - t0) / 1000;
    console.log(
      `demo --scale ${SCALE}: ${seeded.prompts} prompts, ${seeded.answers} answers, seeded in ${seeded.seconds} s (${seedSeconds.toFixed(1)} s with process start)`,
    );
    const server = await box.serve();
    const client = new Client({ name: "spyglass-bench", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${seeded.api_key}` } },
      }),
    );
    try {
      // A page after the first (list_answers' cursor): read from the index in order, not sorted whole.
      const firstPage = await client.callTool({ name: "list_answers", arguments: {} });
      const cursor = (firstPage.structuredContent as { next_cursor: string | null }).next_cursor;
      const calls: [string, Record<string, unknown>][] = [
        ...ANALYTICS_CALLS,
        ...(cursor ? [["list_answers", { cursor }] as [string, Record<string, unknown>]] : []),
      ];
      for (const [tool, args] of calls) {
        const times: number[] = [];
        for (let i = 0; i < CALLS + 2; i++) {
          const started = performance.now();
          const result = await client.callTool({ name: tool, arguments: args });
          const elapsed = performance.now() - started;
          if (result.isError) throw new Error(`${tool}: ${JSON.stringify(result.content)}`);
          if (i >= 2) times.push(elapsed); // two warm-up calls
        }
        times.sort((a, b) => a - b);
        const label = "cursor" in args ? `${tool} (page 2)` : Object.keys(args).length ? `${tool} ${JSON.stringify(args)}` : tool;
        console.log(
          `${label.padEnd(24)} median ${quantile(times, 0.5).toFixed(1)} ms  p95 ${quantile(times, 0.95).toFixed(1)} ms  (${CALLS} calls over ${seeded.answers} answers, MCP round trip)`,
        );
      }
    } finally {
      await client.close();
      await server.stop();
    }
  } finally {
    box.cleanup();
  }
}

async function runBench(): Promise<void> {
  const reply = answer("Acme is a good choice; Globex too. See https://g2.com/crm.");
  const fakes = [
    startFakeOpenAI({ latencyMs: LATENCY_MS, fallback: reply }),
    startFakeAnthropic({ latencyMs: LATENCY_MS, fallback: reply }),
    startFakeOpenAI({ latencyMs: LATENCY_MS, fallback: reply, citationStyle: "perplexity" }),
  ];
  const engines = ["gpt", "claude", "sonar"]
    .map(
      (id, i) => `
[[engines]]
id = "${id}"
api = "${i === 1 ? "anthropic" : "openai"}"
base_url = "${fakes[i]!.url}"
model = "${id}-bench"
`,
    )
    .join("");
  const box = await sandbox({ toml: `[tracking]\nconcurrency = ${CONCURRENCY}\n${engines}` });
  try {
    await box.cliJson(["account", "create", "--email", "bench@example.com", "--password", "long enough pw", "--plan", "visibility"]);
    const brand = await box.cliJson<{ id: string }>(["brand", "create", "--email", "bench@example.com", "--name", "Acme"]);
    const db = new Database(join(box.dataDir, "spyglass.db"));
    db.transaction(() => {
      for (let i = 0; i < PROMPTS; i++) {
        db.query("INSERT INTO prompts (id, brand_id, text, text_key, created_at) VALUES (?, ?, ?, ?, ?)").run(
          `prm_b${i}`,
          brand.id,
          `bench prompt ${i}`,
          `bench prompt ${i}`,
          i,
        );
      }
    })();
    db.close();
    const started = performance.now();
    const result = await box.cli(["track", "--brand", brand.id]);
    const seconds = (performance.now() - started) / 1000;
    if (result.code !== 0) throw new Error(`track exited ${result.code}: ${result.stderr}`);
    const ideal = (PROMPTS * LATENCY_MS) / 1000 / CONCURRENCY;
    const maxInFlight = fakes.map((f) => f.maxInFlight).join("/");
    console.log(result.stdout.trim());
    console.log(
      `run: ${PROMPTS} prompts × 3 engines × ${LATENCY_MS} ms, concurrency ${CONCURRENCY}/engine: ${seconds.toFixed(2)} s wall (incl. process start) vs ideal ${ideal.toFixed(2)} s → ${(seconds / ideal).toFixed(2)}× ideal; max in flight per engine ${maxInFlight}`,
    );
  } finally {
    box.cleanup();
    await Promise.all(fakes.map((f) => f.stop()));
  }
}

/** Both parts, as `./build.sh bench` runs them (bench/index.ts). */
export async function run(): Promise<void> {
  await analyticsBench();
  await runBench();
}

if (import.meta.main) {
  const which = process.argv[2];
  if (which !== "run") await analyticsBench();
  if (which !== "analytics") await runBench();
}
