// The daily rollups (answer_days, mention_days, citation_url_days, citation_domain_days) must always
// equal the sums over the stored rows: after tracking writes, after re-analysis, after the demo
// seeder, after the migration that added the citation rollups; and the analytics that read them
// must give the same figures as the per-answer path (the tag filter path reads the rows themselves).

import { type Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { join } from "node:path";
import { resolveFilter } from "../../src/analytics/filters";
import { promptPerformance } from "../../src/analytics/prompts";
import { topSources } from "../../src/analytics/sources";
import { competitorRanking, visibilityOverview, visibilityTrend } from "../../src/analytics/visibility";
import { type AppContext, createAppContext } from "../../src/context";
import { openDatabase } from "../../src/db/client";
import { EMBEDDED_MIGRATIONS, MIGRATION_JOURNAL } from "../../src/db/migrations";
import { type AnswerStatus } from "../../src/db/schema";
import { seedDemo } from "../../src/demo/seeder";
import { type NewAnswer } from "../../src/tracking/answer-writer";
import { loadRoster } from "../../src/tracking/roster";
import { addBrand, memoryApp, openApp, seedBrand } from "../analytics/dataset";

const DAY = 86_400_000;

/** An app on the test database (SQLite, or PostgreSQL with SPYGLASS_TEST_DATABASE=postgres), closed at the end of its scope. */
async function openedApp(toml = ""): Promise<{ app: AppContext } & AsyncDisposable> {
  const app = await openApp(toml);
  return { app, [Symbol.asyncDispose]: async () => await app.db.close() };
}

/**
 * Rollup rows next to the same sums computed from answers and mentions, sentiment sums rounded (float
 * order); read through the data access, so on either database.
 */
async function rollupsAndRaw(app: AppContext, brandId: string) {
  const { db } = app;
  const round = <R extends { sentiment_sum: number }>(rows: R[]) =>
    rows.map((r) => ({ ...r, sentiment_sum: Math.round(r.sentiment_sum * 1e9) / 1e9 }));
  const answerCols = "total, valid, mentioned, position_sum, top1, top3, sentiment_sum, sentiment_n, cited, roster_mentions";
  const stored = {
    answers: round(
      await db.all<{ sentiment_sum: number }>(
        `SELECT day, engine, ${answerCols} FROM answer_days WHERE brand_id = ? ORDER BY day, engine`,
        [brandId],
      ),
    ),
    mentions: round(
      await db.all<{ sentiment_sum: number }>(
        "SELECT day, engine, member_id, answers, rank_sum, top1, sentiment_sum, sentiment_n FROM mention_days WHERE brand_id = ? ORDER BY day, engine, member_id",
        [brandId],
      ),
    ),
    urls: await db.all("SELECT day, engine, url, domain, citations FROM citation_url_days WHERE brand_id = ? ORDER BY day, engine, url", [
      brandId,
    ]),
    domains: await db.all(
      "SELECT day, engine, domain, citations, answers FROM citation_domain_days WHERE brand_id = ? ORDER BY day, engine, domain",
      [brandId],
    ),
  };
  const raw = {
    answers: round(
      await db.all<{ sentiment_sum: number }>(
        `SELECT d.*, coalesce(m.n, 0) AS roster_mentions
           FROM (SELECT created_at / ${DAY} AS day, engine, count(*) AS total, count(*) FILTER (WHERE status = 'ok') AS valid,
                   sum(brand_mentioned) AS mentioned, coalesce(sum(brand_position), 0) AS position_sum,
                   count(CASE WHEN brand_position = 1 THEN 1 END) AS top1, count(CASE WHEN brand_position <= 3 THEN 1 END) AS top3,
                   coalesce(sum(brand_sentiment), 0) AS sentiment_sum, count(brand_sentiment) AS sentiment_n, sum(brand_cited) AS cited
                 FROM answers WHERE brand_id = ?1 GROUP BY created_at / ${DAY}, engine) d
           LEFT JOIN (SELECT created_at / ${DAY} AS day, engine, count(*) AS n FROM mentions WHERE brand_id = ?1
                      GROUP BY created_at / ${DAY}, engine) m ON m.day = d.day AND m.engine = d.engine
           ORDER BY d.day, d.engine`,
        [brandId],
      ),
    ),
    mentions: round(
      await db.all<{ sentiment_sum: number }>(
        `SELECT created_at / ${DAY} AS day, engine, member_id, count(*) AS answers, sum(rank) AS rank_sum,
             count(*) FILTER (WHERE rank = 1) AS top1, coalesce(sum(sentiment), 0) AS sentiment_sum, count(sentiment) AS sentiment_n
           FROM mentions WHERE brand_id = ? GROUP BY created_at / ${DAY}, engine, member_id ORDER BY day, engine, member_id`,
        [brandId],
      ),
    ),
    urls: await db.all(
      `SELECT created_at / ${DAY} AS day, engine, url, min(domain) AS domain, count(*) AS citations
         FROM citations WHERE brand_id = ? GROUP BY created_at / ${DAY}, engine, url ORDER BY day, engine, url`,
      [brandId],
    ),
    domains: await db.all(
      `SELECT created_at / ${DAY} AS day, engine, domain, count(*) AS citations, count(DISTINCT answer_id) AS answers
         FROM citations WHERE brand_id = ? GROUP BY created_at / ${DAY}, engine, domain ORDER BY day, engine, domain`,
      [brandId],
    ),
  };
  return { stored, raw };
}

async function expectRollupsRight(app: AppContext, brandId: string): Promise<void> {
  const { stored, raw } = await rollupsAndRaw(app, brandId);
  expect(stored.answers.length).toBeGreaterThan(0);
  expect(stored.domains.length).toBeGreaterThan(0);
  expect(stored).toEqual(raw);
}

/** A stored answer of `brandId`: what varies from test to test, and fixed values for the rest. */
function answer(
  brandId: string,
  fields: Pick<NewAnswer, "promptId" | "engine" | "sample" | "status" | "text" | "providerCitations" | "createdAt">,
): NewAnswer {
  return { brandId, runId: null, model: "m", error: null, latencyMs: 1, tokensIn: 1, tokensOut: 1, ...fields };
}

const TEXTS = [
  "Acme is the best; Globex is fine. See https://acme.com/pricing and https://g2.com/crm.",
  "Globex leads, then Initech. Acme is pricey.",
  "Initech, honestly. Roadrunner too.",
  "Nobody you know.",
];

test("tracking writes keep the rollups equal to the stored rows, and re-analysis after a roster change too", async () => {
  await using opened = await openedApp();
  const { app } = opened;
  const s = await addBrand(app, {
    name: "Acme",
    domain: "acme.com",
    competitors: [{ key: "G", name: "Globex" }],
    prompts: [
      { key: "P1", text: "best crm" },
      { key: "P2", text: "cheap crm" },
    ],
  });
  const roster = await loadRoster(app.db, s.brandId);
  const start = Date.parse("2025-03-01T00:00:00Z");
  const statuses: AnswerStatus[] = ["ok", "ok", "ok", "error", "ok", "refusal", "ok", "empty"];
  for (let i = 0; i < 120; i++) {
    await app.tracking.storeAnswer(
      answer(s.brandId, {
        promptId: i % 3 ? s.prompts.P1! : s.prompts.P2!,
        engine: ["gpt", "claude", "sonar"][i % 3]!,
        sample: i,
        status: statuses[i % statuses.length]!,
        text: TEXTS[i % TEXTS.length]!,
        providerCitations: i % 5 === 0 ? ["https://www.acme.com/blog/"] : [],
        // Spread over 12 days, several answers a day, at varying hours.
        createdAt: start + Math.floor(i / 10) * DAY + (i % 10) * 7_000_000,
      }),
      roster,
    );
  }
  await expectRollupsRight(app, s.brandId);
  const period = { start_date: "2025-03-07", end_date: "2025-03-12" };
  const before = await visibilityOverview(app, await resolveFilter(app, s.brandId, period));
  expect(before.share_of_voice.n).toBeGreaterThan(0);

  // A new competitor and an alias: more mentions, new ranks, on every day.
  await app.db.run(
    "INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES ('cmp_i', ?, 'Initech', '[]', '[]', 5)",
    [s.brandId],
  );
  await app.db.run("UPDATE brands SET aliases = ? WHERE id = ?", [JSON.stringify(["Roadrunner"]), s.brandId]);
  expect(await app.tracking.reanalyzeBrand(s.brandId)).toBe(75);
  await expectRollupsRight(app, s.brandId);
  const after = await visibilityOverview(app, await resolveFilter(app, s.brandId, period));
  expect(after.share_of_voice.n).toBeGreaterThan(before.share_of_voice.n);
  expect(after.visibility.successes).toBeGreaterThan(before.visibility.successes);

  // Removing a competitor takes its mentions out of the rollups too.
  await app.db.run("DELETE FROM competitors WHERE id = ?", [s.competitors.G!]);
  await app.tracking.reanalyzeBrand(s.brandId);
  await expectRollupsRight(app, s.brandId);
  const ranking = await competitorRanking(app, await resolveFilter(app, s.brandId, period));
  expect(ranking.ranking.map((r) => r.name).sort()).toEqual(["Acme", "Initech"]);
});

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

/**
 * Undoes every migration after the first on a database file, as if it were made by the first
 * release: drops the tables, indexes and columns later migrations add (read from their SQL) and
 * forgets them in drizzle's journal (the migrator applies only those newer than the last recorded).
 */
function downgradeToFirstMigration(sqlite: Database): void {
  downgradeTo(sqlite, MIGRATION_JOURNAL[0]!.tag);
}

/** As downgradeToFirstMigration, down to the migration `tag` (kept). */
function downgradeTo(sqlite: Database, tag: string): void {
  const later = MIGRATION_JOURNAL.slice(MIGRATION_JOURNAL.findIndex((m) => m.tag === tag) + 1);
  for (const { tag } of [...later].reverse()) {
    const text = EMBEDDED_MIGRATIONS[tag]!;
    // Indexes first: a column an index covers cannot be dropped.
    for (const [, index] of text.matchAll(/CREATE (?:UNIQUE )?INDEX `(\w+)`/g)) sqlite.exec(`DROP INDEX IF EXISTS "${index}"`);
    for (const [, table, column] of text.matchAll(/ALTER TABLE `(\w+)` ADD `(\w+)`/g))
      sqlite.exec(`ALTER TABLE "${table}" DROP COLUMN "${column}"`);
    for (const [, trigger] of text.matchAll(/CREATE TRIGGER (?:IF NOT EXISTS )?`(\w+)`/g))
      sqlite.exec(`DROP TRIGGER IF EXISTS "${trigger}"`);
    const tables = [...text.matchAll(/CREATE TABLE `(\w+)`/g)].map((m) => m[1]!);
    for (const table of tables.reverse()) sqlite.exec(`DROP TABLE IF EXISTS "${table}"`);
  }
  sqlite.query("DELETE FROM __drizzle_migrations WHERE created_at >= ?").run(later[0]!.when);
}

test("upgrading a database made before the citation rollups fills them from the stored citations", async () => {
  const app = memoryApp();
  const path = join(app.config.dataDir, "upgrade.db");
  await app.db.close();
  const db = openDatabase(path);
  const fileApp = createAppContext(app.config, db);
  const s = seedBrand(fileApp, {
    name: "Acme",
    domain: "acme.com",
    competitors: [{ key: "G", name: "Globex" }],
    prompts: [{ key: "P1", text: "best crm" }],
  });
  const roster = await loadRoster(db, s.brandId);
  const start = Date.parse("2025-03-01T00:00:00Z");
  for (let i = 0; i < 40; i++) {
    await fileApp.tracking.storeAnswer(
      answer(s.brandId, {
        promptId: s.prompts.P1!,
        engine: ["gpt", "claude"][i % 2]!,
        sample: i,
        status: "ok",
        text: TEXTS[i % TEXTS.length]!,
        providerCitations: i % 3 === 0 ? ["https://www.acme.com/blog/", "https://g2.com/crm"] : [],
        createdAt: start + Math.floor(i / 8) * DAY + (i % 8) * 9_000_000,
      }),
      roster,
    );
  }
  const expected = (await rollupsAndRaw(fileApp, s.brandId)).stored;
  // The database as the release before the rollups left it: only the first migration applied.
  downgradeToFirstMigration(db.sqlite);
  db.close();

  const upgraded = openDatabase(path);
  try {
    const upgradedApp = createAppContext(app.config, upgraded);
    await expectRollupsRight(upgradedApp, s.brandId);
    expect((await rollupsAndRaw(upgradedApp, s.brandId)).stored).toEqual(expected);
  } finally {
    upgraded.close();
  }
});

test("upgrading a database made before the per-prompt rollups fills them from the stored answers", async () => {
  const app = memoryApp();
  const path = join(app.config.dataDir, "upgrade-prompts.db");
  await app.db.close();
  const db = openDatabase(path);
  const fileApp = createAppContext(app.config, db);
  const s = seedBrand(fileApp, {
    name: "Acme",
    domain: "acme.com",
    competitors: [{ key: "G", name: "Globex" }],
    prompts: [
      { key: "P1", text: "best crm" },
      { key: "P2", text: "cheap crm" },
    ],
  });
  const roster = await loadRoster(db, s.brandId);
  const start = Date.parse("2025-03-01T00:00:00Z");
  const statuses: AnswerStatus[] = ["ok", "ok", "error", "ok", "refusal"];
  for (let i = 0; i < 60; i++) {
    await fileApp.tracking.storeAnswer(
      answer(s.brandId, {
        promptId: i % 3 ? s.prompts.P1! : s.prompts.P2!,
        engine: ["gpt", "claude"][i % 2]!,
        sample: i,
        status: statuses[i % statuses.length]!,
        text: TEXTS[i % TEXTS.length]!,
        providerCitations: [],
        // Every third day is skipped: occurrences with gaps between them.
        createdAt: start + Math.floor(i / 4) * 3 * DAY + (i % 4) * 9_000_000,
      }),
      roster,
    );
  }
  const read = (d: typeof db) => ({
    days: d.sqlite.query("SELECT * FROM prompt_days ORDER BY brand_id, prompt_id, engine, day").all(),
    coverage: d.sqlite.query("SELECT * FROM prompt_coverage_days WHERE prompts <> 0 ORDER BY brand_id, engine, kind, day, prev_day").all(),
  });
  const expected = read(db);
  expect(expected.days.length).toBeGreaterThan(20);
  expect(expected.coverage.length).toBeGreaterThan(10);
  // As the release before the per-prompt rollups left it: that migration and every later one undone.
  downgradeTo(db.sqlite, "0003_search_queries");
  db.close();

  const upgraded = openDatabase(path);
  try {
    expect(read(upgraded)).toEqual(expected);
  } finally {
    upgraded.close();
  }
});
