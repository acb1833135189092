// Online backup: `VACUUM INTO` reads a consistent snapshot through SQLite's normal locking, so it
// works while the server is writing (WAL readers never block the writer).
import { dirname } from "node:path";
import { TO_STDOUT, writeBackup, writeBackupToStdout } from "./backup-file";
import { type SqliteDb } from "./client";

/** The backup in `target`, or on standard output for "-". */
export function backupDatabase(db: SqliteDb, target: string): Promise<{ file: string; bytes: number }> {
  const write = (partial: string) => {
    db.sqlite.query("VACUUM INTO ?").run(partial);
  };
  return target === TO_STDOUT ? writeBackupToStdout(dirname(db.path), write) : writeBackup(target, write);
}
