// Scheduled tracking: on `[tracking] schedule` (cron, UTC) every trackable brand is run in turn.
// croner's `protect` skips a tick while the previous one is still going, so ticks never pile up.
import { Cron } from "croner";
import { type AppContext } from "../context";
import { AppError } from "../errors";
import { log } from "../log";
import { enginesWithoutKey, runTracking, trackableBrandIds } from "./service";

export interface Scheduler {
  nextRun(): Date | null;
  /**
   * Runs one tick now (what the cron does); resolves when every brand's run has ended. With `slot`
   * (the tick's time), a brand whose run for that slot another instance claimed is skipped.
   */
  tick(slot?: string): Promise<void>;
  stop(): void;
}

export function startScheduler(app: AppContext): Scheduler | null {
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
  const tick = async (slot?: string): Promise<void> => {
    for (const brandId of await trackableBrandIds(app)) {
      try {
        // Its end is logged by the run itself (startTracking).
        await runTracking(app, brandId, { trigger: "schedule", ...(slot ? { slot } : {}) });
      } catch (error) {
        // Already running (a manual run) or nothing to track: skip this brand until the next tick.
        if (error instanceof AppError) log.info("scheduled tracking skipped a brand", { brand: brandId, reason: error.message });
        else log.error("scheduled tracking failed", { brand: brandId, message: (error as Error).message });
      }
    }
  };
  const job: Cron = new Cron(
    tracking.schedule,
    { timezone: "UTC", protect: true, name: "tracking" },
    (): Promise<void> =>
      // The scheduled instant this tick stands for (the timer fires at it or a little after).
      tick(job.previousRuns(1, new Date(Date.now() + 1))[0]?.toISOString() ?? new Date().toISOString()),
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
    stop: () => job.stop(),
  };
}
