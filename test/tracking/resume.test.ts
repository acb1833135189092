// A tracking run interrupted by a stop resumes where it was on the brand's next run (a new process,
// the schedule or run_tracking): the answers already stored are not asked again, counted at the
// stand-in providers. Two app contexts on one database (a SQLite file, or one PostgreSQL database with
// SPYGLASS_TEST_DATABASE=postgres) stand for two server processes.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { type AppContext, createAppContext } from "../../src/context";
import { type Db, openDatabase, type SqliteDb } from "../../src/db/client";
import { trackCommand } from "../../src/tracking/cli";
import { startScheduler } from "../../src/tracking/scheduler";
import { getRun, lastRun, runTracking, startTracking, stopTracking } from "../../src/tracking/service";
import { addBrand, openApp } from "../analytics/dataset";
import { TEST_DIALECT } from "../support/database";
import { answer, type FakeProvider, hang, startFakeGemini, startFakeResponses } from "../support/fake-providers";
import { captureLog } from "../support/log";
import { freshPostgresUrl } from "../support/postgres";

let hanging = true;
const script = (prompt: string) =>
  prompt.startsWith("slow") && hanging
    ? hang()
    : prompt.startsWith("long")
      ? answer(`Acme answers ${prompt} ${"at some length. ".repeat(1_500)}`, { latencyMs: 100 })
      : answer(`Acme answers ${prompt}.`);
const responses: FakeProvider = startFakeResponses({ script });
const gemini: FakeProvider = startFakeGemini({ script });
afterAll(async () => {
  await Promise.all([responses.stop(), gemini.stop()]);
});

// The stand-in engines, as [[engines]] tables of a test's configuration.
const CHATGPT = `[[engines]]
id = "chatgpt"
api = "openai-responses"
base_url = "${responses.url}"
model = "gpt-test"`;
const GEMINI = `[[engines]]
id = "gemini"
api = "gemini"
base_url = "${gemini.url}"
model = "gemini-test"`;

/** Opens one database afresh each time it is called, as a new process would. */
async function sharedDatabase(dataDir: string): Promise<() => Promise<Db>> {
  if (TEST_DIALECT === "sqlite") {
    const path = join(dataDir, "resume.db");
    return async () => openDatabase(path);
  }
  const url = await freshPostgresUrl();
  const { openPostgres } = await import("../../src/db/postgres");
  return () => openPostgres(url, { poolSize: 4 });
}

const asked = (fake: FakeProvider, prompt: string) => fake.requests.filter((r) => r.prompt === prompt).length;

test("an interrupted run resumes on the next run without asking a stored answer twice", async () => {
  const memory = await openApp(`
[tracking]
concurrency = 4
samples = 1

${CHATGPT}

${GEMINI}
`);
  await memory.db.close();
  const open = await sharedDatabase(memory.config.dataDir);
  const first: AppContext = createAppContext(memory.config, await open());
  const s = await addBrand(first, {
    name: "Acme",
    prompts: ["fast 1", "fast 2", "slow 1", "slow 2"].map((text, i) => ({ key: `P${i}`, text })),
  });

  // First process: the fast prompts are answered, the slow ones hang until the stop.
  const started = await startTracking(first, s.brandId, { trigger: "schedule" });
  const stored = async () => (await first.db.get<{ n: number }>("SELECT count(*) AS n FROM answers WHERE run_id = ?", [started.run.id]))!.n;
  while ((await stored()) < 4 || responses.inFlight + gemini.inFlight < 4) await Bun.sleep(10);
  await stopTracking(first);
  expect(await started.done).toMatchObject({ status: "interrupted", answers_done: 4, answers_planned: 8 });
  await first.db.close();
  for (const fake of [responses, gemini]) {
    expect(asked(fake, "fast 1")).toBe(1);
    expect(asked(fake, "slow 1")).toBe(1);
  }

  // Second process: the next run (here the schedule's) is the same run, and asks only what is missing.
  hanging = false;
  const second = createAppContext(memory.config, await open());
  try {
    // The dry run says so: the next run resumes this one, and sends what is missing only.
    const written: string[] = [];
    await trackCommand(second, {
      brandId: s.brandId,
      json: false,
      dryRun: true,
      out: { stdout: { write: (t: string) => written.push(t) } },
    });
    expect(written.join("")).toContain(
      `\n  the next run resumes the interrupted run ${started.run.id}: 4 of its answers are stored, so it sends about 4 requests\n`,
    );
    const resumed = await runTracking(second, s.brandId, { trigger: "schedule" });
    expect(resumed).toMatchObject({ id: started.run.id, status: "completed", answers_planned: 8, answers_done: 8, error: null });
    expect(resumed.answers).toEqual({ ok: 8, empty: 0, refusal: 0, error: 0 });
    for (const fake of [responses, gemini]) {
      expect(asked(fake, "fast 1")).toBe(1);
      expect(asked(fake, "fast 2")).toBe(1);
      expect(asked(fake, "slow 1")).toBe(2);
      expect(asked(fake, "slow 2")).toBe(2);
    }
    const slots = await second.db.get<{ n: number; distinct_slots: number }>(
      "SELECT count(*) AS n, count(DISTINCT prompt_id || engine || sample) AS distinct_slots FROM answers WHERE run_id = ?",
      [started.run.id],
    );
    expect(slots).toEqual({ n: 8, distinct_slots: 8 });

    // A finished run is not resumed again; a run restricted to other engines than an interrupted
    // run's starts afresh rather than resuming it.
    await second.db.run("UPDATE tracking_runs SET status = 'interrupted' WHERE id = ?", [started.run.id]);
    const narrow = await runTracking(second, s.brandId, { trigger: "tool", engines: ["gemini"] });
    expect(narrow.id).not.toBe(started.run.id);
    expect(narrow).toMatchObject({ status: "completed", answers_planned: 4, engines: ["gemini"] });
    expect((await getRun(second, s.brandId, started.run.id)).status).toBe("interrupted");

    // The other way round: an interrupted run of one engine, or of some prompts, started by hand, is
    // not what a run without filters (a tick, spyglass track) resumes: that one asks everything.
    const filtered: Array<{ engines?: string[]; promptIds?: string[] }> = [{ engines: ["gemini"] }, { promptIds: [s.prompts.P0!] }];
    for (const filters of filtered) {
      const partial = await runTracking(second, s.brandId, { trigger: "tool", ...filters });
      await second.db.run("UPDATE tracking_runs SET status = 'interrupted' WHERE id = ?", [partial.id]);
      const full = await runTracking(second, s.brandId, { trigger: "schedule" });
      expect(full.id).not.toBe(partial.id);
      expect(full).toMatchObject({ status: "completed", answers_planned: 8, answers_done: 8 });
      expect((await getRun(second, s.brandId, partial.id)).status).toBe("interrupted");
    }
  } finally {
    await stopTracking(second);
    await second.db.close();
  }
});

test("a resumed run asks only its missing slots of the prompts still active, and its plan counts what it stored", async () => {
  const app = await openApp(`
${CHATGPT}

${GEMINI}
`);
  const s = await addBrand(app, { name: "Acme", prompts: ["r0", "r1", "r2", "r3"].map((text, i) => ({ key: `P${i}`, text })) });
  const run = await runTracking(app, s.brandId, { trigger: "cli" });
  expect(run).toMatchObject({ status: "completed", answers_done: 8 });
  // As if it had been stopped before asking "r3", and "r2" was archived since.
  await app.db.run("DELETE FROM answers WHERE run_id = ? AND prompt_id = ?", [run.id, s.prompts.P3!]);
  await app.db.run("UPDATE tracking_runs SET status = 'interrupted', answers_done = 6 WHERE id = ?", [run.id]);
  await app.db.run("UPDATE prompts SET archived_at = ? WHERE id = ?", [Date.now(), s.prompts.P2!]);
  const before = { r2: asked(responses, "r2") + asked(gemini, "r2"), r3: asked(responses, "r3") + asked(gemini, "r3") };

  const resumed = await runTracking(app, s.brandId, { trigger: "schedule" });
  expect(resumed).toMatchObject({ id: run.id, status: "completed", answers_planned: 8, answers_done: 8 });
  expect(asked(responses, "r2") + asked(gemini, "r2")).toBe(before.r2);
  expect(asked(responses, "r3") + asked(gemini, "r3")).toBe(before.r3 + 2);
  await stopTracking(app);
  await app.db.close();
});

test("when the schedule starts, it resumes a scheduled run a stop interrupted; runs started by hand, or too old, wait for their brand's next run", async () => {
  const app = await openApp(`
[tracking]
schedule = "0 6 * * *"

${CHATGPT}
`);
  const brands = {
    scheduled: await addBrand(app, { name: "Acme", prompts: ["sched 0", "sched 1"].map((text, i) => ({ key: `P${i}`, text })) }),
    byHand: await addBrand(app, { name: "Beta", prompts: ["hand 0", "hand 1"].map((text, i) => ({ key: `P${i}`, text })) }),
    old: await addBrand(app, { name: "Gamma", prompts: ["old 0", "old 1"].map((text, i) => ({ key: `P${i}`, text })) }),
  };
  const runs = {
    scheduled: await runTracking(app, brands.scheduled.brandId, { trigger: "schedule" }),
    byHand: await runTracking(app, brands.byHand.brandId, { trigger: "tool" }),
    old: await runTracking(app, brands.old.brandId, { trigger: "schedule" }),
  };
  // As if a stop had come before each run asked its second prompt; the third run was three days ago.
  for (const key of ["scheduled", "byHand", "old"] as const) {
    await app.db.run("DELETE FROM answers WHERE run_id = ? AND prompt_id = ?", [runs[key].id, brands[key].prompts.P1!]);
    await app.db.run("UPDATE tracking_runs SET status = 'interrupted', answers_done = 1 WHERE id = ?", [runs[key].id]);
  }
  await app.db.run("UPDATE tracking_runs SET started_at = ? WHERE id = ?", [Date.now() - 3 * 86_400_000, runs.old.id]);
  const before = {
    sched0: asked(responses, "sched 0"),
    sched1: asked(responses, "sched 1"),
    hand1: asked(responses, "hand 1"),
    old1: asked(responses, "old 1"),
  };

  const logged = await captureLog(async () => {
    const scheduler = startScheduler(app)!;
    try {
      await scheduler.resumed;
    } finally {
      scheduler.stop();
    }
  });
  expect(await getRun(app, brands.scheduled.brandId, runs.scheduled.id)).toMatchObject({
    status: "completed",
    answers_done: 2,
    answers_planned: 2,
  });
  expect(asked(responses, "sched 0")).toBe(before.sched0);
  expect(asked(responses, "sched 1")).toBe(before.sched1 + 1);
  const resumedLines = logged
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line))
    .filter((line) => line.msg === "scheduled tracking resumes a run a stop interrupted");
  expect(resumedLines).toEqual([expect.objectContaining({ brand: brands.scheduled.brandId, run: runs.scheduled.id })]);
  for (const key of ["byHand", "old"] as const) {
    expect(await getRun(app, brands[key].brandId, runs[key].id)).toMatchObject({ status: "interrupted", answers_done: 1 });
  }
  expect(asked(responses, "hand 1")).toBe(before.hand1);
  expect(asked(responses, "old 1")).toBe(before.old1);
  // Nothing else ran: each brand's latest run is still the one above.
  for (const key of ["scheduled", "byHand", "old"] as const) expect((await lastRun(app, brands[key].brandId))?.id).toBe(runs[key].id);

  // Asked to resume only a run that is not the brand's latest interrupted one, the runner starts nothing.
  await expect(runTracking(app, brands.old.brandId, { trigger: "schedule", resumeOnly: "run_notthere" })).rejects.toMatchObject({
    status: 409,
    code: "not_resumable",
  });
  expect((await lastRun(app, brands.old.brandId))?.id).toBe(runs.old.id);

  // A scheduler stopped before its moment resumes nothing.
  await app.db.run("UPDATE tracking_runs SET status = 'interrupted' WHERE id = ?", [runs.scheduled.id]);
  const stopped = startScheduler(app)!;
  stopped.stop();
  await stopped.resumed;
  await Bun.sleep(1_200);
  expect((await getRun(app, brands.scheduled.brandId, runs.scheduled.id)).status).toBe("interrupted");
  await stopTracking(app);
  await app.db.close();
});

test("a run asks each prompt from its country: the engine's web search gets it as its location", async () => {
  const app = await openApp(`
${CHATGPT}
web_search = true
`);
  const s = await addBrand(app, { name: "Acme", prompts: ["from munich", "from anywhere"].map((text, i) => ({ key: `P${i}`, text })) });
  await app.db.run("UPDATE prompts SET country = 'DE' WHERE id = ?", [s.prompts.P0!]);
  await runTracking(app, s.brandId, { trigger: "cli" });
  const toolsOf = (prompt: string) => (responses.requests.findLast((r) => r.prompt === prompt)!.body as { tools: unknown[] }).tools;
  expect(toolsOf("from munich")).toEqual([{ type: "web_search", user_location: { type: "approximate", country: "DE" } }]);
  expect(toolsOf("from anywhere")).toEqual([{ type: "web_search" }]);
  await stopTracking(app);
  await app.db.close();
});

test.if(TEST_DIALECT === "sqlite")(
  "a run whose answers the database has no room for is interrupted, not failed, and the next run resumes it once there is room",
  async () => {
    const app = await openApp(`
${CHATGPT}
`);
    const s = await addBrand(app, { name: "Acme", prompts: ["long 0", "long 1", "long 2"].map((text, i) => ({ key: `P${i}`, text })) });
    const sqlite = (app.db as SqliteDb).sqlite;
    const started = await startTracking(app, s.brandId, { trigger: "cli" });
    // The disk fills up while the engine is answering: the file may not grow by a page.
    const pages = (sqlite.query("PRAGMA page_count").get() as { page_count: number }).page_count;
    sqlite.exec(`PRAGMA max_page_count = ${pages}`);
    const interrupted = await started.done;
    expect(interrupted).toMatchObject({ status: "interrupted" });
    expect(interrupted.error).toContain("a full disk?");
    expect(interrupted.error).toContain("the brand's next run resumes it");
    const stored = interrupted.answers_done;
    expect(stored).toBeLessThan(3);
    // Room again: the next run is the same one, and asks only what it lacks.
    sqlite.exec("PRAGMA max_page_count = 1073741823");
    const before = ["long 0", "long 1", "long 2"].map((p) => asked(responses, p));
    const resumed = await runTracking(app, s.brandId, { trigger: "cli" });
    expect(resumed).toMatchObject({ id: started.run.id, status: "completed", answers_done: 3 });
    const again = ["long 0", "long 1", "long 2"].map((p, i) => asked(responses, p) - before[i]!);
    expect(again.reduce((a, b) => a + b, 0)).toBe(3 - stored);
    await stopTracking(app);
    await app.db.close();
  },
);

test("a run reads each answer in its prompt's language: one in Portuguese is not scored with English words", async () => {
  const app = await openApp(`
${CHATGPT}
`);
  const s = await addBrand(app, {
    name: "Acme",
    prompts: ["melhor banco no brasil", "best bank no brasil"].map((text, i) => ({ key: `P${i}`, text })),
  });
  await app.db.run("UPDATE prompts SET language = 'pt-BR' WHERE id = ?", [s.prompts.P0!]);
  await app.db.run("UPDATE prompts SET language = 'en' WHERE id = ?", [s.prompts.P1!]);
  await runTracking(app, s.brandId, { trigger: "cli" });
  // Both answers are "Acme answers <prompt>." and hold "melhor"/"best" and "no": only the English one is scored (best +3, no −1).
  const sentiments = await app.db.all<{ prompt_id: string; sentiment: number }>(
    "SELECT prompt_id, sentiment FROM mentions WHERE brand_id = ? ORDER BY prompt_id",
    [s.brandId],
  );
  expect(Object.fromEntries(sentiments.map((m) => [m.prompt_id, m.sentiment]))).toEqual({
    [s.prompts.P0!]: 0,
    [s.prompts.P1!]: expect.any(Number),
  });
  expect(sentiments.find((m) => m.prompt_id === s.prompts.P1!)!.sentiment).toBeCloseTo(Math.tanh(2 / 5), 3);
  await stopTracking(app);
  await app.db.close();
});
