// A bulk job's worker thread (src/db/slice-thread.ts) that ends while it holds the serving
// connection's write gate: the serving thread takes the gate back, so that its writes do not wait
// for a thread that is gone. (The jobs themselves: test/tracking/reanalysis-worker.test.ts,
// test/analytics/prompt-windows.test.ts.)
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, type SqliteDb } from "../../src/db/client";
import { runOnThread } from "../../src/db/slice-thread";
import { scratchDir } from "../support/scratch";

let db: SqliteDb;
afterEach(() => db?.close());

test("a worker that dies holding the write gate leaves it free: the serving thread's next write does not wait", async () => {
  const dir = scratchDir("spyglass-slice-thread-");
  db = openDatabase(join(dir, "spyglass.db"));
  const dying = join(dir, "dying-worker.ts");
  writeFileSync(
    dying,
    `import { WriteGate } from ${JSON.stringify(join(import.meta.dir, "../../src/db/write-gate.ts"))};
self.onmessage = ({ data }) => {
  postMessage({ type: "started" });
  new WriteGate(data.gate).take();
  Atomics.store(new Int32Array(data.flags), 1, 1);
  throw new Error("the worker died in its transaction");
};
`,
  );
  const thread = runOnThread(db, "test", {}, { notStarted: "the test worker did not start", workerUrl: dying });
  await expect(thread.outcome).rejects.toThrow("the test worker stopped");
  expect(db.writeGate.enter()).toBeNull();
  db.writeGate.leave();
});
