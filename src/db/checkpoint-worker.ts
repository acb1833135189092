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
}

let run: ((always: boolean) => void) | null = null;

self.onmessage = ({ data }: MessageEvent<Start | { type: "now" }>) => {
  if (data.type === "now") {
    run?.(true);
    return;
  }
  if (data.type !== "start") return;
  const db = new Database(data.path);
  db.exec("PRAGMA busy_timeout = 0");
  const checkpoint = db.prepare<{ busy: number; log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)");
  let last = "";
  run = (always) => {
    const result = checkpoint.get();
    if (!result) return;
    const now = `${result.log}:${result.checkpointed}`;
    // Only changes are reported unless asked: an idle database costs the serving thread nothing.
    if (always || now !== last) postMessage({ type: "checkpoint", ...result });
    last = now;
  };
  setInterval(() => run?.(false), data.intervalMs);
};
