// Scheduled tracking: on `[tracking] schedule` (cron, UTC) every trackable brand is run in turn.
// croner's `protect` skips a tick while the previous one is still going, so ticks never pile up.
// At start, a scheduled run that a stop cut short (an upgrade's restart, a reboot) is finished
// first, rather than left partial until the brand's next run.
import { Cron } from "croner";
import { type AppContext } from "../context";
import { isUnreachable } from "../db/storage-health";
import { AppError } from "../errors";
import { log } from "../log";
import { latestRunRow, RESUME_WINDOW_MS } from "./runner";
import { enginesWithoutKey, runTracking, trackableBrandIds } from "./service";

/** How long after the scheduler starts it resumes the scheduled runs a stop interrupted. */
const RESUME_AFTER_MS = 1_000;
/** How soon a tick asks again while PostgreSQL does not answer. */
const RETRY_UNREACHABLE_MS = 30_000;

export interface Scheduler {
  nextRun(): Date | null;
  /**
   * Runs one tick now (what the cron does); resolves when every brand's run has ended. With `slot`
   * (the tick's time), a brand whose run for that slot another instance claimed is skipped.
   */
  tick(slot?: string): Promise<void>;
  /** The resumption of the scheduled runs a stop interrupted, started with the scheduler; ticks wait for it. */
  resumed: Promise<void>;
  stop(): void;
}

/**
 * Resumes, one brand after the other, each trackable brand's latest run when the schedule started it
 * and a stop interrupted it within the resume window: the day's figures would otherwise stay partial
 * until the next tick. Runs started by hand (run_tracking, Run now, `spyglass track`) are left for
 * their brand's next run, as the README says: stopping them may have been the point. Another
 * instance resuming the same run first makes this one skip it (already running).
 */
async function resumeInterruptedTicks(app: AppContext, stopped: () => boolean): Promise<void> {
  for (const brandId of await trackableBrandIds(app)) {
    if (stopped()) return;
    const last = await latestRunRow(app.db, brandId);
    if (last?.trigger !== "schedule" || last.status !== "interrupted" || Date.now() - last.startedAt > RESUME_WINDOW_MS) continue;
    log.info("scheduled tracking resumes a run a stop interrupted", { brand: brandId, run: last.id, answers_done: last.answersDone });
    try {
      await runTracking(app, brandId, { trigger: "schedule", resumeOnly: last.id });
    } catch (error) {
      // The database out of reach: the whole resumption waits for it (startScheduler).
      if (isUnreachable(error)) throw error;
      if (error instanceof AppError)
        log.info("scheduled tracking did not resume a run", { brand: brandId, run: last.id, reason: error.message });
      else log.error("scheduled tracking failed to resume a run", { brand: brandId, run: last.id, message: (error as Error).message });
    }
  }
}

export function startScheduler(app: AppContext, options: { retryUnreachableMs?: number } = {}): Scheduler | null {
  const retryMs = options.retryUnreachableMs ?? RETRY_UNREACHABLE_MS;
  const { tracking, engines } = app.config;
  if (!tracking.enabled) {
    log.info("scheduled tracking is disabled", {});
    return null;
  }
  if (engines.length === 0) {
    log.info("scheduled tracking is off: no [[engines]] configured", {});
    return null;
  }
  // `slot`: the tick's scheduled time. Every instance on one database fires the same tick; the first
  // to claim a brand's slot runs it (the others help with its work), the others skip the brand.
  // A moment after start, so that the server listens (and answers) first.
  let stopped = false;
  // A wait for the database ends at once on stop().
  let wake: () => void = () => {};
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  let release: () => void = () => {};
  const delay = new Promise<void>((resolve) => (release = resolve));
  const timer = setTimeout(() => release(), RESUME_AFTER_MS);
  timer.unref();
  const resumeWhenReachable = async (): Promise<void> => {
    let waited = false;
    for (;;) {
      if (stopped) return;
      try {
        return await resumeInterruptedTicks(app, () => stopped);
      } catch (error) {
        if (!isUnreachable(error)) throw error;
      }
      if (!waited) {
        waited = true;
        log.warn("scheduled tracking waits for the database, which does not answer, to resume interrupted runs", {
          retry_in_s: retryMs / 1000,
        });
      }
      await pause(retryMs);
    }
  };
  const resumed = delay
    .then(resumeWhenReachable)
    .catch((error: Error) => log.error("scheduled tracking failed to resume interrupted runs", { message: error.message }));
  // While PostgreSQL does not answer, a tick tries again every retryMs until the next
  // tick is due: a restart of the database at the scheduled time lost that day's run, logged as "a bug".
  const untilNextTick = () => (job.nextRun()?.getTime() ?? Number.POSITIVE_INFINITY) - retryMs;
  const tick = async (slot?: string): Promise<void> => {
    // A tick during the resumption waits for it: started now, the brand's resumed run would make it skip the brand.
    await resumed;
    let brandIds: string[] | null = null;
    let waiting: string[] = [];
    let warned = false;
    for (;;) {
      if (stopped) return;
      try {
        brandIds ??= await trackableBrandIds(app);
        waiting = [];
        for (const brandId of brandIds) {
          try {
            // Its end is logged by the run itself (startTracking).
            await runTracking(app, brandId, { trigger: "schedule", ...(slot ? { slot } : {}) });
          } catch (error) {
            if (isUnreachable(error)) waiting.push(brandId);
            // Already running (a manual run) or nothing to track: skip this brand until the next tick.
            else if (error instanceof AppError) log.info("scheduled tracking skipped a brand", { brand: brandId, reason: error.message });
            else log.error("scheduled tracking failed", { brand: brandId, message: (error as Error).message });
          }
        }
        if (waiting.length === 0) return;
        brandIds = waiting;
      } catch (error) {
        if (!isUnreachable(error)) throw error;
      }
      if (stopped) return;
      if (Date.now() >= untilNextTick()) {
        log.error("scheduled tracking skipped a tick: the database did not answer until the next one", {
          slot,
          brands: waiting.length || null,
        });
        return;
      }
      // Said once a tick: the wait may last until the next one.
      if (!warned) {
        warned = true;
        log.warn("scheduled tracking waits for the database, which does not answer; trying again shortly", {
          slot,
          retry_in_s: retryMs / 1000,
        });
      }
      await pause(retryMs);
    }
  };
  const job: Cron = new Cron(
    tracking.schedule,
    { timezone: "UTC", protect: true, name: "tracking" },
    (): Promise<void> =>
      // The scheduled instant this tick stands for (the timer fires at it or a little after).
      tick(job.previousRuns(1, new Date(Date.now() + 1))[0]?.toISOString() ?? new Date().toISOString()).catch((error: Error) =>
        log.error("scheduled tracking failed", { message: error.message }),
      ),
  );
  log.info("scheduled tracking", { cron: tracking.schedule, next_run: job.nextRun()?.toISOString() ?? null });
  for (const engine of enginesWithoutKey(app)) {
    log.warn(`engine "${engine.id}": api_key_env names ${engine.variable}, which is not set; its scheduled answers will be errors`, {
      engine: engine.id,
      api_key_env: engine.variable,
    });
  }
  return {
    nextRun: () => job.nextRun(),
    tick,
    resumed,
    stop: () => {
      stopped = true;
      wake();
      clearTimeout(timer);
      release();
      job.stop();
    },
  };
}
