// The database a configuration selects (CONTRACT §6): PostgreSQL when a database URL is set,
// otherwise SQLite in the data directory.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Config } from "../config";
import { Unavailable } from "../errors";
import { type Db, type OpenOptions, openDatabase } from "./client";
import { type PostgresOptions } from "./postgres";

/**
 * Opens and migrates the configured database: PostgreSQL at `config.databaseUrl`, or the SQLite file
 * of `dataDir` (the configuration's data directory unless a command names another).
 */
export async function openConfiguredDatabase(
  config: Pick<Config, "databaseUrl" | "dataDir" | "databaseUrlVariable">,
  dataDir: string = config.dataDir,
  options: OpenOptions & PostgresOptions = {},
): Promise<Db> {
  if (config.databaseUrl !== null) {
    // Loaded only here: PostgreSQL's driver and schema cost an SQLite start (and every CLI command) ~10 ms.
    const { openPostgres } = await import("./postgres");
    return openPostgres(config.databaseUrl, { variable: config.databaseUrlVariable, ...options });
  }
  const path = join(dataDir, "spyglass.db");
  refuseMovedDatabase(path);
  return openDatabase(path, options);
}

/** The file migrate-to-postgres leaves beside the SQLite database it copied: when, and where to. */
export function movedMarkerOf(path: string): string {
  return `${path}.moved-to-postgres`;
}

/** Marks the SQLite database at `path` as copied to PostgreSQL (`to`: the URL without its password). */
export function markMoved(path: string, to: string): string {
  const marker = movedMarkerOf(path);
  writeFileSync(marker, `${JSON.stringify({ at: new Date().toISOString(), to })}\n`, { mode: 0o600 });
  return marker;
}

/**
 * An SQLite database that migrate-to-postgres copied is refused while no database URL is set: a
 * command run without the URL (a sudo without the service's environment, a cron line) acted on the
 * old copy. The PostgreSQL walk revoked a key there, told it was revoked, while it still worked on
 * PostgreSQL; a nightly backup copied the old file. Deleting the marker uses SQLite again.
 */
export function refuseMovedDatabase(path: string): void {
  const marker = movedMarkerOf(path);
  let text: string;
  try {
    text = readFileSync(marker, "utf8");
  } catch {
    return;
  }
  let moved: { at?: unknown; to?: unknown } = {};
  try {
    moved = JSON.parse(text) as typeof moved;
  } catch {
    // A marker edited by hand still marks the database as moved.
  }
  const where = typeof moved.to === "string" ? ` (${moved.to})` : "";
  const when = typeof moved.at === "string" ? ` on ${moved.at}` : "";
  throw new Unavailable(
    `${path} was copied to PostgreSQL${where}${when} by migrate-to-postgres, and no database URL is set here: this would act on the old copy (a key revoked in it would still work on PostgreSQL). Set SPYGLASS_DATABASE_URL (or the variable database_url_env names) as the server has it; to use this SQLite database again instead, delete ${marker}.`,
    "database_moved",
  );
}
