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
//     The worker renders one job at a time, in order, so the job it was rendering is the oldest in
//     flight; the jobs queued behind it never started, and go to the fresh worker (once: a job that
//     is then itself the one rendering when a worker is lost fails like any other).
// Otherwise the worker lives as long as the process: starting one costs about a second (jsdom and
// the self-test), and Bun does not give all of a terminated worker's memory back (measured: RSS
// +6 to +10 MB per start/stop cycle).

import { Unavailable } from "../errors";
import { log } from "../log";
import { type ArticleSource } from "./render";
import { type SelfTestResult } from "./sanitizer-self-test";
import { UnsafeHtmlError } from "./unsafe-html";

export interface RenderJob extends ArticleSource {
  id: number;
}

export type RenderReply =
  | { type: "ready"; selfTest: SelfTestResult }
  | { type: "html"; id: number; html: string }
  | { type: "error"; id: number; error: "unsafe_html" | "self_test_failed" | "failed"; message?: string };

export interface RendererOptions {
  /** The worker's entry; tests pass stand-ins that fail in chosen ways. */
  workerUrl?: string;
  /** A render (worker start-up included) that takes longer fails and stops the worker. */
  timeoutMs?: number;
}

const DEFAULT_TIMEOUT_MS = 30_000;

interface Pending {
  source: ArticleSource;
  resolve(html: string): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
  /** Already moved to a fresh worker once, after the worker it was queued on was lost. */
  moved: boolean;
}

// Bun's Worker can stop holding the process open (unref) and resume (ref); the DOM typings lack both.
type BunWorker = Worker & { ref(): void; unref(): void };

interface Running {
  worker: BunWorker;
  selfTest: Promise<SelfTestResult>;
  pending: Map<number, Pending>;
}

/** The worker entry: a file next to this one, or, in the single executable, its bundled entry point. */
function defaultWorkerUrl(): string {
  // In the executable, entry points are addressed relative to the bundle's root, src/.
  if (import.meta.url.includes("/$bunfs/")) return "./content/render-worker.ts";
  return new URL("./render-worker.ts", import.meta.url).href;
}

export class ArticleRenderer {
  private running: Running | null = null;
  private nextId = 1;
  private readonly workerUrl: string;
  private readonly timeoutMs: number;

  constructor(options: RendererOptions = {}) {
    this.workerUrl = options.workerUrl ?? defaultWorkerUrl();
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Starts a worker if none is running and resolves with its sanitizer self-test. */
  selfTest(): Promise<SelfTestResult> {
    return this.start().selfTest;
  }

  /** The sanitized HTML of an article. Rejects with UnsafeHtmlError when the body cannot be made safe. */
  render(source: ArticleSource): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      this.post({ source, resolve, reject, moved: false });
    });
  }

  /** Queues a job on the running worker (starting one if needed), with its own timeout. */
  private post(job: Omit<Pending, "timer">): void {
    const running = this.start();
    const id = this.nextId++;
    // The oldest job in flight is the one rendering when a timer fires: timers start in the order
    // the worker takes the jobs, and all run for the same time.
    const timer = setTimeout(() => {
      log.error("article render timed out", { timeout_ms: this.timeoutMs });
      this.lose(
        running,
        new Unavailable(
          `Rendering the article took longer than ${this.timeoutMs / 1000} s, so it was stopped and nothing was saved: shorten or simplify the article and try again.`,
          "render_timeout",
        ),
      );
    }, this.timeoutMs);
    running.pending.set(id, { ...job, timer });
    // While a job is in flight the worker keeps the process alive (a CLI command awaiting a render).
    running.worker.ref();
    const message: RenderJob = { id, title: job.source.title, markdown: job.source.markdown };
    running.worker.postMessage(message);
  }

  /** Stops the worker now; jobs in flight fail. */
  close(): void {
    if (this.running) this.stop(this.running, new Unavailable("The article renderer was shut down; nothing was saved.", "render_stopped"));
  }

  private start(): Running {
    if (this.running) return this.running;
    const worker = new Worker(this.workerUrl) as BunWorker;
    let reportSelfTest: (result: SelfTestResult) => void = () => {};
    const running: Running = {
      worker,
      selfTest: new Promise<SelfTestResult>((resolve) => (reportSelfTest = resolve)),
      pending: new Map(),
    };
    worker.addEventListener("message", ({ data }: MessageEvent<RenderReply>) => {
      if (data.type === "ready") {
        if (!data.selfTest.ok) log.error("article sanitizer self-test failed", { reason: data.selfTest.reason });
        reportSelfTest(data.selfTest);
        this.release(running);
        return;
      }
      const job = running.pending.get(data.id);
      if (!job) return;
      running.pending.delete(data.id);
      clearTimeout(job.timer);
      if (data.type === "html") job.resolve(data.html);
      else if (data.error === "unsafe_html") job.reject(new UnsafeHtmlError());
      else if (data.error === "self_test_failed") {
        job.reject(
          new Unavailable(
            "The server's article sanitizer failed its safety self-test, so it renders nothing and nothing was saved; the server's operator has to fix it (see the server log).",
            "sanitizer_unavailable",
          ),
        );
      } else job.reject(new Error(`the article renderer failed: ${data.message ?? "unknown error"}`));
      this.release(running);
    });
    // A worker that fails to load, throws outside a job, or exits takes its jobs with it.
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

  /** Stops the worker and fails every job in flight with `reason`. */
  private stop(running: Running, reason: Error): void {
    for (const job of this.halt(running)) job.reject(reason);
  }

  /**
   * After a crash or a timeout: stops the worker, fails the job it was rendering (the oldest in
   * flight) with `reason`, and moves the jobs queued behind it to a fresh worker.
   */
  private lose(running: Running, reason: Error): void {
    const [rendering, ...queued] = this.halt(running);
    if (rendering) rendering.reject(reason);
    for (const job of queued) {
      if (job.moved) job.reject(reason);
      else this.post({ ...job, moved: true });
    }
  }

  /** Terminates the worker and hands back its jobs in flight, oldest first, their timers cleared. */
  private halt(running: Running): Pending[] {
    if (this.running === running) this.running = null;
    const jobs = [...running.pending.values()];
    for (const job of jobs) clearTimeout(job.timer);
    running.pending.clear();
    running.worker.terminate();
    return jobs;
  }

  /** With no job in flight, the worker no longer holds the process open (a CLI command can exit). */
  private release(running: Running): void {
    if (running.pending.size === 0 && this.running === running) running.worker.unref();
  }
}

let shared: ArticleRenderer | null = null;

/** The process's renderer: one worker, started on first use. */
export function articleRenderer(): ArticleRenderer {
  shared ??= new ArticleRenderer();
  return shared;
}

/** Sanitized HTML for an article, rendered by the process's renderer. */
export function renderArticleHtml(source: ArticleSource): Promise<string> {
  return articleRenderer().render(source);
}
