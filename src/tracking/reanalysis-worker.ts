// A large brand's re-analysis pass on its own thread (see reanalysis.ts): its own connection to the
// database file, the same slices as on the serving thread, each transaction taken through the
// serving connection's write gate (db/write-gate.ts) so that the serving thread's writes go between
// them without blocking it. Its reads of cold pages, its analysis and its commits no longer hold the
// event loop that answers requests. The serving thread's checkpointer is not this connection's: it
// copies the WAL itself between slices, where no lock is held that the serving thread would wait for.
import { setPriority } from "node:os";
import { openDatabase, type SqliteDb } from "../db/client";
import { WriteGate } from "../db/write-gate";
import { AnswerWriter } from "./answer-writer";
import { reanalyzeAnswers, type WorkerReport, type WorkerStart } from "./reanalysis";
import { loadRoster } from "./roster";

declare const self: Worker;

/**
 * This thread's nice value (Linux applies it to the calling thread only): when the machine's cores are
 * all busy, the serving thread, at 0, is scheduled first; the pass takes what is left.
 */
const NICE = 10;
/** Slices between two checkpoints of this connection (each slice a few milliseconds). */
const CHECKPOINT_EVERY = 25;

self.onmessage = async ({ data }: MessageEvent<WorkerStart>) => {
  if (data.type !== "start") return;
  try {
    setPriority(NICE);
  } catch {
    // Not allowed here (some containers): the pass runs at the serving thread's priority.
  }
  let report: WorkerReport;
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
    const roster = await loadRoster(connection, data.brandId);
    postMessage({ type: "started" } satisfies WorkerReport);
    const result = await reanalyzeAnswers(connection, new AnswerWriter(), data.brandId, roster, {
      stop: () => Atomics.load(flags, 0) === 1,
      version: data.version,
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
    });
    checkpoint.get();
    checkpoint.finalize();
    report = { type: "done", total: result.total, finished: result.finished, superseded: result.superseded };
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
