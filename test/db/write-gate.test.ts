// The write gate between the serving thread and a worker thread writing to the same SQLite file
// (src/db/write-gate.ts): a serving-thread write that meets a worker's transaction waits for it
// without stopping the event loop, and a worker gives way to a serving-thread write under way.
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, type SqliteDb } from "../../src/db/client";
import { scratchDir } from "../support/scratch";

const GATE = join(import.meta.dir, "../../src/db/write-gate.ts");

/** A worker that takes the gate, writes in a transaction of `holdMs` on its own connection, and says when. */
function writerWorker(dir: string): string {
  const file = join(dir, "writer.ts");
  writeFileSync(
    file,
    `import { Database } from "bun:sqlite";
import { WriteGate } from ${JSON.stringify(GATE)};
self.onmessage = ({ data }) => {
  const gate = new WriteGate(data.gate);
  const db = new Database(data.path);
  db.exec("PRAGMA busy_timeout = 5000");
  gate.take();
  postMessage({ type: "took", at: performance.timeOrigin + performance.now() });
  db.exec("BEGIN IMMEDIATE");
  db.run("INSERT INTO log (who) VALUES ('worker')");
  Bun.sleepSync(data.holdMs);
  db.exec("COMMIT");
  gate.give();
  db.close();
  postMessage({ type: "done" });
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
    const took = message(worker, "took");
    worker.postMessage({ gate: db.writeGate.buffer, path: db.path, holdMs: 400 });
    await took;
    // The worker holds SQLite's write lock for 400 ms. This thread's write waits for it; meanwhile
    // timers keep firing, each on time (a write blocked in SQLite's busy wait would hold them all).
    const ticks: number[] = [];
    const timer = setInterval(() => ticks.push(performance.now()), 10);
    const started = performance.now();
    await db.transaction(async (tx) => {
      await tx.run("INSERT INTO log (who) VALUES ('serving')");
    });
    const waited = performance.now() - started;
    clearInterval(timer);
    expect(waited).toBeGreaterThan(200);
    expect(ticks.length).toBeGreaterThan(10);
    const gaps = ticks.slice(1).map((t, i) => t - ticks[i]!);
    expect(Math.max(...gaps)).toBeLessThan(200);
    expect(db.sqlite.query("SELECT who FROM log ORDER BY n").all()).toEqual([{ who: "worker" }, { who: "serving" }]);
    await message(worker, "done");
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
      worker.postMessage({ gate: db.writeGate.buffer, path: db.path, holdMs: 0 });
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
