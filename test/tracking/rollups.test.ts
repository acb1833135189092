// The daily rollups (answer_days, mention_days, citation_url_days, citation_domain_days) must always
// equal the sums over the stored rows: after tracking writes, after re-analysis, after the migration
// that added the citation rollups; and the analytics that read them must give the same figures as
// the per-answer path (the tag filter path reads the rows themselves). The demo seeder's rollups:
// rollups-demo.test.ts.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { resolveFilter } from "../../src/analytics/filters";
import { competitorRanking, visibilityOverview } from "../../src/analytics/visibility";
import { createAppContext } from "../../src/context";
import { openDatabase } from "../../src/db/client";
import { type AnswerStatus } from "../../src/db/schema";
import { type NewAnswer } from "../../src/tracking/answer-writer";
import { loadRoster } from "../../src/tracking/roster";
import { addBrand, memoryApp, seedBrand } from "../analytics/dataset";
import { downgradeTo, downgradeToFirstMigration } from "../support/migrations";
import { DAY, expectRollupsRight, openedApp, rollupsAndRaw } from "./rollups-check";

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

test("upgrading a database made before the means' intervals fills the squares from the stored answers and mentions", async () => {
  const app = memoryApp();
  const path = join(app.config.dataDir, "upgrade-squares.db");
  await app.db.close();
  const db = openDatabase(path);
  const fileApp = createAppContext(app.config, db);
  const s = seedBrand(fileApp, {
    name: "Acme",
    domain: "acme.com",
    competitors: [
      { key: "G", name: "Globex" },
      { key: "I", name: "Initech" },
    ],
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
        status: i % 7 === 6 ? "error" : "ok",
        text: TEXTS[i % TEXTS.length]!,
        providerCitations: [],
        createdAt: start + Math.floor(i / 8) * DAY + (i % 8) * 9_000_000,
      }),
      roster,
    );
  }
  const { stored: expected } = await rollupsAndRaw(fileApp, s.brandId);
  // Positions 1 to 3 and sentiments of both signs: squares that a wrong backfill would not match.
  expect(new Set(expected.mentions.map((m) => (m as unknown as { rank_squares: number }).rank_squares)).size).toBeGreaterThan(2);
  downgradeTo(db.sqlite, "0017_foreign_key_indexes");
  db.close();

  const upgraded = openDatabase(path);
  try {
    const { stored, raw } = await rollupsAndRaw(createAppContext(app.config, upgraded), s.brandId);
    expect(stored).toEqual(expected);
    expect(stored).toEqual(raw);
  } finally {
    upgraded.close();
  }
});
