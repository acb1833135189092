// A process keeps checking that its SQLite file is still the one at its path. Deleted (its data
// directory removed while it runs) or replaced (another file moved over spyglass.db), it goes on
// writing to a file that nothing can open again: every change it makes is lost when it stops. A
// self-hoster's walk found exactly that, with /healthz saying ok throughout.
//
// Found so, the process logs why and stops (`serve` exits 1, as when a newer Spyglass migrates its
// database: schema-watch.ts; a service manager's restart then opens what is at the path). On its way
// out, after its last request and write, it writes the database it held with VACUUM INTO (a
// consistent copy, as `spyglass backup` makes it): back at the path when nothing is there (the
// directory made again), else beside the file that took its place, never over it; when neither can
// be written, in the temporary directory, the working directory or the home directory. Its own WAL
// and shared-memory files are then removed from the path: SQLite's close leaves them there when the
// file was moved, and the next open would read them as the new file's own and write the old
// database's pages into it (an independent review saw a restored file fail its integrity check so).
// Written nowhere, the process stays up holding the file, and the log says how to copy it out.
// A stop for any other reason does the same when it finds the file gone.
import { mkdirSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { log } from "../log";
import { backupDatabase } from "./backup";
import { type SqliteDb } from "./client";
import { type FileIdentity, fileIdentity as identity, sameFile as same } from "./file-identity";

/** How often a process looks (one stat). SPYGLASS_FILE_CHECK_MS shortens it for tests. */
const CHECK_EVERY_MS = Number(process.env.SPYGLASS_FILE_CHECK_MS ?? 2_000);

/** What became of the file, in a sentence, or null while it is the one this process opened. */
function fileProblem(path: string, opened: FileIdentity): string | null {
  let now: FileIdentity | null;
  let again: FileIdentity | null;
  try {
    now = identity(path);
    if (now === null) return `the database file ${path} was deleted while Spyglass had it open`;
    if (same(now, opened)) return null;
    // A replacement holds still: a file system whose inode numbers move from one look to the next
    // (as some FUSE mounts report them) has replaced nothing.
    again = identity(path);
  } catch {
    // Not readable now (a permission changed, an I/O error): nothing is known to be lost.
    return null;
  }
  if (again === null) return `the database file ${path} was deleted while Spyglass had it open`;
  return same(again, now) ? `the database file ${path} was replaced by another file while Spyglass had it open` : null;
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
   * When the file at the path is no longer the one this process opened, writes the database it
   * holds there (or elsewhere: see above) and logs where; else does nothing. Run it last before the
   * connection closes. False when it could be written nowhere: the caller then keeps the connection
   * open (the process up), since closing it would lose the database.
   */
  keep(): Promise<boolean>;
}

/** Never resolves, and keeps the process up meanwhile (a pending promise alone does not): after keep() failed. */
export function stayUp(): Promise<never> {
  return new Promise(() => setInterval(() => {}, 60_000));
}

export interface FileWatchOptions {
  everyMs?: number;
  /** Directories tried when neither the path nor its directory takes the copy (tests pass none). */
  elsewhere?: string[];
}

/**
 * Checks every CHECK_EVERY_MS; calls `stop` once with the sentence when the file is gone or replaced,
 * having logged it with `consequence` ("the server stops").
 */
export function watchDatabaseFile(
  db: SqliteDb,
  consequence: string,
  stop: (problem: string) => void,
  options: FileWatchOptions = {},
): DatabaseFileWatch {
  const opened = identity(db.path);
  if (opened === null) return { stop() {}, keep: async () => true };
  // This connection's WAL and shared memory: the same files as long as it is open.
  const journal = ["-wal", "-shm"].map((suffix) => ({ path: `${db.path}${suffix}`, opened: identity(`${db.path}${suffix}`) }));
  /** Removes this connection's journal files from the path (never another file that took their name). */
  const removeOwnJournal = () => {
    for (const file of journal) if (same(identity(file.path), file.opened)) rmSync(file.path, { force: true });
  };
  /** A journal file at the path that is not this connection's: a copy put at the path would be read with it. */
  const foreignJournal = () => journal.some((file) => identity(file.path) !== null && !same(identity(file.path), file.opened));
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
  }, options.everyMs ?? CHECK_EVERY_MS);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
    async keep() {
      const problem = fileProblem(db.path, opened);
      if (problem === null) return true;
      // The process id too: two processes that held the file (a server and a cron job's track) keep a copy each.
      const name = `${basename(db.path)}.kept-${fileStamp(Date.now())}-${process.pid}`;
      const places = [
        ...(identity(db.path) === null && !foreignJournal() ? [db.path] : []),
        join(dirname(db.path), name),
        ...(options.elsewhere ?? [tmpdir(), process.cwd(), homedir()]).map((dir) => join(dir, name)),
      ];
      const failures: string[] = [];
      for (const place of new Set(places)) {
        try {
          if (place === db.path) {
            mkdirSync(dirname(db.path), { recursive: true, mode: 0o700 });
            removeOwnJournal();
          }
          // Refused when a file came to the place meanwhile: it is never overwritten.
          const written = await backupDatabase(db, place);
          removeOwnJournal();
          log.warn(
            place === db.path
              ? `${problem}: the database Spyglass held, with every change it made, is written back to ${written.file}`
              : `${problem}: the database Spyglass held, with every change it made, is written to ${written.file}; to go on with it, stop every Spyglass using ${db.path} and move the copy there (with no spyglass.db-wal or spyglass.db-shm beside it)`,
            { database: db.path, file: written.file, bytes: written.bytes },
          );
          return true;
        } catch (error) {
          failures.push(`${place}: ${(error as Error).message}`);
        }
      }
      // Nowhere: every change into the file this process holds open, which can then be copied whole.
      try {
        db.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      } catch {
        // The copy from the descriptor then lacks the changes still in the WAL, held open too.
      }
      log.error(
        `${problem}: the database Spyglass held could not be written anywhere, so this process stays up holding it: copy it with "cp /proc/${process.pid}/fd/N FILE", N being the number "ls -l /proc/${process.pid}/fd" shows for ${db.path} (deleted), then stop the process with SIGKILL`,
        { database: db.path, failures },
      );
      return false;
    },
  };
}
