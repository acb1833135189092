// list_answers' pages: every answer once, newest first, answers of the same millisecond included,
// and a page after the first read from the index in order (SQLite: as "created_at < ? OR
// (created_at = ? AND id < ?)" the planner read both branches and sorted the brand's whole history for
// every page, 0.2-0.4 s a page at 216,000 answers, which held the server through a full CSV export).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { listAnswers } from "../../src/analytics/answers";
import { type AppContext } from "../../src/context";
import { type SqlParam } from "../../src/db/queries";
import { writeAnswers } from "../support/answers";
import { addBrand, GPT_ENGINE_TOML, openApp, type SeededBrand } from "./dataset";

let app: AppContext;
let brand: SeededBrand;
const ANSWERS = 130;

beforeAll(async () => {
  app = await openApp(GPT_ENGINE_TOML);
  brand = await addBrand(app, { name: "Paging", prompts: [{ key: "P", text: "best crm" }] });
  await writeAnswers(
    app.db,
    brand.brandId,
    Array.from({ length: ANSWERS }, (_, i) => ({ promptId: brand.prompts.P!, engine: "gpt", text: `answer ${i}`, daysAgo: i % 7 })),
  );
  // A third of them share one millisecond: the order falls to the id, across page boundaries.
  await app.db.run("UPDATE answers SET created_at = 1767225600000 WHERE brand_id = ? AND id % 3 = 0", [brand.brandId]);
});

afterAll(async () => {
  await app.db.close();
});

test("paging through list_answers gives every answer once, newest first (ties by id), whatever the page size", async () => {
  const stored = await app.db.all<{ id: number }>("SELECT id FROM answers WHERE brand_id = ? ORDER BY created_at DESC, id DESC", [
    brand.brandId,
  ]);
  expect(stored).toHaveLength(ANSWERS);
  for (const limit of [1, 7, 50, 200]) {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await listAnswers(app, brand.brandId, { limit, ...(cursor ? { cursor } : {}) });
      seen.push(...page.answers.map((a) => a.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(stored.map((r) => `ans_${r.id}`));
  }
});

test.skipIf(process.env.SPYGLASS_TEST_DATABASE === "postgres")(
  "a page after the first is read from the brand's index in order, without sorting the brand's history (SQLite's plan)",
  async () => {
    const first = await listAnswers(app, brand.brandId, { limit: 10 });
    // The statement listAnswers runs for the next page, as it runs it.
    const seen: Array<[string, SqlParam[]]> = [];
    // A scan (it may read the whole history when a filter matches little: db/reader.ts).
    const scan = app.db.scan.bind(app.db);
    app.db.scan = (async (sql: string, params: SqlParam[] = []) => {
      seen.push([sql, params]);
      return scan(sql, params);
    }) as typeof app.db.scan;
    try {
      await listAnswers(app, brand.brandId, { limit: 10, cursor: first.next_cursor! });
    } finally {
      app.db.scan = scan;
    }
    const [sql, params] = seen.find(([text]) => text.includes("FROM answers a"))!;
    const plan = (await app.db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, params)).map((row) => row.detail);
    expect(
      plan.some((step) => /SEARCH a USING (COVERING )?INDEX answers_brand_created_idx \(brand_id=\? AND created_at<\?\)/.test(step)),
    ).toBe(true);
    expect(plan).not.toContain("MULTI-INDEX OR");
    expect(plan).not.toContain("USE TEMP B-TREE FOR ORDER BY");
  },
);
