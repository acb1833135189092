// The database a configuration selects (CONTRACT §6): PostgreSQL when a database URL is set,
// otherwise SQLite in the data directory.
import { join } from "node:path";
import { type Config } from "../config";
import { type Db, type OpenOptions, openDatabase } from "./client";
import { openPostgres, type PostgresDb, type PostgresOptions } from "./postgres";

/** Either database; `dialect` tells them apart where a caller needs what only one has. */
export type AnyDb = Db | PostgresDb;

/**
 * Opens and migrates the configured database: PostgreSQL at `config.databaseUrl`, or the SQLite file
 * of `dataDir` (the configuration's data directory unless a command names another).
 */
export async function openConfiguredDatabase(
  config: Pick<Config, "databaseUrl" | "dataDir">,
  dataDir: string = config.dataDir,
  options: OpenOptions & PostgresOptions = {},
): Promise<AnyDb> {
  if (config.databaseUrl !== null) return openPostgres(config.databaseUrl, options);
  return openDatabase(join(dataDir, "spyglass.db"), options);
}
