// The database the in-process tests run on: SQLite in memory, or, with SPYGLASS_TEST_DATABASE=postgres,
// a fresh database of the test PostgreSQL (test/support/postgres.ts) for each test app, so that the
// same tests prove both (issue 21: the held-out behaviour of every surface is identical).
import { type Db, openDatabase } from "../../src/db/client";
import { freshPostgresUrl } from "./postgres";

export const TEST_DIALECT: Db["dialect"] = process.env.SPYGLASS_TEST_DATABASE === "postgres" ? "postgres" : "sqlite";

// Each test PostgreSQL database's full URL (db.path has no password), for secondConnection.
const urls = new Map<string, string>();

/** A test database; `file` makes the SQLite one a file, so that a second connection can open it. */
export async function openTestDatabase(options: { file?: string } = {}): Promise<Db> {
  if (TEST_DIALECT === "sqlite") return openDatabase(options.file ?? ":memory:");
  const { openPostgres } = await import("../../src/db/postgres");
  const url = await freshPostgresUrl();
  const db = await openPostgres(url, { poolSize: 4 });
  urls.set(db.path, url);
  return db;
}

/** Another connection to the same database, as another process (the CLI, a second instance) opens one. */
export async function secondConnection(db: Db): Promise<Db> {
  if (db.dialect === "sqlite") {
    if (db.path === ":memory:") throw new Error("secondConnection needs a file: open the test database with { file }.");
    return openDatabase(db.path);
  }
  const url = urls.get(db.path);
  if (!url) throw new Error("secondConnection: not a test database opened by openTestDatabase.");
  const { openPostgres } = await import("../../src/db/postgres");
  return openPostgres(url, { poolSize: 1 });
}
