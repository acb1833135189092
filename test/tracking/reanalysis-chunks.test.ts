// Re-analysis of a large brand: it goes through the answers in chunks, two calls share one pass, and
// only valid answers are re-analysed. Apart from test/tracking/reanalysis.test.ts because its 4,500
// per-answer writes take about a minute on PostgreSQL (one round trip per statement), where the rest
// of re-analysis is proven by that file: this one runs on SQLite only (build.sh's POSTGRES_TESTS).
import { afterEach, expect, test } from "bun:test";
import { type AppContext } from "../../src/context";
import { loadRoster } from "../../src/tracking/roster";
import { addBrand, openApp } from "../analytics/dataset";

let app: AppContext;
afterEach(async () => {
  await app.db.close();
});

test("re-analysis goes through answers in chunks and leaves non-valid answers alone", async () => {
  app = await openApp();
  const s = await addBrand(app, { name: "Acme", prompts: [{ key: "P", text: "best crm" }] });
  const roster = await loadRoster(app.db, s.brandId);
  await app.db.transaction(async () => {
    for (let i = 0; i < 4_500; i++) {
      await app.tracking.storeAnswer(
        {
          brandId: s.brandId,
          runId: null,
          promptId: s.prompts.P!,
          engine: "gpt",
          model: "m",
          sample: i,
          status: i % 10 === 0 ? "refusal" : "ok",
          text: i % 2 ? "Acme wins." : "Globex wins.",
          providerCitations: [],
          error: null,
          latencyMs: 1,
          tokensIn: 1,
          tokensOut: 1,
          createdAt: Date.now(),
        },
        roster,
      );
    }
  });
  await app.db.run(
    "INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES ('cmp_g', ?, 'Globex', '[]', '[]', 1)",
    [s.brandId],
  );
  // Two calls while one is running share the same pass (and start over once).
  const [n1, n2] = await Promise.all([app.tracking.reanalyzeBrand(s.brandId), app.tracking.reanalyzeBrand(s.brandId)]);
  expect(n1).toBe(4_050);
  expect(n2).toBe(4_050);
  const counts = await app.db.all<{ member_id: string; n: number }>(
    "SELECT member_id, count(*) AS n FROM mentions GROUP BY member_id ORDER BY member_id",
  );
  expect(counts).toEqual([
    { member_id: s.brandId, n: 2_250 },
    { member_id: "cmp_g", n: 1_800 },
  ]);
});
