// The default period's per-prompt sums (prompt_windows, tracking/prompt-windows.ts) against the
// answers themselves and against the same rankings summed from prompt_days: page by page, in both
// orders, for all engines and each one; after tracking writes, a re-analysis after roster changes,
// and a new day (the windows of an older period rebuilt in the background, figures right meanwhile).
// A large brand's rebuild on an SQLite file runs on a worker thread (db/slice-thread.ts), in either
// pass: the same rows as the serving thread's, the serving thread when the worker cannot start, and
// a stop that ends it.
import { expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FilterInput, resolveFilter, startOfUtcDay } from "../../src/analytics/filters";
import { contentGaps, promptPerformance } from "../../src/analytics/prompts";
import { type AppContext } from "../../src/context";
import { type SqliteDb } from "../../src/db/client";
import { configureLog } from "../../src/log";
import { createPrompts } from "../../src/prompts/service";
import { refreshWindows, rollWindowsForward, startWindowRollover, windowState } from "../../src/tracking/prompt-windows";
import { writeAnswers } from "../support/answers";
import { captureLog } from "../support/log";
import { scratchDir } from "../support/scratch";
import { type SeededBrand } from "./dataset";
import { addCompetitor, DAYS, ENGINES, expectFiguresFromScratch, random, storeRandom, world } from "./rollups-random-check";

const DAY = 86_400_000;
const DEFAULTS: FilterInput[] = [{}, ...ENGINES.map((engine) => ({ engine }))];

/** Every page of both rankings for the filter, walked as a client walks them. */
async function rankings(app: AppContext, s: SeededBrand, input: FilterInput) {
  const f = await resolveFilter(app, s.brandId, input);
  const pages: unknown[] = [];
  for (const order of ["visibility_desc", "visibility_asc"] as const) {
    for (let offset = 0; ; offset += 3) {
      const page = await promptPerformance(app, f, { limit: 3, offset, order });
      pages.push(page.prompts);
      if (page.next_cursor === null) break;
    }
  }
  for (let offset = 0; ; offset += 2) {
    const page = await contentGaps(app, f, { limit: 2, offset });
    pages.push([page.total_gaps, page.gaps]);
    if (page.next_cursor === null) break;
  }
  return pages;
}

const today = () => startOfUtcDay(Date.now()) / DAY;

/** The rankings with the windows set aside (state incomplete: summed from prompt_days), then rebuilt. */
async function rankingsFromDays(app: AppContext, s: SeededBrand, input: FilterInput) {
  await app.db.run("UPDATE prompt_window_state SET complete = 0 WHERE brand_id = ?", [s.brandId]);
  const pages = await rankings(app, s, input);
  await refreshWindows(app.db, s.brandId, today());
  return pages;
}

async function expectWindowsRight(app: AppContext, s: SeededBrand): Promise<void> {
  expect(await windowState(app.db, s.brandId)).toEqual({ end_day: today(), complete: 1 });
  // Each row's rate is its mentioned / valid as the rankings over the days compute it.
  const real = app.db.dialect === "postgres" ? "DOUBLE PRECISION" : "REAL";
  const wrongRates = await app.db.get<{ n: number }>(
    `SELECT count(*) AS n FROM prompt_windows
       WHERE brand_id = ? AND rate IS DISTINCT FROM (CASE WHEN valid > 0 THEN CAST(mentioned AS ${real}) / valid END)`,
    [s.brandId],
  );
  expect(Number(wrongRates!.n)).toBe(0);
  for (const input of DEFAULTS) {
    const fromWindows = await rankings(app, s, input);
    expect(await windowState(app.db, s.brandId)).toEqual({ end_day: today(), complete: 1 });
    const reader = app.db.dialect === "sqlite" && app.db.path !== ":memory:" ? app.db.reader : null;
    const scans = reader?.answered ?? 0;
    expect(fromWindows).toEqual(await rankingsFromDays(app, s, input));
    // In a SQLite file the sums over the days are read by the reader process (db/reader.ts), not on the serving thread.
    if (reader) expect(reader.answered).toBeGreaterThan(scans);
    await expectFiguresFromScratch(app, s, input);
  }
}

for (const seed of [1, 2]) {
  test(`the default period's rankings from the windows equal those summed from the days, and the answers (seed ${seed})`, async () => {
    // Seed 2 in a file: on SQLite the sums over the days then come from the reader process's connection.
    const { app, s, prompts } = await world({ file: seed === 2 });
    const rand = random(seed);
    // 40 days of answers ending today: the 30-day period and 10 days before it.
    const start = (today() - (DAYS - 1)) * DAY;
    await storeRandom(app, s, prompts, rand, 600, 0, start);
    // Nothing built yet: answered from the days, and the first ranking starts the build.
    expect(await windowState(app.db, s.brandId)).toBeUndefined();
    await expectFiguresFromScratch(app, s, {});
    await refreshWindows(app.db, s.brandId, today());
    await expectWindowsRight(app, s);
    const rows = await app.db.get<{ n: number }>("SELECT count(*) AS n FROM prompt_windows WHERE brand_id = ?", [s.brandId]);
    expect(Number(rows!.n)).toBeGreaterThan(0);

    // Tracking writes reach the windows through the same transactions, a new prompt's first answers too.
    const { created } = await createPrompts(app.db, s.brandId, [{ text: "a prompt added after the build" }]);
    await storeRandom(app, s, [...prompts, created[0]!.id], rand, 300, 10_000, start);
    // A prompt whose one answer makes its row: its rate is written with the row, never updated.
    const { created: single } = await createPrompts(app.db, s.brandId, [{ text: "a prompt answered once" }]);
    await writeAnswers(app.db, s.brandId, [
      { promptId: single[0]!.id, engine: ENGINES[0]!, text: "Roadrunner and Acme, in that order.", daysAgo: 0 },
    ]);
    await expectWindowsRight(app, s);

    // A roster change: mentions and gaps move everywhere, by re-analysis.
    await addCompetitor(app, s.brandId, "cmp_road", "Roadrunner");
    await app.db.run("DELETE FROM competitors WHERE id = ?", [s.competitors.G!]);
    await app.tracking.reanalyzeBrand(s.brandId);
    await expectWindowsRight(app, s);

    // A new day: windows of the period before today are not read; the figures stay right while
    // the first ranking of the day rebuilds them, and come from them again after.
    await app.db.run("UPDATE prompt_window_state SET end_day = end_day - 1 WHERE brand_id = ?", [s.brandId]);
    await storeRandom(app, s, prompts, rand, 100, 20_000, start);
    await expectFiguresFromScratch(app, s, {});
    await refreshWindows(app.db, s.brandId, today());
    await expectWindowsRight(app, s);
    await app.db.close();
  });
}

test("a rebuild over more prompts than its first slice sums every prompt's days once", async () => {
  const { app, s, prompts } = await world();
  const created: string[] = [];
  for (const batch of [0, 1]) {
    const texts = Array.from({ length: 75 }, (_, i) => ({ text: `another prompt ${batch}-${i}` }));
    created.push(...(await createPrompts(app.db, s.brandId, texts)).created.map((p) => p.id));
  }
  const all = [...prompts, ...created];
  await storeRandom(app, s, all, random(7), 900, 0, (today() - (DAYS - 1)) * DAY);
  await refreshWindows(app.db, s.brandId, today());
  const windows = await app.db.all<{ prompt_id: string }>(
    "SELECT engine, prompt_id, total, valid, mentioned, position_sum, competitor FROM prompt_windows WHERE brand_id = ? ORDER BY 1, 2",
    [s.brandId],
  );
  const summed = await app.db.all<{ prompt_id: string }>(
    `SELECT d.engine AS engine, d.prompt_id AS prompt_id, sum(d.total) AS total, sum(d.valid) AS valid, sum(d.mentioned) AS mentioned,
            sum(d.position_sum) AS position_sum, sum(d.competitor) AS competitor
       FROM prompt_days d WHERE d.prompt_id IN (SELECT id FROM prompts WHERE brand_id = ?) AND d.day > ? AND d.day <= ?
       GROUP BY 1, 2 ORDER BY 1, 2`,
    [s.brandId, today() - 30, today()],
  );
  expect(windows).toEqual(summed);
  // The prompts span several slices (the first takes 50).
  expect(new Set(windows.map((w) => w.prompt_id)).size).toBeGreaterThan(120);
  await app.db.close();
});

test("just after midnight (and a few seconds after start) the windows of an older period are rebuilt before any ranking asks", async () => {
  const { app, s, prompts } = await world();
  const other = await world();
  const rand = random(7);
  const start = (today() - (DAYS - 1)) * DAY;
  await storeRandom(app, s, prompts, rand, 300, 0, start);
  await refreshWindows(app.db, s.brandId, today() - 1);
  // Yesterday's period, built: no ranking of today reads it.
  expect(await windowState(app.db, s.brandId)).toEqual({ end_day: today() - 1, complete: 1 });
  expect(await rollWindowsForward(app.db, today())).toBe(1);
  expect(await windowState(app.db, s.brandId)).toEqual({ end_day: today(), complete: 1 });
  await expectWindowsRight(app, s);
  // A brand that never ranked has no windows to roll.
  expect(await windowState(app.db, other.s.brandId)).toBeUndefined();

  // The timer: a day later by the clock it is given, the state follows; after stop(), nothing moves.
  let clock = Date.now() + DAY;
  const rollover = startWindowRollover(app.db, 0, () => clock);
  const rolled = async () =>
    (await windowState(app.db, s.brandId))?.end_day === today() + 1 && (await windowState(app.db, s.brandId))?.complete === 1;
  for (let k = 0; k < 500 && !(await rolled()); k++) await Bun.sleep(10);
  await rollover.stop();
  expect(await windowState(app.db, s.brandId)).toEqual({ end_day: today() + 1, complete: 1 });
  clock += DAY;
  expect(await refreshWindows(app.db, s.brandId, today() + 2)).toBeUndefined();
  expect(await windowState(app.db, s.brandId)).toEqual({ end_day: today() + 1, complete: 1 });
  await app.db.close();
  await other.app.db.close();
});

/** The windows' rows of the brand, in one order. */
async function windowRows(app: AppContext, brandId: string) {
  return app.db.all(
    "SELECT engine, prompt_id, total, valid, mentioned, position_sum, competitor, rate FROM prompt_windows WHERE brand_id = ? ORDER BY 1, 2",
    [brandId],
  );
}

/** The rebuild, its debug line read for where it ran. */
async function rebuildLogged(app: AppContext, brandId: string, options: Parameters<typeof refreshWindows>[3]): Promise<string> {
  configureLog({ level: "debug" });
  try {
    return await captureLog(() => refreshWindows(app.db, brandId, today(), options));
  } finally {
    configureLog({ level: "info" });
  }
}

test("on an SQLite file, a large brand's windows are rebuilt on a worker thread, equal to the serving thread's; a worker that cannot start leaves it to the serving thread", async () => {
  const { app, s, prompts } = await world({ sqliteFile: true });
  const all = [...prompts];
  for (const batch of [0, 1]) {
    const texts = Array.from({ length: 60 }, (_, i) => ({ text: `one more prompt ${batch}-${i}` }));
    all.push(...(await createPrompts(app.db, s.brandId, texts)).created.map((p) => p.id));
  }
  await storeRandom(app, s, all, random(11), 900, 0, (today() - (DAYS - 1)) * DAY);

  const onServing = await rebuildLogged(app, s.brandId, { offThreadFrom: Number.POSITIVE_INFINITY });
  expect(onServing).toContain('"thread":"serving"');
  const expected = await windowRows(app, s.brandId);
  expect(expected.length).toBeGreaterThan(120);

  await app.db.run("DELETE FROM prompt_windows WHERE brand_id = ?", [s.brandId]);
  const onWorker = await rebuildLogged(app, s.brandId, { offThreadFrom: 100 });
  expect(onWorker).toContain('"thread":"worker"');
  expect(await windowRows(app, s.brandId)).toEqual(expected);
  expect(await windowState(app.db, s.brandId)).toEqual({ end_day: today(), complete: 1 });

  const broken = join(scratchDir("spyglass-windows-worker-"), "broken-worker.ts");
  writeFileSync(broken, 'throw new Error("the worker could not load");\n');
  await app.db.run("DELETE FROM prompt_windows WHERE brand_id = ?", [s.brandId]);
  const fellBack = await rebuildLogged(app, s.brandId, { offThreadFrom: 100, workerUrl: broken });
  // Said once, though the worker's error is followed by its close.
  expect(fellBack.match(/the prompt windows worker did not start: the rebuild runs on the serving thread/g)).toHaveLength(1);
  expect(fellBack).toContain('"thread":"serving"');
  expect(await windowRows(app, s.brandId)).toEqual(expected);
  await app.db.close();
});

test("a stop ends a rebuild on a worker thread before its slices: the period is left incomplete, and the serving thread writes at once after it", async () => {
  const { app, s, prompts } = await world({ sqliteFile: true });
  await storeRandom(app, s, prompts, random(5), 300, 0, (today() - (DAYS - 1)) * DAY);
  const rollover = startWindowRollover(app.db, 60_000);
  const rebuilding = refreshWindows(app.db, s.brandId, today(), { offThreadFrom: 1 });
  await rollover.stop();
  await rebuilding;
  // The state moved to the period (a ranking reads the days), but no slice was summed after the stop.
  expect(await windowState(app.db, s.brandId)).toEqual({ end_day: today(), complete: 0 });
  expect(await windowRows(app, s.brandId)).toEqual([]);
  // No lock or gate left behind: a write goes through.
  await app.db.run("UPDATE prompt_window_state SET complete = 0 WHERE brand_id = ?", [s.brandId]);
  await app.db.close();
});

test("a stop ends a rebuild already handed to a worker thread at its next slice", async () => {
  const { app, s, prompts } = await world({ sqliteFile: true });
  await storeRandom(app, s, prompts, random(5), 300, 0, (today() - (DAYS - 1)) * DAY);
  const rollover = startWindowRollover(app.db, 60_000);
  // The serving thread holds the write gate: the worker, started, waits at its first transaction.
  const gate = (app.db as SqliteDb).writeGate;
  expect(gate.enter()).toBeNull();
  const rebuilding = refreshWindows(app.db, s.brandId, today(), { offThreadFrom: 1 });
  await Bun.sleep(100);
  const stopped = rollover.stop();
  gate.leave();
  await rebuilding;
  await stopped;
  // Its first transaction went through (the state moved), and no slice after it.
  expect(await windowState(app.db, s.brandId)).toEqual({ end_day: today(), complete: 0 });
  expect(await windowRows(app, s.brandId)).toEqual([]);
  await app.db.close();
});
