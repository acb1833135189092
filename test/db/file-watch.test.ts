// A database file deleted or replaced under an open connection (src/db/file-watch.ts): found by the
// watch, and the database the connection held written out where it can be opened again, whole and
// intact, without harming a file that took its place. The binary's side (serve's exit status, its
// log, spyglass track) is in test/e2e/hardening.test.ts and test/e2e/tracking.test.ts.
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, type SqliteDb } from "../../src/db/client";
import { type DatabaseFileWatch, watchDatabaseFile } from "../../src/db/file-watch";
import { runOnThread } from "../../src/db/slice-thread";
import { captureLog } from "../support/log";
import { scratchDir } from "../support/scratch";

let db: SqliteDb | null = null;
let watch: DatabaseFileWatch | null = null;
afterEach(() => {
  watch?.stop();
  watch = null;
  db?.close();
  db = null;
});

/** A database in `dir` with `rows` rows in a table of its own, watched every 20 ms; `found` gets the watch's sentence. */
function openWatched(dir: string, rows: number, elsewhere: string[] = []) {
  const path = join(dir, "spyglass.db");
  db = openDatabase(path);
  db.sqlite.exec("CREATE TABLE notes (n INTEGER)");
  addRows(rows);
  const found: string[] = [];
  watch = watchDatabaseFile(db, "the test goes on", (problem) => found.push(problem), { everyMs: 20, elsewhere });
  return { path, found };
}

function addRows(count: number): void {
  const insert = db!.sqlite.prepare("INSERT INTO notes VALUES (?)");
  for (let i = 0; i < count; i++) insert.run(i);
}

/** Opens `file` read-write, as the next start would: its rows and its integrity check. */
function reopen(file: string): { rows: number; integrity: string } {
  const opened = new Database(file);
  try {
    const rows = (opened.query("SELECT count(*) AS n FROM notes").get() as { n: number } | null)?.n ?? -1;
    const integrity = (opened.query("PRAGMA integrity_check").get() as { integrity_check: string }).integrity_check;
    return { rows, integrity };
  } finally {
    opened.close();
  }
}

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await Bun.sleep(10);
  expect(check()).toBe(true);
}

test("a file that stays where it was is left alone: no sentence, and keep writes nothing", async () => {
  const dir = scratchDir("spyglass-file-watch-");
  const { found } = openWatched(dir, 3);
  await Bun.sleep(100);
  expect(found).toEqual([]);
  expect(await watch!.keep()).toBe(true);
  expect(readdirSync(dir).filter((name) => name.includes(".kept-"))).toEqual([]);
});

test("the database file deleted (its WAL left beside it): found, and written back at the path with every row, intact", async () => {
  const dir = scratchDir("spyglass-file-watch-");
  const { path, found } = openWatched(dir, 50);
  expect(existsSync(`${path}-wal`)).toBe(true);
  rmSync(path);
  await until(() => found.length > 0);
  expect(found).toEqual([`the database file ${path} was deleted while Spyglass had it open`]);
  // Written after the deletion: in the copy too.
  addRows(25);
  const log = await captureLog(async () => {
    expect(await watch!.keep()).toBe(true);
  });
  expect(log).toContain(`is written back to ${path}`);
  db!.close();
  db = null;
  expect(reopen(path)).toEqual({ rows: 75, integrity: "ok" });
});

test("the database file replaced: the file moved in is opened intact and as it was, and the rows the connection held are kept beside it", async () => {
  const dir = scratchDir("spyglass-file-watch-");
  const { path, found } = openWatched(dir, 40);
  // A backup of 40 rows, moved over the file while the connection writes on.
  const restored = join(dir, "restored.db");
  db!.sqlite.query("VACUUM INTO ?").run(restored);
  addRows(200);
  renameSync(restored, path);
  await until(() => found.length > 0);
  expect(found).toEqual([`the database file ${path} was replaced by another file while Spyglass had it open`]);
  const before = readFileSync(path);
  expect(await watch!.keep()).toBe(true);
  db!.close();
  db = null;
  // The old WAL and shared memory are gone from the path: read with the moved-in file, they wrote
  // the old database's pages into it (its integrity check failed).
  expect(existsSync(`${path}-wal`)).toBe(false);
  expect(existsSync(`${path}-shm`)).toBe(false);
  expect(readFileSync(path).equals(before)).toBe(true);
  expect(reopen(path)).toEqual({ rows: 40, integrity: "ok" });
  const kept = readdirSync(dir).filter((name) => name.startsWith(`spyglass.db.kept-`));
  expect(kept).toHaveLength(1);
  expect(kept[0]).toEndWith(`-${process.pid}`);
  expect(reopen(join(dir, kept[0]!))).toEqual({ rows: 240, integrity: "ok" });
});

test("a data directory that cannot be made again (a dangling symlink) is kept in the next place that takes it", async () => {
  const root = scratchDir("spyglass-file-watch-");
  const real = join(root, "real");
  mkdirSync(real);
  const elsewhere = join(root, "elsewhere");
  mkdirSync(elsewhere);
  const linked = join(root, "data");
  symlinkSync(real, linked);
  const { path, found } = openWatched(linked, 30, [elsewhere]);
  rmSync(real, { recursive: true });
  await until(() => found.length > 0);
  expect(await watch!.keep()).toBe(true);
  const kept = readdirSync(elsewhere);
  expect(kept).toHaveLength(1);
  expect(kept[0]).toStartWith("spyglass.db.kept-");
  expect(reopen(join(elsewhere, kept[0]!))).toEqual({ rows: 30, integrity: "ok" });
  expect(path).toBe(join(linked, "spyglass.db"));
});

test("written nowhere, keep says so and how to copy it out of the open descriptor, which then holds every row", async () => {
  const root = scratchDir("spyglass-file-watch-");
  const real = join(root, "real");
  mkdirSync(real);
  const linked = join(root, "data");
  symlinkSync(real, linked);
  const { path, found } = openWatched(linked, 60);
  rmSync(real, { recursive: true });
  await until(() => found.length > 0);
  let kept = true;
  const log = await captureLog(async () => {
    kept = await watch!.keep();
  });
  expect(kept).toBe(false);
  const line = JSON.parse(log.trim().split("\n").at(-1)!) as { level: string; msg: string };
  expect(line.level).toBe("error");
  expect(line.msg).toContain(
    `could not be written anywhere, so this process stays up holding it: copy it with "cp /proc/${process.pid}/fd/N FILE"`,
  );
  // As the sentence says: the descriptor of the deleted file, copied, is the whole database.
  const descriptor = readdirSync("/proc/self/fd").find((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === `${join(real, "spyglass.db")} (deleted)`;
    } catch {
      return false;
    }
  });
  expect(descriptor).toBeDefined();
  const copy = join(root, "copied.db");
  copyFileSync(`/proc/self/fd/${descriptor}`, copy);
  expect(reopen(copy)).toEqual({ rows: 60, integrity: "ok" });
  expect(path).toBe(join(linked, "spyglass.db"));
});

test("meanwhile, no thread or process opens the path: the file there would be read with the held connection's WAL", async () => {
  const dir = scratchDir("spyglass-file-watch-");
  const { path } = openWatched(dir, 40);
  const restored = join(dir, "restored.db");
  db!.sqlite.query("VACUUM INTO ?").run(restored);
  addRows(10);
  expect(db!.atItsPath()).toBe(true);
  renameSync(restored, path);
  expect(db!.atItsPath()).toBe(false);
  // A scan runs on the held connection, not in a reader process started on the path.
  expect(await db!.reader.scan("SELECT count(*) AS n FROM notes", [])).toEqual([{ n: 50 }]);
  expect(db!.reader.pid).toBeNull();
  // A bulk job runs on the serving thread, not on a thread of its own opened by path.
  const log = await captureLog(async () => {
    expect(await runOnThread(db!, "test", {}, { notStarted: "the test worker did not start" }).outcome).toBe("not started");
  });
  expect(log).toContain('"message":"the database file is no longer at its path"');
});
