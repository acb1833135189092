// A server keeps checking that the database's schema is still its own: an upgrade whose `spyglass
// migrate` (or another instance's start) ran while this older server was up leaves it working on
// tables it does not know, which every command refuses at open (newerSchemaProblem) but a running
// server never looked at again. Found so, it logs why and stops, as it would have refused to start.
import { log } from "../log";
import { type Db } from "./client";
import { MIGRATION_JOURNAL, newerSchemaProblem } from "./migrations";
import { PG_MIGRATION_JOURNAL } from "./migrations-pg";

/** How often a server looks (one small indexed read). SPYGLASS_SCHEMA_CHECK_MS shortens it for tests. */
const CHECK_EVERY_MS = Number(process.env.SPYGLASS_SCHEMA_CHECK_MS ?? 60_000);

/** The refusal's sentence when the database's newest migration is later than this build's, else null. */
export async function newerSchemaNow(db: Db): Promise<string | null> {
  const row = await db.get<{ at: string | number | null }>({
    sqlite: "SELECT max(created_at) AS at FROM __drizzle_migrations",
    postgres: "SELECT max(created_at)::text AS at FROM drizzle.__drizzle_migrations",
  });
  const at = row?.at == null ? null : Number(row.at);
  return newerSchemaProblem(db.path, at, db.dialect === "sqlite" ? MIGRATION_JOURNAL : PG_MIGRATION_JOURNAL);
}

/** Checks every CHECK_EVERY_MS; calls `stop` once with the sentence when the schema is newer. A failed read is let pass (the next one tries again). */
export function watchSchema(db: Db, stop: (problem: string) => void): { stop(): void } {
  let stopped = false;
  const timer = setInterval(async () => {
    if (stopped) return;
    let problem: string | null = null;
    try {
      problem = await newerSchemaNow(db);
    } catch {
      return;
    }
    if (problem === null || stopped) return;
    stopped = true;
    clearInterval(timer);
    log.error("the database's schema changed under this server: it stops", { problem });
    stop(problem);
  }, CHECK_EVERY_MS);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}
