// The default period's per-prompt sums (prompt_windows; schema.ts says what they hold): the ranking of
// every prompt for the default filter (prompt performance, content gaps) reads one row per prompt
// and engine instead of each prompt's days, so it grows with the prompts' count only through the
// page it returns (issue 19: 12,000 prompts × 30 days took ~230 ms summed day by day).
//
// A brand's windows hold the WINDOW_DAYS days ending on its state's end_day. While that stands, every
// change to prompt_days inside the period reaches them through the same writes (applyWindowDeltas,
// called by the answer writer after applyPromptRollups, in the writing transaction). When the period
// moves on (a new UTC day), `serve` rebuilds them just after midnight (startWindowRollover), and a
// ranking that wants today's period before that is answered from prompt_days, as any other filter
// is, and starts the rebuild: the state moves to the new end_day first (the writes from then on
// follow the new period), then the brand's prompts are summed again in slices, each one transaction
// under the rollup lock that every writer takes, and the state is marked complete. Only a complete
// state of the wanted day is read; anything else falls back to prompt_days.
//
// A large brand's rebuild on an SQLite file runs on a worker thread with its own connection
// (db/slice-thread.ts): at 2.16 million answers, on the serving thread, its slices' reads of pages
// not in memory, and their waits behind the checkpointer's syncs of the file, made some slices take
// 20–30 ms (/healthz max 31 ms); on the worker, /healthz meanwhile stayed under 7 ms.
import { type Db, type SqliteDb } from "../db/client";
import { placeholders, type Queries, type SqlParam } from "../db/queries";
import { inGate, onFile, runOnThread, type SliceControl, type SliceThread, type ThreadOutcome } from "../db/slice-thread";
import { nextSliceSize } from "../db/slices";
import { log } from "../log";
import { countPrompts, listPromptIds } from "../prompts/service";
import { writeRows } from "./bulk-rows";
import { type PromptDayDelta, rollupLock } from "./prompt-rollups";

/** The default period's length in days (analytics/filters.ts's DEFAULT_DAYS is this). */
export const WINDOW_DAYS = 30;
/**
 * A rebuild sums its prompts (30 days × 4 engines of prompt_days apiece) in slices of about
 * SLICE_MS, one transaction each. A fixed 50 prompts took ~3 ms a slice with 1,200 prompts, but 7–12
 * (up to 30, with /healthz probes of 33.5 ms) with 12,000 and 2.16 million answers, whose rows are
 * not all in the page cache; so each slice is sized from the last one's cost per prompt, timed from
 * when it holds the brand's rollup lock (waiting for a writer is not its cost). On PostgreSQL a
 * slice's time is the database server's, not the event loop's, so slices are larger, but the answers
 * of the brand written meanwhile wait for the lock: 50 ms.
 */
const SLICE_MS = { sqlite: 8, postgres: 50 };
const FIRST_SLICE_PROMPTS = 50;
const SLICE_PROMPTS = { min: 5, max: 400 };

const real = (tx: Queries) => (tx.dialect === "postgres" ? "DOUBLE PRECISION" : "REAL");

const UPSERT_HEAD =
  "INSERT INTO prompt_windows AS r (brand_id, engine, prompt_id, total, valid, mentioned, position_sum, competitor, rate)";
const upsertTail = (tx: Queries) => `ON CONFLICT (brand_id, engine, prompt_id) DO UPDATE SET total = r.total + excluded.total,
  valid = r.valid + excluded.valid, mentioned = r.mentioned + excluded.mentioned, position_sum = r.position_sum + excluded.position_sum,
  competitor = r.competitor + excluded.competitor,
  rate = CASE WHEN r.valid + excluded.valid > 0 THEN CAST(r.mentioned + excluded.mentioned AS ${real(tx)}) / (r.valid + excluded.valid) END`;
const DROP_EMPTY = "DELETE FROM prompt_windows WHERE brand_id = ? AND engine = ? AND prompt_id = ? AND total = 0";
const STATE = "SELECT end_day, complete FROM prompt_window_state WHERE brand_id = ?";

export interface WindowState {
  end_day: number;
  complete: number;
}

export async function windowState(db: Queries, brandId: string): Promise<WindowState | undefined> {
  return db.get<WindowState>(STATE, [brandId]);
}

/**
 * Adds one batch's prompt_days deltas (re-analysis gives negative parts) to the windows of the brands
 * whose state covers their days; inside the writing transaction, which holds the brands' rollup locks.
 */
export async function applyWindowDeltas(tx: Queries, deltas: Iterable<PromptDayDelta>): Promise<void> {
  const states = new Map<string, WindowState | undefined>();
  const sums = new Map<string, { brandId: string; engine: string; promptId: string; v: number[] }>();
  for (const { brandId, engine, promptId, day, v } of deltas) {
    if (!states.has(brandId)) states.set(brandId, await windowState(tx, brandId));
    const state = states.get(brandId);
    if (!state || day < state.end_day - (WINDOW_DAYS - 1) || day > state.end_day) continue;
    const key = `${brandId}\u0000${engine}\u0000${promptId}`;
    const sum = sums.get(key);
    if (sum) for (let k = 0; k < v.length; k++) sum.v[k]! += v[k]!;
    else sums.set(key, { brandId, engine, promptId, v: [...v] });
  }
  const rows: SqlParam[][] = [];
  for (const { brandId, engine, promptId, v } of sums.values()) {
    if (v.every((x) => x === 0)) continue;
    // The rate of a new row; an existing row's is computed by the upsert from its new sums. The same
    // IEEE division as SQL's, so the two never differ.
    const [, valid, mentioned] = v as [number, number, number];
    rows.push([brandId, engine, promptId, ...v, (valid > 0 ? mentioned / valid : null) as SqlParam]);
  }
  await writeRows(tx, UPSERT_HEAD, 9, rows, upsertTail(tx));
  for (const row of rows) if ((row[3] as number) < 0) await tx.run(DROP_EMPTY, [row[0]!, row[1]!, row[2]!]);
}

const refreshing = new WeakMap<Db, Map<string, Promise<void>>>();
/** Rebuilds under way on worker threads, ended by a stop. */
const threads = new WeakMap<Db, Set<SliceThread<number | null>>>();
/** Databases whose process is stopping: no rebuild starts, and those under way end at their next slice. */
const stopping = new WeakSet<Db>();

/**
 * A brand with at least this many prompts has its windows rebuilt on a worker thread with its own
 * connection (SQLite files only: db/slice-thread.ts). Fewer take a few slices of the serving thread,
 * less than starting the worker.
 */
const OFF_THREAD_FROM = 500;

export interface RefreshOptions {
  /** Prompts from which the rebuild runs on a worker thread (tests make it small). */
  offThreadFrom?: number;
  /** The worker's entry; tests pass one that fails. */
  workerUrl?: string;
}

/**
 * Starts the rebuild of the brand's windows for the period ending on `endDay` unless one is under
 * way in this process; returns it (tests and benches wait for it, a ranking does not).
 */
export function refreshWindows(db: Db, brandId: string, endDay: number, options: RefreshOptions = {}): Promise<void> {
  let running = refreshing.get(db);
  if (!running) refreshing.set(db, (running = new Map()));
  const under = running.get(brandId);
  if (under) return under;
  if (stopping.has(db)) return Promise.resolve();
  const started = performance.now();
  let thread = "serving";
  const done = (async () => {
    if (onFile(db)) {
      if ((await countPrompts(db, brandId)) >= (options.offThreadFrom ?? OFF_THREAD_FROM)) {
        const outcome = await inWorker(db, brandId, endDay, options.workerUrl);
        if (outcome !== "not started") {
          thread = "worker";
          return outcome === "ended" ? null : outcome.result;
        }
      }
    }
    return rebuildWindows(db, brandId, endDay, { stop: () => stopping.has(db) });
  })()
    .then((prompts) => {
      if (prompts !== null) {
        const ms = Math.round(performance.now() - started);
        log.debug("prompt windows rebuilt", { brand_id: brandId, end_day: endDay, prompts, ms, thread });
      }
    })
    .catch((error: Error) => {
      // The figures are still answered from prompt_days; the next ranking tries again.
      log.warn("prompt windows rebuild failed", { brand_id: brandId, message: error.message });
    })
    .finally(() => running.delete(brandId));
  running.set(brandId, done);
  return done;
}

/** A rebuild on a worker thread (tracking/bulk-worker.ts). */
export type WindowsJob = { kind: "windows"; brandId: string; endDay: number };

/** The rebuild on a worker thread; ended by a stop like the serving thread's. */
async function inWorker(db: SqliteDb, brandId: string, endDay: number, url: string | undefined): Promise<ThreadOutcome<number | null>> {
  const thread = runOnThread<WindowsJob, number | null>(
    db,
    "prompt windows",
    { kind: "windows", brandId, endDay },
    {
      notStarted: "the prompt windows worker did not start: the rebuild runs on the serving thread",
      fields: { brand_id: brandId },
      workerUrl: url,
    },
  );
  let under = threads.get(db);
  if (!under) threads.set(db, (under = new Set()));
  under.add(thread);
  if (stopping.has(db)) thread.end(true);
  try {
    return await thread.outcome;
  } finally {
    under.delete(thread);
  }
}

/**
 * Sums the brand's prompts' days into its windows for the period ending on `endDay`, in slices, each
 * transaction inside the control's gate. The prompts summed, or null when another rebuild moved the
 * state to another day meanwhile, or the control stopped it.
 */
export async function rebuildWindows(db: Db, brandId: string, endDay: number, control: SliceControl): Promise<number | null> {
  await inGate(control, () =>
    db.transaction(async (tx) => {
      await tx.lock(rollupLock(brandId));
      await tx.run(
        `INSERT INTO prompt_window_state (brand_id, end_day, complete) VALUES (?, ?, 0)
           ON CONFLICT (brand_id) DO UPDATE SET end_day = excluded.end_day, complete = 0`,
        [brandId, endDay],
      );
    }),
  );
  // Read after the state moved: a prompt created later has had all its answers counted by the writes.
  const prompts = await listPromptIds(db, brandId);
  let size = FIRST_SLICE_PROMPTS;
  for (let start = 0; start < prompts.length; ) {
    await db.betweenSlices();
    // Left incomplete: the next start's roll-over (or ranking) builds the period again.
    if (control.stop()) return null;
    const slice = prompts.slice(start, start + size);
    let began = 0;
    const current = await inGate(control, () =>
      db.transaction(async (tx) => {
        await tx.lock(rollupLock(brandId));
        began = performance.now();
        if ((await windowState(tx, brandId))?.end_day !== endDay) return false;
        await tx.run(`DELETE FROM prompt_windows WHERE brand_id = ? AND prompt_id IN (${placeholders(slice.length)})`, [brandId, ...slice]);
        await tx.run(
          `INSERT INTO prompt_windows (brand_id, engine, prompt_id, total, valid, mentioned, position_sum, competitor, rate)
           SELECT ?, d.engine, d.prompt_id, sum(d.total), sum(d.valid), sum(d.mentioned), sum(d.position_sum), sum(d.competitor),
                  CASE WHEN sum(d.valid) > 0 THEN CAST(sum(d.mentioned) AS ${real(tx)}) / sum(d.valid) END
           FROM prompt_days d WHERE d.prompt_id IN (${placeholders(slice.length)}) AND d.day >= ? AND d.day <= ?
           GROUP BY d.prompt_id, d.engine`,
          [brandId, ...slice, endDay - (WINDOW_DAYS - 1), endDay],
        );
        return true;
      }),
    );
    if (!current) return null;
    start += slice.length;
    size = nextSliceSize(slice.length, performance.now() - began, { size, targetMs: SLICE_MS[db.dialect], ...SLICE_PROMPTS });
  }
  await inGate(control, () => db.run("UPDATE prompt_window_state SET complete = 1 WHERE brand_id = ? AND end_day = ?", [brandId, endDay]));
  return prompts.length;
}

const DAY_MS = 86_400_000;
/** After midnight UTC, so that a clock a little behind the database's other writers still sees the new day. */
const ROLLOVER_DELAY_MS = 5_000;

/**
 * Rebuilds, one brand after another, the windows of every brand that has some and whose period ends
 * before `today` (a UTC day number): then the first ranking of the day reads them instead of summing
 * the days (0.4 s of the serving thread for 12,000 prompts). Returns the brands rolled.
 */
export async function rollWindowsForward(db: Db, today: number): Promise<number> {
  const stale = await db.all<{ brand_id: string }>("SELECT brand_id FROM prompt_window_state WHERE end_day < ? ORDER BY brand_id", [today]);
  for (const { brand_id } of stale) await refreshWindows(db, brand_id, today);
  return stale.length;
}

/**
 * `serve`: rolls the windows forward a few seconds after start (a stop across midnight; not during
 * the start's warm-ups) and just after each UTC midnight. A ranking that comes first still works: it
 * answers from the days and joins the rebuild under way. stop() ends the rebuilds under way at their
 * next slice, before the database closes.
 */
export function startWindowRollover(db: Db, firstAfterMs: number, now: () => number = Date.now): { stop(): Promise<void> } {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const roll = () => {
    const today = Math.floor(now() / DAY_MS);
    void rollWindowsForward(db, today).catch((error: Error) => log.warn("prompt windows roll-over failed", { message: error.message }));
    schedule((today + 1) * DAY_MS + ROLLOVER_DELAY_MS - now());
  };
  const schedule = (ms: number) => {
    if (stopping.has(db)) return;
    timer = setTimeout(roll, Math.max(0, ms));
    timer.unref?.();
  };
  schedule(firstAfterMs);
  return {
    async stop() {
      stopping.add(db);
      if (timer) clearTimeout(timer);
      for (const thread of threads.get(db) ?? []) thread.end(true);
      await Promise.all(refreshing.get(db)?.values() ?? []);
    },
  };
}
