// A number that moves when another connection (another process included) commits a write to the
// database, for caches that must notice writes they were not told about. On SQLite it is
// `PRAGMA data_version`: the connection's own writes leave it alone, any other connection's commit
// moves it. It takes a shared-memory lock, so callers read it at most every few milliseconds. On
// PostgreSQL it is the change feed's counter (pg-changes.ts), moved by any instance's committed write
// to a cached table (this instance's own included) and at least every few seconds.
import { type Db } from "./client";

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
