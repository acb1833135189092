// A number that moves when another connection (another process included) commits a write to the
// database, for caches that must notice writes they were not told about. On SQLite it is
// `PRAGMA data_version`: the connection's own writes leave it alone, any other connection's commit
// moves it. It takes a shared-memory lock, so callers read it at most every few milliseconds. On
// PostgreSQL it is the change feed's counter (pg-changes.ts), moved by any instance's committed write
// to a cached table (this instance's own included) and at least every few seconds.
import { type Db, type SqliteDb } from "./client";

/**
 * `tables`: on PostgreSQL, only changes to those tables move it (SQLite's counts every write).
 * Read synchronously, without waiting for another request's open transaction: it reads no rows (on
 * SQLite, a prepared PRAGMA on the connection; on PostgreSQL, a counter in memory).
 */
export function changeStamp(db: Db, tables?: readonly string[]): number {
  if (db.dialect === "postgres") return db.changes.stamp(tables);
  const statement = db.prepared("change-stamp", () => db.sqlite.prepare<{ data_version: number }, []>("PRAGMA data_version"));
  return statement.get()?.data_version ?? 0;
}

/**
 * Changes whenever a write is committed to an SQLite database, by this connection or any other
 * (another process included): what a cache of rows keeps beside them to know they still hold (the
 * tool server's API keys and OAuth access tokens). Read synchronously, without waiting for another
 * request's open transaction: it reads no rows, and the lookups that follow a change do wait (an await
 * here cost ~6 µs of a tools/list's CPU). On a file in WAL mode it is the WAL index's header, read
 * without a transaction (wal-stamp.ts: ~0.7 µs against ~4–9 µs for data_version); otherwise, and
 * while a commit is under way, total_changes() (this connection's own writes) with data_version (any
 * other's). Read it before the lookups it vouches for: a write that lands between them then leaves the
 * entry stale, not wrong for ever.
 */
export function commitStamp(db: SqliteDb): string {
  const wal = db.walIndex.read();
  if (wal !== null) return wal;
  const statement = db.prepared("commit-stamp", () =>
    db.sqlite.prepare<[number, number], []>("SELECT total_changes(), (SELECT data_version FROM pragma_data_version)"),
  );
  const [changes, version] = statement.values()[0] ?? [];
  return `${changes}:${version}`;
}
