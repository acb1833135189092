// Article rendering (markdown → sanitized HTML) runs in a worker thread, not in the thread that
// answers HTTP requests.
//
// Why: the sanitizer needs jsdom, and jsdom is most of what the server's heap would otherwise hold
// (measured: 30 of 41 MB, 270k of 360k objects, with `bun:jsc` heapStats after the self-test).
// Every garbage collection of the serving thread walked it: under load on the public API, moving it
// out halved the collectors' pause time. In a worker it has a heap of its own, and a long render no
// longer holds up other requests.
//
// Safety is unchanged, and still fails closed:
//   - each worker runs the sanitizer self-test before its first job and renders nothing if it
//     failed; `serve` starts one and refuses to start on a failure;
//   - a worker that crashes, or a render that overruns `timeoutMs`, fails the job it was rendering
//     (and nothing is saved); the next job starts a fresh worker, which runs the self-test again.
// The worker is given one job at a time, so the job it was rendering when it was lost is the only
// one that fails, and the time limit counts that job's own render alone: a fresh worker's start
// (jsdom and the self-test, ~1 s, several on a loaded machine) has a limit of its own,
// `startTimeoutMs`, so that a slow start never fails a save as too complex an article; a start past
// it fails the self-test (`serve` refuses to start on it) and the job waiting, if any. Jobs wait
// here, one queue per tenant (account), and tenants take turns: an account that saves many slow
// articles, from as many brands as it likes, delays another account's save by at most the one
// render in progress, and never makes it fail (it took an article that 40,000 nested <div> made
// slow, sent twice, to fail another brand's tiny save after 59 s; and with turns per brand, one
// account's slow saves from twelve brands made another's wait 51 s).
// A worker that has had nothing to do for `idleMs` is stopped, and the next job starts a fresh one
// (which runs the self-test again before it renders): jsdom is most of the process's memory, and
// articles are saved rarely. `serve` stops the start-up self-test's worker as soon as it has passed
// (stopWhenIdle), so that an idle server holds no jsdom at all. Starting a worker costs about a
// second (jsdom and the self-test), paid by the first save after an idle spell.

import { Invalid, Unavailable } from "../errors";
import { log } from "../log";
import { workerUrl } from "../worker-url";
import { type ArticleSource } from "./render";
import { type SelfTestResult } from "./sanitizer-self-test";
import { UnsafeHtmlError } from "./unsafe-html";

export interface RenderJob extends ArticleSource {
  id: number;
}

export type RenderReply =
  | { type: "ready"; selfTest: SelfTestResult }
  | { type: "html"; id: number; html: string }
  | { type: "error"; id: number; error: "unsafe_html" | "too_complex" | "self_test_failed" | "failed"; message?: string };

export interface RendererOptions {
  /** The worker's entry; tests pass stand-ins that fail in chosen ways. */
  workerUrl?: string;
  /** A render that takes longer fails and stops the worker (its start-up is not counted). */
  timeoutMs?: number;
  /**
   * A worker that has not reported its self-test this long after it was started is stopped, failing
   * its job and its self-test.
   */
  startTimeoutMs?: number;
  /** A worker with no job for this long is stopped; the next job starts a fresh one. */
  idleMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_START_TIMEOUT_MS = 60_000;
const DEFAULT_IDLE_MS = 60_000;

interface Pending {
  id: number;
  source: ArticleSource;
  resolve(html: string): void;
  reject(error: Error): void;
}

// Bun's Worker can stop holding the process open (unref) and resume (ref); the DOM typings lack both.
type BunWorker = Worker & { ref(): void; unref(): void };

interface Running {
  worker: BunWorker;
  selfTest: Promise<SelfTestResult>;
  /** The one job the worker is rendering, with its render's time limit once the worker is ready. */
  current: (Pending & { timer: ReturnType<typeof setTimeout> | undefined }) | null;
  /** Whether its self-test has reported (a worker is never stopped for idleness before). */
  ready: boolean;
  /** Stops the worker if it has not reported its self-test within startTimeoutMs. */
  startTimer: ReturnType<typeof setTimeout> | undefined;
  /** Stops the worker when it has been idle for idleMs. */
  idleTimer: ReturnType<typeof setTimeout> | null;
}

export class ArticleRenderer {
  private running: Running | null = null;
  /** Waiting jobs per tenant (only tenants with jobs waiting). */
  private readonly queues = new Map<string, Pending[]>();
  /** The turn at which each tenant was last served, least recent first (bounded: see takeNext). */
  private readonly lastTurn = new Map<string, number>();
  private turn = 0;
  private nextId = 1;
  private readonly workerUrl: string;
  private readonly timeoutMs: number;
  private readonly startTimeoutMs: number;
  private readonly idleMs: number;
  private readonly selfTestFailures: Array<(reason: string) => void> = [];

  constructor(options: RendererOptions = {}) {
    this.workerUrl = options.workerUrl ?? workerUrl("content/render-worker.ts");
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.startTimeoutMs = options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS;
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
  }

  /** Starts a worker if none is running and resolves with its sanitizer self-test. */
  selfTest(): Promise<SelfTestResult> {
    return this.start().selfTest;
  }

  /** Calls `listener` with the reason whenever a worker's sanitizer fails its self-test (`serve` then exits). */
  onSelfTestFailed(listener: (reason: string) => void): void {
    this.selfTestFailures.push(listener);
  }

  /** Whether a worker (and so jsdom) is running now. */
  get workerRunning(): boolean {
    return this.running !== null;
  }

  /** Stops the worker at once if it has reported its self-test and has no job (else when it next idles). */
  stopWhenIdle(): void {
    const running = this.running;
    if (running?.ready && running.current === null && this.queues.size === 0) this.halt(running);
  }

  /**
   * The sanitized HTML of an article. Rejects with UnsafeHtmlError when the body cannot be made
   * safe, and Invalid when it is over the renderer's bounds. `tenant` (the account) decides the turn.
   */
  render(source: ArticleSource, tenant = ""): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const job = { id: this.nextId++, source, resolve, reject };
      const queue = this.queues.get(tenant);
      if (queue) queue.push(job);
      else this.queues.set(tenant, [job]);
      this.dispatch();
    });
  }

  /** Stops the worker now; the job rendering and the jobs waiting fail. */
  close(): void {
    const reason = new Unavailable("The article renderer was shut down; nothing was saved.", "render_stopped");
    const waiting = [...this.queues.values()].flat();
    this.queues.clear();
    if (this.running) this.halt(this.running)?.reject(reason);
    for (const job of waiting) job.reject(reason);
  }

  /** When the worker is idle, gives it the next job: the next tenant's oldest. */
  private dispatch(): void {
    if (this.running?.current) return;
    const job = this.takeNext();
    if (!job) {
      if (this.running) this.release(this.running);
      return;
    }
    const running = this.start();
    running.current = { ...job, timer: this.limit(running) };
    if (running.idleTimer) {
      clearTimeout(running.idleTimer);
      running.idleTimer = null;
    }
    // While a job is in flight the worker keeps the process alive (a CLI command awaiting a render).
    running.worker.ref();
    const message: RenderJob = { id: job.id, title: job.source.title, markdown: job.source.markdown };
    running.worker.postMessage(message);
  }

  /**
   * The time limit of the job `running` is given, once the worker is ready (until then, the worker's
   * start has its own: startTimer).
   */
  private limit(running: Running): ReturnType<typeof setTimeout> | undefined {
    if (!running.ready) return undefined;
    return setTimeout(() => {
      log.error("article render timed out", { timeout_ms: this.timeoutMs });
      this.lose(
        running,
        new Unavailable(
          `Rendering the article took longer than ${this.timeoutMs / 1000} s, so it was stopped and nothing was saved: shorten or simplify the article and try again.`,
          "render_timeout",
        ),
      );
    }, this.timeoutMs);
  }

  /**
   * The oldest job of the waiting tenant served least recently (never served first; ties go to the
   * one waiting longest), so every tenant with work gets a turn before any tenant gets a second.
   */
  private takeNext(): Pending | null {
    let chosen: string | null = null;
    let chosenTurn = Number.POSITIVE_INFINITY;
    for (const tenant of this.queues.keys()) {
      const served = this.lastTurn.get(tenant) ?? -1;
      if (served < chosenTurn) {
        chosen = tenant;
        chosenTurn = served;
      }
    }
    if (chosen === null) return null;
    const queue = this.queues.get(chosen)!;
    const job = queue.shift()!;
    if (queue.length === 0) this.queues.delete(chosen);
    this.lastTurn.delete(chosen);
    this.lastTurn.set(chosen, ++this.turn);
    // Forgetting the least recent tenants only puts them at the front of a later turn.
    if (this.lastTurn.size > 10_000) this.lastTurn.delete(this.lastTurn.keys().next().value!);
    return job;
  }

  private start(): Running {
    if (this.running) return this.running;
    const worker = new Worker(this.workerUrl) as BunWorker;
    let reportSelfTest: (result: SelfTestResult) => void = () => {};
    const running: Running = {
      worker,
      selfTest: new Promise<SelfTestResult>((resolve) => (reportSelfTest = resolve)),
      current: null,
      ready: false,
      startTimer: undefined,
      idleTimer: null,
    };
    // A start that never ends (with a job waiting or not: `serve`'s own self-test has none) fails
    // the self-test, which `serve` refuses to start on, and the job given meanwhile.
    running.startTimer = setTimeout(() => {
      const seconds = this.startTimeoutMs / 1000;
      log.error("article renderer did not start in time", { start_timeout_ms: this.startTimeoutMs });
      reportSelfTest({ ok: false, reason: `the article renderer did not start within ${seconds} s` });
      this.lose(
        running,
        new Unavailable(`The article renderer did not start within ${seconds} s, so nothing was saved; try again.`, "render_failed"),
      );
    }, this.startTimeoutMs);
    running.startTimer.unref?.();
    worker.addEventListener("message", ({ data }: MessageEvent<RenderReply>) => {
      if (data.type === "ready") {
        clearTimeout(running.startTimer);
        running.ready = true;
        reportSelfTest(data.selfTest);
        if (!data.selfTest.ok) {
          log.error("article sanitizer self-test failed", { reason: data.selfTest.reason });
          for (const listener of this.selfTestFailures) listener(data.selfTest.reason);
        }
        // The job given while it started: its render's own time limit starts now.
        if (running.current) {
          clearTimeout(running.current.timer);
          running.current.timer = this.limit(running);
        }
        this.release(running);
        return;
      }
      const job = running.current;
      if (!job || job.id !== data.id) return;
      running.current = null;
      clearTimeout(job.timer);
      if (data.type === "html") job.resolve(data.html);
      else if (data.error === "unsafe_html") job.reject(new UnsafeHtmlError());
      else if (data.error === "too_complex")
        job.reject(new Invalid(data.message ?? "The article is too complex to render.", "article_too_complex"));
      else if (data.error === "self_test_failed") {
        job.reject(
          new Unavailable(
            "The server's article sanitizer failed its safety self-test, so it renders nothing and nothing was saved; the server's operator has to fix it (see the server log).",
            "sanitizer_unavailable",
          ),
        );
      } else job.reject(new Error(`the article renderer failed: ${data.message ?? "unknown error"}`));
      this.dispatch();
    });
    // A worker that fails to load, throws outside a job, or exits takes its job with it.
    const lost = (why: string) => {
      if (this.running !== running) return;
      log.error("article renderer stopped unexpectedly", { reason: why });
      reportSelfTest({ ok: false, reason: `the article renderer stopped before its self-test finished (${why})` });
      this.lose(running, new Unavailable("The article renderer stopped unexpectedly and nothing was saved; try again.", "render_failed"));
    };
    worker.addEventListener("error", (event) => lost((event as ErrorEvent).message || "error"));
    worker.addEventListener("close", () => lost("exited"));
    // Until its self-test is in, the worker holds the process open (`serve` awaits the result).
    this.running = running;
    return running;
  }

  /** After a crash or a timeout: stops the worker, fails its job with `reason`; the next job gets a fresh worker. */
  private lose(running: Running, reason: Error): void {
    this.halt(running)?.reject(reason);
    this.dispatch();
  }

  /** Terminates the worker and hands back the job it was rendering, its timer cleared. */
  private halt(running: Running): Pending | null {
    if (this.running === running) this.running = null;
    clearTimeout(running.startTimer);
    if (running.idleTimer) clearTimeout(running.idleTimer);
    const job = running.current;
    running.current = null;
    if (job) clearTimeout(job.timer);
    running.worker.terminate();
    return job;
  }

  /**
   * With no job in flight, the worker no longer holds the process open (a CLI command can exit), and
   * is stopped if it stays without one for idleMs.
   */
  private release(running: Running): void {
    if (running.current !== null || this.running !== running) return;
    running.worker.unref();
    if (!running.ready) return;
    if (running.idleTimer) clearTimeout(running.idleTimer);
    running.idleTimer = setTimeout(() => {
      running.idleTimer = null;
      this.stopWhenIdle();
    }, this.idleMs);
    running.idleTimer.unref?.();
  }
}

let shared: ArticleRenderer | null = null;

/** The process's renderer: one worker, started on first use. */
export function articleRenderer(): ArticleRenderer {
  shared ??= new ArticleRenderer();
  return shared;
}

/** Makes `renderer` the process's renderer, returning it (tests: a worker that fails in chosen ways, then the previous one back). */
export const setArticleRenderer = (renderer: ArticleRenderer): ArticleRenderer => (shared = renderer);

/** Sanitized HTML for an article, rendered by the process's renderer in `tenant`'s turn. */
export function renderArticleHtml(source: ArticleSource, tenant?: string): Promise<string> {
  return articleRenderer().render(source, tenant);
}
