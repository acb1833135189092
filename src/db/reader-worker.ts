// The reader thread's side (see reader.ts): its own connection to the database file, read-only by
// pragma, answering each statement it is sent with its rows. A statement reads one snapshot: the last
// commit before it began, as on the serving connection.
import { Database, type Statement } from "bun:sqlite";
import { type SqlParam } from "./queries";

declare const self: Worker;

/** A scan: its statements' rows, read in one snapshot (a read transaction when there are several). */
export type ReaderRequest =
  | { type: "open"; path: string }
  | { type: "scan"; id: number; statements: Array<{ sql: string; params: SqlParam[] }> };

export type ReaderAnswer =
  | { type: "opened" }
  | { type: "failed"; message: string }
  | { type: "rows"; id: number; rows: unknown[][] }
  | { type: "error"; id: number; message: string; code?: string };

let db: Database | null = null;
const statements = new Map<string, Statement>();

const answer = (message: ReaderAnswer) => postMessage(message);

self.onmessage = ({ data }: MessageEvent<ReaderRequest>) => {
  if (data.type === "open") {
    try {
      db = new Database(data.path, { readwrite: true, create: false, strict: true });
      db.exec("PRAGMA busy_timeout = 5000");
      // This connection only reads: a write sent here by mistake fails instead of taking the lock.
      db.exec("PRAGMA query_only = ON");
      db.exec("PRAGMA temp_store = MEMORY");
      // The serving connection's page cache size; the thread's idle stop frees it.
      db.exec("PRAGMA cache_size = -32000");
      answer({ type: "opened" });
    } catch (error) {
      answer({ type: "failed", message: (error as Error)?.message ?? String(error) });
    }
    return;
  }
  if (data.type !== "scan" || db === null) return;
  const together = data.statements.length > 1;
  try {
    if (together) db.exec("BEGIN");
    const rows = data.statements.map(({ sql, params }) => prepared(db!, sql).all(...params) as unknown[]);
    if (together) db.exec("COMMIT");
    answer({ type: "rows", id: data.id, rows });
  } catch (error) {
    if (db.inTransaction) db.exec("ROLLBACK");
    const code = (error as { code?: unknown }).code;
    answer({
      type: "error",
      id: data.id,
      message: (error as Error)?.message ?? String(error),
      code: typeof code === "string" ? code : undefined,
    });
  }
};

function prepared(db: Database, sql: string): Statement {
  let statement = statements.get(sql);
  if (statement === undefined) {
    if (statements.size >= 200) {
      for (const kept of statements.values()) kept.finalize();
      statements.clear();
    }
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
}
