// The rollup checks shared by test/tracking/rollups.test.ts and rollups-demo.test.ts: the daily
// rollups next to the same sums computed from the stored rows, read through the data access.
import { expect } from "bun:test";
import { type AppContext } from "../../src/context";
import { openApp } from "../analytics/dataset";

export const DAY = 86_400_000;

/** An app on the test database (SQLite, or PostgreSQL with SPYGLASS_TEST_DATABASE=postgres), closed at the end of its scope. */
export async function openedApp(toml = ""): Promise<{ app: AppContext } & AsyncDisposable> {
  const app = await openApp(toml);
  return { app, [Symbol.asyncDispose]: async () => await app.db.close() };
}

/**
 * Rollup rows next to the same sums computed from answers and mentions, sentiment sums rounded (float
 * order); read through the data access, so on either database.
 */
export async function rollupsAndRaw(app: AppContext, brandId: string) {
  const { db } = app;
  const round = <R extends { sentiment_sum: number; sentiment_squares: number }>(rows: R[]) =>
    rows.map((r) => ({
      ...r,
      sentiment_sum: Math.round(r.sentiment_sum * 1e9) / 1e9,
      sentiment_squares: Math.round(r.sentiment_squares * 1e9) / 1e9,
    }));
  const answerCols =
    "total, valid, mentioned, position_sum, top1, top3, sentiment_sum, sentiment_n, cited, roster_mentions, position_squares, sentiment_squares";
  const stored = {
    answers: round(
      await db.all<{ sentiment_sum: number; sentiment_squares: number }>(
        `SELECT day, engine, ${answerCols} FROM answer_days WHERE brand_id = ? ORDER BY day, engine`,
        [brandId],
      ),
    ),
    mentions: round(
      await db.all<{ sentiment_sum: number; sentiment_squares: number }>(
        `SELECT day, engine, member_id, answers, rank_sum, top1, sentiment_sum, sentiment_n, rank_squares, sentiment_squares
           FROM mention_days WHERE brand_id = ? ORDER BY day, engine, member_id`,
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
      await db.all<{ sentiment_sum: number; sentiment_squares: number }>(
        `SELECT d.day, d.engine, d.total, d.valid, d.mentioned, d.position_sum, d.top1, d.top3, d.sentiment_sum, d.sentiment_n, d.cited,
             coalesce(m.n, 0) AS roster_mentions, d.position_squares, d.sentiment_squares
           FROM (SELECT created_at / ${DAY} AS day, engine, count(*) AS total, count(*) FILTER (WHERE status = 'ok') AS valid,
                   sum(brand_mentioned) AS mentioned, coalesce(sum(brand_position), 0) AS position_sum,
                   count(CASE WHEN brand_position = 1 THEN 1 END) AS top1, count(CASE WHEN brand_position <= 3 THEN 1 END) AS top3,
                   coalesce(sum(brand_sentiment), 0) AS sentiment_sum, count(brand_sentiment) AS sentiment_n, sum(brand_cited) AS cited,
                   coalesce(sum(brand_position * brand_position), 0) AS position_squares,
                   coalesce(sum(brand_sentiment * brand_sentiment), 0) AS sentiment_squares
                 FROM answers WHERE brand_id = ?1 GROUP BY created_at / ${DAY}, engine) d
           LEFT JOIN (SELECT created_at / ${DAY} AS day, engine, count(*) AS n FROM mentions WHERE brand_id = ?1
                      GROUP BY created_at / ${DAY}, engine) m ON m.day = d.day AND m.engine = d.engine
           ORDER BY d.day, d.engine`,
        [brandId],
      ),
    ),
    mentions: round(
      await db.all<{ sentiment_sum: number; sentiment_squares: number }>(
        `SELECT created_at / ${DAY} AS day, engine, member_id, count(*) AS answers, sum(rank) AS rank_sum,
             count(*) FILTER (WHERE rank = 1) AS top1, coalesce(sum(sentiment), 0) AS sentiment_sum, count(sentiment) AS sentiment_n,
             sum(rank * rank) AS rank_squares, coalesce(sum(sentiment * sentiment), 0) AS sentiment_squares
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

export async function expectRollupsRight(app: AppContext, brandId: string): Promise<void> {
  const { stored, raw } = await rollupsAndRaw(app, brandId);
  expect(stored.answers.length).toBeGreaterThan(0);
  expect(stored.domains.length).toBeGreaterThan(0);
  expect(stored).toEqual(raw);
}
