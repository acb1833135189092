// Long reads off the serving thread (SQLite). bun:sqlite runs a statement on the thread that calls
// it, and the server answers nothing else until it returns. At the demo's 30× scale (216,000 answers)
// a tag's overview, read from the answers themselves, held it for ~90 ms, a tag's top sources for
// ~160, the search queries of 90 days for ~800 (/healthz probes of up to 1.6 s meanwhile), and a
// prompt ranking summed from 12,000 prompts' days (10× that) for 38–87 ms. `Queries.scan` sends such
// a statement here instead: a worker thread with its own connection to the file runs it and sends its
// rows back. It reads one snapshot, the last commit before it began, as the serving connection would
// outside a transaction (inside one, scan runs on the transaction's connection, which alone sees its
// writes). The analytics use it for reads whose cost grows with a period's answers or a brand's
// prompts; the daily rollups' few rows per day are read where they are.
//
// The thread starts on the first scan and stops after READER_IDLE_MS without one (a second JS heap
// and its page cache are memory an idle server does not need), and holds the process open only while
// a scan is under way (a CLI command can exit). If it cannot start or stops unexpectedly, the scans
// it held and every later one run on the serving thread, as before (logged once): slower for
// others meanwhile, never wrong.
import { Unavailable } from "../errors";
import { log } from "../log";
import { workerUrl } from "../worker-url";
import { type SqlParam } from "./queries";
import { type ReaderAnswer, type ReaderRequest } from "./reader-worker";

export const READER_IDLE_MS = 30_000;

/** One statement, or several read in one snapshot, and what its caller awaits. */
interface Scan {
  statements: Statement[];
  /** The batch's form of the answer (a list of row lists) or the single statement's (its rows). */
  batch: boolean;
  resolve(rows: unknown): void;
  reject(error: unknown): void;
}

export interface Statement {
  sql: string;
  params: SqlParam[];
}

/** Bun's Worker: ref() and unref() as a timer's. */
type BunWorker = Worker & { ref(): void; unref(): void };

interface Running {
  worker: BunWorker;
  scans: Map<number, Scan>;
  idleTimer: ReturnType<typeof setTimeout> | null;
}

export interface ReaderOptions {
  idleMs?: number;
  /** The worker's entry; tests pass one that fails. */
  workerUrl?: string;
}

export class SqliteReader {
  private running: Running | null = null;
  /** Set when the thread failed: from then on every scan runs on the serving thread. */
  private broken = false;
  private closed = false;
  private nextId = 0;
  /** Scans the thread has answered (tests and benches tell the two paths apart by it). */
  answered = 0;

  /** Whether the thread is running (tests). */
  get live(): boolean {
    return this.running !== null;
  }

  constructor(
    private readonly path: string,
    /**
     * The same statements on the serving connection, one after another in one task (no other
     * request's commit comes between them): the fallback.
     */
    private readonly inThread: (statements: readonly Statement[]) => Promise<unknown[][]>,
    private readonly options: ReaderOptions = {},
  ) {}

  scan<T>(sql: string, params: readonly SqlParam[]): Promise<T[]> {
    return this.send([{ sql, params: [...params] }], false) as Promise<T[]>;
  }

  /** Each statement's rows, all read in one snapshot (one read transaction on the thread's connection). */
  scanTogether(statements: readonly Statement[]): Promise<unknown[][]> {
    return this.send(
      statements.map(({ sql, params }) => ({ sql, params: [...params] })),
      true,
    ) as Promise<unknown[][]>;
  }

  private send(statements: Statement[], batch: boolean): Promise<unknown> {
    const running = this.broken || this.closed || this.path === ":memory:" ? null : this.start();
    if (running === null) return this.here(statements, batch);
    if (running.idleTimer) {
      clearTimeout(running.idleTimer);
      running.idleTimer = null;
    }
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      running.scans.set(id, { statements, batch, resolve, reject });
      if (running.scans.size === 1) running.worker.ref();
      running.worker.postMessage({ type: "scan", id, statements } satisfies ReaderRequest);
    });
  }

  private async here(statements: Statement[], batch: boolean): Promise<unknown> {
    const rows = await this.inThread(statements);
    return batch ? rows : rows[0];
  }

  /**
   * Stops the thread. Scans it still held fail (the connection they would fall back on is closing):
   * a server closes its database once its requests have ended, so only a request still running past
   * the shutdown's grace period meets this.
   */
  close(): void {
    this.closed = true;
    if (this.running) this.lose(this.running, null);
  }

  /** The running thread, started if need be; null when it cannot start (logged, and scans run here from then on). */
  private start(): Running | null {
    if (this.running) return this.running;
    let worker: BunWorker;
    try {
      worker = new Worker(this.options.workerUrl ?? workerUrl("db/reader-worker.ts")) as BunWorker;
    } catch (error) {
      this.fail(((error as Error)?.message ?? String(error)).split("\n")[0]!.slice(0, 200));
      return null;
    }
    const running: Running = { worker, scans: new Map(), idleTimer: null };
    worker.addEventListener("message", ({ data }: MessageEvent<ReaderAnswer>) => {
      if (this.running !== running) return;
      if (data.type === "failed") {
        this.lose(running, `its connection could not be opened: ${data.message}`);
        return;
      }
      if (data.type !== "rows" && data.type !== "error") return;
      const scan = running.scans.get(data.id);
      if (!scan) return;
      running.scans.delete(data.id);
      this.answered++;
      if (data.type === "rows") scan.resolve(scan.batch ? data.rows : data.rows[0]);
      else scan.reject(Object.assign(new Error(data.message), { name: "SQLiteError", code: data.code }));
      if (running.scans.size === 0) this.idle(running);
    });
    // The error's first line: an uncaught error's message can carry the worker's (minified) source.
    worker.addEventListener("error", (event) =>
      this.lose(running, ((event as ErrorEvent).message || "error").split("\n")[0]!.slice(0, 200)),
    );
    worker.addEventListener("close", () => this.lose(running, "exited"));
    worker.postMessage({ type: "open", path: this.path } satisfies ReaderRequest);
    this.running = running;
    return running;
  }

  private fail(why: string): void {
    this.broken = true;
    log.warn("the reader thread stopped: long reads run on the serving thread", { reason: why });
  }

  /** No scan in flight: the thread no longer holds the process open, and stops after idleMs. */
  private idle(running: Running): void {
    running.worker.unref();
    running.idleTimer = setTimeout(() => {
      if (this.running !== running || running.scans.size > 0) return;
      this.running = null;
      running.worker.terminate();
    }, this.options.idleMs ?? READER_IDLE_MS);
    running.idleTimer.unref();
  }

  /**
   * The thread is gone (`why`, or null for a close): after a failure (logged) its scans and every
   * later one run here; after a close its scans fail.
   */
  private lose(running: Running, why: string | null): void {
    if (this.running !== running) return;
    this.running = null;
    if (running.idleTimer) clearTimeout(running.idleTimer);
    running.worker.terminate();
    if (why !== null) this.fail(why);
    for (const scan of running.scans.values()) {
      if (why === null)
        scan.reject(new Unavailable("The server is stopping: this read was not finished. Try again once it is back.", "stopping"));
      else this.here(scan.statements, scan.batch).then(scan.resolve, scan.reject);
    }
    running.scans.clear();
  }
}
