// The change stamp read from a SQLite file's WAL index (src/db/wal-stamp.ts), which the key cache
// trusts to notice a revocation on the very next request: it must move with every commit, whoever
// makes it (this connection, another one, another process, after the WAL starts over), stay put
// when nothing is committed, and step aside (null) where there is no WAL index to read.
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, type SqliteDb } from "../../src/db/client";
import { WalIndexStamp } from "../../src/db/wal-stamp";
import { scratchDir } from "../support/scratch";

let open: SqliteDb[] = [];
afterEach(() => {
  for (const db of open) db.close({ optimize: false });
  open = [];
});

function fileDb(): { db: SqliteDb; path: string } {
  const path = join(scratchDir("spyglass-wal-stamp-"), "spyglass.db");
  const db = openDatabase(path);
  open.push(db);
  db.sqlite.exec("CREATE TABLE notes (x TEXT)");
  return { db, path };
}

test("it moves with every commit of this connection, and not with reads or a rolled-back write", () => {
  const { db } = fileDb();
  const seen = new Set<string>();
  for (let i = 0; i < 20; i++) {
    const stamp = db.walIndex.read();
    expect(stamp).not.toBeNull();
    expect(seen.has(stamp!)).toBe(false);
    seen.add(stamp!);
    db.sqlite.query("SELECT count(*) FROM notes").get();
    expect(db.walIndex.read()).toBe(stamp);
    db.sqlite.exec("BEGIN IMMEDIATE");
    db.sqlite.run("INSERT INTO notes VALUES ('gone')");
    db.sqlite.exec("ROLLBACK");
    expect(db.walIndex.read()).toBe(stamp);
    db.sqlite.run("INSERT INTO notes VALUES (?)", [String(i)]);
  }
});

test("it moves with a commit of another connection, and after the WAL starts over", () => {
  const { db, path } = fileDb();
  const other = new Database(path);
  try {
    const before = db.walIndex.read();
    other.run("INSERT INTO notes VALUES ('other')");
    const afterOther = db.walIndex.read();
    expect(afterOther).not.toBe(before);
    // The whole WAL copied into the file and truncated (the stamp may move: a needless re-read for
    // the cache, never a missed commit); the next commit starts it over, frame count back at 1.
    db.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    const afterCheckpoint = db.walIndex.read();
    other.run("INSERT INTO notes VALUES ('after the restart')");
    const afterRestart = db.walIndex.read();
    expect(afterRestart).not.toBeNull();
    expect([before, afterOther, afterCheckpoint]).not.toContain(afterRestart);
  } finally {
    other.close();
  }
});

test("it moves with a commit of another process (as the CLI revokes a key)", async () => {
  const { db, path } = fileDb();
  const before = db.walIndex.read();
  const child = Bun.spawn(
    [
      process.execPath,
      "-e",
      `const { Database } = require("bun:sqlite"); new Database(${JSON.stringify(path)}).run("INSERT INTO notes VALUES ('cli')");`,
    ],
    { stdout: "ignore", stderr: "pipe" },
  );
  expect(await child.exited).toBe(0);
  expect(db.sqlite.query("SELECT count(*) AS n FROM notes").get()).toEqual({ n: 1 });
  expect(db.walIndex.read()).not.toBeNull();
  expect(db.walIndex.read()).not.toBe(before);
});

test("null, for the caller to ask SQLite, where there is no WAL index or the connection is closed", () => {
  const memory = openDatabase(":memory:");
  open.push(memory);
  expect(memory.walIndex.read()).toBeNull();

  // A file in rollback-journal mode has no -shm file.
  const path = join(scratchDir("spyglass-wal-stamp-"), "journal.db");
  const journal = new Database(path);
  journal.exec("PRAGMA journal_mode = DELETE");
  journal.exec("CREATE TABLE notes (x TEXT)");
  expect(new WalIndexStamp(path).read()).toBeNull();
  journal.close();

  const { db } = fileDb();
  expect(db.walIndex.read()).not.toBeNull();
  db.walIndex.release();
  expect(db.walIndex.read()).toBeNull();
});

/** This process's POSIX locks on the file at `path`, as /proc/locks lists them (type, range). */
function locksOn(path: string): string[] {
  const { dev, ino } = statSync(path);
  // /proc/locks names the file as MAJOR:MINOR:INODE, the device in hex.
  const major = Math.floor(dev / 256) & 0xfff;
  const minor = (dev & 0xff) | ((dev >> 12) & 0xfff00);
  const file = `${major.toString(16).padStart(2, "0")}:${minor.toString(16).padStart(2, "0")}:${ino}`;
  return readFileSync("/proc/locks", "utf8")
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter((f) => f[1] === "POSIX" && f[4] === String(process.pid) && f[5] === file)
    .map((f) => `${f[3]} ${f[6]}-${f[7]}`)
    .sort();
}

/** How many descriptors this process has open on the file at `path`. */
function descriptorsOn(path: string): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === path;
    } catch {
      return false;
    }
  }).length;
}

test.skipIf(!existsSync("/proc/locks"))(
  "reading it leaves SQLite's locks on the -shm file in place (no descriptor of it is ever closed)",
  () => {
    const { db, path } = fileDb();
    db.sqlite.run("INSERT INTO notes VALUES ('x')");
    const held = locksOn(`${path}-shm`);
    // SQLite's shared lock telling other processes the WAL index is in use, at least.
    expect(held.length).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) {
      expect(db.walIndex.read()).not.toBeNull();
      expect(locksOn(`${path}-shm`)).toEqual(held);
    }
    // A second connection of this process, its stamp read and the connection closed: the first
    // connection's locks are still there, and the file has one descriptor of ours, shared.
    const before = descriptorsOn(`${path}-shm`);
    for (let i = 0; i < 5; i++) {
      const second = openDatabase(path);
      expect(second.walIndex.read()).toBe(db.walIndex.read());
      second.close({ optimize: false });
    }
    expect(locksOn(`${path}-shm`)).toEqual(held);
    expect(descriptorsOn(`${path}-shm`)).toBe(before);
  },
);

test("after the database was closed for good and opened again, it follows the new WAL index", async () => {
  const path = join(scratchDir("spyglass-wal-stamp-"), "spyglass.db");
  const first = new Database(path);
  first.exec("PRAGMA journal_mode = WAL");
  first.exec("CREATE TABLE notes (x TEXT)");
  expect(new WalIndexStamp(path).read()).not.toBeNull();
  // The last connection deletes the -shm file; the next one makes a new one (a new inode).
  first.close(true);
  expect(existsSync(`${path}-shm`)).toBe(false);
  const again = new Database(path);
  try {
    again.exec("PRAGMA journal_mode = WAL");
    again.query("SELECT count(*) FROM notes").get();
    const stamp = new WalIndexStamp(path);
    const before = stamp.read();
    expect(before).not.toBeNull();
    const child = Bun.spawn(
      [process.execPath, "-e", `new (require("bun:sqlite").Database)(${JSON.stringify(path)}).run("INSERT INTO notes VALUES ('cli')");`],
      { stdout: "ignore", stderr: "pipe" },
    );
    expect(await child.exited).toBe(0);
    expect(stamp.read()).not.toBeNull();
    expect(stamp.read()).not.toBe(before);
    // The descriptor of the deleted file was let go; the new file has one.
    expect(descriptorsOn(`${path}-shm`)).toBe(2); // SQLite's and ours
    expect(descriptorsOn(`${path}-shm (deleted)`)).toBe(0);
  } finally {
    again.close(true);
  }
});
