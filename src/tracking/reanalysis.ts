// Re-analysis of a brand's stored answers when its roster changes: mentions, citations, the brand's
// denormalised figures and the rollups are recomputed from the stored text and provider citations,
// with the roster as it stands now. It runs in slices of a few milliseconds, each one transaction,
// yielding the event loop between them: a server keeps answering while a large brand is re-analysed.
// Each slice takes its answers' old analysis out of the rollups and puts the new one in, so the
// rollups always equal the sums over the stored rows; until the pass ends, a reader sees answers
// up to the slice last written with the new roster and the rest with the old one.

import { type Db, type SqliteDb } from "../db/client";
import { type Queries } from "../db/queries";
import { inGate, onFile, runOnThread, type SliceControl, type ThreadOutcome } from "../db/slice-thread";
import { log } from "../log";
import { getPromptLanguages } from "../prompts/service";
import { type AnswerAnalysis } from "./analysis/analyze";
import { type AnswerWriter, analyzeForStorage, type BrandFigures, brandFigures, RollupDelta } from "./answer-writer";
import { rollupLock } from "./prompt-rollups";
import { loadRoster, type Roster } from "./roster";

/** Work per slice before the event loop is yielded (well under the 20 ms a request may wait). */
const SLICE_MS = 4;
/** Answers read at a time within a slice. */
const BATCH = 16;
/** Distinct texts whose analysis is kept during a pass (demo and real data repeat texts). */
const CACHE_LIMIT = 20_000;

interface StoredAnswerRow {
  id: number;
  engine: string;
  prompt_id: string;
  created_at: number;
  text: string;
  provider_citations: string;
  brand_mentioned: number;
  brand_position: number | null;
  brand_sentiment: number | null;
  brand_cited: number;
  roster_mentions: number;
}

interface StoredMention {
  answer_id: number;
  member_id: string;
  offset: number;
  rank: number;
  sentiment: number;
}

interface StoredCitation {
  answer_id: number;
  url: string;
  domain: string;
}

const SELECT_ANSWERS = `SELECT id, engine, prompt_id, created_at, text, provider_citations, brand_mentioned, brand_position, brand_sentiment,
         brand_cited, roster_mentions
       FROM answers WHERE brand_id = ? AND status = 'ok' AND id > ? ORDER BY id LIMIT ?`;
const SELECT_MENTIONS = `SELECT answer_id, member_id, "offset", rank, sentiment FROM mentions WHERE answer_id BETWEEN ? AND ? AND brand_id = ?
       ORDER BY answer_id, rank`;
const SELECT_CITATIONS =
  "SELECT answer_id, url, domain FROM citations WHERE answer_id BETWEEN ? AND ? AND brand_id = ? ORDER BY answer_id, url";
const UPDATE_FIGURES =
  "UPDATE answers SET brand_mentioned = ?, brand_position = ?, brand_sentiment = ?, brand_cited = ?, roster_mentions = ? WHERE id = ?";

/** The brand's roster version in the database: every re-analysis, on any instance, moves it (0 before the first). */
export async function rosterVersionOf(db: Queries, brandId: string): Promise<number> {
  return (await db.get<{ version: number }>("SELECT version FROM roster_versions WHERE brand_id = ?", [brandId]))?.version ?? 0;
}

/**
 * Moves the brand's roster version, under the rollup lock that storing an answer takes: an answer
 * analysed with the roster before the change either commits before this (and the re-analysis that
 * follows sees it) or sees the new version and is analysed again (runner.ts).
 */
async function bumpRosterVersion(db: Db, brandId: string): Promise<number> {
  return await db.transaction(async (tx) => {
    await tx.lock(rollupLock(brandId));
    const row = await tx.get<{ version: number }>(
      `INSERT INTO roster_versions AS v (brand_id, version) VALUES (?, 1)
         ON CONFLICT (brand_id) DO UPDATE SET version = v.version + 1 RETURNING version`,
      [brandId],
    );
    return row!.version;
  });
}

/** Records that the pass started at `version` went through every answer (a later one's record stays). */
async function markAnalysed(db: Db, brandId: string, version: number): Promise<void> {
  await db.run("UPDATE roster_versions SET analysed = ?1 WHERE brand_id = ?2 AND analysed < ?1", [version, brandId]);
}

/**
 * What a pass is told by whoever runs it: when to stop early (the roster changed again, or the
 * process stops), and the gate around its transactions on a worker thread.
 */
export interface PassControl extends SliceControl {
  /**
   * The roster version the pass was started at (bumpRosterVersion). A slice that finds a newer one in
   * the database ends the pass unfinished: another instance (or process) changed the roster and runs
   * its own pass, which this one's older roster must not undo behind it.
   */
  version?: number;
}

/**
 * One pass over the brand's valid answers with `roster`, in slices of SLICE_MS, each one transaction
 * that takes the answers' old analysis out of the rollups and puts the new one in. Returns the answers
 * gone through and whether the pass reached the end.
 */
export async function reanalyzeAnswers(
  db: Db,
  writer: AnswerWriter,
  brandId: string,
  roster: Roster,
  control: PassControl,
): Promise<PassResult> {
  const cache = new Map<string, AnswerAnalysis>();
  let after = 0;
  let total = 0;
  // The brand's prompts' languages, which decide how an answer's sentiment is scored.
  const languages = await getPromptLanguages(db, brandId);
  for (;;) {
    // Yield first: the roster change that started the pass answers its request without waiting for a slice.
    await db.betweenSlices();
    if (control.stop()) return { total, finished: false };
    const slice = await inGate(control, () =>
      db.transaction<{ processed: number; done: boolean; superseded?: boolean }>(async (tx) => {
        await tx.lock(rollupLock(brandId));
        // Under the lock that a roster change's version bump takes: a newer version is seen here.
        if (control.version !== undefined && (await rosterVersionOf(tx, brandId)) > control.version) {
          return { processed: 0, done: false, superseded: true };
        }
        const started = performance.now();
        const delta = new RollupDelta();
        let processed = 0;
        let done = false;
        while (!done && performance.now() - started < SLICE_MS) {
          const rows = await tx.all<StoredAnswerRow>(SELECT_ANSWERS, [brandId, after, BATCH]);
          done = rows.length < BATCH;
          if (rows.length === 0) break;
          const first = rows[0]!.id;
          const last = rows[rows.length - 1]!.id;
          const oldMentions = groupByAnswer(await tx.all<StoredMention>(SELECT_MENTIONS, [first, last, brandId]));
          const oldCitations = groupByAnswer(await tx.all<StoredCitation>(SELECT_CITATIONS, [first, last, brandId]));
          for (const row of rows) {
            const language = languages.get(row.prompt_id) ?? null;
            const key = `${language ?? ""}\u0000${row.provider_citations}\u0000${row.text}`;
            let analysis = cache.get(key);
            if (!analysis) {
              analysis = analyzeForStorage("ok", row.text, parseStringList(row.provider_citations), roster, language);
              if (cache.size >= CACHE_LIMIT) cache.clear();
              cache.set(key, analysis);
            }
            const figures = brandFigures(analysis, roster);
            const old: AnswerAnalysis = {
              mentions: (oldMentions.get(row.id) ?? []).map(({ member_id, offset, rank, sentiment }) => ({
                member_id,
                offset,
                rank,
                sentiment,
              })),
              citations: (oldCitations.get(row.id) ?? []).map(({ url, domain }) => ({ url, domain })),
            };
            const oldFigures: BrandFigures = {
              mentioned: row.brand_mentioned === 1,
              position: row.brand_position,
              sentiment: row.brand_sentiment,
              cited: row.brand_cited === 1,
              rosterMentions: row.roster_mentions,
            };
            if (sameAnalysis(old, oldFigures, analysis, figures)) continue;
            await tx.run("DELETE FROM mentions WHERE answer_id = ?", [row.id]);
            await tx.run("DELETE FROM citations WHERE answer_id = ?", [row.id]);
            await tx.run(UPDATE_FIGURES, [
              figures.mentioned ? 1 : 0,
              figures.position,
              figures.sentiment,
              figures.cited ? 1 : 0,
              figures.rosterMentions,
              row.id,
            ]);
            const answer = { brandId, engine: row.engine, promptId: row.prompt_id, createdAt: row.created_at, status: "ok" as const };
            await writer.writeAnalysis(tx, row.id, answer, analysis, roster.brandId);
            delta.add(answer, oldFigures, old, -1);
            delta.add(answer, figures, analysis, 1);
          }
          processed += rows.length;
          after = last;
        }
        await writer.applyRollups(tx, delta);
        return { processed, done };
      }),
    );
    if (slice.superseded) return { total, finished: false, superseded: true };
    total += slice.processed;
    if (slice.done) return { total, finished: true };
  }
}

export interface ReanalysisOptions {
  /**
   * A brand with at least this many valid answers is re-analysed on a worker thread with its own
   * connection (SQLite files only); below it, a pass takes well under a second of slices on the
   * serving thread, less than starting the worker.
   */
  offThreadFrom?: number;
  /** The worker's entry; tests pass one that fails. */
  workerUrl?: string;
}

/** Valid answers past which a pass runs on a worker thread: about 150 ms of slices on the serving thread. */
const OFF_THREAD_FROM = 1_000;
interface Pass {
  again: boolean;
  /** Where its last run went: on a worker thread, or on the serving thread (the log says which). */
  offThread: boolean;
  done: Promise<number>;
  /** Tells a worker running the pass to end it (again, or stop). */
  interrupt: (() => void) | null;
  /** Its last run ended for another instance's newer roster, whose pass takes over: not finished here. */
  handedOver: boolean;
}

export class Reanalysis {
  /** Bumped on every re-analysis so that a running tracking run reloads the roster before its next write. */
  private readonly rosterVersions = new Map<string, number>();
  private readonly running = new Map<string, Pass>();
  private stopped = false;

  constructor(
    private readonly db: Db,
    private readonly writer: AnswerWriter,
    private readonly options: ReanalysisOptions = {},
  ) {}

  rosterVersion(brandId: string): number {
    return this.rosterVersions.get(brandId) ?? 0;
  }

  /** Once the brand's pass under way, if any, has ended (a brand's deletion waits for it). */
  async settled(brandId: string): Promise<void> {
    await this.running.get(brandId)?.done.catch(() => undefined);
  }

  /** What a roster change triggers: a re-analysis off the request path, its failure logged. */
  reanalyzeInBackground(brandId: string): void {
    this.reanalyzeBrand(brandId).catch((error: unknown) => {
      log.error("re-analysis after a roster change failed", { brand_id: brandId, message: (error as Error)?.message });
    });
  }

  /**
   * Re-analyses every valid answer of the brand. Each chunk is one transaction, and the event loop
   * is yielded between chunks so a server stays responsive (a large brand's pass runs on a worker
   * thread). A call while one is under way for the same brand makes that one start over once more
   * (the roster changed again) and shares its promise. Resolves to the number of answers re-analysed.
   */
  reanalyzeBrand(brandId: string): Promise<number> {
    this.rosterVersions.set(brandId, this.rosterVersion(brandId) + 1);
    const current = this.running.get(brandId);
    if (current) {
      current.again = true;
      current.interrupt?.();
      return current.done;
    }
    const pass: Pass = { again: false, offThread: false, done: Promise.resolve(0), interrupt: null, handedOver: false };
    pass.done = (async () => {
      try {
        const started = performance.now();
        let total = 0;
        do {
          pass.again = false;
          total = await this.reanalyzeOnce(brandId, pass);
        } while (pass.again && !this.stopped);
        // Handed over, it is not finished: the operator waits for the line of the pass that took over.
        if (total > 0 && !this.stopped && !pass.handedOver) {
          log.info("re-analysis finished", {
            brand_id: brandId,
            answers: total,
            ms: Math.round(performance.now() - started),
            thread: pass.offThread ? "worker" : "serving",
          });
        }
        return total;
      } finally {
        this.running.delete(brandId);
      }
    })();
    this.running.set(brandId, pass);
    return pass.done;
  }

  /**
   * Re-analyses, in the background, every brand whose last re-analysis did not go through all its
   * answers (cut short by a stop, a crash, a lost machine): `serve` calls it at start. Resolves to
   * the brands started.
   */
  async resumeUnfinished(): Promise<string[]> {
    const rows = await this.db.all<{ brand_id: string }>("SELECT brand_id FROM roster_versions WHERE analysed < version ORDER BY brand_id");
    for (const { brand_id } of rows) {
      // A pass cut short (a stop, a crash), or a roster changed by a process that did not re-analyse
      // (a build older than the roster's version): either way the answers lag the roster.
      log.info("re-analysis resumed: the brand's answers were not all analysed with its current roster", { brand_id });
      this.reanalyzeInBackground(brand_id);
    }
    return rows.map((r) => r.brand_id);
  }

  /**
   * Ends the passes under way where they stand (the next pass, after a restart, finishes the work:
   * every slice left the rollups equal to the stored rows) and waits for their workers to close
   * their connections: `serve`'s shutdown hook, before the database is closed.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    const passes = [...this.running.values()];
    for (const pass of passes) pass.interrupt?.();
    await Promise.allSettled(passes.map((pass) => pass.done));
  }

  private async reanalyzeOnce(brandId: string, pass: Pass): Promise<number> {
    const db = this.db;
    // Answers stored from now on (by any instance) are analysed with the roster read after this.
    const version = await bumpRosterVersion(db, brandId);
    let result: PassResult | null = null;
    if (onFile(db) && (await this.large(brandId))) {
      result = await this.inWorker(db, brandId, pass, version);
    }
    pass.offThread = result !== null;
    if (result === null) {
      // One roster for the whole pass: a roster change during it starts the pass over (pass.again).
      const roster = await loadRoster(db, brandId);
      result = await reanalyzeAnswers(db, this.writer, brandId, roster, { stop: () => pass.again || this.stopped, version });
    }
    if (result.finished) await markAnalysed(db, brandId, version);
    pass.handedOver = result.superseded === true;
    if (result.superseded) {
      log.info("re-analysis handed over: the roster changed again elsewhere, and that change's pass takes over", {
        brand_id: brandId,
        answers: result.total,
      });
    }
    return result.total;
  }

  /** True when the brand has enough valid answers for its pass to go to a worker thread. */
  private async large(brandId: string): Promise<boolean> {
    const from = this.options.offThreadFrom ?? OFF_THREAD_FROM;
    const row = await this.db.get<{ n: number }>(
      "SELECT count(*) AS n FROM (SELECT 1 FROM answers WHERE brand_id = ? AND status = 'ok' LIMIT ?)",
      [brandId, from],
    );
    return (row?.n ?? 0) >= from;
  }

  /**
   * The pass on a worker thread with its own connection to the file (db/slice-thread.ts): the serving
   * thread only waits for its answer, and its own writes meanwhile go between the worker's slices.
   * Resolves to the answers gone through and whether the pass went through every one, or to null
   * when the worker could not start (logged): the caller then runs the pass here. A pass that fails
   * once started (the database, not the thread) rejects, as it would here.
   */
  private async inWorker(db: SqliteDb, brandId: string, pass: Pass, version: number): Promise<PassResult | null> {
    const thread = runOnThread<ReanalysisJob, PassResult>(
      db,
      "re-analysis",
      { kind: "reanalysis", brandId, version },
      {
        notStarted: "the re-analysis worker did not start: the pass runs on the serving thread",
        fields: { brand_id: brandId },
        workerUrl: this.options.workerUrl,
      },
    );
    pass.interrupt = () => thread.end(this.stopped);
    if (this.stopped || pass.again) pass.interrupt();
    let outcome: ThreadOutcome<PassResult>;
    try {
      outcome = await thread.outcome;
    } finally {
      pass.interrupt = null;
    }
    if (outcome === "not started") return null;
    return outcome === "ended" ? CUT_SHORT : outcome.result;
  }
}

/** A pass on a worker thread (tracking/bulk-worker.ts): the roster version it was started at (PassControl.version). */
export type ReanalysisJob = { kind: "reanalysis"; brandId: string; version: number };

/** How a pass went: the answers gone through, whether it reached the end, and whether another's newer roster took over. */
type PassResult = { total: number; finished: boolean; superseded?: boolean };

/** A pass that ended before the last answer (stopped, or started over). */
const CUT_SHORT = { total: 0, finished: false };

function groupByAnswer<R extends { answer_id: number }>(rows: R[]): Map<number, R[]> {
  const out = new Map<number, R[]>();
  for (const row of rows) {
    const list = out.get(row.answer_id);
    if (list) list.push(row);
    else out.set(row.answer_id, [row]);
  }
  return out;
}

/** True when the stored analysis is what the new one would store: nothing to rewrite. */
function sameAnalysis(old: AnswerAnalysis, oldFigures: BrandFigures, next: AnswerAnalysis, figures: BrandFigures): boolean {
  if (
    oldFigures.mentioned !== figures.mentioned ||
    oldFigures.position !== figures.position ||
    oldFigures.sentiment !== figures.sentiment ||
    oldFigures.cited !== figures.cited ||
    oldFigures.rosterMentions !== figures.rosterMentions ||
    old.mentions.length !== next.mentions.length
  ) {
    return false;
  }
  const byRank = [...next.mentions].sort((a, b) => a.rank - b.rank);
  for (let i = 0; i < byRank.length; i++) {
    const a = old.mentions[i]!;
    const b = byRank[i]!;
    if (a.member_id !== b.member_id || a.offset !== b.offset || a.rank !== b.rank || a.sentiment !== b.sentiment) return false;
  }
  // Stored citations are the distinct URLs (one row per URL), ordered by URL.
  const urls = [...new Map(next.citations.map((c) => [c.url, c.domain])).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (urls.length !== old.citations.length) return false;
  return urls.every(([url, domain], i) => old.citations[i]!.url === url && old.citations[i]!.domain === domain);
}

function parseStringList(json: string): string[] {
  try {
    const value = JSON.parse(json) as unknown;
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}
