// The per-prompt rollups (prompt_days) and the prompt coverage occurrences (prompt_coverage_days),
// kept equal to the stored answers: called by the answer writer inside the writing transaction with
// the additions (or, from re-analysis, the changes) of one batch of answers. See src/db/schema.ts
// for what the tables hold.
import { type Queries } from "../db/queries";
import { COVERAGE_KINDS } from "../db/schema";

/** total, valid, mentioned, position_sum, competitor: the prompt_days columns. */
export type PromptDay = [total: number, valid: number, mentioned: number, positionSum: number, competitor: number];

export interface PromptDayDelta {
  brandId: string;
  promptId: string;
  engine: string;
  day: number;
  v: PromptDay;
}

type Kind = (typeof COVERAGE_KINDS)[number];

const CURRENT = "SELECT total, valid, mentioned FROM prompt_days WHERE brand_id = ?1 AND prompt_id = ?2 AND engine = ?3 AND day = ?4";
const UPSERT = `INSERT INTO prompt_days AS r (brand_id, prompt_id, engine, day, total, valid, mentioned, position_sum, competitor)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
       ON CONFLICT (brand_id, prompt_id, engine, day) DO UPDATE SET total = r.total + excluded.total, valid = r.valid + excluded.valid,
         mentioned = r.mentioned + excluded.mentioned, position_sum = r.position_sum + excluded.position_sum,
         competitor = r.competitor + excluded.competitor`;
const REMOVE = "DELETE FROM prompt_days WHERE brand_id = ?1 AND prompt_id = ?2 AND engine = ?3 AND day = ?4";
const neighbour = (column: Kind, before: boolean): string =>
  // The prompt names the brand: without brand_id the covering (prompt, engine, day, …) index answers it.
  `SELECT day FROM prompt_days WHERE prompt_id = ?1 AND engine = ?2 AND day ${before ? "<" : ">"} ?3
           AND ${column} > 0 ORDER BY day ${before ? "DESC" : "ASC"} LIMIT 1`;
const NEIGHBOURS: Record<Kind, { before: string; after: string }> = {
  valid: { before: neighbour("valid", true), after: neighbour("valid", false) },
  mentioned: { before: neighbour("mentioned", true), after: neighbour("mentioned", false) },
};
const UPSERT_COVERAGE = `INSERT INTO prompt_coverage_days AS r (brand_id, engine, kind, day, prev_day, prompts) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
       ON CONFLICT (brand_id, engine, kind, day, prev_day) DO UPDATE SET prompts = r.prompts + excluded.prompts`;
const DROP_EMPTY_COVERAGE =
  "DELETE FROM prompt_coverage_days WHERE brand_id = ?1 AND engine = ?2 AND kind = ?3 AND day = ?4 AND prev_day = ?5 AND prompts = 0";

/**
 * The lock a transaction that writes a brand's rollups takes first (`tx.lock`): applyPromptRollups
 * reads the day's row and its neighbours, then moves coverage occurrences from what it read. SQLite's
 * BEGIN IMMEDIATE already serialises writers; PostgreSQL's READ COMMITTED would let two answers of one
 * prompt and day both see "no occurrence yet" and count it twice.
 */
export function rollupLock(brandId: string): string {
  return `rollups:${brandId}`;
}

/** Adds the deltas (negative parts come from re-analysis) and moves the coverage occurrences that appear or vanish; inside the writing transaction (`tx`). */
export async function applyPromptRollups(tx: Queries, deltas: Iterable<PromptDayDelta>): Promise<void> {
  for (const { brandId, promptId, engine, day, v } of deltas) {
    if (v.every((x) => x === 0)) continue;
    const before = (await tx.get<{ total: number; valid: number; mentioned: number }>(CURRENT, [brandId, promptId, engine, day])) ?? {
      total: 0,
      valid: 0,
      mentioned: 0,
    };
    const after = { total: before.total + v[0], valid: before.valid + v[1], mentioned: before.mentioned + v[2] };
    if (after.total === 0) await tx.run(REMOVE, [brandId, promptId, engine, day]);
    else await tx.run(UPSERT, [brandId, promptId, engine, day, ...v]);
    for (const kind of COVERAGE_KINDS) {
      const was = before[kind] > 0;
      const is = after[kind] > 0;
      if (was !== is) await moveOccurrence(tx, brandId, promptId, engine, day, kind, is ? 1 : -1);
    }
  }
}

/**
 * The prompt's occurrence on `day` appears (+1) or vanishes (-1); its neighbours are read from
 * prompt_days, which already holds the new state of `day` (the neighbours exclude it).
 */
async function moveOccurrence(
  tx: Queries,
  brandId: string,
  promptId: string,
  engine: string,
  day: number,
  kind: Kind,
  sign: 1 | -1,
): Promise<void> {
  const prev = (await tx.get<{ day: number }>(NEIGHBOURS[kind].before, [promptId, engine, day]))?.day ?? -1;
  const next = (await tx.get<{ day: number }>(NEIGHBOURS[kind].after, [promptId, engine, day]))?.day;
  await addCoverage(tx, brandId, engine, kind, day, prev, sign);
  if (next !== undefined) {
    await addCoverage(tx, brandId, engine, kind, next, prev, -sign);
    await addCoverage(tx, brandId, engine, kind, next, day, sign);
  }
}

async function addCoverage(tx: Queries, brandId: string, engine: string, kind: Kind, day: number, prev: number, n: number): Promise<void> {
  await tx.run(UPSERT_COVERAGE, [brandId, engine, kind, day, prev, n]);
  if (n < 0) await tx.run(DROP_EMPTY_COVERAGE, [brandId, engine, kind, day, prev]);
}
