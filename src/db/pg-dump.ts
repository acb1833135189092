// `spyglass backup FILE` for an instance on PostgreSQL: PostgreSQL's own pg_dump (custom format,
// consistent while the instances write, restored with pg_restore) into a new private file. The
// password goes to pg_dump in its environment, never on its command line (`ps` shows that).
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { Unavailable } from "../errors";
import { TO_STDOUT, writeBackup, writeBackupToStdout } from "./backup-file";

/** The dump in `target`, or on standard output for "-" (made first in `directory`, or the system's temporary directory). */
export async function dumpPostgres(
  url: string,
  target: string,
  directory: string,
): Promise<{ file: string; bytes: number; restore: string }> {
  const pgDump = Bun.which("pg_dump");
  if (pgDump === null) {
    throw new Unavailable(
      "This instance keeps its data in PostgreSQL, whose backups are made by pg_dump, which is not installed here: install PostgreSQL's client programs (Debian: apt install postgresql-client), or run `pg_dump --format=custom --file FILE` against the database from a machine that has them.",
      "pg_dump_missing",
    );
  }
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = "";
  const dump = async (partial: string) => {
    const child = Bun.spawn([pgDump, "--format=custom", "--no-owner", `--file=${partial}`, `--dbname=${parsed.toString()}`], {
      env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
      stdout: "ignore",
      stderr: "pipe",
    });
    const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
    if (code !== 0) throw new Unavailable(`pg_dump failed (exit ${code}): ${stderr.trim().split("\n")[0] ?? ""}`, "pg_dump_failed");
  };
  const written =
    target === TO_STDOUT ? await writeBackupToStdout(existsSync(directory) ? directory : tmpdir(), dump) : await writeBackup(target, dump);
  return {
    ...written,
    restore: `pg_restore --no-owner --dbname=<an empty database> ${written.file === TO_STDOUT ? "FILE" : written.file}`,
  };
}
