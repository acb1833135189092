// Re-analysis of a large brand: it goes through the answers in chunks, two calls share one pass, and
// only valid answers are re-analysed. Apart from test/tracking/reanalysis.test.ts because of its size:
// 4,500 answers on SQLite; on PostgreSQL, where each per-answer write is a round trip (4,500 took
// about a minute), 1,000, still dozens of the re-analysis's 16-answer batches.
import { afterEach, expect, test } from "bun:test";
import { type AppContext } from "../../src/context";
import { loadRoster } from "../../src/tracking/roster";
import { addBrand, openApp } from "../analytics/dataset";
import { TEST_DIALECT } from "../support/database";

/** A multiple of 10: every 10th answer is a refusal, odd ones name Acme, even ones Globex. */
const ANSWERS = TEST_DIALECT === "postgres" ? 1_000 : 4_500;
const VALID = ANSWERS - ANSWERS / 10;

let app: AppContext;
afterEach(async () => {
  await app.db.close();
});

test("re-analysis goes through answers in chunks and leaves non-valid answers alone", async () => {
  app = await openApp();
  const s = await addBrand(app, { name: "Acme", prompts: [{ key: "P", text: "best crm" }] });
  const roster = await loadRoster(app.db, s.brandId);
  await app.db.transaction(async () => {
    for (let i = 0; i < ANSWERS; i++) {
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
  expect(n1).toBe(VALID);
  expect(n2).toBe(VALID);
  const counts = await app.db.all<{ member_id: string; n: number }>(
    "SELECT member_id, count(*) AS n FROM mentions GROUP BY member_id ORDER BY member_id",
  );
  expect(counts).toEqual([
    { member_id: s.brandId, n: ANSWERS / 2 },
    { member_id: "cmp_g", n: ANSWERS / 2 - ANSWERS / 10 },
  ]);
});
