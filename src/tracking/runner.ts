// A tracking run: every active prompt × engine × sample asked once, each answer stored (with its
// analysis) the moment it arrives. The run's work is a queue in the database (tracking_tasks), so
// that every instance on one database shares it:
//
// - The instance that starts a run (or claims a scheduled tick) owns it: it writes the run row and
//   one task per answer to ask, holds the run by a lease it renews, and finishes the run once no
//   task is left.
// - Every instance's workers (one per request an engine may have in flight) claim tasks of running
//   runs, one at a time and with a lease (`FOR UPDATE SKIP LOCKED` on PostgreSQL; SQLite has one
//   writer), ask the engine, and store the answer in the transaction that deletes the task: a task
//   whose answer is stored cannot be stored again. A server's workers take any run's tasks; those
//   of a process that is not a server (`spyglass track`) only its own runs', as it leaves with them.
// - A claim or a run whose lease ran out (its instance died: a crash, a kill -9) is taken over by
//   another instance; a stop (SIGTERM) hands its claims back at once and marks its runs interrupted,
//   and the brand's next run resumes them without asking a stored answer twice.
// - Leases are times on the database's clock (each instance reads it at every renewal), so that the
//   hosts' clocks need not agree.
// One run per brand at a time, on any instance.

import { type Config, type EngineSettings } from "../config";
import { type AppContext } from "../context";
import { type Db } from "../db/client";
import { placeholders, type Queries, type SqlText } from "../db/queries";
import { type trackingRuns } from "../db/schema";
import { isStorageFailure } from "../db/storage-health";
import { type RunStatus } from "../db/values";
import { Conflict, Invalid, NotFound } from "../errors";
import { newId } from "../ids";
import { createEngineClient, type EngineClient } from "../llm/client";
import { type ClientOptions, type EngineAnswer } from "../llm/types";
import { log, RepeatedFailure } from "../log";
import { moment } from "../moment";
import { getPromptQuestions, listActivePrompts, type PromptQuestion } from "../prompts/service";
import { type AnswerWriter, analyzeForStorage, brandFigures, RollupDelta } from "./answer-writer";
import { rollupLock } from "./prompt-rollups";
import { rosterVersionOf } from "./reanalysis";
import { loadRoster, type Roster } from "./roster";
import { SearchStore } from "./search-store";

export type RunTrigger = "schedule" | "cli" | "tool";

export interface RunRequest {
  /** Restrict the run to these prompts (of the brand, not archived); all active prompts otherwise. */
  promptIds?: string[];
  /** Restrict the run to these configured engine ids; all configured engines otherwise. */
  engines?: string[];
  trigger: RunTrigger;
  /** A scheduled run's tick (ISO time): the brand runs once per tick, whichever instance claims it first. */
  slot?: string;
  /** Only resume this interrupted run: refused (409, not_resumable) when it cannot be, rather than a new run started. */
  resumeOnly?: string;
  /** Called after each answer this instance stores for the run; `done` counts every instance's. */
  onProgress?: (progress: { done: number; planned: number; engine: string; status: EngineAnswer["status"] }) => void;
}

export interface StartedRun {
  runId: string;
  planned: number;
  /** Settles with the run's final status; never rejects. */
  done: Promise<RunStatus>;
}

/** A run this instance owns: it renews the run's lease and finishes it. */
interface OwnedRun {
  runId: string;
  brandId: string;
  planned: number;
  done: Promise<RunStatus>;
  /** Wakes the owner to look whether work is left (an answer was stored here). */
  wake: () => void;
  onProgress?: RunRequest["onProgress"];
}

interface PromptRow {
  id: string;
  text: string;
}

interface RunningRow {
  id: string;
  owner: string | null;
  leaseUntil: number | null;
}

/** A claimed task: one answer to ask. */
interface Task {
  id: number;
  runId: string;
  brandId: string;
  promptId: string;
  engine: string;
  sample: number;
}

export type RunRow = typeof trackingRuns.$inferSelect;

const RUN_COLUMNS = `id, brand_id AS "brandId", status, "trigger", engines, prompt_ids AS "promptIds", answers_planned AS "answersPlanned",
  answers_done AS "answersDone", owner_pid AS "ownerPid", owner, lease_until AS "leaseUntil", slot, started_at AS "startedAt",
  finished_at AS "finishedAt", error`;

/** A tracking_runs row as read: engines and prompt ids still JSON text. */
type StoredRun = Omit<RunRow, "engines" | "promptIds"> & { engines: string; promptIds: string | null };

function parseRun(row: StoredRun): RunRow {
  return {
    ...row,
    engines: JSON.parse(row.engines) as string[],
    promptIds: row.promptIds === null ? null : (JSON.parse(row.promptIds) as string[]),
  };
}

/** The brand's run, or undefined. */
export async function findRunRow(db: Queries, brandId: string, runId: string): Promise<RunRow | undefined> {
  const row = await db.get<StoredRun>(`SELECT ${RUN_COLUMNS} FROM tracking_runs WHERE id = ? AND brand_id = ?`, [runId, brandId]);
  return row && parseRun(row);
}

/** The brand's latest run, or undefined. */
export async function latestRunRow(db: Queries, brandId: string): Promise<RunRow | undefined> {
  const row = await db.get<StoredRun>(
    `SELECT ${RUN_COLUMNS} FROM tracking_runs WHERE brand_id = ? ORDER BY started_at DESC, id DESC LIMIT 1`,
    [brandId],
  );
  return row && parseRun(row);
}

const RUNNING_OF_BRAND = `SELECT id, owner, lease_until AS "leaseUntil" FROM tracking_runs WHERE brand_id = ? AND status = 'running'`;

/** An interrupted run younger than this resumes on the brand's next run instead of a new one starting. */
export const RESUME_WINDOW_MS = 2 * 86_400_000;

/** Rows per INSERT when a run's tasks are written (7 parameters each: well under both databases' limits). */
const TASK_BATCH = 500;
/** A pause shorter than this is not noted in engine_pauses, nor one that grows by less. */
export const PAUSE_NOTE_MS = 5000;
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The next task of an engine: of the oldest running run first, in the order the tasks were written.
 * PostgreSQL skips rows another instance is claiming this instant; SQLite has one writer at a time.
 * `runs` (a process that is not a server: the CLI, a test app) limits the claim to the runs it owns,
 * so that it never takes a server's work and leaves with the answer; null takes any run's.
 */
// A server's workers take any run's tasks but those of a `spyglass track` run that another process
// owns: that command asks with its own configuration, keys and concurrency (the walk saw a track
// run answered half by the server, at twice the engines' limits, with the server's unset key as its
// error). Once the command has stopped and a server took the run over, it owns it, and asks it.
const NOT_ANOTHERS_CLI_RUN = ` AND (r."trigger" <> 'cli' OR r.owner = ?)`;

function claimTask(runs: number | null): SqlText {
  const own = runs === null ? NOT_ANOTHERS_CLI_RUN : ` AND t.run_id IN (${placeholders(runs)})`;
  const pick = `SELECT t.id FROM tracking_tasks t JOIN tracking_runs r ON r.id = t.run_id
       WHERE t.engine = ? AND r.status = 'running' AND (t.lease_until IS NULL OR t.lease_until < ?)${own}
       ORDER BY r.started_at, t.id LIMIT 1`;
  const claim = (select: string) => `UPDATE tracking_tasks SET claimed_by = ?, lease_until = ? WHERE id = (${select})
     RETURNING id, run_id AS "runId", brand_id AS "brandId", prompt_id AS "promptId", engine, sample`;
  return { sqlite: claim(pick), postgres: claim(`${pick} FOR UPDATE OF t SKIP LOCKED`) };
}

/** Whether any engine of `engines` has a task to claim (the idle workers' poll); `runs` as in claimTask. */
const CLAIMABLE = (engines: number, runs: number | null) => `SELECT 1 AS found FROM tracking_tasks t JOIN tracking_runs r ON r.id = t.run_id
   WHERE r.status = 'running' AND (t.lease_until IS NULL OR t.lease_until < ?) AND t.engine IN (${placeholders(engines)})${
     runs === null ? NOT_ANOTHERS_CLI_RUN : ` AND t.run_id IN (${placeholders(runs)})`
   } LIMIT 1`;

interface ResumePlan {
  runId: string;
  engines: EngineSettings[];
  prompts: PromptRow[];
}

const NO_ENGINES =
  "No engines are configured: add an [[engines]] section (api, base_url, model, api_key_env) to spyglass.toml in the server's data directory (or the file its --config names), then run tracking again.";

export interface RunnerOptions {
  /** How often idle workers look for work (ms); the lease is renewed at a third of its length. */
  pollMs?: number;
}

export class TrackingRunner {
  /** This instance's name in the queue: its claims and the runs it owns carry it. */
  readonly instance = newId("inst");
  private readonly clients = new Map<string, EngineClient>();
  /** The engine_pauses writes under way (notePause): a shutdown waits for them. */
  private readonly pauseNotes = new Set<Promise<void>>();
  /** Until when (database clock) each engine's pause was last noted in engine_pauses (notePause). */
  private readonly notedPauses = new Map<string, number>();
  private readonly owned = new Map<string, OwnedRun>();
  private readonly searches = new SearchStore();
  /** Tasks this instance is asking now, by id: their leases are renewed until they are stored or handed back. */
  private readonly claimed = new Set<number>();
  /** Each run's prompt texts, by run id (promptTexts). */
  private readonly texts = new Map<string, Promise<Map<string, PromptQuestion>>>();
  /** Each brand's roster with the version it was read at (reanalysis.ts bumps the version). */
  private readonly rosters = new Map<string, { version: number; roster: Roster }>();
  /** Starts one at a time: a start reads and writes the database before its run is owned. */
  private starts: Promise<unknown> = Promise.resolve();
  private readonly stopping = new AbortController();
  /** What stopped this instance, as a run it interrupts says (shutdown's `why`). */
  private stopReason = "the process stopped";
  private closed = false;
  /** Whether the workers stay when there is no work (a server), or end (the CLI, a test app). */
  private serving = false;
  /** The workers' loops, and how many of them each engine has. */
  private readonly workers = new Set<Promise<void>>();
  private readonly workersOf = new Map<string, number>();
  /** The poll under way (a shutdown waits for a takeover it may be making). */
  private polling: Promise<void> | null = null;
  private parked: Array<() => void> = [];
  /** The lease renewal and the idle workers' poll. */
  private timers: Array<ReturnType<typeof setInterval>> = [];
  private readonly leaseMs: number;
  private readonly pollMs: number;
  /** The database's clock minus this host's (syncClock): leases are times on the database's clock. */
  private clockOffset = 0;

  // While the database is down these loops fail every poll: logged once, and when they work again.
  private readonly pollFailures = new RepeatedFailure("tracking could not look for work");
  private readonly leaseFailures = new RepeatedFailure("tracking could not renew its leases");

  /** Called when an engine's pause is noted (notePause): spyglass track says it where it shows progress. */
  onEnginePause: ((engine: string, until: number, reason: string) => void) | null = null;

  /** Called when a run this instance took over ends (its starter, which logs a run's end, is gone). */
  onAdoptedRunEnd: ((brandId: string, runId: string) => void) | null = null;

  constructor(
    private readonly config: Config,
    private readonly db: Db,
    private readonly writer: AnswerWriter,
    private readonly clientOptions: ClientOptions = {},
    options: RunnerOptions = {},
  ) {
    this.leaseMs = config.tracking.lease_seconds * 1000;
    this.pollMs = options.pollMs ?? Math.min(1000, this.leaseMs / 3);
  }

  /** Brands being deleted (closeBrand): no run of theirs starts. */
  private readonly closedBrands = new Set<string>();

  /**
   * Validates the request, takes the brand's lock, records the run and its tasks and starts it in
   * the background. Rejects with Invalid (no engines, unknown engine or prompt, no active prompt) or
   * Conflict (already running, or the scheduled tick already claimed).
   */
  start(brandId: string, request: RunRequest): Promise<StartedRun> {
    const started = this.starts.then(() => this.startNow(brandId, request));
    this.starts = started.catch(() => undefined);
    return started;
  }

  /** A server's workers: they take any instance's runs' work, and runs whose owner died, until shutdown. */
  serve(): void {
    if (this.closed || this.config.engines.length === 0) return;
    this.serving = true;
    this.ensureWorkers();
  }

  /**
   * Refuses new runs of the brand (it is being deleted: brands/delete.ts) once the starts under way
   * are done. False, and nothing refused, when one of its runs is under way (on any instance).
   */
  async closeBrand(brandId: string): Promise<boolean> {
    this.closedBrands.add(brandId);
    await this.starts;
    if (this.owned.has(brandId) || (await this.db.get(RUNNING_OF_BRAND, [brandId])) !== undefined) {
      this.closedBrands.delete(brandId);
      return false;
    }
    return true;
  }

  /** Undoes closeBrand (the deletion ended, done or not). */
  reopenBrand(brandId: string): void {
    this.closedBrands.delete(brandId);
  }

  private async startNow(brandId: string, request: RunRequest): Promise<StartedRun> {
    if (this.closed) throw new Conflict("The server is shutting down; tracking cannot start now.", "shutting_down");
    if (this.closedBrands.has(brandId)) throw new Conflict("The brand is being deleted; tracking cannot start.", "brand_deleting");
    await this.syncClock();
    const samples = this.config.tracking.samples;
    const existing = this.owned.get(brandId);
    if (existing) throw alreadyRunning(existing.runId);

    // A run interrupted by a stop (or a crash) picks up where it was: same run, same plan, and the
    // prompt × engine × sample slots it already answered are not asked again.
    const resume = await this.resumePlan(brandId, request);
    let runId: string;
    let planned: number;
    if (request.resumeOnly !== undefined && resume?.runId !== request.resumeOnly) {
      throw new Conflict(
        `The run ${request.resumeOnly} cannot be resumed: it is not the brand's latest interrupted run, or none of its engines or prompts remain.`,
        "not_resumable",
      );
    }
    const reopened = resume === null ? null : await this.reopenRunRow(brandId, resume, samples, request.slot ?? null);
    if (request.resumeOnly !== undefined && reopened === null) {
      throw new Conflict(
        `The run ${request.resumeOnly} cannot be resumed: it changed meanwhile (another instance resumed it).`,
        "not_resumable",
      );
    }
    if (resume !== null && reopened !== null) {
      runId = resume.runId;
      planned = reopened;
    } else {
      const engines = this.pickEngines(request.engines);
      const prompts = await this.pickPrompts(brandId, request.promptIds);
      runId = newId("run");
      const restricted = request.promptIds !== undefined && request.promptIds.length > 0 ? prompts.map((p) => p.id) : null;
      planned = prompts.length * engines.length * samples;
      await this.claimRunRow(brandId, runId, request, engines, prompts, samples, planned, restricted);
    }
    return { runId, planned, done: this.own(brandId, runId, planned, request.onProgress) };
  }

  /** Holds the run: renews its lease (with the workers' claims), wakes the workers, finishes it when no task is left. */
  private own(brandId: string, runId: string, planned: number, onProgress?: RunRequest["onProgress"]): Promise<RunStatus> {
    let wake: () => void = () => {};
    const run: OwnedRun = { runId, brandId, planned, done: Promise.resolve("running" as RunStatus), wake: () => wake(), onProgress };
    // Owned before anything is awaited: workers that were about to end with the last run stay.
    this.owned.set(brandId, run);
    const onStop = () => wake();
    run.done = (async (): Promise<RunStatus> => {
      this.stopping.signal.addEventListener("abort", onStop, { once: true });
      try {
        this.wakeWorkers();
        for (let failures = 0; ; ) {
          // (Again each time: workers of a process that is not a server end when it owns no run.)
          this.ensureWorkers();
          let row: { status: RunStatus; owner: string | null } | undefined;
          try {
            row = await this.db.get<{ status: RunStatus; owner: string | null }>("SELECT status, owner FROM tracking_runs WHERE id = ?", [
              runId,
            ]);
            failures = 0;
          } catch (error) {
            // A database that is busy or briefly unreachable does not fail the run: the owner reads
            // again after a poll (its lease lapses meanwhile if it lasts, and another instance takes
            // the run over); a stop during it leaves the run to the start-up check.
            if (!isPassing(error) || ++failures > OWNER_READ_ATTEMPTS) throw error;
            log.warn("tracking run: the database did not answer; trying again", { run: runId, message: (error as Error).message });
            if (this.stopping.signal.aborted) return "interrupted";
            await Bun.sleep(this.pollMs);
            continue;
          }
          // Finished (by a failed store here) or interrupted.
          if (row?.status !== "running") return row?.status ?? "failed";
          // Taken over (this instance's lease ran out: a stall longer than lease_seconds): the new
          // owner finishes it; this one only waits for its end, or stops waiting at a shutdown.
          const mine = row.owner === this.instance;
          const left = !mine
            ? null
            : await this.db.get<{ n: number }>("SELECT count(*) AS n FROM tracking_tasks WHERE run_id = ?", [runId]);
          if (!mine && this.stopping.signal.aborted) return row.status;
          // The writes below hold only while this instance still owns the run: after a stall, another
          // may have taken it over since the read above; then the next turn finds it not mine.
          if (left?.n === 0) {
            const ended = await this.finish(runId);
            if (ended !== null) return ended;
            continue;
          }
          if (mine && this.stopping.signal.aborted) {
            const reason = `stopped before it finished (${this.stopReason}); the answers stored so far are kept`;
            if (await markInterrupted(this.db, runId, reason, this.instance)) return "interrupted";
            continue;
          }
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, this.pollMs);
            wake = () => {
              clearTimeout(timer);
              resolve();
            };
          });
        }
      } catch (error) {
        log.error("tracking run failed", { run: runId, message: (error as Error).message });
        try {
          return (await finish(this.db, runId, "failed", `unexpected error: ${(error as Error).message}`, this.instance)) ?? "running";
        } catch (closing) {
          // `done` never rejects: the run stays `running` until its lease lapses, then the start-up
          // check or another instance ends it.
          log.error("tracking run: its failure could not be written", { run: runId, message: (closing as Error).message });
          return "failed";
        }
      } finally {
        this.stopping.signal.removeEventListener("abort", onStop);
        this.owned.delete(brandId);
        // Idle workers of a process that is not a server end with its last run.
        if (this.owned.size === 0 && !this.serving) this.wakeWorkers();
      }
    })();
    return run.done;
  }

  /**
   * Ends a run of this instance whose tasks are all stored: failed when every answer failed,
   * completed otherwise (naming the errors). Null when another instance owns it now.
   */
  private async finish(runId: string): Promise<RunStatus | null> {
    const counts = await this.db.get<{ total: number; errors: number }>(
      "SELECT count(*) AS total, count(*) FILTER (WHERE status = 'error') AS errors FROM answers WHERE run_id = ?",
      [runId],
    );
    const { total, errors } = counts!;
    const first =
      errors === 0
        ? null
        : await this.db.get<{ engine: string; error: string | null }>(
            "SELECT engine, error FROM answers WHERE run_id = ? AND status = 'error' ORDER BY id LIMIT 1",
            [runId],
          );
    const firstError = first ? `${first.engine}: ${first.error ?? "error"}` : null;
    if (total > 0 && errors === total) return finish(this.db, runId, "failed", `every answer failed; first: ${firstError}`, this.instance);
    const error = errors > 0 ? `${errors} of ${total} answers failed; first: ${firstError}` : null;
    return finish(this.db, runId, "completed", error, this.instance);
  }

  /**
   * The brand's latest run when it is `interrupted` (or `running` with a lease that ran out), recent
   * (RESUME_WINDOW_MS), and asked the same engines and prompts as this request would; null otherwise.
   * A request without filters (a tick, `spyglass track`) resumes a full run only: a run of a few
   * prompts or engines started by hand had taken the place of a whole scheduled run, and nothing
   * said so (the walk saw a day's run ask 4 questions of one engine). Only the start's resumption
   * (resumeOnly) takes a run's own plan whatever it was.
   */
  private async resumePlan(brandId: string, request: RunRequest): Promise<ResumePlan | null> {
    const last = await latestRunRow(this.db, brandId);
    if (!last || Date.now() - last.startedAt > RESUME_WINDOW_MS) return null;
    const stale = last.status === "running" && !this.alive(last);
    if (last.status !== "interrupted" && !stale) return null;
    const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && new Set([...a, ...b]).size === a.length;
    const wantEngines = request.engines && request.engines.length > 0 ? [...new Set(request.engines)] : null;
    const wantPrompts = request.promptIds && request.promptIds.length > 0 ? [...new Set(request.promptIds)] : null;
    if (wantEngines !== null && !sameSet(wantEngines, last.engines)) return null;
    if (wantPrompts !== null && (last.promptIds === null || !sameSet(wantPrompts, last.promptIds))) return null;
    if (request.resumeOnly === undefined) {
      const everyEngine = this.config.engines.map((e) => e.id);
      if (wantEngines === null && !sameSet(everyEngine, last.engines)) return null;
      if (wantPrompts === null && last.promptIds !== null) return null;
    }
    // What still exists of its plan: engines still configured, prompts still active.
    const engines = this.config.engines.filter((e) => last.engines.includes(e.id));
    const active = await listActivePrompts(this.db, brandId);
    const prompts = last.promptIds === null ? active : active.filter((p) => last.promptIds!.includes(p.id));
    if (engines.length === 0 || prompts.length === 0) return null;
    return { runId: last.id, engines, prompts };
  }

  /**
   * The interrupted run a run without filters (a tick, `spyglass track`) would resume for the brand
   * now, with how many of its answers are stored, or null: the dry run's forecast says it.
   */
  async resumableRun(brandId: string): Promise<{ runId: string; answered: number } | null> {
    const plan = await this.resumePlan(brandId, { trigger: "cli" });
    return plan === null ? null : { runId: plan.runId, answered: (await answeredSlots(this.db, plan.runId)).size };
  }

  /** Whether a running row is held: by this instance's own run, or by a lease not yet run out. */
  private alive(row: { id: string; owner: string | null; leaseUntil: number | null }): boolean {
    if (row.owner === this.instance) return [...this.owned.values()].some((r) => r.runId === row.id);
    return row.leaseUntil !== null && row.leaseUntil >= this.now();
  }

  /**
   * Marks the interrupted (or abandoned) run running again, owned by this instance, with a task for
   * each slot of its (possibly smaller, after a prompt was archived or an engine removed) plan that
   * has no answer yet. Returns its plan (the answers it stored plus those tasks), or null when it
   * changed meanwhile.
   */
  private reopenRunRow(brandId: string, plan: ResumePlan, samples: number, slot: string | null): Promise<number | null> {
    return this.db.transaction(async (tx) => {
      await tx.lock(`tracking:${brandId}`);
      // The run's tasks before its row, as a store locks them (see finish); a store under way
      // commits first, so that the answered slots read next include its answer.
      await tx.run("DELETE FROM tracking_tasks WHERE run_id = ?", [plan.runId]);
      await this.clearRunning(tx, brandId, slot);
      const answered = await answeredSlots(tx, plan.runId);
      const tasks: Array<[string, string, number]> = [];
      for (const engine of plan.engines)
        for (let sample = 0; sample < samples; sample++)
          for (const prompt of plan.prompts)
            if (!answered.has(slotKey(prompt.id, engine.id, sample))) tasks.push([prompt.id, engine.id, sample]);
      const planned = answered.size + tasks.length;
      const reopened = await tx.run(
        `UPDATE tracking_runs SET status = 'running', owner = ?, lease_until = ?, slot = coalesce(?, slot), answers_planned = ?,
             finished_at = NULL, error = NULL
           WHERE id = ? AND status IN ('interrupted', 'running')`,
        [this.instance, this.now() + this.leaseMs, slot, planned, plan.runId],
      );
      if (reopened !== 1) return null;
      await insertTasks(tx, plan.runId, brandId, tasks);
      return planned;
    });
  }

  /**
   * Under the brand's lock: refuses when a live run of the brand (or, for a scheduled run, its tick)
   * is already claimed; marks interrupted the brand's running rows nobody holds any more.
   */
  private async clearRunning(tx: Queries, brandId: string, slot: string | null): Promise<void> {
    if (slot !== null && (await tx.get("SELECT id FROM tracking_runs WHERE brand_id = ? AND slot = ?", [brandId, slot]))) {
      throw new Conflict(`This brand's run for the scheduled time ${slot} was already claimed.`, "slot_claimed");
    }
    for (const row of await tx.all<RunningRow>(RUNNING_OF_BRAND, [brandId])) {
      if (this.alive(row)) {
        // Held by another process's lease: should that process have stopped (a crash), its lease
        // lapses at this time, and the run is then resumed (it said only "wait for it to finish").
        const held = row.owner !== this.instance && row.leaseUntil !== null ? new Date(row.leaseUntil) : null;
        throw alreadyRunning(row.id, held);
      }
      await markInterrupted(tx, row.id, "the process running it stopped before it finished");
    }
  }

  /**
   * Stops this instance's tracking: in-flight requests are aborted and their tasks handed back,
   * nothing more is stored, and the runs it owns are marked `interrupted`, saying `why` ("the server
   * stopped"). Answers already stored are kept.
   */
  async shutdown(why = "the process stopped"): Promise<void> {
    // The first stop's: a later call (track's own cleanup after its signal) does not replace it.
    if (!this.closed) this.stopReason = why;
    this.closed = true;
    // A start under way ends first (refused, or its run owned and stopped below).
    await this.starts;
    this.stopping.abort();
    this.wakeWorkers();
    await Promise.all(this.workers);
    // A takeover under way ends first: its run is owned, then stopped below.
    await this.polling;
    await Promise.all([...this.owned.values()].map((run) => run.done));
    // A pause noted by a last request is written before the caller closes the database.
    await Promise.all(this.pauseNotes);
    this.stopTimers();
  }

  private pickEngines(ids: string[] | undefined): EngineSettings[] {
    const configured = this.config.engines;
    if (configured.length === 0) throw new Invalid(NO_ENGINES, "no_engines");
    if (ids === undefined || ids.length === 0) return configured;
    const unknown = ids.filter((id) => !configured.some((e) => e.id === id));
    if (unknown.length > 0) {
      throw new Invalid(
        // The sentence of every engine check (tracking/engines.ts); a run asks configured engines only.
        `engines: ${unknown.map((id) => JSON.stringify(id)).join(", ")} ${unknown.length === 1 ? "is not a configured engine" : "are not configured engines"}; use one of ${configured.map((e) => e.id).join(", ")}.`,
        "unknown_engine",
      );
    }
    return configured.filter((e) => ids.includes(e.id));
  }

  private async pickPrompts(brandId: string, ids: string[] | undefined): Promise<PromptRow[]> {
    const all: PromptRow[] = await listActivePrompts(this.db, brandId);
    if (ids === undefined || ids.length === 0) {
      if (all.length === 0) throw new Invalid("The brand has no active prompt to track; add prompts first (create_prompts).", "no_prompts");
      return all;
    }
    const byId = new Map(all.map((p) => [p.id, p]));
    const missing = ids.filter((id) => !byId.has(id));
    if (missing.length > 0) {
      throw new NotFound(
        `Prompt ${missing.map((id) => `"${id}"`).join(", ")} not found among the brand's active prompts.`,
        "prompt_not_found",
      );
    }
    return [...new Set(ids)].map((id) => byId.get(id)!);
  }

  /** Inserts the run row and its tasks unless a live run of the brand (or the scheduled tick) is already claimed. */
  private async claimRunRow(
    brandId: string,
    runId: string,
    request: RunRequest,
    engines: EngineSettings[],
    prompts: PromptRow[],
    samples: number,
    planned: number,
    promptIds: string[] | null,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.lock(`tracking:${brandId}`);
      await this.clearRunning(tx, brandId, request.slot ?? null);
      const now = Date.now();
      await tx.run(
        `INSERT INTO tracking_runs (id, brand_id, status, "trigger", engines, prompt_ids, answers_planned, answers_done, owner, lease_until,
             slot, started_at)
         VALUES (?, ?, 'running', ?, ?, ?, ?, 0, ?, ?, ?, ?)`,
        [
          runId,
          brandId,
          request.trigger,
          JSON.stringify(engines.map((e) => e.id)),
          promptIds === null ? null : JSON.stringify(promptIds),
          planned,
          this.instance,
          this.now() + this.leaseMs,
          request.slot ?? null,
          now,
        ],
      );
      const tasks: Array<[string, string, number]> = [];
      for (const engine of engines)
        for (let sample = 0; sample < samples; sample++) for (const prompt of prompts) tasks.push([prompt.id, engine.id, sample]);
      await insertTasks(tx, runId, brandId, tasks);
    });
  }

  private client(engine: EngineSettings): EngineClient {
    // One client per engine for the whole process, so its concurrency limit holds across runs of all brands.
    let client = this.clients.get(engine.id);
    if (!client) {
      const heard = this.clientOptions.onEnginePause;
      client = createEngineClient(engine, {
        ...this.clientOptions,
        onEnginePause: (id, until, reason) => {
          heard?.(id, until, reason);
          this.notePause(id, until, reason);
        },
      });
      this.clients.set(engine.id, client);
    }
    return client;
  }

  // ---- the workers ----------------------------------------------------------------------------

  /**
   * Tops up each configured engine's workers to its `concurrency` (those of a process that is not a
   * server end with its last run, except the ones still busy), with the lease renewal and the poll.
   */
  private ensureWorkers(): void {
    if (this.closed) return;
    if (this.timers.length === 0) {
      void this.syncClock().catch(() => undefined);
      this.timers = [
        setInterval(() => void this.renewLeases(), Math.max(200, this.leaseMs / 3)),
        setInterval(() => void this.poll(), this.pollMs),
      ];
    }
    for (const engine of this.config.engines) {
      for (let n = this.workersOf.get(engine.id) ?? 0; n < engine.concurrency; n++) {
        this.workersOf.set(engine.id, n + 1);
        const loop: Promise<void> = this.workLoop(engine).finally(() => {
          this.workersOf.set(engine.id, this.workersOf.get(engine.id)! - 1);
          this.workers.delete(loop);
          if (this.workers.size === 0) this.stopTimers();
        });
        this.workers.add(loop);
      }
    }
  }

  private stopTimers(): void {
    for (const timer of this.timers) clearInterval(timer);
    this.timers = [];
  }

  private wakeWorkers(): void {
    const parked = this.parked;
    this.parked = [];
    for (const resume of parked) resume();
  }

  /** Waits until woken: new work here, or the poll found some (or that the workers may end). */
  private park(): Promise<void> {
    return new Promise((resolve) => this.parked.push(resolve));
  }

  /**
   * Every pollMs: a server takes over runs whose owner died (whether or not its workers are busy);
   * while workers are idle, one read looks for work they could take (another instance's run, a claim
   * whose lease ran out). Idle workers never write: a claim is tried only when this finds something.
   */
  private poll(): Promise<void> {
    this.polling ??= this.pollNow().finally(() => {
      this.polling = null;
    });
    return this.polling;
  }

  private async pollNow(): Promise<void> {
    try {
      if (this.serving) await this.adoptAbandoned();
      if (this.parked.length === 0) return;
      if (!this.serving && this.owned.size === 0) return this.wakeWorkers();
      const engines = this.config.engines.map((e) => e.id);
      const runs = this.claimableRuns();
      const found = await this.db.get(CLAIMABLE(engines.length, runs === null ? null : runs.length), [
        this.now(),
        ...engines,
        ...(runs ?? [this.instance]),
      ]);
      if (found) this.wakeWorkers();
      this.pollFailures.succeeded();
    } catch (error) {
      this.pollFailures.failed(error);
    }
  }

  /** The runs whose tasks this instance's workers may claim: any (null) for a server, its own runs otherwise. */
  private claimableRuns(): string[] | null {
    return this.serving ? null : [...this.owned.values()].map((run) => run.runId);
  }

  private async workLoop(engine: EngineSettings): Promise<void> {
    const claimFailures = new RepeatedFailure("tracking could not claim work", { engine: engine.id });
    while (!this.stopping.signal.aborted) {
      let task: Task | undefined;
      try {
        const runs = this.claimableRuns();
        task = await this.db.get<Task>(claimTask(runs === null ? null : runs.length), [
          this.instance,
          this.now() + this.leaseMs,
          engine.id,
          this.now(),
          ...(runs ?? [this.instance]),
        ]);
        claimFailures.succeeded();
      } catch (error) {
        claimFailures.failed(error);
      }
      if (!task) {
        // Nothing to take now. A server keeps waiting for work (poll); otherwise the workers end
        // with this instance's last run.
        // A stop that came while this claim was under way: nothing would wake it again.
        if (this.stopping.signal.aborted || (!this.serving && this.owned.size === 0)) return;
        await this.park();
        continue;
      }
      this.claimed.add(task.id);
      try {
        await this.perform(engine, task);
      } catch (error) {
        if (isPassing(error)) {
          // Still busy after the store's own tries, or the connection to the database lost (a
          // PostgreSQL restart): the task goes back to the queue, to be asked again. A lost connection
          // failed the run, and the brand's next run asked everything again (the PostgreSQL walk).
          // Should the hand-back fail too (the database still away), the task's lease runs out and
          // it is claimed again.
          log.warn("tracking could not store an answer yet; its task goes back to the queue", {
            run: task.runId,
            message: (error as Error).message,
          });
          await this.handBack(task).catch(() => undefined);
          // A pause before the next claim: a database that stays busy is not asked to store an answer a second.
          await new Promise((resolve) => setTimeout(resolve, this.pollMs));
          continue;
        }
        // Not stored: the run ends with the reason (its owner sees it and stops). For want of room
        // (a full disk) it is interrupted, not failed: the brand's next run resumes it once there is
        // room, asking only what it lacks, instead of asking every prompt again (and paying twice
        // for the answers already stored).
        const storage = isStorageFailure(error);
        // /healthz says so too (storage-health.ts).
        if (storage) this.db.storage.refused(error, { run: task.runId });
        const message = storage
          ? `could not store an answer, the database's storage refused it (a full disk?): ${(error as Error).message}; the answers stored so far are kept, and the brand's next run resumes it`
          : `could not store an answer: ${(error as Error).message}`;
        log.error("tracking could not store an answer", { run: task.runId, message: (error as Error).message });
        await finish(this.db, task.runId, storage ? "interrupted" : "failed", message).catch(() => undefined);
        this.owned.get(task.brandId)?.wake();
      } finally {
        this.claimed.delete(task.id);
      }
    }
  }

  /** Asks the engine for one task and stores the answer; a stop hands the task back unasked. */
  private async perform(engine: EngineSettings, task: Task): Promise<void> {
    let question = (await this.promptTexts(task)).get(task.promptId);
    if (question === undefined) {
      // A prompt added since this instance read the run's texts (a resumed run asks the prompts
      // active when it resumes): read them again, once.
      this.texts.delete(task.runId);
      question = (await this.promptTexts(task)).get(task.promptId);
    }
    if (question === undefined) {
      // The prompt was deleted since (its tasks go with it): nothing to ask.
      await this.db.run("DELETE FROM tracking_tasks WHERE id = ?", [task.id]);
      return;
    }
    const signal = this.stopping.signal;
    // From the prompt's country, where the engine's web search takes a location.
    const reply = await this.client(engine).ask(question.text, signal, { country: question.country });
    // An answer cut short by a stop is not an answer: the task goes back to the queue.
    if (signal.aborted) return this.handBack(task);
    // Many engines answering at once write without a pause: past the WAL's limit, let the
    // checkpointer catch up (src/db/checkpointer.ts) so that the WAL starts over.
    if (this.db.walPressure) await this.db.walPressure();
    if (signal.aborted) return this.handBack(task);
    const stored = await this.store(task, reply, question.language);
    if (stored === null) return;
    const owner = this.owned.get(task.brandId);
    if (owner?.runId === task.runId) {
      owner.onProgress?.({ done: stored.done, planned: owner.planned, engine: engine.id, status: reply.status });
      if (stored.done >= owner.planned) owner.wake();
    }
  }

  private async handBack(task: Task): Promise<void> {
    await this.db.run("UPDATE tracking_tasks SET claimed_by = NULL, lease_until = NULL WHERE id = ? AND claimed_by = ?", [
      task.id,
      this.instance,
    ]);
  }

  /**
   * Stores the answer in the transaction that deletes its task, analysed with the brand's roster as
   * it stands (re-analysed when a roster change came in between). Null when another instance stored
   * the task's answer first (this one's lease had run out): it is dropped, never stored twice.
   */
  private async store(task: Task, reply: EngineAnswer, language: string | null): Promise<{ done: number } | null> {
    for (let attempt = 1; ; attempt++) {
      const { version, roster } = await this.roster(task.brandId);
      const analysis = analyzeForStorage(reply.status, reply.text, reply.citations, roster, language);
      const createdAt = Date.now();
      const answer = {
        brandId: task.brandId,
        runId: task.runId,
        promptId: task.promptId,
        engine: task.engine,
        model: reply.model,
        sample: task.sample,
        status: reply.status,
        text: reply.text,
        providerCitations: reply.citations,
        error: reply.error,
        latencyMs: reply.latency_ms,
        tokensIn: reply.tokens_in,
        tokensOut: reply.tokens_out,
        createdAt,
      };
      try {
        return await this.db.transaction(async (tx) => {
          // The task's row first: a second store of the same task waits here, then finds it gone.
          if (!(await tx.get("DELETE FROM tracking_tasks WHERE id = ? RETURNING id", [task.id]))) return null;
          // The answer's own rows need no lock; what answers share (the daily rollups, the run's
          // count) is written under the brand's rollup lock, held from here to the commit: the
          // shorter this part, the more instances can store a brand's answers at once.
          const delta = new RollupDelta();
          const answerId = await this.writer.append(
            tx,
            answer,
            analysis,
            brandFigures(analysis, roster),
            JSON.stringify(answer.providerCitations),
            roster.brandId,
            delta,
          );
          await tx.lock(rollupLock(task.brandId));
          // Under the lock a re-analysis takes too: a roster change since the analysis (whose
          // re-analysis may already have passed) undoes this transaction and analyses again.
          if ((await rosterVersionOf(tx, task.brandId)) !== version) throw new RosterMoved();
          // What it searched and read, for valid answers (as mentions and citations are).
          if (reply.status === "ok") {
            await this.searches.write(
              tx,
              answerId,
              { brandId: task.brandId, engine: task.engine, promptId: task.promptId, createdAt },
              reply,
            );
          }
          await this.writer.applyRollups(tx, delta);
          const run = await tx.get<{ done: number }>(
            `UPDATE tracking_runs SET answers_done = answers_done + 1 WHERE id = ? RETURNING answers_done AS "done"`,
            [task.runId],
          );
          return { done: run?.done ?? 0 };
        });
      } catch (error) {
        if (error instanceof RosterMoved) {
          this.rosters.delete(task.brandId);
          continue;
        }
        // Another writer in the way (SQLite busy past its timeout, a PostgreSQL deadlock victim or
        // serialization failure): the transaction was undone, so it is tried again, a few times.
        if (!isTransient(error) || attempt >= STORE_ATTEMPTS || this.stopping.signal.aborted) throw error;
        await new Promise((resolve) => setTimeout(resolve, STORE_BACKOFF_MS * 2 ** (attempt - 1) * (0.5 + Math.random())));
      }
    }
  }

  /**
   * The texts of a run's prompts, read once per run by each instance (as the run asks them when it
   * starts: an edit during the run applies to the next one), and again when a task names a prompt
   * they lack.
   */
  private promptTexts(task: Task): Promise<Map<string, PromptQuestion>> {
    let texts = this.texts.get(task.runId);
    if (!texts) {
      texts = (async () => {
        const ids = await this.db.all<{ id: string }>("SELECT DISTINCT prompt_id AS id FROM tracking_tasks WHERE run_id = ?", [task.runId]);
        return getPromptQuestions(this.db, task.brandId, [...new Set([task.promptId, ...ids.map((row) => row.id)])]);
      })();
      texts.catch(() => this.texts.delete(task.runId));
      // The few latest runs (a server may help many brands' runs over its life).
      if (this.texts.size >= 32) this.texts.delete(this.texts.keys().next().value!);
      this.texts.set(task.runId, texts);
    }
    return texts;
  }

  /** The brand's roster, read again once its version moved (a re-analysis on any instance). */
  private async roster(brandId: string): Promise<{ version: number; roster: Roster }> {
    // Kept until a store finds the version moved (checked in its transaction, under the lock).
    const cached = this.rosters.get(brandId);
    if (cached) return cached;
    const version = await rosterVersionOf(this.db, brandId);
    const fresh = { version, roster: await loadRoster(this.db, brandId) };
    this.rosters.set(brandId, fresh);
    return fresh;
  }

  /**
   * Now on the database's clock. Leases are compared across instances, whose hosts' clocks may
   * differ by more than a lease; the database's is the one they share.
   */
  private now(): number {
    return Date.now() + this.clockOffset;
  }

  /** Reads the database's clock again (at each start and lease renewal); this host's clock keeps time in between. */
  private async syncClock(): Promise<void> {
    const before = Date.now();
    const now = await databaseNow(this.db);
    this.clockOffset = now - Math.round((before + Date.now()) / 2);
  }

  /**
   * Notes an engine's pause in engine_pauses (the runs' status reads it, on any instance): when it
   * starts or grows by PAUSE_NOTE_MS, never per request; a pause shorter than that is no news.
   */
  private notePause(engine: string, until: number, reason: string): void {
    if (until - Date.now() < PAUSE_NOTE_MS) return;
    const at = until + this.clockOffset;
    const noted = this.notedPauses.get(engine);
    if (noted !== undefined && noted > this.now() && at < noted + PAUSE_NOTE_MS) return;
    this.notedPauses.set(engine, at);
    this.onEnginePause?.(engine, until, reason);
    const note = this.db
      .transaction(async (tx) => {
        await tx.run(
          `INSERT INTO engine_pauses (engine, instance, paused_until, reason) VALUES (?, ?, ?, ?)
             ON CONFLICT (engine, instance) DO UPDATE SET paused_until = excluded.paused_until, reason = excluded.reason`,
          [engine, this.instance, at, reason],
        );
        // Instances that are gone leave their rows: cleared once they are a day old.
        await tx.run("DELETE FROM engine_pauses WHERE paused_until < ?", [this.now() - DAY_MS]);
      })
      .catch((error) => log.warn("tracking could not note an engine's pause", { engine, message: (error as Error).message }))
      .finally(() => this.pauseNotes.delete(note));
    this.pauseNotes.add(note);
  }

  /**
   * The engines among `engines` whose requests wait now, on any instance: until when (the longest
   * pause) and the provider's answer that asked for it.
   */
  async waitingEngines(engines: readonly string[]): Promise<Array<{ engine: string; until: number; reason: string }>> {
    if (engines.length === 0) return [];
    const rows = await this.db.all<{ engine: string; until: number; reason: string }>(
      `SELECT engine, paused_until AS "until", reason FROM engine_pauses WHERE paused_until > ? AND engine IN (${placeholders(engines.length)})
         ORDER BY paused_until DESC`,
      [this.now(), ...engines],
    );
    const first = new Map<string, { engine: string; until: number; reason: string }>();
    for (const row of rows) if (!first.has(row.engine)) first.set(row.engine, { ...row, until: Number(row.until) });
    return engines.flatMap((engine) => first.get(engine) ?? []);
  }

  /** Renews the leases of the runs this instance owns and of the tasks it is asking. */
  private async renewLeases(): Promise<void> {
    try {
      await this.syncClock();
      const until = this.now() + this.leaseMs;
      if (this.claimed.size > 0) {
        // By id: a claim of this instance that it no longer asks (lost track of) is left to run out.
        const ids = [...this.claimed];
        await this.db.run(`UPDATE tracking_tasks SET lease_until = ? WHERE claimed_by = ? AND id IN (${placeholders(ids.length)})`, [
          until,
          this.instance,
          ...ids,
        ]);
      }
      if (this.owned.size > 0) {
        await this.db.run("UPDATE tracking_runs SET lease_until = ? WHERE owner = ? AND status = 'running'", [until, this.instance]);
      }
      this.leaseFailures.succeeded();
    } catch (error) {
      this.leaseFailures.failed(error);
    }
  }

  /** A server takes over the running runs whose owner's lease ran out (it died), and finishes them. */
  private async adoptAbandoned(): Promise<void> {
    if (this.closed) return;
    const now = this.now();
    let rows: Array<{ id: string; brandId: string; planned: number }>;
    try {
      rows = await this.db.all(
        `SELECT id, brand_id AS "brandId", answers_planned AS planned FROM tracking_runs
           WHERE status = 'running' AND (lease_until IS NULL OR lease_until < ?)`,
        [now],
      );
    } catch {
      return;
    }
    const engines = this.config.engines.map((e) => e.id);
    for (const row of rows) {
      if (this.owned.has(row.brandId) || this.closed) continue;
      // A run with tasks for an engine this instance lacks (instances whose [[engines]] differ, as in
      // a rolling deploy) would never finish here: it is marked interrupted instead, and the brand's
      // next run resumes it with the engines of the instance that starts it.
      const lacking = await this.db.all<{ engine: string }>(
        `SELECT DISTINCT engine FROM tracking_tasks WHERE run_id = ? AND engine NOT IN (${placeholders(engines.length)})`,
        [row.id, ...engines],
      );
      if (lacking.length > 0) {
        const names = lacking.map((l) => l.engine).join(", ");
        const stopped = await this.db.run(
          `UPDATE tracking_runs SET status = 'interrupted', finished_at = ?, error = ?, lease_until = NULL
             WHERE id = ? AND status = 'running' AND (lease_until IS NULL OR lease_until < ?)`,
          [
            Date.now(),
            `the process running it stopped before it finished, and the instance that found it has no engine ${names}; the brand's next run resumes it`,
            row.id,
            now,
          ],
        );
        if (stopped === 1)
          log.warn("tracking found a run it cannot finish (engines it lacks) and marked it interrupted", { run: row.id, engines: names });
        continue;
      }
      const adopted = await this.db.run(
        `UPDATE tracking_runs SET owner = ?, lease_until = ? WHERE id = ? AND status = 'running' AND (lease_until IS NULL OR lease_until < ?)`,
        [this.instance, now + this.leaseMs, row.id, now],
      );
      if (adopted !== 1) continue;
      log.info("tracking took over a run whose instance stopped answering", { run: row.id, brand: row.brandId });
      const brandId = row.brandId;
      const runId = row.id;
      void this.own(brandId, runId, row.planned).then(
        () => this.onAdoptedRunEnd?.(brandId, runId),
        () => undefined,
      );
    }
  }
}

/** Tries of a store that meets a transient error (isTransient), and the pause before the second (doubled each time). */
const STORE_ATTEMPTS = 4;
const STORE_BACKOFF_MS = 100;

/** Whether a database error may pass when tried again: SQLite busy, a PostgreSQL deadlock victim or serialization failure. */
function isTransient(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code === "40P01" || code === "40001");
}

/** Reads of an owner's loop in a row that may fail on an error that passes (isPassing) before the run fails. */
const OWNER_READ_ATTEMPTS = 60;

// postgres.js's codes for a connection that closed, ended or could not be made, and the socket's own.
const CONNECTION_ERRORS = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_ENDED",
  "CONNECTION_DESTROYED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
]);

/** A transient error (isTransient), or a connection to the database that failed and may come back. */
function isPassing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return isTransient(error) || (typeof code === "string" && CONNECTION_ERRORS.has(code));
}

/** Thrown to undo a store whose analysis used a roster that changed meanwhile. */
class RosterMoved extends Error {}

/** Thrown to undo an owner's write to a run another instance has taken over. */
class LeaseLost extends Error {}

function slotKey(promptId: string, engine: string, sample: number): string {
  return `${promptId}\u0000${engine}\u0000${sample}`;
}

/** The prompt × engine × sample slots the run has an answer for. */
async function answeredSlots(db: Queries, runId: string): Promise<Set<string>> {
  const rows = await db.all<{ prompt_id: string; engine: string; sample: number }>(
    "SELECT prompt_id, engine, sample FROM answers WHERE run_id = ?",
    [runId],
  );
  return new Set(rows.map((r) => slotKey(r.prompt_id, r.engine, r.sample)));
}

async function insertTasks(tx: Queries, runId: string, brandId: string, tasks: Array<[string, string, number]>): Promise<void> {
  for (let i = 0; i < tasks.length; i += TASK_BATCH) {
    const batch = tasks.slice(i, i + TASK_BATCH);
    await tx.run(
      `INSERT INTO tracking_tasks (run_id, brand_id, prompt_id, engine, sample) VALUES ${batch.map(() => "(?, ?, ?, ?, ?)").join(", ")}`,
      batch.flatMap(([promptId, engine, sample]) => [runId, brandId, promptId, engine, sample]),
    );
  }
}

function alreadyRunning(runId: string, heldUntil: Date | null = null): Conflict {
  const lapse = heldUntil
    ? ` It is held by another process until ${moment(heldUntil.getTime())}, renewed while that process works on it; should that process have stopped, a run started after then resumes it.`
    : "";
  return new Conflict(
    `A tracking run is already under way for this brand (${runId}); wait for it to finish (the dashboard's Tracking page, or get_tracking_status from an AI client, shows its progress).${lapse}`,
    "run_in_progress",
  );
}

/**
 * Ends a running run: `owner`, when given, must still own it (another instance may have taken it
 * over after a stall), or nothing changes and the result is null.
 */
async function finish(
  db: Queries,
  runId: string,
  status: RunStatus,
  error: string | null,
  owner: string | null = null,
): Promise<RunStatus | null> {
  try {
    await db.transaction(async (tx) => {
      // The tasks first, the run after: the order a store locks them in (PostgreSQL would otherwise
      // deadlock with a store under way), and a store under way commits before the run ends.
      await tx.run(
        `DELETE FROM tracking_tasks WHERE run_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR EXISTS (SELECT 1 FROM tracking_runs WHERE id = ?1 AND owner = ?2))`,
        [runId, owner],
      );
      const ended = await tx.run(
        "UPDATE tracking_runs SET status = ?, finished_at = ?, error = ?, lease_until = NULL WHERE id = ? AND status = 'running' AND (CAST(?5 AS TEXT) IS NULL OR owner = ?5)",
        [status, Date.now(), error, runId, owner],
      );
      if (ended === 0 && owner !== null) throw new LeaseLost();
    });
  } catch (error) {
    if (error instanceof LeaseLost) return null;
    throw error;
  }
  return status;
}

/** Marks a running run interrupted; `owner`, when given, must still own it. Whether it did. */
async function markInterrupted(db: Queries, runId: string, reason: string, owner: string | null = null): Promise<boolean> {
  const changed = await db.run(
    `UPDATE tracking_runs SET status = 'interrupted', finished_at = ?, error = ?, lease_until = NULL
       WHERE id = ? AND status = 'running' AND (CAST(?4 AS TEXT) IS NULL OR owner = ?4)`,
    [Date.now(), reason, runId, owner],
  );
  return changed === 1;
}

/** The database's clock, in milliseconds since the epoch (SQLite's is this host's). */
async function databaseNow(db: Queries): Promise<number> {
  const row = await db.get<{ now: number }>({
    // Rounded, not truncated: the day fraction's floating point can land a hair under the millisecond.
    sqlite: "SELECT CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER) AS now",
    postgres: "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now",
  });
  return row!.now;
}

/**
 * At start-up: every run left `running` whose lease ran out (its instance crashed, was killed, lost
 * power) is marked `interrupted`; its stored answers stay. Returns how many were marked.
 */
/**
 * For a server without engines, whose workers never poll: runs whose instance stopped answering are
 * marked interrupted once their lease runs out (an instance with engines would take them over; with
 * none anywhere, a run killed just before this server started stayed "running" for good). Every
 * lease period; the brand's next run resumes them.
 */
export function watchAbandonedRuns(app: AppContext, everyMs = app.config.tracking.lease_seconds * 1000): { stop(): void } {
  const timer = setInterval(() => void markInterruptedRuns(app).catch(() => undefined), everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

export async function markInterruptedRuns(app: AppContext): Promise<number> {
  // One guarded statement: a run whose owner renewed its lease after a read would still be taken.
  const interrupted = await app.db.run(
    `UPDATE tracking_runs SET status = 'interrupted', finished_at = ?, error = ?, lease_until = NULL
       WHERE status = 'running' AND (lease_until IS NULL OR lease_until < ?)`,
    [Date.now(), "the process running it stopped before it finished; the answers stored so far are kept", await databaseNow(app.db)],
  );
  // The queue of runs that will not resume any more (older than the resume window).
  await app.db.run(
    "DELETE FROM tracking_tasks WHERE run_id IN (SELECT id FROM tracking_runs WHERE status <> 'running' AND started_at < ?)",
    [Date.now() - RESUME_WINDOW_MS],
  );
  return interrupted;
}
