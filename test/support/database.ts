// The database the in-process tests run on: SQLite in memory, or, with SPYGLASS_TEST_DATABASE=postgres,
// a fresh database of the test PostgreSQL (test/support/postgres.ts) for each test app, so that the
// same tests prove both (issue 21: the held-out behaviour of every surface is identical).
import { type Db, openDatabase } from "../../src/db/client";
import { freshPostgresUrl } from "./postgres";

export const TEST_DIALECT: Db["dialect"] = process.env.SPYGLASS_TEST_DATABASE === "postgres" ? "postgres" : "sqlite";

export async function openTestDatabase(): Promise<Db> {
  if (TEST_DIALECT === "sqlite") return openDatabase(":memory:");
  const { openPostgres } = await import("../../src/db/postgres");
  return openPostgres(await freshPostgresUrl(), { poolSize: 4 });
}
