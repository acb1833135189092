// The tracking feature as the rest of the product sees it: start a run (in the background or to the
// end), its status and schedule, run records, and the shutdown hook.
import { Cron } from "croner";
import { type AppContext } from "../context";
import { type RunStatus } from "../db/schema";
import { NotFound } from "../errors";
import { iso, isoOrNull } from "../ids";
import { type ClientOptions } from "./engines/types";
import { type RunRequest, TrackingRunner } from "./runner";

export interface RunView {
  id: string;
  brand_id: string;
  status: RunStatus;
  trigger: string;
  engines: string[];
  answers_planned: number;
  answers_done: number;
  /** Stored answers of the run by status. */
  answers: { ok: number; empty: number; refusal: number; error: number };
  started_at: string;
  finished_at: string | null;
  error: string | null;
}

// Keyed by the database handle: the CLI, the scheduler and the tool server of one process share it,
// and with it the per-brand lock and the per-engine concurrency limits.
const runners = new WeakMap<AppContext["db"], TrackingRunner>();

/** The process's runner for this database, created on first use. */
export function getTracking(app: AppContext, clientOptions?: ClientOptions): TrackingRunner {
  let runner = runners.get(app.db);
  if (!runner) {
    runner = new TrackingRunner(app, clientOptions);
    runners.set(app.db, runner);
  }
  return runner;
}

/** Starts a run in the background; returns its record as it stands at the start. */
export function startTracking(app: AppContext, brandId: string, request: RunRequest): { run: RunView; done: Promise<RunView> } {
  const started = getTracking(app).start(brandId, request);
  return { run: getRun(app, brandId, started.runId), done: started.done.then(() => getRun(app, brandId, started.runId)) };
}

/** Runs to the end and returns the final record (`completed`, `failed` or `interrupted`). */
export function runTracking(app: AppContext, brandId: string, request: RunRequest): Promise<RunView> {
  return startTracking(app, brandId, request).done;
}

/** The shutdown hook of `serve` and `track`: aborts in-flight requests and marks the runs interrupted. */
export async function stopTracking(app: AppContext): Promise<void> {
  await runners.get(app.db)?.shutdown();
}

interface RunRow {
  id: string;
  brand_id: string;
  status: RunStatus;
  trigger: string;
  engines: string;
  answers_planned: number;
  answers_done: number;
  started_at: number;
  finished_at: number | null;
  error: string | null;
}

function view(app: AppContext, row: RunRow): RunView {
  const counts = { ok: 0, empty: 0, refusal: 0, error: 0 };
  const rows = app.db.sqlite
    .query<{ status: keyof typeof counts; n: number }, [string]>(
      "SELECT status, count(*) AS n FROM answers WHERE run_id = ? GROUP BY status",
    )
    .all(row.id);
  for (const r of rows) counts[r.status] = r.n;
  return {
    id: row.id,
    brand_id: row.brand_id,
    status: row.status,
    trigger: row.trigger,
    engines: JSON.parse(row.engines) as string[],
    answers_planned: row.answers_planned,
    answers_done: row.answers_done,
    answers: counts,
    started_at: iso(row.started_at),
    finished_at: isoOrNull(row.finished_at),
    error: row.error,
  };
}

export function getRun(app: AppContext, brandId: string, runId: string): RunView {
  const row = app.db.sqlite
    .query<RunRow, [string, string]>("SELECT * FROM tracking_runs WHERE id = ? AND brand_id = ?")
    .get(runId, brandId);
  if (!row) throw new NotFound("Tracking run not found.", "run_not_found");
  return view(app, row);
}

export function lastRun(app: AppContext, brandId: string): RunView | null {
  const row = app.db.sqlite
    .query<RunRow, [string]>("SELECT * FROM tracking_runs WHERE brand_id = ? ORDER BY started_at DESC, id DESC LIMIT 1")
    .get(brandId);
  return row ? view(app, row) : null;
}

/** Brands the scheduler and `spyglass track` cover: on a paid plan, with at least one active prompt. */
export function trackableBrandIds(app: AppContext): string[] {
  return app.db.sqlite
    .query<{ id: string }, []>(
      `SELECT b.id FROM brands b JOIN accounts a ON a.id = b.account_id
       WHERE a.plan <> 'none' AND EXISTS (SELECT 1 FROM prompts p WHERE p.brand_id = b.id AND p.archived_at IS NULL)
       ORDER BY b.created_at, b.id`,
    )
    .all()
    .map((r) => r.id);
}

/** When the schedule fires next (UTC), or null when scheduled tracking is off or has no engine. */
export function nextScheduledRun(app: AppContext, from = new Date()): Date | null {
  const { tracking, engines } = app.config;
  if (!tracking.enabled || engines.length === 0) return null;
  return new Cron(tracking.schedule, { paused: true, timezone: "UTC" }).nextRun(from);
}

export interface TrackingStatus {
  engines: Array<{ id: string; label: string; api: string; model: string; concurrency: number; api_key_set: boolean }>;
  schedule: { cron: string; timezone: "UTC"; enabled: boolean; samples: number };
  last_run: RunView | null;
  next_run: string | null;
  running: boolean;
  message: string | null;
}

/**
 * The engines whose `api_key_env` names a variable that is unset or blank: every answer they gave
 * would be an error. `spyglass track` refuses to start while there is one.
 */
export function enginesWithoutKey(
  app: AppContext,
  env: Record<string, string | undefined> = process.env,
): Array<{ index: number; id: string; variable: string }> {
  return app.config.engines.flatMap((e, index) =>
    e.api_key_env !== undefined && !env[e.api_key_env]?.trim() ? [{ index, id: e.id, variable: e.api_key_env }] : [],
  );
}

export function getTrackingStatus(app: AppContext, brandId: string, env: Record<string, string | undefined> = process.env): TrackingStatus {
  const { tracking, engines } = app.config;
  const last = lastRun(app, brandId);
  const next = nextScheduledRun(app);
  return {
    engines: engines.map((e) => ({
      id: e.id,
      label: e.label,
      api: e.api,
      model: e.model,
      concurrency: e.concurrency,
      api_key_set: e.api_key_env === undefined || Boolean(env[e.api_key_env]?.trim()),
    })),
    schedule: { cron: tracking.schedule, timezone: "UTC", enabled: tracking.enabled, samples: tracking.samples },
    last_run: last,
    next_run: next ? next.toISOString() : null,
    running: last?.status === "running",
    message:
      engines.length === 0
        ? "No engines are configured: add [[engines]] sections to spyglass.toml (API keys in environment variables) to start tracking."
        : !tracking.enabled
          ? "Scheduled tracking is disabled ([tracking] enabled = false); run_tracking still works."
          : null,
  };
}
