// Online backup: `VACUUM INTO` reads a consistent snapshot through SQLite's normal locking, so it
// works while the server is writing (WAL readers never block the writer).
import { constants, Database as SQLite } from "bun:sqlite";
import { statSync } from "node:fs";
import { dirname } from "node:path";
import { Conflict, Unavailable } from "../errors";
import { TO_STDOUT, writeBackup, writeBackupToStdout } from "./backup-file";
import { openDatabase, type SqliteDb, unusableDatabase } from "./client";

/** What a backup reads: a connection to the database and its path; `verify` checks, after the copy, that it is whole. */
export interface CopySource {
  sqlite: SQLite;
  path: string;
  verify?: () => void;
}

/** The backup in `target`, or on standard output for "-". */
export function backupDatabase(db: CopySource, target: string): Promise<{ file: string; bytes: number }> {
  const write = (partial: string) => {
    db.sqlite.query("VACUUM INTO ?").run(partial);
    db.verify?.();
  };
  return target === TO_STDOUT ? writeBackupToStdout(dirname(db.path), write) : writeBackup(target, write);
}

/**
 * The database at `path` opened for `spyglass backup`: as every command opens it, or, when this user
 * may not write it (a backup agent's own account, a read-only mount or snapshot), read-only. Such a
 * backup was refused as "cannot be written", though a backup writes nothing to the database.
 *
 * Read-only, SQLite reads the write-ahead log through the shared-memory file beside it. When those
 * files exist (a Spyglass has the database open), they are used as they are. When neither exists,
 * nothing has the database open and the file alone is the database: it is read as immutable (no
 * file is made beside it, which a later server, running as another user, could not open), and
 * checked after the copy to be unchanged. A log without its shared-memory file cannot be read
 * without making one: refused, saying what to do.
 */
export function openToCopy(path: string): CopySource & { close(): void } {
  try {
    const db = openDatabase(path, { create: false, migrate: false });
    return { sqlite: db.sqlite, path, close: () => db.close({ optimize: false }) };
  } catch (error) {
    if ((error as { code?: string }).code !== "database_read_only") throw error;
  }
  const wal = statSync(`${path}-wal`, { throwIfNoEntry: false });
  const shm = statSync(`${path}-shm`, { throwIfNoEntry: false });
  if (wal && wal.size > 0 && !shm) {
    throw new Unavailable(
      `The database ${path} cannot be copied by this user as it stands: its write-ahead log (${path}-wal) holds changes that SQLite reads through a file it would have to create beside it, where this user may not write. Run the backup as the user that runs Spyglass, or once every Spyglass using it has stopped.`,
      "database_read_only",
    );
  }
  const immutable = !wal && !shm;
  const before = statSync(path);
  const sqlite = immutable
    ? new SQLite(
        `file:${encodeURI(path).replace(/[?#]/g, encodeURIComponent)}?immutable=1`,
        constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI,
      )
    : new SQLite(path, { readonly: true });
  try {
    sqlite.exec("PRAGMA busy_timeout = 5000");
    sqlite.query("SELECT count(*) FROM sqlite_master").get();
  } catch (error) {
    sqlite.close(false);
    throw unusableDatabase(path, (error as { code?: string }).code ?? "", (error as Error).message) ?? error;
  }
  // Immutable, nothing locks the file: a Spyglass that started during the copy would have changed it.
  const verify = () => {
    if (!immutable) return;
    const after = statSync(path);
    if (statSync(`${path}-wal`, { throwIfNoEntry: false }) || after.mtimeMs !== before.mtimeMs || after.size !== before.size) {
      throw new Conflict(
        `The database ${path} changed while it was copied (a Spyglass opened it meanwhile): run the backup again.`,
        "database_changed",
      );
    }
  };
  return { sqlite, path, verify, close: () => sqlite.close(false) };
}
