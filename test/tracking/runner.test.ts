// Tracking runs against stand-in providers on loopback (real HTTP, OpenAI and Anthropic formats).
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { type AppContext } from "../../src/context";
import { AppError } from "../../src/errors";
import { markInterruptedRuns } from "../../src/tracking/runner";
import { getRun, runTracking, startTracking, stopTracking } from "../../src/tracking/service";
import { addBrand, openApp, type SeededBrand } from "../analytics/dataset";
import {
  answer,
  empty,
  type FakeProvider,
  hang,
  httpError,
  rateLimited,
  refusal,
  startFakeAnthropic,
  startFakeOpenAI,
} from "../support/fake-providers";

const ENV = { OPENAI_TEST_KEY: "sk-test-openai", ANTHROPIC_TEST_KEY: "sk-ant-test" };
const sleeps: number[] = [];
const fastSleep = (ms: number) => {
  sleeps.push(ms);
  return Bun.sleep(1);
};

function engines(openai: FakeProvider, anthropic: FakeProvider, extra = "", tracking = "concurrency = 2") {
  return `
[tracking]
${tracking}

[[engines]]
id = "gpt"
api = "openai"
base_url = "${openai.url}"
model = "gpt-test"
api_key_env = "OPENAI_TEST_KEY"
max_retries = 2
timeout_ms = 1000
${extra}

[[engines]]
id = "claude"
api = "anthropic"
base_url = "${anthropic.url}"
model = "claude-test"
api_key_env = "ANTHROPIC_TEST_KEY"
max_retries = 2
timeout_ms = 1000
${extra}
`;
}

async function countAnswers(app: AppContext, runId?: string): Promise<number> {
  const row = await app.db.get<{ n: number }>(
    runId === undefined ? "SELECT count(*) AS n FROM answers" : "SELECT count(*) AS n FROM answers WHERE run_id = ?",
    runId === undefined ? [] : [runId],
  );
  return row!.n;
}

const fakes: FakeProvider[] = [];
const apps: AppContext[] = [];
/** An app on the test database (SQLite, or PostgreSQL with SPYGLASS_TEST_DATABASE=postgres), closed after the file. */
async function trackedApp(toml: string, options?: Parameters<typeof openApp>[1]): Promise<AppContext> {
  const app = await openApp(toml, options);
  apps.push(app);
  return app;
}
afterAll(async () => {
  await Promise.all(fakes.map((f) => f.stop()));
  for (const app of apps) await app.db.close();
});

describe("a run against scripted providers", () => {
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  let app: AppContext;
  let s: SeededBrand;

  beforeAll(async () => {
    const script = {
      "best crm": answer("Acme is the best choice; Globex is fine too. See [G2](https://www.g2.com/crm?utm_source=x).", {
        citations: ["https://acme.com/pricing"],
      }),
      "empty one": empty(),
      "refused one": refusal("I can't help with that."),
      "flaky one": [httpError(500), httpError(503), answer("Globex leads here.")],
      "throttled one": [rateLimited("2"), answer("Acme, then Globex.")],
      "broken one": httpError(500, { message: "upstream exploded" }),
    };
    openai = startFakeOpenAI({ apiKey: ENV.OPENAI_TEST_KEY, script });
    anthropic = startFakeAnthropic({ apiKey: ENV.ANTHROPIC_TEST_KEY, script });
    fakes.push(openai, anthropic);
    app = await trackedApp(engines(openai, anthropic), { llm: { env: ENV, sleep: fastSleep } });
    s = await addBrand(app, {
      name: "Acme",
      domain: "acme.com",
      competitors: [{ key: "C1", name: "Globex" }],
      prompts: ["best crm", "empty one", "refused one", "flaky one", "throttled one", "broken one"].map((text, i) => ({
        key: `P${i}`,
        text,
      })),
    });
  });

  test("every prompt × engine is stored with its status, model, latency, tokens and analysis", async () => {
    const run = await runTracking(app, s.brandId, { trigger: "cli" });
    expect(run).toMatchObject({ status: "completed", trigger: "cli", engines: ["gpt", "claude"], answers_planned: 12, answers_done: 12 });
    expect(run.answers).toEqual({ ok: 6, empty: 2, refusal: 2, error: 2 });
    expect(run.error).toContain("2 of 12 answers failed");
    // By engine: the same answers, split; every engine's statuses add up to its share of the plan.
    expect(run.by_engine.map((e) => e.engine)).toEqual(["claude", "gpt"]);
    for (const status of ["ok", "empty", "refusal", "error"] as const)
      expect(run.by_engine.reduce((sum, e) => sum + e[status], 0)).toBe(run.answers[status]);
    for (const e of run.by_engine) expect(e.ok + e.empty + e.refusal + e.error).toBe(6);
    for (const e of run.by_engine) expect(e.first_error === null).toBe(e.error === 0);

    const rows = await app.db.all<{
      text: string;
      engine: string;
      status: string;
      error: string | null;
      model: string;
      latency_ms: number;
      tokens_in: number | null;
      brand_mentioned: number;
      brand_position: number | null;
      brand_cited: number;
      prompt: string;
    }>("SELECT a.*, p.text AS prompt FROM answers a JOIN prompts p ON p.id = a.prompt_id WHERE run_id = ?", [run.id]);
    const by = (prompt: string, engine: string) => rows.find((r) => r.prompt === prompt && r.engine === engine)!;
    for (const engine of ["gpt", "claude"]) {
      expect(by("best crm", engine)).toMatchObject({
        status: "ok",
        brand_mentioned: 1,
        brand_position: 1,
        brand_cited: 1,
        model: "fake-model",
      });
      expect(by("best crm", engine).latency_ms).toBeGreaterThanOrEqual(0);
      expect(by("best crm", engine).tokens_in).toBeGreaterThan(0);
      expect(by("empty one", engine).status).toBe("empty");
      expect(by("refused one", engine).status).toBe("refusal");
      expect(by("flaky one", engine)).toMatchObject({ status: "ok", brand_mentioned: 0 });
      expect(by("throttled one", engine)).toMatchObject({ status: "ok", brand_position: 1 });
      expect(by("broken one", engine)).toMatchObject({ status: "error", brand_mentioned: 0 });
      expect(by("broken one", engine).error).toContain("HTTP 500");
    }
    // Retry-After: 2 seconds was honoured (the injected sleep recorded it, once per engine, by the
    // throttled request; the engine's other requests sent meanwhile waited for the rest of that pause).
    expect(sleeps.filter((ms) => ms === 2000).length).toBeGreaterThanOrEqual(2);
    expect(sleeps.every((ms) => ms <= 2000)).toBe(true);

    // Mentions and normalised citations of the valid answers were stored with the answer.
    const best = by("best crm", "gpt") as unknown as { id: number };
    const cites = await app.db.all<{ url: string; domain: string }>("SELECT url, domain FROM citations WHERE answer_id = ? ORDER BY url", [
      best.id,
    ]);
    expect(cites).toEqual([
      { url: "https://acme.com/pricing", domain: "acme.com" },
      { url: "https://g2.com/crm", domain: "g2.com" },
    ]);
    const mentions = await app.db.all<{ member_id: string; rank: number }>(
      "SELECT member_id, rank FROM mentions WHERE answer_id = ? ORDER BY rank",
      [best.id],
    );
    expect(mentions).toEqual([
      { member_id: s.brandId, rank: 1 },
      { member_id: s.competitors.C1!, rank: 2 },
    ]);
  });

  test("a run restricted to some prompts and engines plans only those", async () => {
    const run = await runTracking(app, s.brandId, { trigger: "tool", promptIds: [s.prompts.P0!], engines: ["claude"] });
    expect(run).toMatchObject({ status: "completed", answers_planned: 1, answers_done: 1, engines: ["claude"] });
  });

  test("unknown engines and prompts are refused with a clear message", async () => {
    await expect(startTracking(app, s.brandId, { trigger: "tool", engines: ["nope"] })).rejects.toThrow(
      'engines: "nope" is not a configured engine; use one of gpt, claude.',
    );
    await expect(startTracking(app, s.brandId, { trigger: "tool", engines: ["ChatGPT", "gpt"] })).rejects.toThrow(
      'engines: "ChatGPT" is not a configured engine; use one of gpt, claude.',
    );
    await expect(startTracking(app, s.brandId, { trigger: "tool", promptIds: ["prm_missing"] })).rejects.toThrow(/not found/);
  });
});

describe("limits, overlap, interruption", () => {
  let openai: FakeProvider;
  let anthropic: FakeProvider;
  afterEach(async () => {
    await openai?.stop();
    await anthropic?.stop();
  });

  test("each engine's concurrency limit is respected, engines run in parallel", async () => {
    // Answers slow enough that the workers' claims (a query each) overlap under any load.
    openai = startFakeOpenAI({ latencyMs: 200, fallback: answer("Acme.") });
    anthropic = startFakeAnthropic({ latencyMs: 200, fallback: answer("Acme.") });
    const app = await trackedApp(engines(openai, anthropic, "", "concurrency = 3"), { llm: { env: ENV } });
    const s = await addBrand(app, { name: "Acme", prompts: Array.from({ length: 12 }, (_, i) => ({ key: `P${i}`, text: `prompt ${i}` })) });
    let both = false;
    const watch = setInterval(() => {
      if (openai.inFlight > 0 && anthropic.inFlight > 0) both = true;
    }, 5);
    const run = await runTracking(app, s.brandId, { trigger: "cli" });
    clearInterval(watch);
    expect(run.answers_done).toBe(24);
    expect(openai.maxInFlight).toBe(3);
    expect(anthropic.maxInFlight).toBe(3);
    // The two engines were asked at the same time, not one after the other.
    expect(both).toBe(true);
  });

  test("two runs of the same brand never overlap; another brand may run meanwhile", async () => {
    openai = startFakeOpenAI({ latencyMs: 150, fallback: answer("Acme.") });
    anthropic = startFakeAnthropic({ latencyMs: 150, fallback: answer("Acme.") });
    const app = await trackedApp(engines(openai, anthropic), { llm: { env: ENV } });
    const a = await addBrand(app, { name: "Acme", prompts: [{ key: "P", text: "one" }] });
    const b = await addBrand(app, { name: "Other", prompts: [{ key: "P", text: "two" }] });
    const first = await startTracking(app, a.brandId, { trigger: "tool" });
    expect(first.run.status).toBe("running");
    let error: unknown;
    try {
      await startTracking(app, a.brandId, { trigger: "cli" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe("run_in_progress");
    expect((error as AppError).message).toContain(first.run.id);
    const other = await runTracking(app, b.brandId, { trigger: "tool" });
    expect(other.status).toBe("completed");
    expect((await first.done).status).toBe("completed");
    // Once finished, the brand can run again.
    expect((await runTracking(app, a.brandId, { trigger: "tool" })).status).toBe("completed");
  });

  test("a run held by another instance's lease blocks a new run; one whose lease ran out is marked interrupted", async () => {
    openai = startFakeOpenAI({ fallback: answer("Acme.") });
    anthropic = startFakeAnthropic({ fallback: answer("Acme.") });
    const app = await trackedApp(engines(openai, anthropic), { llm: { env: ENV } });
    const s = await addBrand(app, { name: "Acme", prompts: [{ key: "P", text: "one" }] });
    // Another instance holds this run: its lease runs for another minute.
    await app.db.run(
      `INSERT INTO tracking_runs (id, brand_id, status, "trigger", answers_planned, owner, lease_until, started_at)
         VALUES (?, ?, 'running', 'cli', 2, 'inst_elsewhere', ?, ?)`,
      ["run_elsewhere", s.brandId, Date.now() + 60_000, Date.now()],
    );
    await expect(startTracking(app, s.brandId, { trigger: "cli" })).rejects.toThrow(
      /already under way for this brand \(run_[a-z0-9]+\); wait for it to finish \(the dashboard's Tracking page, or get_tracking_status from an AI client, shows its progress\)/,
    );
    // That instance died: its lease ran out.
    await app.db.run("UPDATE tracking_runs SET lease_until = ? WHERE id = 'run_elsewhere'", [Date.now() - 1]);
    const run = await runTracking(app, s.brandId, { trigger: "cli" });
    expect(run.status).toBe("completed");
    expect(await getRun(app, s.brandId, "run_elsewhere")).toMatchObject({ status: "interrupted" });
  });

  test("a stop aborts in-flight requests, marks the run interrupted and keeps the answers stored so far", async () => {
    openai = startFakeOpenAI({ script: (prompt) => (prompt.startsWith("fast") ? answer("Acme is good.") : hang()) });
    anthropic = startFakeAnthropic({ script: (prompt) => (prompt.startsWith("fast") ? answer("Acme is good.") : hang()) });
    // The slow questions hang until their client goes away, and its own time limit (10 minutes) is
    // far past this test's: only the stop can end them while it runs.
    const app = await trackedApp(engines(openai, anthropic, "", "concurrency = 4").replace(/timeout_ms = 1000/g, "timeout_ms = 600000"), {
      llm: { env: ENV },
    });
    const s = await addBrand(app, {
      name: "Acme",
      prompts: [
        { key: "F1", text: "fast 1" },
        { key: "F2", text: "fast 2" },
        { key: "S1", text: "slow 1" },
        { key: "S2", text: "slow 2" },
      ],
    });
    const started = await startTracking(app, s.brandId, { trigger: "cli" });
    while ((await countAnswers(app, started.run.id)) < 4 || openai.inFlight + anthropic.inFlight < 4) await Bun.sleep(10);
    await stopTracking(app, "the server stopped");
    // The providers see the four slow requests' connections closed, each before its reply.
    while (openai.inFlight + anthropic.inFlight > 0) await Bun.sleep(10);
    expect(openai.abandoned + anthropic.abandoned).toBe(4);
    const run = await started.done;
    expect(run.status).toBe("interrupted");
    expect(run.error).toBe("stopped before it finished (the server stopped); the answers stored so far are kept");
    expect(run.answers_done).toBe(4);
    expect(await countAnswers(app, run.id)).toBe(4);
    expect(run.answers).toEqual({ ok: 4, empty: 0, refusal: 0, error: 0 });
    // After a stop the runner refuses new runs (the process is going away).
    await expect(startTracking(app, s.brandId, { trigger: "cli" })).rejects.toThrow(/shutting down/);
  });

  test("at start-up a run left running by a crashed process is marked interrupted and its answers kept; the next run resumes it", async () => {
    openai = startFakeOpenAI({ fallback: answer("Acme.") });
    anthropic = startFakeAnthropic({ fallback: answer("Acme.") });
    const app = await trackedApp(engines(openai, anthropic), { llm: { env: ENV } });
    const s = await addBrand(app, {
      name: "Acme",
      prompts: [
        { key: "P", text: "one" },
        { key: "Q", text: "two" },
      ],
    });
    const run = await runTracking(app, s.brandId, { trigger: "cli" });
    // Simulate a crash mid-run: the row says running, held by an instance whose lease ran out.
    await app.db.run("UPDATE tracking_runs SET status = 'running', finished_at = NULL, owner = 'inst_gone', lease_until = ? WHERE id = ?", [
      Date.now() - 1,
      run.id,
    ]);
    expect(await markInterruptedRuns(app)).toBe(1);
    expect(await getRun(app, s.brandId, run.id)).toMatchObject({ status: "interrupted", answers_done: 4 });
    expect(await countAnswers(app, run.id)).toBe(4);
    // The next run resumes it: every slot is already answered, so nothing is asked again.
    const asked = openai.requests.length + anthropic.requests.length;
    const again = await runTracking(app, s.brandId, { trigger: "cli" });
    expect(again).toMatchObject({ id: run.id, status: "completed", answers_done: 4 });
    expect(openai.requests.length + anthropic.requests.length).toBe(asked);
    expect(await countAnswers(app)).toBe(4);
    // A completed run is not resumed: the one after it is a new run that asks again.
    const third = await runTracking(app, s.brandId, { trigger: "cli" });
    expect(third.id).not.toBe(run.id);
    expect(await countAnswers(app)).toBe(8);
  });

  test("a timeout is stored as an error with the reason; a missing API key fails the run clearly", async () => {
    openai = startFakeOpenAI({ apiKey: ENV.OPENAI_TEST_KEY, script: { slow: hang() } });
    anthropic = startFakeAnthropic({ apiKey: ENV.ANTHROPIC_TEST_KEY, fallback: answer("Acme.") });
    const app = await trackedApp(engines(openai, anthropic).replace(/max_retries = 2/g, "max_retries = 0"), {
      llm: { env: { OPENAI_TEST_KEY: ENV.OPENAI_TEST_KEY } },
    });
    const s = await addBrand(app, { name: "Acme", prompts: [{ key: "P", text: "slow" }] });
    const run = await runTracking(app, s.brandId, { trigger: "cli" });
    expect(run.status).toBe("failed");
    expect(run.error).toContain("every answer failed");
    const errors = await app.db.all<{ engine: string; error: string }>("SELECT engine, error FROM answers ORDER BY engine");
    expect(errors).toEqual([
      { engine: "claude", error: "environment variable ANTHROPIC_TEST_KEY is not set" },
      { engine: "gpt", error: "timeout after 1000 ms" },
    ]);
    expect(run.by_engine).toEqual([
      { engine: "claude", ok: 0, empty: 0, refusal: 0, error: 1, first_error: "environment variable ANTHROPIC_TEST_KEY is not set" },
      { engine: "gpt", ok: 0, empty: 0, refusal: 0, error: 1, first_error: "timeout after 1000 ms" },
    ]);
  });
});

describe("without engines", () => {
  test("run_tracking says how to configure one", async () => {
    const app = await trackedApp("");
    const s = await addBrand(app, { name: "Acme", prompts: [{ key: "P", text: "one" }] });
    await expect(startTracking(app, s.brandId, { trigger: "tool" })).rejects.toThrow(
      /No engines are configured: add an \[\[engines\]\] section/,
    );
  });

  test("a brand without active prompts is told to add some", async () => {
    const app = await trackedApp(`
[[engines]]
id = "gpt"
api = "openai"
base_url = "http://127.0.0.1:9/v1"
model = "m"
`);
    const s = await addBrand(app, { name: "Acme", prompts: [{ key: "P", text: "archived", archived: true }] });
    await expect(startTracking(app, s.brandId, { trigger: "tool" })).rejects.toThrow(/no active prompt/);
  });
});
