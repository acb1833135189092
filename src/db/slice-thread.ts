// Bulk jobs on a thread of their own (a large brand's re-analysis, the per-prompt windows' rebuild):
// a worker with its own connection to the SQLite file runs the job's slices, each transaction taken
// through the serving connection's write gate (write-gate.ts), so that the serving thread's writes go
// between them without blocking it. The job's reads of cold pages, its work and its commits no longer
// hold the event loop that answers requests, nor do the waits of its reads behind the checkpointer's
// syncs of the file (measured: the windows' rebuild at 2.16 million answers, on the serving thread,
// had slices of 20–30 ms every 200 ms, at each checkpoint, while its pages were not in memory).
//
// runOnThread is the serving thread's side; serveJobs the worker's, called by its entry
// (tracking/bulk-worker.ts, which names the jobs).
import { log } from "../log";
import { runInBackground } from "../thread-priority";
import { workerUrl } from "../worker-url";
import { WAL_SIZE_LIMIT_BYTES } from "./checkpointer";
import { type Db, openDatabase, type SqliteDb } from "./client";
import { WriteGate } from "./write-gate";

/** What a job is told by whoever runs it: when to end early, and the gate around each transaction. */
export interface SliceControl {
  /** Checked between slices: true ends the job where it stands. */
  stop(): boolean;
  /** On a worker thread: taken for each transaction and given back after it. */
  gate?: { take(): void; give(): void };
}

/** Runs `fn` inside the control's gate, if any (a job's transaction). */
export async function inGate<T>(control: SliceControl, fn: () => Promise<T>): Promise<T> {
  control.gate?.take();
  try {
    return await fn();
  } finally {
    control.gate?.give();
  }
}

/** What the serving thread sends the worker: the connection's part, and the job. */
interface ThreadStart<J> {
  type: "start";
  path: string;
  /** The serving connection's write gate. */
  gate: SharedArrayBuffer;
  /** Two Int32: [0] set to 1 by the serving thread, the job ends after its slice; [1] 1 while the worker holds the gate. */
  flags: SharedArrayBuffer;
  walSizeLimit: number;
  job: J;
}

/** What the worker answers: "started" once its connection is open, then the end, after closing it. */
type ThreadReport<R> = { type: "started" } | { type: "done"; result: R } | { type: "failed"; message: string };

/**
 * How a job on a thread ended: its result; "not started" (the thread could not begin: logged, and
 * the caller runs the job on the serving thread); or "ended" (end() was called, and the thread went
 * before it answered).
 */
export type ThreadOutcome<R> = { result: R } | "not started" | "ended";

export interface SliceThread<R> {
  /** Rejects when the job fails once started (the database, not the thread), as it would on the serving thread. */
  outcome: Promise<ThreadOutcome<R>>;
  /**
   * The job ends after its slice. With `stopping` (the process stops), a thread still busy after
   * STOP_WAIT_MS (its BEGIN waiting on another process's lock) is ended, and the gate given back.
   */
  end(stopping: boolean): void;
}

export interface ThreadOptions {
  /** Said when the thread cannot begin (what runs instead): "the X worker did not start: …". */
  notStarted: string;
  /** The log's fields beside the message. */
  fields?: Record<string, unknown>;
  /** The worker's entry; tests pass one that fails. */
  workerUrl?: string;
}

/** Whether a job on `db` can run on a thread: an SQLite file, which a worker's own connection can open. */
export function onFile(db: Db): db is SqliteDb {
  return db.dialect === "sqlite" && db.path !== ":memory:";
}

/** How long a stop waits for a worker to end its slice and close its connection before it is terminated. */
const STOP_WAIT_MS = 5_000;

/**
 * Starts `job` on a worker thread with its own connection to the file: the serving thread only waits
 * for the outcome. `name` says which in errors ("the re-analysis worker stopped: …").
 */
export function runOnThread<J, R>(db: SqliteDb, name: string, job: J, options: ThreadOptions): SliceThread<R> {
  // [0]: set to 1, the job ends after its slice; [1]: 1 while the worker holds the write gate.
  const flags = new Int32Array(new SharedArrayBuffer(8));
  let ended = false;
  let settled = false;
  let forced: ReturnType<typeof setTimeout> | undefined;
  let worker: Worker | null = null;
  let settle: (outcome: ThreadOutcome<R> | Error) => void = () => undefined;
  /** A worker ended while it held the write gate never gives it back: the serving thread's writes would wait for ever. */
  const giveBack = () => {
    if (Atomics.exchange(flags, 1, 0) === 1) db.writeGate.give();
  };
  const outcome = new Promise<ThreadOutcome<R>>((resolve, reject) => {
    settle = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(forced);
      if (result instanceof Error) reject(result);
      else resolve(result);
    };
    // A file deleted or replaced under the serving connection: a new connection by path would pair
    // another file with its WAL (file-identity.ts); the job runs on the serving thread instead.
    if (!db.atItsPath()) {
      log.warn(options.notStarted, { ...options.fields, message: "the database file is no longer at its path" });
      settle("not started");
      return;
    }
    try {
      worker = new Worker(options.workerUrl ?? workerUrl("tracking/bulk-worker.ts"));
    } catch (error) {
      log.warn(options.notStarted, { ...options.fields, message: (error as Error).message });
      settle("not started");
      return;
    }
    const thread = worker;
    let started = false;
    /** The worker is gone: before it began, the job runs on the serving thread; after, it ended there. */
    const gone = (message: string) => {
      // Its "error" is followed by its "close": said once.
      if (settled) return;
      giveBack();
      if (ended) return settle("ended");
      if (started) return settle(new Error(`the ${name} worker stopped: ${message}`));
      log.warn(options.notStarted, { ...options.fields, message });
      settle("not started");
    };
    thread.addEventListener("message", ({ data }: MessageEvent<ThreadReport<R>>) => {
      if (data.type === "started") {
        started = true;
        return;
      }
      // Its connection is closed by now: the thread has nothing left to do.
      thread.terminate();
      if (data.type === "done") settle({ result: data.result });
      else gone(data.message);
    });
    thread.addEventListener("error", (event) => {
      thread.terminate();
      gone((event as ErrorEvent).message ?? "error");
    });
    thread.addEventListener("close", () => gone("it exited"));
    const start: ThreadStart<J> = {
      type: "start",
      path: db.path,
      gate: db.writeGate.buffer,
      flags: flags.buffer as SharedArrayBuffer,
      walSizeLimit: WAL_SIZE_LIMIT_BYTES,
      job,
    };
    thread.postMessage(start);
  });
  return {
    outcome,
    end(stopping) {
      ended = true;
      Atomics.store(flags, 0, 1);
      if (!stopping || settled || forced !== undefined || worker === null) return;
      const thread = worker;
      forced = setTimeout(() => {
        thread.terminate();
        giveBack();
        settle("ended");
      }, STOP_WAIT_MS);
      forced.unref?.();
    },
  };
}

declare const self: Worker;

/** Slices between two checkpoints of this connection (each slice a few milliseconds). */
const CHECKPOINT_EVERY = 25;

/**
 * The worker's side: on "start", opens its own connection to the file and runs `run` with it, then
 * closes it and answers. The serving thread's checkpointer is not this connection's: it copies the
 * WAL itself between slices, where no lock is held that the serving thread would wait for.
 */
export function serveJobs<J, R>(run: (db: SqliteDb, control: SliceControl, job: J) => Promise<R>): void {
  self.onmessage = async ({ data }: MessageEvent<ThreadStart<J>>) => {
    if (data.type !== "start") return;
    runInBackground();
    let report: ThreadReport<R>;
    let db: SqliteDb | null = null;
    try {
      db = openDatabase(data.path, { create: false, migrate: false });
      const connection = db;
      // Automatic checkpoints would run inside a commit, that is while the serving thread waits at the
      // gate; they run between slices instead, where nothing waits for them.
      connection.sqlite.exec("PRAGMA wal_autocheckpoint = 0");
      connection.sqlite.exec(`PRAGMA journal_size_limit = ${data.walSizeLimit}`);
      const checkpoint = connection.sqlite.prepare("PRAGMA wal_checkpoint(PASSIVE)");
      let slices = 0;
      connection.betweenSlices = async () => {
        await new Promise((resolve) => setImmediate(resolve));
        if (++slices % CHECKPOINT_EVERY === 0) checkpoint.get();
      };
      const flags = new Int32Array(data.flags);
      const gate = new WriteGate(data.gate);
      postMessage({ type: "started" } satisfies ThreadReport<R>);
      const result = await run(
        connection,
        {
          stop: () => Atomics.load(flags, 0) === 1,
          // Held or not is told to the serving thread, which gives the gate back if it has to end this thread.
          gate: {
            take() {
              gate.take();
              Atomics.store(flags, 1, 1);
            },
            give() {
              if (Atomics.exchange(flags, 1, 0) === 1) gate.give();
            },
          },
        },
        data.job,
      );
      checkpoint.get();
      checkpoint.finalize();
      report = { type: "done", result };
    } catch (error) {
      report = { type: "failed", message: (error as Error)?.message ?? String(error) };
    }
    try {
      // Closed here, before the answer: once the serving thread has it, this thread holds nothing of the file.
      db?.close({ optimize: false });
    } catch {
      // Nothing is left to write; the serving thread is told either way.
    }
    postMessage(report);
  };
}
