// Where a backup is written: FILE.partial (private, 0600) while it is made, then linked to FILE in
// one step. A backup cut short (a signal, a full disk, a pg_dump that failed) leaves no FILE that
// looks like a backup: an empty FILE and its journal were left by a backup stopped a quarter of a
// second in, and the next attempt refused to overwrite it.
import { closeSync, createReadStream, existsSync, linkSync, openSync, readdirSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { Conflict, Invalid, Unavailable } from "../errors";

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
  // A partial file of an earlier backup that was stopped is this backup's to replace.
  rmSync(partial, { force: true });
  // Created empty and private first (VACUUM INTO and pg_dump keep the mode): a backup holds what the database holds.
  closeSync(openSync(partial, "wx", 0o600));
  try {
    await write(partial);
    // link, not rename: it fails rather than replace a FILE made meanwhile.
    linkSync(partial, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw exists(file);
    throw error;
  } finally {
    rmSync(partial, { force: true });
  }
  return { file, bytes: statSync(file).size };
}

/** `spyglass backup -`: the backup is written to standard output. */
export const TO_STDOUT = "-";

const STDOUT_PARTIAL = /^backup-to-stdout-(\d+)\.partial$/;

/**
 * Makes the backup with `write(partialPath)` in a private file of `directory` (the data directory:
 * its disk has room for a copy of the database, where /tmp may be memory), copies it to standard
 * output, and removes it. A stopped backup's file is removed by the next one (its process is gone).
 * Standard output closed before the end (`| head`, a full disk) is an incomplete backup, and an error.
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
  for (const name of readdirSync(directory)) {
    const pid = STDOUT_PARTIAL.exec(name)?.[1];
    if (pid !== undefined && !isRunning(Number(pid))) rmSync(join(directory, name), { force: true });
  }
  const partial = join(directory, `backup-to-stdout-${process.pid}.partial`);
  rmSync(partial, { force: true });
  closeSync(openSync(partial, "wx", 0o600));
  // A signal after the copy was made (VACUUM INTO holds the process until it is done) removes it.
  const stop = (signal: NodeJS.Signals) => {
    rmSync(partial, { force: true });
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await write(partial);
    const bytes = statSync(partial).size;
    const failure = await copyToStdout(partial);
    if (failure) {
      throw new Unavailable(
        `backup -: standard output failed (${failure}) before the end of the copy: what was written is no usable backup.`,
        "backup_incomplete",
      );
    }
    return { file: TO_STDOUT, bytes };
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
    rmSync(partial, { force: true });
  }
}

/**
 * The file's bytes written to standard output, in chunks and at the reader's pace; why it failed
 * (EPIPE, ENOSPC…), or null. (Bun.write of the file to Bun.stdout gave up with EAGAIN on a pipe
 * whose reader was slower than the disk.)
 */
async function copyToStdout(path: string): Promise<string | null> {
  let failure: string | null = null;
  const onError = (error: NodeJS.ErrnoException) => {
    failure ??= error.code ?? error.message;
  };
  process.stdout.on("error", onError);
  try {
    for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) {
      if (failure) break;
      if (!process.stdout.write(chunk)) {
        await new Promise((resolve) => {
          process.stdout.once("drain", resolve);
          process.stdout.once("error", resolve);
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

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
