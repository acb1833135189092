// The demo seeder's rollups equal its rows, and the rollup and per-answer paths of the analytics agree
// on its data. Apart from test/tracking/rollups.test.ts because seeding the demo (7,200 answers, one
// statement at a time) takes about a minute on PostgreSQL: this file runs on SQLite only (build.sh's
// POSTGRES_TESTS), the other rollup tests on both.
import { expect, test } from "bun:test";
import { resolveFilter } from "../../src/analytics/filters";
import { promptPerformance } from "../../src/analytics/prompts";
import { topSources } from "../../src/analytics/sources";
import { competitorRanking, visibilityOverview, visibilityTrend } from "../../src/analytics/visibility";
import { seedDemo } from "../../src/demo/seeder";
import { expectRollupsRight, openedApp } from "./rollups-check";

test("the demo seeder writes rollups equal to its rows, and the rollup and per-answer paths agree", async () => {
  await using opened = await openedApp(`
[[engines]]
id = "chatgpt"
api = "openai"
base_url = "http://127.0.0.1:9/v1"
model = "m"
`);
  const { app } = opened;
  const now = Date.parse("2025-06-30T15:00:00Z");
  const demo = await seedDemo(app, { now });
  const brandId = demo.brand.id;
  await expectRollupsRight(app, brandId);

  // Every prompt carries one tag; summing the per-tag figures (per-answer path) must give the
  // unfiltered ones (rollup path).
  const tags = await app.db.all<{ id: string; name: string }>("SELECT id, name FROM tags WHERE brand_id = ?", [brandId]);
  const input = { start_date: "2025-06-10", end_date: "2025-06-30" };
  const whole = await visibilityOverview(app, await resolveFilter(app, brandId, input, now));
  const parts = await Promise.all(
    tags.map(async (t) => await visibilityOverview(app, await resolveFilter(app, brandId, { ...input, tag: t.name }, now))),
  );
  const sum = (pick: (o: typeof whole) => number) => parts.reduce((acc, o) => acc + pick(o), 0);
  for (const pick of [
    (o: typeof whole) => o.answers.total,
    (o: typeof whole) => o.visibility.successes,
    (o: typeof whole) => o.visibility.n,
    (o: typeof whole) => o.share_of_voice.successes,
    (o: typeof whole) => o.share_of_voice.n,
    (o: typeof whole) => o.citation_rate.successes,
    (o: typeof whole) => o.avg_position.top1_rate.successes,
    (o: typeof whole) => o.avg_position.top3_rate.successes,
    (o: typeof whole) => o.prompt_coverage.n,
    (o: typeof whole) => o.prompt_coverage.successes,
    (o: typeof whole) => o.sentiment.n,
    (o: typeof whole) => o.by_engine.find((e) => e.engine === "perplexity")!.prompt_coverage.successes,
  ]) {
    expect(sum(pick)).toBe(pick(whole));
  }
  const trend = await visibilityTrend(app, await resolveFilter(app, brandId, input, now), "week");
  const trendParts = await Promise.all(
    tags.map(async (t) => await visibilityTrend(app, await resolveFilter(app, brandId, { ...input, tag: t.name }, now), "week")),
  );
  trend.points.forEach((p, i) => {
    expect(trendParts.reduce((acc, t) => acc + t.points[i]!.share_of_voice.n, 0)).toBe(p.share_of_voice.n);
    expect(trendParts.reduce((acc, t) => acc + t.points[i]!.answers.total, 0)).toBe(p.answers.total);
  });
  // Sources: the rollup path (no tag) against the citations of each tag's prompts, summed.
  for (const level of ["domain", "url"] as const) {
    const page = { level, limit: 500, offset: 0 };
    const all = await topSources(app, await resolveFilter(app, brandId, input, now), page);
    const byTag = await Promise.all(
      tags.map(async (t) => await topSources(app, await resolveFilter(app, brandId, { ...input, tag: t.name }, now), page)),
    );
    expect(all.sources.length).toBeGreaterThan(1);
    expect(byTag.reduce((acc, r) => acc + r.total_citations, 0)).toBe(all.total_citations);
    expect(byTag.reduce((acc, r) => acc + r.valid_answers, 0)).toBe(all.valid_answers);
    for (const source of all.sources) {
      const key = (s: { domain: string; url?: string }) => (level === "url" ? s.url : s.domain);
      const parts = byTag.map((r) => r.sources.find((x) => key(x) === key(source)));
      expect(parts.reduce((acc, x) => acc + (x?.citations ?? 0), 0)).toBe(source.citations);
      expect(parts.reduce((acc, x) => acc + (x?.answers ?? 0), 0)).toBe(source.answers);
    }
  }
  // Prompt performance walks prompt by prompt: the same figures as grouping the period's answers.
  const f = await resolveFilter(app, brandId, input, now);
  const grouped = await app.db.all<{ id: string; total: number; valid: number; mentioned: number }>(
    `SELECT prompt_id AS id, count(*) AS total, count(*) FILTER (WHERE status = 'ok') AS valid, sum(brand_mentioned) AS mentioned
       FROM answers WHERE brand_id = ? AND created_at >= ? AND created_at < ? GROUP BY prompt_id ORDER BY prompt_id`,
    [brandId, f.period.start, f.period.end],
  );
  const performance = await promptPerformance(app, f, { limit: 10_000, offset: 0, order: "visibility_desc" });
  expect(grouped.length).toBeGreaterThan(1);
  expect(
    performance.prompts
      .map((p) => ({ id: p.id, ...p.answers, mentioned: p.visibility.successes }))
      .sort((a, b) => a.id.localeCompare(b.id)),
  ).toEqual(grouped);
  const ranking = await competitorRanking(app, await resolveFilter(app, brandId, input, now));
  const rankingParts = await Promise.all(
    tags.map(async (t) => await competitorRanking(app, await resolveFilter(app, brandId, { ...input, tag: t.name }, now))),
  );
  for (const row of ranking.ranking) {
    const n = rankingParts.reduce((acc, r) => acc + r.ranking.find((x) => x.id === row.id)!.visibility.successes, 0);
    expect(n).toBe(row.visibility.successes);
  }
});
