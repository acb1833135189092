// The tracking feature as the rest of the product sees it: start a run (in the background or to the
// end), its status and schedule, run records, storing answers, re-analysis, and the shutdown hook.
import { Cron } from "croner";
import { isDemoAccount, listPaidAccountIds } from "../accounts/service";
import { brandAccountId, getBrand, listBrandIdsOfAccounts } from "../brands/service";
import { type Config } from "../config";
import { type AppContext } from "../context";
import { type Db } from "../db/client";
import { type RunStatus } from "../db/values";
import { NotFound } from "../errors";
import { iso, isoOrNull } from "../ids";
import { type ClientOptions } from "../llm/types";
import { log } from "../log";
import { listBrandIdsWithActivePrompts } from "../prompts/service";
import { AnswerWriter, analyzeForStorage, type NewAnswer } from "./answer-writer";
import { enginesAnsweringNothing } from "./answered-nothing";
import { brandEngines } from "./engines";
import { type Forecast, forecast } from "./forecast";
import { Reanalysis } from "./reanalysis";
import { type Roster } from "./roster";
import { findRunRow, latestRunRow, type RunRequest, type RunRow, TrackingRunner } from "./runner";

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
  /** The same per engine (engines with a stored answer, by id), with the first error's reason. */
  by_engine: EngineAnswers[];
  /**
   * While the run is running: its engines whose provider asked to wait (a 429 or an overload), until
   * when and the provider's answer; their requests wait meanwhile, and the run with them.
   */
  waiting: Array<{ engine: string; until: string; reason: string }>;
  started_at: string;
  finished_at: string | null;
  error: string | null;
}

export interface EngineAnswers {
  engine: string;
  ok: number;
  empty: number;
  refusal: number;
  error: number;
  first_error: string | null;
}

/**
 * One per AppContext: the CLI, the scheduler and the tool server of a process share it, and with it
 * the per-brand run lock, the per-engine concurrency limits and the re-analysis state.
 */
export class TrackingService {
  readonly writer: AnswerWriter;
  readonly reanalysis: Reanalysis;
  readonly runner: TrackingRunner;

  constructor(
    config: Config,
    private readonly db: Db,
    clientOptions: ClientOptions = {},
  ) {
    this.writer = new AnswerWriter();
    this.reanalysis = new Reanalysis(db, this.writer);
    this.runner = new TrackingRunner(config, db, this.writer, clientOptions);
  }

  /** Analyses and stores one answer in its own transaction. Returns the answer id. */
  storeAnswer(answer: NewAnswer, roster: Roster): Promise<number> {
    const analysis = analyzeForStorage(answer.status, answer.text, answer.providerCitations, roster);
    return this.db.transaction((tx) => this.writer.write(tx, answer, analysis, roster));
  }

  /** Re-analyses the brand's stored answers with its roster as it stands now; see Reanalysis. */
  reanalyzeBrand(brandId: string): Promise<number> {
    return this.reanalysis.reanalyzeBrand(brandId);
  }
}

/** Starts a run in the background; returns its record as it stands at the start. */
export async function startTracking(
  app: AppContext,
  brandId: string,
  request: RunRequest,
): Promise<{ run: RunView; done: Promise<RunView> }> {
  const started = await app.tracking.runner.start(brandId, request);
  // Whoever started it (the schedule, spyglass track, run_tracking from a client or the dashboard),
  // its end is in the log, at warn when it failed or an engine answered nothing.
  const done = started.done.then(async () => {
    const run = await getRun(app, brandId, started.runId);
    // A run another instance took over during a stall is ended, and logged, by that instance.
    const owner = await app.db.get<{ owner: string | null }>("SELECT owner FROM tracking_runs WHERE id = ?", [started.runId]);
    if (owner?.owner === null || owner?.owner === app.tracking.runner.instance) await logRunEndOf(app, run);
    return run;
  });
  // A caller that does not wait for the end (run_tracking answers at the start) must not leave its
  // failure unhandled: the run's brand deleted meanwhile by another process (spyglass demo --reset,
  // another instance) made getRun throw, and an unhandled rejection stopped the whole server.
  // Whoever awaits `done` still gets the failure.
  done.catch(() => undefined);
  const run = await getRun(app, brandId, started.runId);
  // Its start too: a long run (many prompts, a provider asking to wait) said nothing until it ended.
  await logRunStart(app, run);
  return { run, done };
}

/** Runs to the end and returns the final record (`completed`, `failed` or `interrupted`). */
export async function runTracking(app: AppContext, brandId: string, request: RunRequest): Promise<RunView> {
  return (await startTracking(app, brandId, request)).done;
}

/**
 * The shutdown hook of `serve` and `track`: aborts in-flight requests and marks the runs interrupted
 * (saying `why`: the server stopped, spyglass track was stopped),
 * and ends the re-analysis passes under way (the next start's first roster change finishes them).
 */
export async function stopTracking(app: AppContext, why?: string): Promise<void> {
  await Promise.all([app.tracking.runner.shutdown(why), app.tracking.reanalysis.stop()]);
}

async function view(app: AppContext, row: RunRow): Promise<RunView> {
  const counts = { ok: 0, empty: 0, refusal: 0, error: 0 };
  const rows = await app.db.all<{ status: keyof typeof counts; n: number }>(
    "SELECT status, count(*) AS n FROM answers WHERE run_id = ? GROUP BY status",
    [row.id],
  );
  for (const r of rows) counts[r.status] = r.n;
  const byEngine = new Map<string, EngineAnswers>();
  const perEngine = await app.db.all<{ engine: string; status: keyof typeof counts; n: number; first_error: string | null }>(
    `SELECT a.engine, a.status, count(*) AS n, (SELECT e.error FROM answers e WHERE e.run_id = ?1 AND e.engine = a.engine
         AND e.status = 'error' ORDER BY e.id LIMIT 1) AS first_error
       FROM answers a WHERE a.run_id = ?1 GROUP BY a.engine, a.status ORDER BY a.engine`,
    [row.id],
  );
  for (const r of perEngine) {
    const entry = byEngine.get(r.engine) ?? { engine: r.engine, ok: 0, empty: 0, refusal: 0, error: 0, first_error: r.first_error };
    entry[r.status] = r.n;
    byEngine.set(r.engine, entry);
  }
  return {
    id: row.id,
    brand_id: row.brandId,
    status: row.status,
    trigger: row.trigger,
    engines: row.engines,
    answers_planned: row.answersPlanned,
    answers_done: row.answersDone,
    answers: counts,
    by_engine: [...byEngine.values()],
    waiting:
      row.status === "running"
        ? (await app.tracking.runner.waitingEngines(row.engines)).map((w) => ({ engine: w.engine, until: iso(w.until), reason: w.reason }))
        : [],
    started_at: iso(row.startedAt),
    finished_at: isoOrNull(row.finishedAt),
    error: row.error,
  };
}

export async function getRun(app: AppContext, brandId: string, runId: string): Promise<RunView> {
  const row = await findRunRow(app.db, brandId, runId);
  if (!row) throw new NotFound("Tracking run not found.", "run_not_found");
  return view(app, row);
}

export async function lastRun(app: AppContext, brandId: string): Promise<RunView | null> {
  const row = await latestRunRow(app.db, brandId);
  return row ? view(app, row) : null;
}

/**
 * The log's line for a run that ended, whoever started it: startTracking's callers, and runs this
 * instance took over from one that stopped answering (TrackingRunner.onAdoptedRunEnd, set by
 * createAppContext), whose end was logged by no one.
 */
export async function logRunEndOf(app: AppContext, run: RunView | { brandId: string; runId: string }): Promise<void> {
  try {
    const view = "runId" in run ? await getRun(app, run.brandId, run.runId) : run;
    logRunEnd(view, (await getBrand(app.db, view.brand_id)).name);
  } catch {
    // The brand was deleted with its runs meanwhile, or the database closed for a stop: nothing to say.
  }
}

async function logRunStart(app: AppContext, run: RunView): Promise<void> {
  let brandName: string;
  try {
    brandName = (await getBrand(app.db, run.brand_id)).name;
  } catch {
    return; // The brand was deleted meanwhile: its run is gone with it.
  }
  log.info("tracking run started", {
    brand: run.brand_id,
    brand_name: brandName,
    run: run.id,
    trigger: run.trigger,
    engines: run.engines,
    answers_planned: run.answers_planned,
    // A resumed run starts with the answers it had.
    answers_done: run.answers_done,
  });
}

/**
 * What an operator needs to know of a run that ended, in the log: a failed run or an engine that
 * answered nothing at warn, with the first error's reason; anything else at info.
 */
function logRunEnd(run: RunView, brandName: string): void {
  const silent = enginesAnsweringNothing(run.by_engine);
  const fields = {
    brand: run.brand_id,
    brand_name: brandName,
    run: run.id,
    trigger: run.trigger,
    status: run.status,
    answers: run.answers,
  };
  if (run.status === "failed" || run.status === "interrupted") {
    log.warn(`tracking run ${run.status}`, {
      ...fields,
      error: run.error,
      engine_errors: run.by_engine
        .filter((e) => e.error > 0)
        .map((e) => ({ engine: e.engine, errors: e.error, first_error: e.first_error })),
    });
  } else if (silent.length > 0) {
    for (const e of silent) {
      log.warn(`tracking run: engine "${e.engine}" answered nothing (${e.error} error${e.error === 1 ? "" : "s"})`, {
        ...fields,
        engine: e.engine,
        first_error: e.first_error,
      });
    }
  } else {
    log.info("tracking run ended", fields);
  }
}

/** Brands the scheduler and `spyglass track` cover: on a paid plan, with at least one active prompt (the demo's left out). */
export async function trackableBrandIds(app: AppContext): Promise<string[]> {
  const withPrompts = await listBrandIdsWithActivePrompts(app.db);
  const brandIds = await listBrandIdsOfAccounts(app.db, await listPaidAccountIds(app.db));
  return brandIds.filter((brandId) => withPrompts.has(brandId));
}

/** When the schedule fires next (UTC), or null when scheduled tracking is off or has no engine. */
export function nextScheduledRun(app: AppContext, from = new Date()): Date | null {
  const { tracking, engines } = app.config;
  if (!tracking.enabled || engines.length === 0) return null;
  return new Cron(tracking.schedule, { paused: true, timezone: "UTC" }).nextRun(from);
}

export interface TrackingStatus {
  engines: Array<{
    id: string;
    label: string;
    api: string | null;
    model: string;
    concurrency: number | null;
    api_key_set: boolean;
    /** The environment variable the key is read from (its name, never its value), or null. */
    api_key_env: string | null;
    configured: boolean;
    demo: boolean;
  }>;
  schedule: { cron: string; timezone: "UTC"; enabled: boolean; brand_scheduled: boolean; samples: number };
  last_run: RunView | null;
  next_run: string | null;
  running: boolean;
  message: string | null;
  /** Requests per run and per month, and the estimated cost where spyglass.toml gives prices. */
  forecast: Forecast;
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

export async function getTrackingStatus(
  app: AppContext,
  brandId: string,
  env: Record<string, string | undefined> = process.env,
): Promise<TrackingStatus> {
  const { tracking, engines } = app.config;
  const last = await lastRun(app, brandId);
  // The demo's brand is left out of the schedule (listPaidAccountIds): it has no next run.
  const demo = await isDemoAccount(app.db, await brandAccountId(app.db, brandId));
  const next = demo ? null : nextScheduledRun(app);
  const stored = await brandEngines(app, brandId);
  const estimate = await forecast(app, brandId, new Date(), { scheduled: !demo });
  return {
    engines: [
      ...engines.map((e) => ({
        id: e.id,
        label: e.label,
        api: e.api,
        model: e.model,
        concurrency: e.concurrency,
        api_key_set: e.api_key_env === undefined || Boolean(env[e.api_key_env]?.trim()),
        api_key_env: e.api_key_env ?? null,
        configured: true,
        demo: false,
      })),
      // Engines only present in stored answers (the demo's): listed so every engine list agrees, never run.
      ...stored
        .filter((e) => !e.configured)
        .map((e) => ({
          id: e.id,
          label: e.label,
          // Not configured: no API and no concurrency (they read "" and 0, as if configured so).
          api: null,
          model: e.model,
          concurrency: null,
          api_key_set: false,
          api_key_env: null,
          configured: false,
          demo: e.demo,
        })),
    ],
    schedule: {
      cron: tracking.schedule,
      timezone: "UTC",
      enabled: tracking.enabled,
      // Whether it asks this brand's prompts, as get_brand's tracking.enabled: "enabled" beside a
      // brand the schedule leaves out read as tracked (the AI-client walk).
      brand_scheduled: tracking.enabled && engines.length > 0 && !demo,
      samples: tracking.samples,
    },
    last_run: last,
    next_run: next ? next.toISOString() : null,
    running: last?.status === "running",
    message:
      engines.length === 0
        ? "No engines are configured: add [[engines]] sections to spyglass.toml (API keys in environment variables) to start tracking."
        : demo
          ? "This is spyglass demo's brand: its answers are made up, and scheduled runs leave it out. Run now (run_tracking) would ask the configured engines about its prompts, at their price."
          : !tracking.enabled
            ? "Scheduled tracking is disabled ([tracking] enabled = false); run_tracking still works."
            : null,
    // Last, as in get_tracking_status' output schema.
    forecast: estimate,
  };
}
