// The WAL checkpointer's thread (see checkpointer.ts): its own connection to the database file copies
// committed pages from the WAL into the file, with their fsync, so that no commit on the serving thread
// pays for a checkpoint. PASSIVE never waits for a lock: a checkpoint that meets a reader or writer
// copies what it can and the next one continues.
import { Database } from "bun:sqlite";

declare const self: Worker;

interface Start {
  type: "start";
  path: string;
  intervalMs: number;
  /** The serving connection's journal_size_limit, which a WAL started over here is truncated to. */
  walSizeLimit: number;
}

let run: ((always: boolean) => void) | null = null;
// A checkpoint that fails (SQLITE_FULL while the disk is full, SQLITE_IOERR) is tried again at the
// next tick: thrown from the timer, it ended this thread, and the server checkpointed in its commits
// until a restart. The serving thread is told of a failure (once per message) and of the recovery.
let failing: string | null = null;

self.onmessage = ({ data }: MessageEvent<Start | { type: "now" }>) => {
  if (data.type === "now") {
    run?.(true);
    return;
  }
  if (data.type !== "start") return;
  const db = new Database(data.path);
  db.exec("PRAGMA busy_timeout = 0");
  db.exec(`PRAGMA journal_size_limit = ${data.walSizeLimit}`);
  const checkpoint = db.prepare<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)");
  // Changes when another connection (of any process) commits; this one's own writes leave it.
  const dataVersion = db.prepare<{ data_version: number }, []>("PRAGMA data_version");
  /**
   * data_version when a checkpoint last found every frame in the file: until another connection
   * commits, a tick has nothing to copy and skips the checkpoint (an idle server's checkpoints,
   * five a second, were 2 of its ~6 ms of CPU a second).
   */
  let settledAt: number | null = null;
  let last = "";
  run = (always) => {
    let version: number | null;
    let result: { busy: number; log: number; checkpointed: number } | null;
    try {
      version = dataVersion.get()?.data_version ?? null;
      if (!always && version !== null && version === settledAt) return;
      result = checkpoint.get();
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      if (message !== failing) postMessage({ type: "failed", message });
      failing = message;
      // A job that asked waits for an answer: it gets one, and its wait ends (the figures stay as they were).
      if (always) postMessage({ type: "unanswered" });
      return;
    }
    if (failing !== null) postMessage({ type: "recovered", message: failing });
    failing = null;
    if (!result) return;
    // data_version was read before the checkpoint: a commit after that read moves it, and the next tick
    // copies it. A checkpoint that met another one under way (busy: log and checkpointed are -1) copied nothing.
    const complete = result.busy === 0 && result.log >= 0 && result.checkpointed >= result.log;
    settledAt = complete ? version : null;
    // Asked (a bulk job waits) and every frame is in the file: the WAL is started over here, by a
    // write of our own, before the job is told. The first commit of a new WAL writes its header and
    // syncs it (and truncates the file to the limit); on the serving thread that commit took 13–20 ms
    // at every restart of a re-analysis, against ~5 for the others (measured: 200,000 answers).
    if (always && complete && result.log > 0) {
      startOver();
      // Its own frame, which data_version does not show: the next tick checkpoints it.
      settledAt = null;
    }
    const now = `${result.log}:${result.checkpointed}`;
    // Only changes are reported unless asked: an idle database costs the serving thread nothing.
    if (always || now !== last) postMessage({ type: "checkpoint", asked: always, ...result });
    last = now;
  };
  // A write that changes nothing (the header's user_version rewritten with its own value) starts the
  // WAL over: the first write after a complete checkpoint does, when no reader holds old frames.
  // Another connection's write in progress (the lock taken) means that one starts it over instead.
  const version = db.prepare<{ user_version: number }, []>("PRAGMA user_version");
  const startOver = () => {
    try {
      db.exec("BEGIN IMMEDIATE");
    } catch {
      return;
    }
    try {
      db.exec(`PRAGMA user_version = ${Number(version.get()?.user_version ?? 0)}`);
      db.exec("COMMIT");
    } catch {
      if (db.inTransaction) db.exec("ROLLBACK");
    }
  };
  setInterval(() => run?.(false), data.intervalMs);
};
