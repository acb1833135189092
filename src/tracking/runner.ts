// A tracking run: every active prompt × engine × sample asked once, each answer stored (with its
// analysis) the moment it arrives. One run per brand at a time, guarded in process and by the run
// row in the database (so a `spyglass track` beside a running server cannot overlap it either).

import { and, desc, eq, sql } from "drizzle-orm";
import { type Config, type EngineSettings } from "../config";
import { type AppContext } from "../context";
import { type Db } from "../db/client";
import { type RunStatus, trackingRuns } from "../db/schema";
import { Conflict, Invalid, NotFound } from "../errors";
import { newId } from "../ids";
import { createEngineClient, type EngineClient } from "../llm/client";
import { type ClientOptions, type EngineAnswer } from "../llm/types";
import { log } from "../log";
import { listActivePrompts } from "../prompts/service";
import { type AnswerWriter, analyzeForStorage } from "./answer-writer";
import { type Reanalysis } from "./reanalysis";
import { loadRoster, type Roster } from "./roster";
import { SearchStore } from "./search-store";

export type RunTrigger = "schedule" | "cli" | "tool";

export interface RunRequest {
  /** Restrict the run to these prompts (of the brand, not archived); all active prompts otherwise. */
  promptIds?: string[];
  /** Restrict the run to these configured engine ids; all configured engines otherwise. */
  engines?: string[];
  trigger: RunTrigger;
  /** Called after each stored answer. */
  onProgress?: (progress: { done: number; planned: number; engine: string; status: EngineAnswer["status"] }) => void;
}

export interface StartedRun {
  runId: string;
  planned: number;
  /** Settles with the run's final status; never rejects. */
  done: Promise<RunStatus>;
}

interface ActiveRun {
  runId: string;
  controller: AbortController;
  done: Promise<RunStatus>;
}

interface PromptRow {
  id: string;
  text: string;
}

interface RunningRow {
  id: string;
  ownerPid: number | null;
}

/** An interrupted run younger than this resumes on the brand's next run instead of a new one starting. */
export const RESUME_WINDOW_MS = 2 * 86_400_000;

interface ResumePlan {
  runId: string;
  engines: EngineSettings[];
  prompts: PromptRow[];
}

const NO_ENGINES =
  "No engines are configured: add an [[engines]] section (api, base_url, model, api_key_env) to spyglass.toml, then run tracking again.";

/** Whether a process id belongs to a live process on this machine. */
function processAlive(pid: number | null): boolean {
  if (pid === null || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class TrackingRunner {
  private readonly clients = new Map<string, EngineClient>();
  private readonly active = new Map<string, ActiveRun>();
  private readonly searches: SearchStore;
  private closed = false;

  constructor(
    private readonly config: Config,
    private readonly db: Db,
    private readonly writer: AnswerWriter,
    private readonly reanalysis: Reanalysis,
    private readonly clientOptions: ClientOptions = {},
  ) {
    this.searches = new SearchStore(db);
  }

  /**
   * Validates the request, takes the brand's lock, records the run and starts it in the background.
   * Throws Invalid (no engines, unknown engine or prompt, no active prompt) or Conflict (already running).
   */
  async start(brandId: string, request: RunRequest): Promise<StartedRun> {
    // Read first: from here to the brand's lock being taken nothing awaits, so two starts cannot both take it.
    const active = await listActivePrompts(this.db, brandId);
    if (this.closed) throw new Conflict("The server is shutting down; tracking cannot start now.", "shutting_down");
    const samples = this.config.tracking.samples;
    const existing = this.active.get(brandId);
    if (existing) throw alreadyRunning(existing.runId);

    // A run interrupted by a stop (or a crash) picks up where it was: same run, same plan, and the
    // prompt × engine × sample slots it already answered are not asked again.
    const resume = this.resumePlan(brandId, request, active);
    let runId: string;
    let engines: EngineSettings[];
    let prompts: PromptRow[];
    let planned: number;
    if (resume !== null && this.reopenRunRow(brandId, resume, this.resumedPlan(resume, samples))) {
      ({ runId, engines, prompts } = resume);
      planned = this.resumedPlan(resume, samples);
    } else {
      engines = this.pickEngines(request.engines);
      prompts = this.pickPrompts(active, request.promptIds);
      runId = newId("run");
      const restricted = request.promptIds !== undefined && request.promptIds.length > 0 ? prompts.map((p) => p.id) : null;
      planned = prompts.length * engines.length * samples;
      this.claimRunRow(brandId, runId, request.trigger, engines, planned, restricted);
    }

    const controller = new AbortController();
    const done = this.execute(brandId, runId, engines, prompts, samples, controller.signal, request).finally(() => {
      this.active.delete(brandId);
    });
    this.active.set(brandId, { runId, controller, done });
    return { runId, planned, done };
  }

  /**
   * The brand's latest run when it is `interrupted` (or `running` for a process that is gone),
   * recent (RESUME_WINDOW_MS), and asked the same engines and prompts as this request would (a
   * request without filters takes the interrupted run's own); null otherwise.
   */
  private resumePlan(brandId: string, request: RunRequest, active: PromptRow[]): ResumePlan | null {
    const last = this.db.orm
      .select()
      .from(trackingRuns)
      .where(eq(trackingRuns.brandId, brandId))
      .orderBy(desc(trackingRuns.startedAt), desc(trackingRuns.id))
      .limit(1)
      .get();
    if (!last || Date.now() - last.startedAt > RESUME_WINDOW_MS) return null;
    const stale = last.status === "running" && last.ownerPid !== process.pid && !processAlive(last.ownerPid);
    if (last.status !== "interrupted" && !stale) return null;
    const sameSet = (a: readonly string[], b: readonly string[]) => a.length === b.length && new Set([...a, ...b]).size === a.length;
    const wantEngines = request.engines && request.engines.length > 0 ? [...new Set(request.engines)] : null;
    const wantPrompts = request.promptIds && request.promptIds.length > 0 ? [...new Set(request.promptIds)] : null;
    if (wantEngines !== null && !sameSet(wantEngines, last.engines)) return null;
    if (wantPrompts !== null && (last.promptIds === null || !sameSet(wantPrompts, last.promptIds))) return null;
    // What still exists of its plan: engines still configured, prompts still active.
    const engines = this.config.engines.filter((e) => last.engines.includes(e.id));
    const prompts = last.promptIds === null ? active : active.filter((p) => last.promptIds!.includes(p.id));
    if (engines.length === 0 || prompts.length === 0) return null;
    return { runId: last.id, engines, prompts };
  }

  /**
   * A resumed run's plan: the answers it stored plus the slots of its (possibly smaller, after a
   * prompt was archived or an engine removed) plan that have none yet.
   */
  private resumedPlan(plan: ResumePlan, samples: number): number {
    const answered = answeredSlots(this.db, plan.runId);
    let missing = 0;
    for (const engine of plan.engines)
      for (const prompt of plan.prompts)
        for (let sample = 0; sample < samples; sample++) if (!answered.has(slotKey(prompt.id, engine.id, sample))) missing++;
    return answered.size + missing;
  }

  /** Marks the interrupted run running again for this process; false when it changed meanwhile. */
  private reopenRunRow(brandId: string, plan: ResumePlan, planned: number): boolean {
    const db = this.db;
    return db.sqlite
      .transaction(() => {
        const running: RunningRow[] = db.orm
          .select({ id: trackingRuns.id, ownerPid: trackingRuns.ownerPid })
          .from(trackingRuns)
          .where(and(eq(trackingRuns.brandId, brandId), eq(trackingRuns.status, "running")))
          .all();
        for (const row of running) {
          if (row.ownerPid !== process.pid && processAlive(row.ownerPid)) throw alreadyRunning(row.id);
          markInterrupted(db, row.id, "the process running it stopped before it finished");
        }
        const reopened = db.sqlite
          .query<unknown, [number, number, string]>(
            `UPDATE tracking_runs SET status = 'running', owner_pid = ?, answers_planned = ?, finished_at = NULL, error = NULL
             WHERE id = ? AND status = 'interrupted'`,
          )
          .run(process.pid, planned, plan.runId);
        return reopened.changes === 1;
      })
      .immediate();
  }

  /**
   * Stops every run of this process: in-flight requests are aborted, nothing more is stored, and the
   * runs are marked `interrupted`. Answers already stored are kept.
   */
  async shutdown(): Promise<void> {
    this.closed = true;
    const runs = [...this.active.values()];
    for (const run of runs) run.controller.abort();
    await Promise.all(runs.map((run) => run.done));
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

  private pickPrompts(all: PromptRow[], ids: string[] | undefined): PromptRow[] {
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

  /** Inserts the run row unless another live run of the brand holds it; stale `running` rows are marked interrupted. */
  private claimRunRow(
    brandId: string,
    runId: string,
    trigger: RunTrigger,
    engines: EngineSettings[],
    planned: number,
    promptIds: string[] | null,
  ): void {
    const db = this.db;
    db.sqlite
      .transaction(() => {
        const running: RunningRow[] = db.orm
          .select({ id: trackingRuns.id, ownerPid: trackingRuns.ownerPid })
          .from(trackingRuns)
          .where(and(eq(trackingRuns.brandId, brandId), eq(trackingRuns.status, "running")))
          .all();
        for (const row of running) {
          // A row of this very process that is not in `active` is a leftover; another live process holds its run.
          if (row.ownerPid !== process.pid && processAlive(row.ownerPid)) throw alreadyRunning(row.id);
          markInterrupted(db, row.id, "the process running it stopped before it finished");
        }
        db.orm
          .insert(trackingRuns)
          .values({
            id: runId,
            brandId,
            status: "running",
            trigger,
            engines: engines.map((e) => e.id),
            promptIds,
            answersPlanned: planned,
            answersDone: 0,
            ownerPid: process.pid,
            startedAt: Date.now(),
          })
          .run();
      })
      .immediate();
  }

  private client(engine: EngineSettings): EngineClient {
    // One client per engine for the whole process, so its concurrency limit holds across runs of all brands.
    let client = this.clients.get(engine.id);
    if (!client) {
      client = createEngineClient(engine, this.clientOptions);
      this.clients.set(engine.id, client);
    }
    return client;
  }

  private async execute(
    brandId: string,
    runId: string,
    engines: EngineSettings[],
    prompts: PromptRow[],
    samples: number,
    signal: AbortSignal,
    request: RunRequest,
  ): Promise<RunStatus> {
    const db = this.db;
    const planned = prompts.length * engines.length * samples;
    const writer = this.writer;
    const countDone = db.orm
      .update(trackingRuns)
      .set({ answersDone: sql`${trackingRuns.answersDone} + 1` })
      .where(eq(trackingRuns.id, runId))
      .prepare();
    let roster: Roster = await loadRoster(db, brandId);
    let version = this.reanalysis.rosterVersion(brandId);
    // Slots a resumed run already answered (answers_run_slot_idx): never asked twice.
    const answered = answeredSlots(db, runId);
    let done = answered.size;
    let errors = 0;
    let firstError: string | null = null;
    let storeFailure: string | null = null;

    const store = async (promptId: string, engine: EngineSettings, sample: number, reply: EngineAnswer): Promise<void> => {
      if (this.reanalysis.rosterVersion(brandId) !== version) {
        roster = await loadRoster(db, brandId);
        version = this.reanalysis.rosterVersion(brandId);
      }
      const analysis = analyzeForStorage(reply.status, reply.text, reply.citations, roster);
      const createdAt = Date.now();
      db.sqlite
        .transaction(() => {
          const answerId = writer.write(
            {
              brandId,
              runId,
              promptId,
              engine: engine.id,
              model: reply.model,
              sample,
              status: reply.status,
              text: reply.text,
              providerCitations: reply.citations,
              error: reply.error,
              latencyMs: reply.latency_ms,
              tokensIn: reply.tokens_in,
              tokensOut: reply.tokens_out,
              createdAt,
            },
            analysis,
            roster,
          );
          // What it searched and read, for valid answers (as mentions and citations are).
          if (reply.status === "ok") this.searches.write(answerId, { brandId, engine: engine.id, promptId, createdAt }, reply);
          countDone.run();
        })
        .immediate();
    };

    const work = async (engine: EngineSettings): Promise<void> => {
      const client = this.client(engine);
      const slots: Array<{ prompt: PromptRow; sample: number }> = [];
      for (let sample = 0; sample < samples; sample++)
        for (const prompt of prompts) if (!answered.has(slotKey(prompt.id, engine.id, sample))) slots.push({ prompt, sample });
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < slots.length && !signal.aborted && storeFailure === null) {
          const slot = slots[next++]!;
          const reply = await client.ask(slot.prompt.text, signal);
          // An answer cut short by a stop is not an answer: the slot stays empty.
          if (signal.aborted) return;
          // Many engines answering at once write without a pause: past the WAL's limit, let the
          // checkpointer catch up (src/db/checkpointer.ts) so that the WAL starts over.
          if (this.db.walPressure) await this.db.walPressure();
          if (signal.aborted) return;
          try {
            await store(slot.prompt.id, engine, slot.sample, reply);
          } catch (error) {
            storeFailure = `could not store an answer: ${(error as Error).message}`;
            return;
          }
          done++;
          if (reply.status === "error") {
            errors++;
            firstError ??= `${engine.id}: ${reply.error ?? "error"}`;
          }
          request.onProgress?.({ done, planned, engine: engine.id, status: reply.status });
        }
      };
      await Promise.all(Array.from({ length: Math.min(engine.concurrency, slots.length) }, worker));
    };

    try {
      await Promise.all(engines.map(work));
      if (signal.aborted) {
        markInterrupted(this.db, runId, "stopped before it finished (shutdown); the answers stored so far are kept");
        return "interrupted";
      }
      if (storeFailure !== null) return finish(this.db, runId, "failed", storeFailure);
      if (done > 0 && errors === done) return finish(this.db, runId, "failed", `every answer failed; first: ${firstError}`);
      return finish(this.db, runId, "completed", errors > 0 ? `${errors} of ${done} answers failed; first: ${firstError}` : null);
    } catch (error) {
      log.error("tracking run failed", { run: runId, message: (error as Error).message });
      return finish(this.db, runId, "failed", `unexpected error: ${(error as Error).message}`);
    }
  }
}

function slotKey(promptId: string, engine: string, sample: number): string {
  return `${promptId}\u0000${engine}\u0000${sample}`;
}

/** The prompt × engine × sample slots the run has an answer for. */
function answeredSlots(db: Db, runId: string): Set<string> {
  return new Set(
    db.sqlite
      .query<{ prompt_id: string; engine: string; sample: number }, [string]>(
        "SELECT prompt_id, engine, sample FROM answers WHERE run_id = ?",
      )
      .all(runId)
      .map((r) => slotKey(r.prompt_id, r.engine, r.sample)),
  );
}

function alreadyRunning(runId: string): Conflict {
  return new Conflict(
    `A tracking run is already under way for this brand (${runId}); wait for it to finish (get_tracking_status).`,
    "run_in_progress",
  );
}

function finish(db: Db, runId: string, status: RunStatus, error: string | null): RunStatus {
  db.orm.update(trackingRuns).set({ status, finishedAt: Date.now(), error }).where(eq(trackingRuns.id, runId)).run();
  return status;
}

function markInterrupted(db: Db, runId: string, reason: string): void {
  db.orm
    .update(trackingRuns)
    .set({ status: "interrupted", finishedAt: Date.now(), error: reason })
    .where(and(eq(trackingRuns.id, runId), eq(trackingRuns.status, "running")))
    .run();
}

/**
 * At start-up: every run left `running` by a process that is gone (a crash, a kill -9, a power cut)
 * is marked `interrupted`; its stored answers stay. Returns how many were marked.
 */
export function markInterruptedRuns(app: AppContext): number {
  const rows: RunningRow[] = app.db.orm
    .select({ id: trackingRuns.id, ownerPid: trackingRuns.ownerPid })
    .from(trackingRuns)
    .where(eq(trackingRuns.status, "running"))
    .all();
  let marked = 0;
  for (const row of rows) {
    if (row.ownerPid !== process.pid && processAlive(row.ownerPid)) continue;
    markInterrupted(app.db, row.id, "the process running it stopped before it finished; the answers stored so far are kept");
    marked++;
  }
  return marked;
}
