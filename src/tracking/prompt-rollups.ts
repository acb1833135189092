// The per-prompt rollups (prompt_days) and the prompt coverage occurrences (prompt_coverage_days),
// kept equal to the stored answers: called by the answer writer inside the writing transaction with
// the additions (or, from re-analysis, the changes) of one batch of answers. See src/db/schema.ts
// for what the tables hold.
import { placeholders, type Queries, type SqlParam } from "../db/queries";
import { COVERAGE_KINDS } from "../db/values";
import { rowsPerStatement, writeRows } from "./bulk-rows";

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
/** Where a kind's count is in a PromptDay. */
const DELTA_INDEX: Record<Kind, 1 | 2> = { valid: 1, mentioned: 2 };

const UPSERT_HEAD = "INSERT INTO prompt_days AS r (brand_id, prompt_id, engine, day, total, valid, mentioned, position_sum, competitor)";
const UPSERT_TAIL = `ON CONFLICT (brand_id, prompt_id, engine, day) DO UPDATE SET total = r.total + excluded.total, valid = r.valid + excluded.valid,
         mentioned = r.mentioned + excluded.mentioned, position_sum = r.position_sum + excluded.position_sum,
         competitor = r.competitor + excluded.competitor`;
const REMOVE = "DELETE FROM prompt_days WHERE brand_id = ?1 AND prompt_id = ?2 AND engine = ?3 AND day = ?4";
const COVERAGE_HEAD = "INSERT INTO prompt_coverage_days AS r (brand_id, engine, kind, day, prev_day, prompts)";
const COVERAGE_TAIL = "ON CONFLICT (brand_id, engine, kind, day, prev_day) DO UPDATE SET prompts = r.prompts + excluded.prompts";
const DROP_EMPTY_COVERAGE =
  "DELETE FROM prompt_coverage_days WHERE brand_id = ?1 AND engine = ?2 AND kind = ?3 AND day = ?4 AND prev_day = ?5 AND prompts = 0";
/** Prompts per read of the stored days (a list of placeholders each). */
const PROMPTS_PER_READ = 500;
/** A superset of the stored days of the deltas: the chunk's prompts × engines × days, told apart in code. */
const stored = (prompts: number, engines: number): string =>
  `SELECT prompt_id, engine, day, total, valid, mentioned FROM prompt_days
     WHERE brand_id = ? AND prompt_id IN (${placeholders(prompts)}) AND engine IN (${placeholders(engines)}) AND day >= ? AND day <= ?`;
// The prompt names the brand: without brand_id the covering (prompt, engine, day, …) index answers it.
const neighbour = (column: Kind, before: boolean): string =>
  `(SELECT p.day FROM prompt_days p WHERE p.prompt_id = g.prompt_id AND p.engine = g.engine AND p.day ${before ? "< g.lo" : "> g.hi"}
           AND p.${column} > 0 ORDER BY p.day ${before ? "DESC" : "ASC"} LIMIT 1)`;
const NEIGHBOUR_COLUMNS = COVERAGE_KINDS.flatMap((kind) => [
  `${neighbour(kind, true)} AS ${kind}_before`,
  `${neighbour(kind, false)} AS ${kind}_after`,
]).join(", ");
/**
 * Per (prompt, engine) of a list `g`: the nearest occurrence of each kind before `lo` and after `hi`.
 * The list's values are cast: PostgreSQL would type a VALUES list's parameters as text.
 */
const NEIGHBOURS = {
  head: "WITH g(k, prompt_id, engine, lo, hi) AS (",
  row: "(CAST(? AS integer), ?, ?, CAST(? AS integer), CAST(? AS integer))",
  tail: `) SELECT g.k, ${NEIGHBOUR_COLUMNS} FROM g`,
};
const NEIGHBOUR_READS = new Map<number, string>();
function neighbours(n: number): string {
  let text = NEIGHBOUR_READS.get(n);
  if (text === undefined) {
    text = `${NEIGHBOURS.head}VALUES ${Array.from({ length: n }, () => NEIGHBOURS.row).join(", ")}${NEIGHBOURS.tail}`;
    NEIGHBOUR_READS.set(n, text);
  }
  return text;
}
const NEIGHBOUR_PARAMS = 5;

/**
 * The lock a transaction that writes a brand's rollups takes first (`tx.lock`): applyPromptRollups
 * reads the day's row and its neighbours, then moves coverage occurrences from what it read. SQLite's
 * BEGIN IMMEDIATE already serialises writers; PostgreSQL's READ COMMITTED would let two answers of one
 * prompt and day both see "no occurrence yet" and count it twice.
 */
export function rollupLock(brandId: string): string {
  return `rollups:${brandId}`;
}

interface Stored {
  total: number;
  valid: number;
  mentioned: number;
}

/** One prompt and engine's deltas: its days, and what they held before (zero when not stored). */
interface Series {
  brandId: string;
  promptId: string;
  engine: string;
  days: Map<number, { v: PromptDay; before: Stored }>;
  lo: number;
  hi: number;
}

/**
 * Adds the deltas (negative parts come from re-analysis) and moves the coverage occurrences that
 * appear or vanish; inside the writing transaction (`tx`), which holds the brands' rollup locks.
 * The stored days and neighbours are read in a few statements for the whole batch; the coverage
 * rows then change by the difference between each prompt's chains of occurrence days before and
 * after (a chain's link is a row (day, prev_day); the first occurrence links to -1).
 */
export async function applyPromptRollups(tx: Queries, deltas: Iterable<PromptDayDelta>): Promise<void> {
  const series = new Map<string, Series>();
  for (const { brandId, promptId, engine, day, v } of deltas) {
    const key = `${brandId}\u0000${promptId}\u0000${engine}`;
    let s = series.get(key);
    if (!s) {
      s = { brandId, promptId, engine, days: new Map(), lo: day, hi: day };
      series.set(key, s);
    }
    const had = s.days.get(day);
    if (had) {
      for (let k = 0; k < v.length; k++) had.v[k]! += v[k]!;
    } else {
      s.days.set(day, { v: [...v], before: { total: 0, valid: 0, mentioned: 0 } });
    }
    s.lo = Math.min(s.lo, day);
    s.hi = Math.max(s.hi, day);
  }
  for (const [key, s] of series) {
    for (const [day, d] of s.days) if (d.v.every((x) => x === 0)) s.days.delete(day);
    if (s.days.size === 0) series.delete(key);
  }
  if (series.size === 0) return;

  // Every stored day of each series' [lo, hi]: the deltas' own rows and the occurrences between them.
  const between = new Map<string, Array<{ day: number } & Stored>>();
  const byBrand = Map.groupBy(series.values(), (s) => s.brandId);
  for (const [brandId, list] of byBrand) {
    const prompts = [...new Set(list.map((s) => s.promptId))];
    const engines = [...new Set(list.map((s) => s.engine))];
    const lo = Math.min(...list.map((s) => s.lo));
    const hi = Math.max(...list.map((s) => s.hi));
    for (let start = 0; start < prompts.length; start += PROMPTS_PER_READ) {
      const chunk = prompts.slice(start, start + PROMPTS_PER_READ);
      const rows = await tx.all<{ prompt_id: string; engine: string; day: number } & Stored>(stored(chunk.length, engines.length), [
        brandId,
        ...chunk,
        ...engines,
        lo,
        hi,
      ]);
      for (const row of rows) {
        const s = series.get(`${brandId}\u0000${row.prompt_id}\u0000${row.engine}`);
        if (!s || row.day < s.lo || row.day > s.hi) continue;
        const d = s.days.get(row.day);
        if (d) d.before = { total: row.total, valid: row.valid, mentioned: row.mentioned };
        const list = between.get(`${brandId}\u0000${row.prompt_id}\u0000${row.engine}`) ?? [];
        list.push(row);
        between.set(`${brandId}\u0000${row.prompt_id}\u0000${row.engine}`, list);
      }
    }
  }

  const upserts: SqlParam[][] = [];
  const changed: Array<{ key: string; s: Series }> = [];
  for (const [key, s] of series) {
    let moves = false;
    for (const [day, { v, before }] of s.days) {
      const after = { total: before.total + v[0], valid: before.valid + v[1], mentioned: before.mentioned + v[2] };
      if (after.total === 0) await tx.run(REMOVE, [s.brandId, s.promptId, s.engine, day]);
      else upserts.push([s.brandId, s.promptId, s.engine, day, ...v]);
      for (const kind of COVERAGE_KINDS) if (before[kind] > 0 !== after[kind] > 0) moves = true;
    }
    if (moves) changed.push({ key, s });
  }
  // Outside [lo, hi] nothing changes: the neighbours read now are the same after the upserts.
  const coverage = new Map<string, { brandId: string; engine: string; kind: Kind; day: number; prev: number; n: number }>();
  for (let start = 0; start < changed.length; ) {
    const n = rowsPerStatement(changed.length - start, NEIGHBOUR_PARAMS);
    const chunk = changed.slice(start, start + n);
    const params = chunk.flatMap(({ s }, k) => [k, s.promptId, s.engine, s.lo, s.hi]);
    const rows = await tx.all<{ k: number } & Record<`${Kind}_${"before" | "after"}`, number | null>>(neighbours(n), params);
    for (const row of rows) {
      const { key, s } = chunk[Number(row.k)]!;
      for (const kind of COVERAGE_KINDS) {
        const before: number[] = [];
        const after: number[] = [];
        for (const stored of between.get(key) ?? []) if (stored[kind] > 0 && !s.days.has(stored.day)) before.push(stored.day);
        after.push(...before);
        for (const [day, d] of s.days) {
          if (d.before[kind] > 0) before.push(day);
          if (d.before[kind] + d.v[DELTA_INDEX[kind]] > 0) after.push(day);
        }
        const next = row[`${kind}_after`];
        const prev = row[`${kind}_before`] ?? -1;
        for (const [days, sign] of [
          [before, -1],
          [after, 1],
        ] as const) {
          const chain = [...days].sort((a, b) => a - b);
          if (next !== null) chain.push(next);
          let link = prev;
          for (const day of chain) {
            const ckey = `${s.brandId}\u0000${s.engine}\u0000${kind}\u0000${day}\u0000${link}`;
            const c = coverage.get(ckey) ?? { brandId: s.brandId, engine: s.engine, kind, day, prev: link, n: 0 };
            c.n += sign;
            coverage.set(ckey, c);
            link = day;
          }
        }
      }
    }
    start += n;
  }
  await writeRows(tx, UPSERT_HEAD, 9, upserts, UPSERT_TAIL);
  const links = [...coverage.values()].filter((c) => c.n !== 0);
  await writeRows(
    tx,
    COVERAGE_HEAD,
    6,
    links.map((c) => [c.brandId, c.engine, c.kind, c.day, c.prev, c.n]),
    COVERAGE_TAIL,
  );
  for (const c of links) if (c.n < 0) await tx.run(DROP_EMPTY_COVERAGE, [c.brandId, c.engine, c.kind, c.day, c.prev]);
}
