// Online backup: `VACUUM INTO` reads a consistent snapshot through SQLite's normal locking, so it
// works while the server is writing (WAL readers never block the writer).
import { closeSync, existsSync, openSync, rmSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Conflict, Invalid } from "../errors";
import { type SqliteDb } from "./client";

export function backupDatabase(db: SqliteDb, target: string): { file: string; bytes: number } {
  const file = resolve(target);
  if (existsSync(file)) throw new Conflict(`${file} already exists; choose a new file name for the backup.`, "file_exists");
  if (!existsSync(dirname(file))) throw new Invalid(`${dirname(file)} does not exist; create the directory first.`, "no_directory");
  // Created empty and private first (VACUUM INTO accepts an empty file and keeps its mode): a backup
  // holds what the database holds. "wx" also closes the gap between the check above and the write.
  try {
    closeSync(openSync(file, "wx", 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new Conflict(`${file} already exists; choose a new file name for the backup.`, "file_exists");
    }
    throw error;
  }
  try {
    db.sqlite.query("VACUUM INTO ?").run(file);
  } catch (error) {
    rmSync(file, { force: true });
    throw error;
  }
  return { file, bytes: statSync(file).size };
}
