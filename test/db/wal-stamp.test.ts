// The change stamp read from a SQLite file's WAL index (src/db/wal-stamp.ts), which the key cache
// trusts to notice a revocation on the very next request: it must move with every commit, whoever
// makes it (this connection, another one, another process, after the WAL starts over), stay put
// when nothing is committed, and step aside (null) where there is no WAL index to read.
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
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
