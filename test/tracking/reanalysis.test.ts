// Re-analysis: editing the roster recomputes stored answers from their text and provider citations.
import { afterEach, expect, test } from "bun:test";
import { resolveFilter } from "../../src/analytics/filters";
import { contentGaps, promptPerformance } from "../../src/analytics/prompts";
import { competitorRanking, visibilityOverview, visibilityTrend } from "../../src/analytics/visibility";
import { type AppContext } from "../../src/context";
import { reanalyzeAnswers, rosterVersionOf } from "../../src/tracking/reanalysis";
import { loadRoster } from "../../src/tracking/roster";
import { addBrand, openApp } from "../analytics/dataset";

async function store(app: AppContext, brandId: string, promptId: string, text: string, citations: string[] = []) {
  return await app.tracking.storeAnswer(
    {
      brandId,
      runId: null,
      promptId,
      engine: "gpt",
      model: "m",
      sample: 0,
      status: "ok",
      text,
      providerCitations: citations,
      error: null,
      latencyMs: 1,
      tokensIn: 1,
      tokensOut: 1,
      createdAt: Date.parse("2025-03-02T10:00:00Z"),
    },
    await loadRoster(app.db, brandId),
  );
}

const ranks = (app: AppContext, answerId: number) =>
  app.db.all<{ member_id: string; rank: number }>("SELECT member_id, rank FROM mentions WHERE answer_id = ? ORDER BY rank", [answerId]);

// Each test's app, on the test database (SQLite, or PostgreSQL with SPYGLASS_TEST_DATABASE=postgres).
let app: AppContext;
afterEach(async () => {
  await app.db.close();
});

test("adding a competitor re-analyses stored answers: new mentions, new brand positions, new gaps", async () => {
  app = await openApp();
  const s = await addBrand(app, { name: "Acme", domain: "acme.com", prompts: [{ key: "P", text: "best crm" }] });
  const a1 = await store(app, s.brandId, s.prompts.P!, "Initech is the leader; Acme is a cheaper option.", ["https://initech.com/"]);
  const a2 = await store(app, s.brandId, s.prompts.P!, "Try Initech.");
  expect(await ranks(app, a1)).toEqual([{ member_id: s.brandId, rank: 1 }]);
  expect(await ranks(app, a2)).toEqual([]);

  const cmp = "cmp_initech";
  await app.db.run(
    "INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES (?, ?, 'Initech', '[]', '[\"initech.com\"]', 1)",
    [cmp, s.brandId],
  );
  expect(await app.tracking.reanalyzeBrand(s.brandId)).toBe(2);

  expect(await ranks(app, a1)).toEqual([
    { member_id: cmp, rank: 1 },
    { member_id: s.brandId, rank: 2 },
  ]);
  expect(await ranks(app, a2)).toEqual([{ member_id: cmp, rank: 1 }]);
  const row = (await app.db.get<{ brand_position: number }>("SELECT brand_position FROM answers WHERE id = ?", [a1]))!;
  expect(row.brand_position).toBe(2);
  // Citations come back from the stored provider citations, not from a provider call.
  expect(await app.db.all<{ url: string }>("SELECT url FROM citations WHERE answer_id = ?", [a1])).toEqual([
    { url: "https://initech.com" },
  ]);
  const o = await visibilityOverview(app, await resolveFilter(app, s.brandId, { start_date: "2025-03-01", end_date: "2025-03-03" }));
  expect(o.share_of_voice).toMatchObject({ successes: 1, n: 3 });
  expect(o.avg_position.value).toBe(2);
});

test("a new brand alias and domain count after re-analysis; removing a competitor removes its mentions", async () => {
  app = await openApp();
  const s = await addBrand(app, { name: "Acme", competitors: [{ key: "C", name: "Globex" }], prompts: [{ key: "P", text: "best crm" }] });
  const a = await store(app, s.brandId, s.prompts.P!, "Globex or Roadrunner Cloud? See https://acme.io/docs.");
  expect(await ranks(app, a)).toEqual([{ member_id: s.competitors.C!, rank: 1 }]);
  await app.db.run("UPDATE brands SET aliases = ?, domain = 'acme.io' WHERE id = ?", [JSON.stringify(["Roadrunner Cloud"]), s.brandId]);
  await app.db.run("DELETE FROM competitors WHERE id = ?", [s.competitors.C!]);
  await app.tracking.reanalyzeBrand(s.brandId);
  expect(await ranks(app, a)).toEqual([{ member_id: s.brandId, rank: 1 }]);
  const row = await app.db.get<{ brand_mentioned: number; brand_cited: number }>(
    "SELECT brand_mentioned, brand_cited FROM answers WHERE id = ?",
    [a],
  );
  expect(row).toEqual({ brand_mentioned: 1, brand_cited: 1 });
});

test("a finished re-analysis is recorded; one cut short is gone through again at the next start", async () => {
  app = await openApp();
  const s = await addBrand(app, { name: "Acme", prompts: [{ key: "P", text: "best crm" }] });
  const a = await store(app, s.brandId, s.prompts.P!, "Globex, then Acme.");
  const versions = () =>
    app.db.get<{ version: number; analysed: number }>("SELECT version, analysed FROM roster_versions WHERE brand_id = ?", [s.brandId]);
  await app.db.run(
    "INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES ('cmp_g', ?, 'Globex', '[]', '[]', 1)",
    [s.brandId],
  );
  await app.tracking.reanalyzeBrand(s.brandId);
  expect(await versions()).toEqual({ version: 1, analysed: 1 });
  // Nothing is left to resume.
  expect(await app.tracking.reanalysis.resumeUnfinished()).toEqual([]);

  // A pass cut short (its process stopped): the competitor was renamed, the pass did not record an end.
  await app.db.run("UPDATE competitors SET name = 'Acme Globex', aliases = '[\"Globex\"]' WHERE id = 'cmp_g'");
  await app.db.run("UPDATE roster_versions SET version = 2 WHERE brand_id = ?", [s.brandId]);
  // Meanwhile the overview says its figures are not settled (they moved from call to call without a word).
  // So do the trend, the ranking, prompt performance and the gaps, whose figures count mentions too.
  const notes = async () => {
    const filter = await resolveFilter(app, s.brandId, { start_date: "2025-03-01", end_date: "2025-03-03" });
    const page = { limit: 20, offset: 0 };
    return [
      (await visibilityOverview(app, filter)).note,
      (await visibilityTrend(app, filter, "day")).note,
      (await competitorRanking(app, filter)).note,
      (await promptPerformance(app, filter, { ...page, order: "visibility_desc" })).note,
      (await contentGaps(app, filter, page)).note,
    ];
  };
  for (const said of await notes()) {
    expect(said).toStartWith(
      "The stored answers are being analysed again (after a change of the brand's names or its competitors, or an upgrade of Spyglass)",
    );
  }
  expect(await app.tracking.reanalysis.resumeUnfinished()).toEqual([s.brandId]);
  for (let tries = 0; tries < 500 && (await versions())!.analysed < 3; tries++) await Bun.sleep(10);
  expect(await versions()).toEqual({ version: 3, analysed: 3 });
  expect(await notes()).toEqual([null, null, null, null, null]);
  // Gone through with the roster as it stands: "Globex" is now the competitor's alias, found first.
  expect(await ranks(app, a)).toEqual([
    { member_id: "cmp_g", rank: 1 },
    { member_id: s.brandId, rank: 2 },
  ]);
});

test("a pass that another instance's roster change overtook stops at its next slice and does not undo that change's pass", async () => {
  app = await openApp();
  const s = await addBrand(app, { name: "Acme", competitors: [{ key: "C", name: "Globex" }], prompts: [{ key: "P", text: "best crm" }] });
  const a = await store(app, s.brandId, s.prompts.P!, "Globex leads; Acme follows.");
  // This instance's pass began with Globex on the roster, at the version it moved the roster to.
  const oldRoster = await loadRoster(app.db, s.brandId);
  const oldVersion = await rosterVersionOf(app.db, s.brandId);
  // Another instance removes Globex and runs its own pass, to the end.
  await app.db.run("DELETE FROM competitors WHERE id = ?", [s.competitors.C!]);
  await app.tracking.reanalyzeBrand(s.brandId);
  expect(await ranks(app, a)).toEqual([{ member_id: s.brandId, rank: 1 }]);
  const newer = await app.db.get<{ version: number; analysed: number }>(
    "SELECT version, analysed FROM roster_versions WHERE brand_id = ?",
    [s.brandId],
  );
  expect(newer!.version).toBeGreaterThan(oldVersion);
  // The older pass's next slice sees the newer version and ends, unfinished, before it writes.
  const late = await reanalyzeAnswers(app.db, app.tracking.writer, s.brandId, oldRoster, { stop: () => false, version: oldVersion });
  expect(late).toEqual({ total: 0, finished: false, superseded: true });
  expect(await ranks(app, a)).toEqual([{ member_id: s.brandId, rank: 1 }]);
  expect(await app.db.get("SELECT version, analysed FROM roster_versions WHERE brand_id = ?", [s.brandId])).toEqual(newer);
  // Without a version (or at the current one) the same pass goes through.
  const current = await reanalyzeAnswers(app.db, app.tracking.writer, s.brandId, await loadRoster(app.db, s.brandId), {
    stop: () => false,
    version: newer!.version,
  });
  expect(current.finished).toBe(true);
});
