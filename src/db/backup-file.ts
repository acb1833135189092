// Where a backup is written: FILE.partial (private, 0600) while it is made, then linked to FILE in
// one step. A backup cut short (a signal, a full disk, a pg_dump that failed) leaves no FILE that
// looks like a backup: an empty FILE and its journal were left by a backup stopped a quarter of a
// second in, and the next attempt refused to overwrite it.
import { closeSync, existsSync, linkSync, openSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Conflict, Invalid } from "../errors";

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
