// The write gate between the serving thread and a worker thread writing to the same SQLite file
// (src/db/write-gate.ts): a serving-thread write that meets a worker's transaction waits for it
// without stopping the event loop, and a worker gives way to a serving-thread write under way.
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, type SqliteDb } from "../../src/db/client";
import { scratchDir } from "../support/scratch";

const GATE = join(import.meta.dir, "../../src/db/write-gate.ts");

/**
 * A worker that takes the gate and writes in a transaction on its own connection, saying when. With
 * `hold` it keeps the transaction open, saying "holding", until it is sent "commit".
 */
function writerWorker(dir: string): string {
  const file = join(dir, "writer.ts");
  writeFileSync(
    file,
    `import { Database } from "bun:sqlite";
import { WriteGate } from ${JSON.stringify(GATE)};
let gate;
let db;
const commit = () => {
  db.exec("COMMIT");
  gate.give();
  db.close();
  postMessage({ type: "done" });
};
self.onmessage = ({ data }) => {
  if (data.type === "commit") return commit();
  gate = new WriteGate(data.gate);
  db = new Database(data.path);
  db.exec("PRAGMA busy_timeout = 5000");
  gate.take();
  postMessage({ type: "took", at: performance.timeOrigin + performance.now() });
  db.exec("BEGIN IMMEDIATE");
  db.run("INSERT INTO log (who) VALUES ('worker')");
  if (data.hold) postMessage({ type: "holding" });
  else commit();
};
`,
  );
  return file;
}

let db: SqliteDb;
afterEach(() => db?.close());

function message(worker: Worker, type: string): Promise<{ at?: number }> {
  return new Promise((resolve) => {
    const listen = ({ data }: MessageEvent<{ type: string; at?: number }>) => {
      if (data.type !== type) return;
      worker.removeEventListener("message", listen);
      resolve(data);
    };
    worker.addEventListener("message", listen);
  });
}

test("a write that meets a worker's transaction waits for it without stopping the event loop", async () => {
  const dir = scratchDir("spyglass-gate-");
  db = openDatabase(join(dir, "spyglass.db"));
  db.sqlite.exec("CREATE TABLE log (n INTEGER PRIMARY KEY, who TEXT)");
  const worker = new Worker(writerWorker(dir));
  try {
    const holding = message(worker, "holding");
    worker.postMessage({ gate: db.writeGate.buffer, path: db.path, hold: true });
    await holding;
    // The worker holds SQLite's write lock until this thread tells it to commit. This thread's write
    // waits for it while a timer still fires and the message goes out: a write blocked in SQLite's
    // busy wait would hold the thread, the worker would never be told, and the write would fail
    // with SQLITE_BUSY once the busy timeout ran out.
    const events: string[] = [];
    const write = db
      .transaction(async (tx) => {
        await tx.run("INSERT INTO log (who) VALUES ('serving')");
      })
      .then(() => events.push("the write committed"));
    await new Promise((resolve) => setTimeout(resolve, 0));
    events.push("a timer fired");
    const done = message(worker, "done");
    worker.postMessage({ type: "commit" });
    await Promise.all([write, done]);
    expect(events).toEqual(["a timer fired", "the write committed"]);
    expect(db.sqlite.query("SELECT who FROM log ORDER BY n").all()).toEqual([{ who: "worker" }, { who: "serving" }]);
  } finally {
    worker.terminate();
  }
});

test("a worker gives way to a write of the serving thread under way, and takes its turn after it", async () => {
  const dir = scratchDir("spyglass-gate-");
  db = openDatabase(join(dir, "spyglass.db"));
  db.sqlite.exec("CREATE TABLE log (n INTEGER PRIMARY KEY, who TEXT)");
  const worker = new Worker(writerWorker(dir));
  try {
    let took: number | undefined;
    const done = message(worker, "done");
    worker.addEventListener("message", ({ data }) => {
      if (data.type === "took") took = data.at;
    });
    let committed = 0;
    await db.transaction(async (tx) => {
      await tx.run("INSERT INTO log (who) VALUES ('serving')");
      // The worker starts while this transaction is open: it must wait at the gate, not in SQLite.
      worker.postMessage({ gate: db.writeGate.buffer, path: db.path, hold: false });
      await Bun.sleep(300);
      expect(took).toBeUndefined();
      committed = performance.timeOrigin + performance.now();
    });
    await done;
    expect(took).toBeGreaterThanOrEqual(committed);
    expect(db.sqlite.query("SELECT who FROM log ORDER BY n").all()).toEqual([{ who: "serving" }, { who: "worker" }]);
  } finally {
    worker.terminate();
  }
});
