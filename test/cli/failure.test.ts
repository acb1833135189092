// The line a CLI command's failure ends with: a database whose storage refuses writes (SQLite's
// max_page_count gives the same SQLITE_FULL as a full disk) is said as such, with what to do, where
// the self-hoster walk saw "spyglass: unexpected error: database or disk is full".
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { cliFailure } from "../../src/main";

function fullDiskError(): unknown {
  const db = new Database(":memory:");
  try {
    db.exec("CREATE TABLE t (x TEXT)");
    const pages = (db.query("PRAGMA page_count").get() as { page_count: number }).page_count;
    db.exec(`PRAGMA max_page_count = ${pages}`);
    for (let i = 0; i < 10_000; i++) db.run("INSERT INTO t VALUES (?)", ["x".repeat(1000)]);
  } catch (error) {
    return error;
  } finally {
    db.close();
  }
  throw new Error("the database took every row");
}

test("a full disk is said as the server says it, with what to do, not as an unexpected error", () => {
  const error = fullDiskError();
  expect((error as { code?: string }).code).toBe("SQLITE_FULL");
  expect(cliFailure(error)).toBe(
    "the command could not write: the database's storage refuses writes (a full disk?) (database or disk is full); the write that failed was not kept: free space where the database is (the data directory, or PostgreSQL's volume) and run it again",
  );
  // A stored value that is no JSON (a database put together from two files) says what to do.
  let unreadable: unknown;
  try {
    JSON.parse('{"aliases": ["Ac');
  } catch (error) {
    unreadable = error;
  }
  expect(cliFailure(unreadable)).toStartWith("a value stored in the database could not be read (JSON Parse error");
  expect(cliFailure(unreadable)).toEndWith("removing spyglass.db-wal and spyglass.db-shm first (README: Backup and restore).");
  // Anything else unforeseen is still named as such, with its words.
  expect(cliFailure(new Error("boom"))).toBe("unexpected error: boom");
});
