// Re-analysis of a brand's stored answers when its roster changes: mentions, citations, the brand's
// denormalised figures and the daily rollups are recomputed from the stored text and provider
// citations, with the roster as it stands now.
import { type Db } from "../db/client";
import { log } from "../log";
import { type AnswerAnalysis } from "./analysis/analyze";
import { type AnswerWriter, analyzeForStorage, brandFigures, dayOf } from "./answer-writer";
import { loadRoster } from "./roster";

/** Answers per transaction: small enough that a tracking run or a tool call never waits long for the lock. */
const REANALYSIS_CHUNK = 2_000;

interface StoredAnswerRow {
  id: number;
  engine: string;
  prompt_id: string;
  created_at: number;
  text: string;
  provider_citations: string;
}

export class Reanalysis {
  /** Bumped on every re-analysis so that a running tracking run reloads the roster before its next write. */
  private readonly rosterVersions = new Map<string, number>();
  private readonly running = new Map<string, { again: boolean; done: Promise<number> }>();

  constructor(
    private readonly db: Db,
    private readonly writer: AnswerWriter,
  ) {}

  rosterVersion(brandId: string): number {
    return this.rosterVersions.get(brandId) ?? 0;
  }

  /** What a roster change triggers: a re-analysis off the request path, its failure logged. */
  reanalyzeInBackground(brandId: string): void {
    this.reanalyzeBrand(brandId).catch((error: unknown) => {
      log.error("re-analysis after a roster change failed", { brand_id: brandId, message: (error as Error)?.message });
    });
  }

  /**
   * Re-analyses every valid answer of the brand. Each chunk is one transaction, and the event loop
   * is yielded between chunks so a server stays responsive. A call while one is under way for the
   * same brand makes that one start over once more (the roster changed again) and shares its
   * promise. Resolves to the number of answers re-analysed.
   */
  reanalyzeBrand(brandId: string): Promise<number> {
    this.rosterVersions.set(brandId, this.rosterVersion(brandId) + 1);
    const current = this.running.get(brandId);
    if (current) {
      current.again = true;
      return current.done;
    }
    const state = { again: false, done: Promise.resolve(0) };
    state.done = (async () => {
      try {
        let total = 0;
        do {
          state.again = false;
          total = await this.reanalyzeOnce(brandId, () => state.again);
        } while (state.again);
        return total;
      } finally {
        this.running.delete(brandId);
      }
    })();
    this.running.set(brandId, state);
    return state.done;
  }

  private async reanalyzeOnce(brandId: string, restart: () => boolean): Promise<number> {
    const db = this.db;
    const select = db.sqlite.query<StoredAnswerRow, [string, number, number]>(
      `SELECT id, engine, prompt_id, created_at, text, provider_citations FROM answers
       WHERE brand_id = ? AND status = 'ok' AND id > ? ORDER BY id LIMIT ?`,
    );
    const deleteMentions = db.sqlite.prepare("DELETE FROM mentions WHERE answer_id = ?");
    const deleteCitations = db.sqlite.prepare("DELETE FROM citations WHERE answer_id = ?");
    const updateFigures = db.sqlite.prepare(
      "UPDATE answers SET brand_mentioned = ?, brand_position = ?, brand_sentiment = ?, brand_cited = ?, roster_mentions = ? WHERE id = ?",
    );
    const writer = this.writer;
    let after = 0;
    let total = 0;
    for (;;) {
      if (restart()) return total;
      const roster = loadRoster(db, brandId);
      // Demo and real data repeat answer texts; analysing each distinct one once per chunk is enough.
      const cache = new Map<string, AnswerAnalysis>();
      const processed = db.sqlite
        .transaction(() => {
          const rows = select.all(brandId, after, REANALYSIS_CHUNK);
          const days = new Set<number>();
          for (const row of rows) {
            days.add(dayOf(row.created_at));
            const key = `${row.provider_citations}\u0000${row.text}`;
            let analysis = cache.get(key);
            if (!analysis) {
              analysis = analyzeForStorage("ok", row.text, parseStringList(row.provider_citations), roster);
              cache.set(key, analysis);
            }
            const figures = brandFigures(analysis, roster);
            deleteMentions.run(row.id);
            deleteCitations.run(row.id);
            updateFigures.run(
              figures.mentioned ? 1 : 0,
              figures.position,
              figures.sentiment,
              figures.cited ? 1 : 0,
              figures.rosterMentions,
              row.id,
            );
            writer.writeAnalysis(
              row.id,
              { brandId, engine: row.engine, promptId: row.prompt_id, createdAt: row.created_at },
              analysis,
              roster.brandId,
            );
          }
          // The days these answers fall on are summed again from the stored rows, in the same transaction.
          writer.rebuildRollups(brandId, days);
          return rows;
        })
        .immediate();
      total += processed.length;
      if (processed.length < REANALYSIS_CHUNK) return total;
      after = processed[processed.length - 1]!.id;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

function parseStringList(json: string): string[] {
  try {
    const value = JSON.parse(json) as unknown;
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}
