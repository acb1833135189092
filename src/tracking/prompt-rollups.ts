// The per-prompt rollups (prompt_days) and the prompt coverage occurrences (prompt_coverage_days),
// kept equal to the stored answers: called by the answer writer inside the writing transaction with
// the additions (or, from re-analysis, the changes) of one batch of answers. See src/db/schema.ts
// for what the tables hold.
import { type Database, type Statement } from "bun:sqlite";
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

export class PromptRollups {
  private readonly current: Statement<{ total: number; valid: number; mentioned: number } | null>;
  private readonly upsert: Statement;
  private readonly remove: Statement;
  private readonly neighbours: Record<Kind, { before: Statement<{ day: number }>; after: Statement<{ day: number }> }>;
  private readonly upsertCoverage: Statement;
  private readonly dropEmptyCoverage: Statement;

  constructor(sqlite: Database) {
    this.current = sqlite.prepare(
      "SELECT total, valid, mentioned FROM prompt_days WHERE brand_id = ?1 AND prompt_id = ?2 AND engine = ?3 AND day = ?4",
    );
    this.upsert = sqlite.prepare(
      `INSERT INTO prompt_days (brand_id, prompt_id, engine, day, total, valid, mentioned, position_sum, competitor)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
       ON CONFLICT (brand_id, prompt_id, engine, day) DO UPDATE SET total = total + excluded.total, valid = valid + excluded.valid,
         mentioned = mentioned + excluded.mentioned, position_sum = position_sum + excluded.position_sum,
         competitor = competitor + excluded.competitor`,
    );
    this.remove = sqlite.prepare("DELETE FROM prompt_days WHERE brand_id = ?1 AND prompt_id = ?2 AND engine = ?3 AND day = ?4");
    const neighbour = (column: Kind, before: boolean) =>
      sqlite.prepare<{ day: number }, [string, string, number]>(
        // The prompt names the brand: without brand_id the covering (prompt, engine, day, …) index answers it.
        `SELECT day FROM prompt_days WHERE prompt_id = ?1 AND engine = ?2 AND day ${before ? "<" : ">"} ?3
           AND ${column} > 0 ORDER BY day ${before ? "DESC" : "ASC"} LIMIT 1`,
      );
    this.neighbours = {
      valid: { before: neighbour("valid", true), after: neighbour("valid", false) },
      mentioned: { before: neighbour("mentioned", true), after: neighbour("mentioned", false) },
    };
    this.upsertCoverage = sqlite.prepare(
      `INSERT INTO prompt_coverage_days (brand_id, engine, kind, day, prev_day, prompts) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
       ON CONFLICT (brand_id, engine, kind, day, prev_day) DO UPDATE SET prompts = prompts + excluded.prompts`,
    );
    this.dropEmptyCoverage = sqlite.prepare(
      "DELETE FROM prompt_coverage_days WHERE brand_id = ?1 AND engine = ?2 AND kind = ?3 AND day = ?4 AND prev_day = ?5 AND prompts = 0",
    );
  }

  /** Adds the deltas (negative parts come from re-analysis) and moves the coverage occurrences that appear or vanish. */
  apply(deltas: Iterable<PromptDayDelta>): void {
    for (const { brandId, promptId, engine, day, v } of deltas) {
      if (v.every((x) => x === 0)) continue;
      const before = this.current.get(brandId, promptId, engine, day) ?? { total: 0, valid: 0, mentioned: 0 };
      const after = { total: before.total + v[0], valid: before.valid + v[1], mentioned: before.mentioned + v[2] };
      if (after.total === 0) this.remove.run(brandId, promptId, engine, day);
      else this.upsert.run(brandId, promptId, engine, day, ...v);
      for (const kind of COVERAGE_KINDS) {
        const was = before[kind] > 0;
        const is = after[kind] > 0;
        if (was !== is) this.moveOccurrence(brandId, promptId, engine, day, kind, is ? 1 : -1);
      }
    }
  }

  /**
   * The prompt's occurrence on `day` appears (+1) or vanishes (-1); its neighbours are read from
   * prompt_days, which already holds the new state of `day` (the neighbours exclude it).
   */
  private moveOccurrence(brandId: string, promptId: string, engine: string, day: number, kind: Kind, sign: 1 | -1): void {
    const prev = this.neighbours[kind].before.get(promptId, engine, day)?.day ?? -1;
    const next = this.neighbours[kind].after.get(promptId, engine, day)?.day;
    this.addCoverage(brandId, engine, kind, day, prev, sign);
    if (next !== undefined) {
      this.addCoverage(brandId, engine, kind, next, prev, -sign);
      this.addCoverage(brandId, engine, kind, next, day, sign);
    }
  }

  private addCoverage(brandId: string, engine: string, kind: Kind, day: number, prev: number, n: number): void {
    this.upsertCoverage.run(brandId, engine, kind, day, prev, n);
    if (n < 0) this.dropEmptyCoverage.run(brandId, engine, kind, day, prev);
  }
}
