// Online backup: `VACUUM INTO` reads a consistent snapshot through SQLite's normal locking, so it
// works while the server is writing (WAL readers never block the writer).
import { writeBackup } from "./backup-file";
import { type SqliteDb } from "./client";

export function backupDatabase(db: SqliteDb, target: string): Promise<{ file: string; bytes: number }> {
  return writeBackup(target, (partial) => {
    db.sqlite.query("VACUUM INTO ?").run(partial);
  });
}
