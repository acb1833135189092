// Where a backup is written: FILE.partial (private, 0600) while it is made, then linked to FILE in
// one step. A backup cut short (a signal, a full disk, a pg_dump that failed) leaves no FILE that
// looks like a backup: an empty FILE and its journal were left by a backup stopped a quarter of a
// second in, and the next attempt refused to overwrite it.
import { closeSync, createReadStream, existsSync, fstatSync, linkSync, openSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { AppError, Conflict, Invalid, Unavailable } from "../errors";

function exists(file: string): Conflict {
  if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) {
    return new Conflict(
      `${file} is a directory; give the backup's file name (such as ${file.replace(/\/+$/, "")}/spyglass-backup.db).`,
      "file_exists",
    );
  }
  return new Conflict(`${file} already exists; choose a new file name for the backup.`, "file_exists");
}

/** Makes the backup at `target` with `write(partialPath)`; returns the file and its size. */
export async function writeBackup(
  target: string,
  write: (partial: string) => void | Promise<void>,
): Promise<{ file: string; bytes: number }> {
  const file = resolve(target);
  if (existsSync(file)) throw exists(file);
  if (!existsSync(dirname(file))) throw new Invalid(`${dirname(file)} does not exist; create the directory first.`, "no_directory");
  const partial = `${file}.partial`;
  try {
    // A partial file of an earlier backup that was stopped is this backup's to replace.
    rmSync(partial, { force: true });
    // Created empty and private first (VACUUM INTO and pg_dump keep the mode): a backup holds what the database holds.
    closeSync(openSync(partial, "wx", 0o600));
    await write(partial);
  } catch (error) {
    removePartial(partial);
    throw cannotWrite(file, error);
  }
  try {
    // link, not rename: it fails rather than replace a FILE made meanwhile.
    linkSync(partial, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw exists(file);
    throw cannotWrite(file, error);
  } finally {
    removePartial(partial);
  }
  return { file, bytes: statSync(file).size };
}

/** A partial copy and the journal SQLite's VACUUM INTO leaves beside one it could not finish (a full disk). */
function removePartial(partial: string): void {
  rmSync(partial, { force: true });
  rmSync(`${partial}-journal`, { force: true });
}

/**
 * A backup that could not be written, naming its file and why in words (it was "unexpected error:
 * database or disk is full", or an ENOENT naming FILE.partial). Errors of our own pass as they are,
 * and so do the source database's own (damaged, unreadable: the CLI says what to do about those).
 */
function cannotWrite(file: string, error: unknown): unknown {
  if (error instanceof AppError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? "";
  if (/^SQLITE_(CORRUPT|NOTADB|IOERR)/.test(code)) return error;
  const message = (error as Error | undefined)?.message ?? String(error);
  const reason =
    code === "ENOSPC" || code === "SQLITE_FULL" || /disk is full/i.test(message)
      ? "the disk is full"
      : code === "EACCES" || code === "EPERM"
        ? "permission denied"
        : code === "EROFS"
          ? "the file system is read-only"
          : code === "ENOENT"
            ? "its directory refused the file, or is gone"
            : message;
  return new Unavailable(`${file} could not be written (${reason}); nothing of it was left behind.`, "backup_failed");
}

/** `spyglass backup -`: the backup is written to standard output. */
export const TO_STDOUT = "-";

const STDOUT_PARTIAL = /^backup-to-stdout-[0-9a-f-]{36}\.partial(-journal)?$/;
// A copy being made is written to all along (VACUUM INTO, pg_dump), and taken out of the directory as
// soon as it is complete: one untouched for this long was left by a backup that was killed.
const STALE_PARTIAL_MS = 60 * 60 * 1000;

/**
 * Makes the backup with `write(partialPath)` in a private file of `directory` (the data directory:
 * its disk has room for a copy of the database, where /tmp may be memory), opens it, removes its
 * name, and copies it to standard output. Its name is random (another backup's, in another
 * container or on another machine sharing the directory, is never this one's), and a copy that a
 * killed backup left behind is removed by the next one once it is an hour old. Standard output
 * failing before the end (`| head`, a full disk) is an incomplete backup, and an error.
 */
export async function writeBackupToStdout(
  directory: string,
  write: (partial: string) => void | Promise<void>,
): Promise<{ file: typeof TO_STDOUT; bytes: number }> {
  if (process.stdout.isTTY) {
    throw new Invalid(
      "backup -: standard output is a terminal, where a copy of the database is unreadable: redirect it (spyglass backup - > FILE, or spyglass backup - | gzip > FILE.gz).",
      "stdout_terminal",
    );
  }
  if (isDevNull(1)) {
    throw new Invalid(
      "backup -: standard output is /dev/null (or was closed, which the runtime makes /dev/null), where the copy would be lost: redirect it to a file or a program (spyglass backup - > FILE).",
      "stdout_discarded",
    );
  }
  removeStalePartials(directory);
  const partial = join(directory, `backup-to-stdout-${crypto.randomUUID()}.partial`);
  closeSync(openSync(partial, "wx", 0o600));
  // A stop while the copy is made (handled once VACUUM INTO, which holds the process, returns)
  // removes it; a hang-up is what a dropped ssh connection sends.
  const stop = (signal: NodeJS.Signals) => {
    removePartial(partial);
    process.exit(128 + (signal === "SIGHUP" ? 1 : signal === "SIGINT" ? 2 : 15));
  };
  const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGHUP"];
  for (const signal of signals) process.once(signal, stop);
  let fd: number | null = null;
  try {
    try {
      await write(partial);
    } catch (error) {
      throw cannotWrite(`The copy for standard output, made in ${directory} first,`, error);
    }
    fd = openSync(partial, "r");
    rmSync(partial, { force: true });
    const bytes = fstatSync(fd).size;
    // The read stream owns the descriptor from here, and closes it.
    const reading = fd;
    fd = null;
    const failure = await copyToStdout(reading);
    if (failure) {
      throw new Unavailable(
        `backup -: standard output failed (${failure}) before the end of the copy: what was written is no usable backup.`,
        "backup_incomplete",
      );
    }
    return { file: TO_STDOUT, bytes };
  } finally {
    for (const signal of signals) process.off(signal, stop);
    if (fd !== null) closeSync(fd);
    removePartial(partial);
  }
}

/** Whether descriptor `fd` is /dev/null (the same character device), or not open at all. */
function isDevNull(fd: number): boolean {
  let out: ReturnType<typeof fstatSync>;
  try {
    out = fstatSync(fd);
  } catch {
    return true;
  }
  const nul = statSync("/dev/null", { throwIfNoEntry: false });
  return nul !== undefined && out.isCharacterDevice() && out.rdev === nul.rdev;
}

function removeStalePartials(directory: string): void {
  for (const name of readdirSync(directory)) {
    if (!STDOUT_PARTIAL.test(name)) continue;
    const path = join(directory, name);
    try {
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat?.isFile() && Date.now() - stat.mtimeMs > STALE_PARTIAL_MS) rmSync(path, { force: true });
    } catch {
      // Another user's (a shared temporary directory), or gone meanwhile: not this backup's concern.
    }
  }
}

/**
 * The file's bytes written to standard output, in chunks and at the reader's pace; why it failed
 * (EPIPE, ENOSPC…), or null. (Bun.write of the file to Bun.stdout gave up with EAGAIN on a pipe
 * whose reader was slower than the disk.)
 */
async function copyToStdout(fd: number): Promise<string | null> {
  let failure: string | null = null;
  const onError = (error: NodeJS.ErrnoException) => {
    failure ??= error.code ?? error.message;
  };
  process.stdout.on("error", onError);
  try {
    // The stream closes the descriptor at its end.
    for await (const chunk of createReadStream("", { fd, highWaterMark: 1 << 20 })) {
      if (failure) break;
      if (!process.stdout.write(chunk)) {
        await new Promise<void>((resolve) => {
          const resume = () => {
            process.stdout.off("drain", resume);
            process.stdout.off("error", resume);
            resolve();
          };
          process.stdout.on("drain", resume);
          process.stdout.on("error", resume);
        });
      }
    }
    // Everything handed on; the stream's error comes a task after the last write's callback.
    await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 0));
  } finally {
    process.stdout.off("error", onError);
  }
  return failure;
}
