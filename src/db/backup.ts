// Online backup: `VACUUM INTO` reads a consistent snapshot through SQLite's normal locking, so it
// works while the server is writing (WAL readers never block the writer).
import { constants, Database as SQLite } from "bun:sqlite";
import { accessSync, constants as fsConstants, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname } from "node:path";
import { Conflict, Unavailable } from "../errors";
import { TO_STDOUT, writeBackup, writeBackupToStdout } from "./backup-file";
import { openDatabase, unusableDatabase } from "./client";

/** What a backup reads: a connection to the database and its path; `verify` checks, after the copy, that it is whole. */
export interface CopySource {
  sqlite: SQLite;
  path: string;
  verify?: () => void;
}

/** The backup in `target`, or on standard output for "-". */
export function backupDatabase(db: CopySource, target: string): Promise<{ file: string; bytes: number }> {
  const write = (partial: string) => {
    try {
      db.sqlite.query("VACUUM INTO ?").run(partial);
    } catch (error) {
      // A file read as immutable and changed meanwhile can read as damaged: said as changed.
      db.verify?.();
      throw error;
    }
    db.verify?.();
  };
  if (target !== TO_STDOUT) return writeBackup(target, write);
  // The copy is made beside the database first (the same disk); in the temporary directory when this
  // user may not write there (a read-only backup: "EACCES … .partial", the review).
  const beside = dirname(db.path);
  return writeBackupToStdout(writable(beside) ? beside : tmpdir(), write);
}

function writable(directory: string): boolean {
  try {
    accessSync(directory, fsConstants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The database at `path` opened for `spyglass backup`: as every command opens it, or, when this user
 * may not write it (a backup agent's own account, a read-only mount or snapshot), read-only. Such a
 * backup was refused as "cannot be written", though a backup writes nothing to the database.
 * (openDatabase refuses such a database before SQLite touches it: nothing is made beside it.)
 *
 * Read-only, SQLite reads the write-ahead log through the shared-memory file beside it. When both
 * exist (a Spyglass has the database open, or one was killed), they are used as they are. Without a
 * log holding changes, the file alone is the database: it is read as immutable (no file is made
 * beside it, which a server of another user could not open) and checked after the copy to be
 * unchanged. A log holding changes without its shared-memory file cannot be read without making
 * one: refused, saying what to do.
 */
export function openToCopy(path: string): CopySource & { close(): void } {
  try {
    const db = openDatabase(path, { create: false, migrate: false });
    return { sqlite: db.sqlite, path, close: () => db.close({ optimize: false }) };
  } catch (error) {
    if ((error as { code?: string }).code !== "database_read_only") throw error;
  }
  try {
    accessSync(path, fsConstants.R_OK);
  } catch (error) {
    throw unreadable(path, (error as NodeJS.ErrnoException).code ?? "EACCES");
  }
  const wal = statSync(`${path}-wal`, { throwIfNoEntry: false });
  const shm = statSync(`${path}-shm`, { throwIfNoEntry: false });
  const shared = wal !== undefined && shm !== undefined;
  if (!shared && wal !== undefined && wal.size > 0) {
    throw new Unavailable(
      `The database ${path} cannot be copied by this user as it stands: its write-ahead log (${path}-wal) holds changes that SQLite reads through a file it would have to create beside it, where this user may not write. Run the backup as the user that runs Spyglass, or once every Spyglass using it has stopped.`,
      "database_read_only",
    );
  }
  const before = statSync(path);
  const walBefore = wal?.size ?? 0;
  let sqlite: SQLite;
  try {
    sqlite = shared
      ? new SQLite(path, { readonly: true })
      : new SQLite(
          `file:${encodeURI(path).replace(/[?#]/g, encodeURIComponent)}?immutable=1`,
          constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI,
        );
  } catch (error) {
    throw refusalOf(path, error);
  }
  try {
    sqlite.exec("PRAGMA busy_timeout = 5000");
    sqlite.query("SELECT count(*) FROM sqlite_master").get();
  } catch (error) {
    sqlite.close(false);
    throw refusalOf(path, error);
  }
  // Immutable, nothing locks the file: a Spyglass that opened it during the copy would have changed it.
  const verify = () => {
    if (shared) return;
    const after = statSync(path);
    const walAfter = statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
    if (walAfter !== walBefore || after.mtimeMs !== before.mtimeMs || after.size !== before.size) {
      throw new Conflict(
        `The database ${path} changed while it was copied (a Spyglass opened it meanwhile): run the backup again.`,
        "database_changed",
      );
    }
  };
  return { sqlite, path, verify, close: () => sqlite.close(false) };
}

function unreadable(path: string, code: string): Unavailable {
  return new Unavailable(
    `The database ${path} cannot be read by this user (${code}): run the backup as the user that runs Spyglass, or give this user read access to the file and its directory.`,
    "database_unreadable",
  );
}

/** An open or first read of a database this user may only read, in a sentence naming it (never "unable to open database file"). */
function refusalOf(path: string, error: unknown): unknown {
  const code = (error as { code?: string }).code ?? "";
  const known = unusableDatabase(path, code, (error as Error).message);
  if (known) return known;
  if (/^SQLITE_(CANTOPEN|READONLY|PERM|AUTH)/.test(code)) return unreadable(path, code);
  return error;
}
