// The figures read from the rollups (daily, per prompt, coverage occurrences) against the same
// figures computed from scratch over the stored answers, on random answer sets and random filters
// (engine, tag, prompt_id, date range), after tracking writes and re-analysis after roster changes.
// Writes arriving while a re-analysis is under way: rollups-race.test.ts.
import { expect, test } from "bun:test";
import {
  addCompetitor,
  expectFiguresFromScratch,
  expectPromptRollupsRight,
  random,
  randomFilters,
  storeRandom,
  world,
} from "./rollups-random-check";

for (const seed of [1, 2, 3]) {
  test(`rollup figures equal a computation from scratch over random answers and filters (seed ${seed})`, async () => {
    // Seed 3 in a file: on SQLite the reads that grow with the period (a tag's or prompt's figures from
    // the answers, the rankings from the days) then run in the reader process (db/reader.ts).
    const { app, s, prompts } = await world({ file: seed === 3 });
    const rand = random(seed);
    await storeRandom(app, s, prompts, rand, 600, 0);
    await expectPromptRollupsRight(app, s.brandId);
    for (const input of randomFilters(prompts, rand, 25)) await expectFiguresFromScratch(app, s, input);

    // A roster change: new mentions, ranks, gaps and coverage everywhere; then more answers.
    await addCompetitor(app, s.brandId, "cmp_road", "Roadrunner");
    await app.db.run("DELETE FROM competitors WHERE id = ?", [s.competitors.G!]);
    await app.tracking.reanalyzeBrand(s.brandId);
    await storeRandom(app, s, prompts, rand, 300, 10_000);
    await expectPromptRollupsRight(app, s.brandId);
    for (const input of randomFilters(prompts, rand, 25)) await expectFiguresFromScratch(app, s, input);
    if (app.db.dialect === "sqlite" && app.db.path !== ":memory:") expect(app.db.reader.answered).toBeGreaterThan(100);
    await app.db.close();
  });
}
