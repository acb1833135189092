// Tracking throughput with one, two and three instances (the compiled binary) on one PostgreSQL
// (issue 21): the same run (P prompts × one stand-in engine answering in L ms, `concurrency` C per
// instance) started through the first instance's run_tracking; the others take their share of its
// answers from the queue. Answers per second against the ideal the concurrency allows
// (instances × C / L), and the speed-up over one instance (target: near-linear, ≥ 0.8 × instances).
//
// Run: `bun run bench/tracking-instances.ts` (or `./build.sh bench tracking-instances`).
// Environment: BENCH_PROMPTS (480), BENCH_LATENCY_MS (200), BENCH_CONCURRENCY (4), BENCH_INSTANCES (3).

import { answer, type FakeProvider, startFakeOpenAI } from "../test/support/fake-providers";
import { raw, rpc } from "../test/support/mcp";
import { freshPostgresUrl, stopTestPostgres } from "../test/support/postgres";
import { report, type Sandbox, type ServerProcess, sandbox, target } from "./lib";

const PROMPTS = Number(process.env.BENCH_PROMPTS ?? 480);
const LATENCY_MS = Number(process.env.BENCH_LATENCY_MS ?? 200);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const MAX_INSTANCES = Number(process.env.BENCH_INSTANCES ?? 3);
const KEY_ENV = { BENCH_ENGINE_KEY: "sk-bench" };

async function tool(server: ServerProcess, key: string, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const res = await raw(server.url, { headers: { authorization: `Bearer ${key}` }, body: rpc("tools/call", { name, arguments: args }) });
  const result = JSON.parse(res.text).result;
  if (!result || result.isError) throw new Error(`${name}: ${res.text.slice(0, 300)}`);
  return result.structuredContent;
}

/** One measured run with `n` instances: answers per second from the run's start to its end. */
async function measure(n: number): Promise<{ perSecond: number; seconds: number; sent: number[] }> {
  const url = await freshPostgresUrl();
  const fakes: FakeProvider[] = [];
  const boxes: Sandbox[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const fake = startFakeOpenAI({ apiKey: KEY_ENV.BENCH_ENGINE_KEY, latencyMs: LATENCY_MS, fallback: answer("Acme is a fine choice.") });
      fakes.push(fake);
      const toml = `[tracking]\nenabled = false\nconcurrency = ${CONCURRENCY}\n\n[[engines]]\nid = "gpt"\napi = "openai"\nbase_url = "${fake.url}"\nmodel = "gpt-bench"\napi_key_env = "BENCH_ENGINE_KEY"\nmax_retries = 0\n`;
      boxes.push(await sandbox({ toml, env: { SPYGLASS_DATABASE_URL: url, ...KEY_ENV } }));
    }
    const email = "bench@example.com";
    await boxes[0]!.cliJson(["account", "create", "--email", email, "--password", "long enough pw", "--plan", "visibility"]);
    const brand = await boxes[0]!.cliJson<{ id: string }>(["brand", "create", "--email", email, "--name", "Acme", "--domain", "acme.com"]);
    const { plaintext } = await boxes[0]!.cliJson<{ plaintext: string }>([
      "key",
      "create",
      "--email",
      email,
      "--brand",
      brand.id,
      "--name",
      "bench",
    ]);
    const servers = await Promise.all(boxes.map((box) => box.serve()));
    for (let i = 0; i < PROMPTS; i += 100) {
      const prompts = Array.from({ length: Math.min(100, PROMPTS - i) }, (_, k) => ({ text: `bench prompt ${i + k}` }));
      await tool(servers[0]!, plaintext, "create_prompts", { prompts });
    }
    const started = performance.now();
    const run = (await tool(servers[0]!, plaintext, "run_tracking")).run;
    let last = run;
    while (last.status === "running") {
      await Bun.sleep(50);
      last = (await tool(servers[0]!, plaintext, "get_tracking_status")).last_run;
    }
    const seconds = (performance.now() - started) / 1000;
    if (last.status !== "completed" || last.answers_done !== PROMPTS) throw new Error(`run ended ${JSON.stringify(last).slice(0, 300)}`);
    await Promise.all(servers.map((server) => server.stop()));
    return { perSecond: PROMPTS / seconds, seconds, sent: fakes.map((f) => f.requests.length) };
  } finally {
    for (const box of boxes) box.cleanup();
    await Promise.all(fakes.map((f) => f.stop()));
  }
}

export async function run(): Promise<void> {
  try {
    const results: Array<{ n: number; perSecond: number }> = [];
    for (let n = 1; n <= MAX_INSTANCES; n++) {
      const m = await measure(n);
      const ideal = (n * CONCURRENCY * 1000) / LATENCY_MS;
      results.push({ n, perSecond: m.perSecond });
      report(
        "instances",
        `${n} instance${n > 1 ? "s" : ""}: answers/s (ideal ${ideal.toFixed(0)})`,
        m.perSecond,
        `(${m.seconds.toFixed(1)} s; requests per instance ${m.sent.join("/")})`,
      );
    }
    const one = results[0]!.perSecond;
    for (const { n, perSecond } of results.slice(1)) {
      const speedup = perSecond / one;
      target({
        what: `tracking throughput, ${n} instances on PostgreSQL`,
        value: `${perSecond.toFixed(1)}/s`,
        baseline: `1 instance ${one.toFixed(1)}/s`,
        ratio: `${speedup.toFixed(2)}×`,
        target: `≥ ${(0.8 * n).toFixed(1)}× (near-linear)`,
        met: speedup >= 0.8 * n ? "yes" : "no",
        rounds: `1 run each, ${PROMPTS} answers, ${LATENCY_MS} ms, concurrency ${CONCURRENCY}`,
      });
    }
  } finally {
    await stopTestPostgres();
  }
}

if (import.meta.main) {
  await run();
  const { printTargets } = await import("./lib");
  printTargets();
}
