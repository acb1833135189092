// For the tests that reach past the data access into SQLite itself (raw statements, the ORM with
// schema.ts's tables, the file's pragmas): the SQLite side of a Db, or a clear failure when the
// suite runs on PostgreSQL (SPYGLASS_TEST_DATABASE=postgres), where such a test does not belong.
import { type Database } from "bun:sqlite";
import { type Db, type Orm, type SqliteDb } from "../../src/db/client";

export function sqliteDb(db: Db): SqliteDb {
  if (db.dialect !== "sqlite") throw new Error("this test reads SQLite itself; it runs on SQLite only");
  return db;
}

export function sqliteOf(db: Db): Database {
  return sqliteDb(db).sqlite;
}

export function ormOf(db: Db): Orm {
  return sqliteDb(db).orm;
}
