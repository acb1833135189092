// The database a configuration selects (CONTRACT §6): PostgreSQL when a database URL is set,
// otherwise SQLite in the data directory.
import { join } from "node:path";
import { type Config } from "../config";
import { type Db, type OpenOptions, openDatabase } from "./client";
import { type PostgresOptions } from "./postgres";

/**
 * Opens and migrates the configured database: PostgreSQL at `config.databaseUrl`, or the SQLite file
 * of `dataDir` (the configuration's data directory unless a command names another).
 */
export async function openConfiguredDatabase(
  config: Pick<Config, "databaseUrl" | "dataDir">,
  dataDir: string = config.dataDir,
  options: OpenOptions & PostgresOptions = {},
): Promise<Db> {
  if (config.databaseUrl !== null) {
    // Loaded only here: PostgreSQL's driver and schema cost an SQLite start (and every CLI command) ~10 ms.
    const { openPostgres } = await import("./postgres");
    return openPostgres(config.databaseUrl, options);
  }
  return openDatabase(join(dataDir, "spyglass.db"), options);
}
