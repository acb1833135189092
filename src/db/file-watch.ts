// A server keeps checking that its SQLite file is still the one at its path. Deleted (its data
// directory removed while it runs) or replaced (another file moved over spyglass.db), the server
// goes on writing to a file that nothing can open again: every change it makes is lost when it
// stops. A self-hoster's walk found exactly that, with /healthz saying ok throughout.
//
// Found so, the server logs why and stops, exit 1, as it does when a newer Spyglass migrates its
// database (schema-watch.ts): a service manager's restart then opens what is at the path. On its way
// out, after its last request and write, it writes the database it held with VACUUM INTO (a
// consistent copy, as `spyglass backup` makes it): back at the path when nothing is there (the
// directory made again), else beside the file that took its place, never over it. A stop for any
// other reason does the same when it finds the file gone.
import { mkdirSync, rmSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { log } from "../log";
import { backupDatabase } from "./backup";
import { type SqliteDb } from "./client";

/** How often a server looks (one stat). SPYGLASS_FILE_CHECK_MS shortens it for tests. */
const CHECK_EVERY_MS = Number(process.env.SPYGLASS_FILE_CHECK_MS ?? 2_000);

interface FileIdentity {
  dev: number;
  ino: number;
}

function identity(path: string): FileIdentity | null {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats ? { dev: stats.dev, ino: stats.ino } : null;
}

/** What became of the file, in a sentence, or null while it is the one this server opened. */
function fileProblem(path: string, opened: FileIdentity): string | null {
  let now: FileIdentity | null;
  try {
    now = identity(path);
  } catch {
    // Not readable now (a permission changed, an I/O error): nothing is known to be lost.
    return null;
  }
  if (now === null) return `the database file ${path} was deleted while Spyglass had it open`;
  if (now.dev !== opened.dev || now.ino !== opened.ino)
    return `the database file ${path} was replaced by another file while Spyglass had it open`;
  return null;
}

/** "2026-11-30T02-41-07Z": a moment for a file name. */
const fileStamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replaceAll(":", "-");

export interface DatabaseFileWatch {
  stop(): void;
  /**
   * When the file at the path is no longer the one this server opened, writes the database it holds
   * there (or beside the file that took its place) and logs where; else does nothing. Run it last
   * before the connection closes.
   */
  keep(): Promise<void>;
}

/**
 * Checks every CHECK_EVERY_MS; calls `stop` once with the sentence when the file is gone or replaced,
 * having logged it with `consequence` ("the server stops").
 */
export function watchDatabaseFile(db: SqliteDb, consequence: string, stop: (problem: string) => void): DatabaseFileWatch {
  const opened = identity(db.path);
  if (opened === null) return { stop() {}, keep: async () => {} };
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    const problem = fileProblem(db.path, opened);
    if (problem === null) return;
    stopped = true;
    clearInterval(timer);
    log.error(`${problem}: ${consequence}, and the database it holds is written out before it ends`, {
      database: db.path,
    });
    stop(problem);
  }, CHECK_EVERY_MS);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
    async keep() {
      const problem = fileProblem(db.path, opened);
      if (problem === null) return;
      const beside = `${db.path}.kept-${fileStamp(Date.now())}`;
      try {
        let written: { file: string; bytes: number };
        if (identity(db.path) === null) {
          mkdirSync(dirname(db.path), { recursive: true, mode: 0o700 });
          // A WAL left at the path (only the database file was deleted) is this connection's, which it
          // holds open: by name it would be read as the copy's own, and its frames written into it.
          for (const suffix of ["-wal", "-shm"]) rmSync(`${db.path}${suffix}`, { force: true });
          // Refused when a file came to the path meanwhile (it is never overwritten): then beside it.
          written = await backupDatabase(db, db.path).catch(() => backupDatabase(db, beside));
        } else {
          written = await backupDatabase(db, beside);
        }
        log.warn(
          written.file === db.path
            ? `${problem}: the database Spyglass held, with every change it made, is written back to ${written.file}`
            : `${problem}: the database Spyglass held, with every change it made, is written to ${written.file}, beside the file now at ${db.path}; to go on with it, stop every Spyglass using the data directory and move it to ${db.path}`,
          { database: db.path, file: written.file, bytes: written.bytes },
        );
      } catch (error) {
        log.error(`${problem}: the database Spyglass held could not be written out, and its changes are lost`, {
          database: db.path,
          message: (error as Error).message,
        });
      }
    },
  };
}
