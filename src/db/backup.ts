// Online backup: `VACUUM INTO` reads a consistent snapshot through SQLite's normal locking, so it
// works while the server is writing (WAL readers never block the writer).
import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Conflict, Invalid } from "../errors";
import { type Db } from "./client";

export function backupDatabase(db: Db, target: string): { file: string; bytes: number } {
  const file = resolve(target);
  if (existsSync(file)) throw new Conflict(`${file} already exists; choose a new file name for the backup.`, "file_exists");
  if (!existsSync(dirname(file))) throw new Invalid(`${dirname(file)} does not exist; create the directory first.`, "no_directory");
  db.sqlite.query("VACUUM INTO ?").run(file);
  return { file, bytes: statSync(file).size };
}
