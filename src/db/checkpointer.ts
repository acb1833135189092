// Checkpoints off the serving thread. SQLite's automatic checkpoint runs inside a commit once the WAL
// passes 1,000 pages: copying them into the database file and fsyncing it held the event loop for
// 20–40 ms at a time during a re-analysis of 200,000 answers (measured: /healthz p99 33 ms; with
// automatic checkpoints off, 10 ms, and the pass 30% shorter). While `serve` runs, the serving
// connection's automatic checkpoints are off and a worker thread with its own connection checkpoints
// every `intervalMs`; if that worker fails, automatic checkpoints come back on (logged), so the WAL
// never grows without bound. Writers that never pause (re-analysis and demo slices, a tracking run's
// answers) await db.walPressure past a limit, so that the WAL can start over.
import { log } from "../log";
import { workerUrl } from "../worker-url";
import { type SqliteDb } from "./client";

/** SQLite's default automatic checkpoint threshold, in pages. */
const AUTO_CHECKPOINT_PAGES = 1000;
/** A WAL left larger than this by a burst of writes is truncated to it when it restarts. */
export const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
/**
 * Past this many frames (~64 MB of 4 KiB pages), bulk jobs wait between slices until the checkpointer
 * has caught up: a WAL is only started over by a write that begins once every frame is in the file,
 * which a job writing without pause never lets happen (a re-analysis of 200,000 answers grew it to
 * 2.4 GB).
 */
const WAL_PRESSURE_FRAMES = 16_000;
const PRESSURE_WAIT_MS = 2_000;

export interface CheckpointStats {
  /** Frames in the WAL, and how many of them are in the database file, at the worker's last checkpoint. */
  log: number;
  checkpointed: number;
  reports: number;
}

export interface Checkpointer {
  stats(): CheckpointStats;
  stop(): void;
}

export interface CheckpointerOptions {
  intervalMs?: number;
  /** Frames past which bulk jobs wait for the checkpointer (tests make it small). */
  pressureFrames?: number;
  /** The worker's entry; tests pass one that fails. */
  workerUrl?: string;
}

export function startCheckpointer(db: SqliteDb, options: CheckpointerOptions = {}): Checkpointer | null {
  if (db.path === ":memory:") return null;
  const stats: CheckpointStats = { log: 0, checkpointed: 0, reports: 0 };
  let stopped = false;
  const worker = new Worker(options.workerUrl ?? workerUrl("db/checkpoint-worker.ts"));
  const fallBack = (why: string) => {
    if (stopped) return;
    stopped = true;
    db.walPressure = null;
    db.storage.checkpointFailing = false;
    release();
    db.sqlite.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    log.warn("the WAL checkpointer stopped: checkpoints run in commits again", { reason: why });
  };
  let caughtUp: Array<() => void> = [];
  const release = () => {
    const waiting = caughtUp;
    caughtUp = [];
    for (const resolve of waiting) resolve();
  };
  worker.addEventListener(
    "message",
    ({ data }: MessageEvent<{ type: string; asked: boolean; log: number; checkpointed: number; message?: string }>) => {
      // A failed checkpoint (a full disk) is tried again at the worker's next tick; said once, and its end.
      // Meanwhile /healthz says the storage refuses writes (storage-health.ts).
      if (data.type === "failed") {
        db.storage.checkpointFailing = true;
        log.error("a WAL checkpoint failed; the checkpointer tries again", { message: data.message });
        return;
      }
      if (data.type === "recovered") {
        db.storage.checkpointFailing = false;
        log.info("WAL checkpoints work again", { after: data.message });
        return;
      }
      // A checkpoint asked for failed: the jobs waiting for it go on (the figures stay as they were).
      if (data.type === "unanswered") {
        release();
        return;
      }
      if (data.type !== "checkpoint") return;
      stats.log = data.log;
      stats.checkpointed = data.checkpointed;
      stats.reports++;
      // Only the answer to the jobs' request releases them: a periodic report that happened to find
      // everything checkpointed would let a job write while the worker, asked, starts the WAL over
      // (its BEGIN would then wait on the serving thread for the worker's lock).
      // A checkpoint that met another under way reports -1 for both: nothing was copied.
      if (data.asked && data.log >= 0 && data.checkpointed >= data.log) release();
    },
  );
  // Past the limit, a bulk job asks for a checkpoint and waits for it (PRESSURE_WAIT_MS at most: a
  // long reader in another process, such as a backup, may hold frames back): with no write since,
  // the job's next write starts the WAL over.
  db.walPressure = () => {
    if (stats.log < (options.pressureFrames ?? WAL_PRESSURE_FRAMES)) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, PRESSURE_WAIT_MS);
      caughtUp.push(() => {
        clearTimeout(timer);
        resolve();
      });
      worker.postMessage({ type: "now" });
    });
  };
  // The error's first line: an uncaught error's message can carry the worker's (minified) source.
  worker.addEventListener("error", (event) => fallBack(((event as ErrorEvent).message ?? "error").split("\n")[0]!.slice(0, 200)));
  worker.addEventListener("close", () => fallBack("exited"));
  db.sqlite.exec("PRAGMA wal_autocheckpoint = 0");
  db.sqlite.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
  worker.postMessage({ type: "start", path: db.path, intervalMs: options.intervalMs ?? 200, walSizeLimit: WAL_SIZE_LIMIT_BYTES });
  return {
    stats: () => ({ ...stats }),
    stop() {
      if (stopped) return;
      stopped = true;
      db.walPressure = null;
      release();
      worker.terminate();
      db.sqlite.exec(`PRAGMA wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
    },
  };
}
