// While `serve` runs, WAL checkpoints happen on a worker thread's own connection (src/db/checkpointer.ts),
// not inside the serving thread's commits: the serving connection's automatic checkpoints are off, the
// worker copies committed frames into the database file, a bulk job that lets the WAL grow past the
// limit waits between slices until it has (so the WAL starts over instead of growing; the worker
// starts it over itself, so the job's next commit does not pay for the new WAL's header), and a failed
// worker turns automatic checkpoints back on, saying so.
import { afterEach, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Checkpointer, startCheckpointer } from "../../src/db/checkpointer";
import { openDatabase, type SqliteDb } from "../../src/db/client";
import { captureLog } from "../support/log";
import { scratchDir } from "../support/scratch";

let db: SqliteDb;
let checkpointer: Checkpointer | null = null;

afterEach(() => {
  checkpointer?.stop();
  checkpointer = null;
  db?.close();
});

const autoCheckpoint = () => (db.sqlite.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;

/** Transactions of a few pages each on the serving connection. */
function write(transactions: number): void {
  db.sqlite.exec("CREATE TABLE IF NOT EXISTS filler (x BLOB)");
  const insert = db.sqlite.prepare("INSERT INTO filler VALUES (randomblob(6000))");
  for (let i = 0; i < transactions; i++) db.sqlite.transaction(() => insert.run()).immediate();
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await Bun.sleep(25);
  if (!check()) throw new Error(`timed out waiting until ${what}`);
}

function open(): SqliteDb {
  db = openDatabase(join(scratchDir("spyglass-checkpoint-"), "spyglass.db"));
  return db;
}

test("the worker checkpoints what the serving connection commits, which no longer checkpoints itself", async () => {
  open();
  expect(autoCheckpoint()).toBe(1000);
  checkpointer = startCheckpointer(db, { intervalMs: 20 });
  expect(autoCheckpoint()).toBe(0);
  write(300);
  await until(
    () => checkpointer!.stats().log >= 300 && checkpointer!.stats().checkpointed === checkpointer!.stats().log,
    "all is checkpointed",
  );
  checkpointer!.stop();
  checkpointer = null;
  expect(autoCheckpoint()).toBe(1000);
});

/** A WAL past the limit of 100 frames, more of it than the worker has checkpointed, then a job's wait. */
async function waitPastTheLimit(): Promise<void> {
  open();
  checkpointer = startCheckpointer(db, { intervalMs: 500, pressureFrames: 100 });
  write(400);
  await until(() => checkpointer!.stats().log >= 400, "the worker has seen the WAL");
  // More frames than the worker has checkpointed (its next run is up to half a second away).
  write(200);
  await db.betweenSlices();
}

test("a bulk job past the limit waits for the checkpointer between slices, and the WAL then starts over", async () => {
  await waitPastTheLimit();
  // Everything was in the file when the job went on: its next write begins a new WAL.
  write(1);
  await until(() => checkpointer!.stats().log < 100, "the WAL started over");
  expect(checkpointer!.stats().checkpointed).toBe(checkpointer!.stats().log);
});

test("the WAL is started over on the worker while the job waits, so the job's next commit does not pay for it", async () => {
  await waitPastTheLimit();
  // Before the job writes again, the WAL holds only the worker's own frame: it was begun anew there.
  const wal = db.sqlite.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number };
  expect(wal.log).toBe(1);
});

test("below the limit, a bulk job does not wait", async () => {
  open();
  checkpointer = startCheckpointer(db, { intervalMs: 60_000, pressureFrames: 100 });
  write(10);
  // The worker has not reported yet (its first checkpoint is a minute away): nothing to wait for.
  await db.betweenSlices();
  expect(checkpointer!.stats().reports).toBe(0);
});

test("a checkpointer whose worker fails turns automatic checkpoints back on and says so", async () => {
  open();
  const broken = join(scratchDir("spyglass-checkpoint-worker-"), "broken-worker.ts");
  writeFileSync(broken, 'throw new Error("the checkpoint worker could not start");\n');
  const logged = await captureLog(async () => {
    checkpointer = startCheckpointer(db, { workerUrl: broken, intervalMs: 20 });
    await until(() => autoCheckpoint() === 1000, "automatic checkpoints are back");
  });
  expect(logged).toContain("the WAL checkpointer stopped: checkpoints run in commits again");
  // A bulk job never waits for a checkpointer that is gone.
  await db.betweenSlices();
});

/**
 * The real worker, its checkpoint statement's get() replaced: `body` runs with the original `get` and
 * the call's `args`, after `prelude` at the module's top. The worker's module sets its onmessage when
 * loaded (a static import: loaded with this file, before any message); its statement is prepared at
 * "start", after the patch.
 */
function patchedWorker(prelude: string, body: string): string {
  const file = join(scratchDir("spyglass-checkpoint-worker-"), "patched-worker.ts");
  writeFileSync(
    file,
    `import { Database } from "bun:sqlite";
import ${JSON.stringify(join(import.meta.dir, "../../src/db/checkpoint-worker.ts"))};
${prelude}
const prepare = Database.prototype.prepare;
Database.prototype.prepare = function (sql, ...rest) {
  const statement = prepare.call(this, sql, ...rest);
  if (!String(sql).includes("wal_checkpoint")) return statement;
  const get = statement.get.bind(statement);
  statement.get = (...args) => {
    ${body}
  };
  return statement;
};
`,
  );
  return file;
}

test("a checkpoint that fails (a full disk) is tried again, and checkpoints go on once it works: the worker stays", async () => {
  open();
  // The real worker, whose checkpoint statement fails three times (as SQLITE_FULL does while the disk is full).
  const flaky = patchedWorker(
    "let failures = 3;",
    `if (failures-- > 0) throw new Error("database or disk is full");
    return get(...args);`,
  );
  // What /healthz reads meanwhile (storage-health.ts): failing, then not.
  const health: boolean[] = [];
  Object.defineProperty(db.storage, "checkpointFailing", {
    get: () => health.at(-1) ?? false,
    set: (failing: boolean) => void health.push(failing),
  });
  const logged = await captureLog(async () => {
    checkpointer = startCheckpointer(db, { workerUrl: flaky, intervalMs: 20 });
    write(50);
    await until(
      () => checkpointer!.stats().log >= 50 && checkpointer!.stats().checkpointed === checkpointer!.stats().log,
      "all is checkpointed",
    );
  });
  expect(logged.match(/a WAL checkpoint failed; the checkpointer tries again/g)).toHaveLength(1);
  expect(logged).toContain("database or disk is full");
  expect(logged).toContain("WAL checkpoints work again");
  expect(logged).not.toContain("the WAL checkpointer stopped");
  expect(autoCheckpoint()).toBe(0);
  expect(health).toEqual([true, false]);
});

test("an idle database is not checkpointed at every tick: the worker checkpoints again once another connection has written", async () => {
  open();
  // The real worker, its checkpoints counted in a file.
  const counter = join(scratchDir("spyglass-checkpoint-count-"), "checkpoints");
  const counting = patchedWorker(
    'import { writeFileSync } from "node:fs";\nlet checkpoints = 0;',
    `const result = get(...args);
    writeFileSync(${JSON.stringify(counter)}, String(++checkpoints));
    return result;`,
  );
  const checkpoints = () => (existsSync(counter) ? Number(readFileSync(counter, "utf8")) : 0);
  checkpointer = startCheckpointer(db, { workerUrl: counting, intervalMs: 20 });
  write(10);
  await until(
    () => checkpointer!.stats().log >= 10 && checkpointer!.stats().checkpointed === checkpointer!.stats().log,
    "all is checkpointed",
  );
  const settled = checkpoints();
  // ~15 ticks with nothing written.
  await Bun.sleep(300);
  expect(checkpoints() - settled).toBeLessThanOrEqual(1);
  const idle = checkpoints();
  write(5);
  await until(
    () => checkpoints() > idle && checkpointer!.stats().checkpointed === checkpointer!.stats().log,
    "the new frames are checkpointed",
  );
});

test("a checkpoint that meets another under way (busy) copied nothing: the next ticks checkpoint again", async () => {
  open();
  // PASSIVE's answer while another connection checkpoints (a bulk job's worker, another process): -1 for both.
  const busy = patchedWorker("let busy = 2;", "return busy-- > 0 ? { busy: 1, log: -1, checkpointed: -1 } : get(...args);");
  checkpointer = startCheckpointer(db, { workerUrl: busy, intervalMs: 20 });
  write(10);
  await until(
    () => checkpointer!.stats().log >= 10 && checkpointer!.stats().checkpointed === checkpointer!.stats().log,
    "all is checkpointed",
  );
});

test("an in-memory database has no WAL and no checkpointer", () => {
  db = openDatabase(":memory:");
  expect(startCheckpointer(db)).toBeNull();
});
