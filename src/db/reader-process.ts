// The reader process's side (see reader.ts): the executable again, started by a serving Spyglass with
// READER_ENV set (entry.ts runs runReaderProcess then, and loads nothing of the CLI). Its own
// connection to the database file, read-only by pragma, answers each scan sent over the IPC channel
// with its rows. A statement reads one snapshot: the last commit before it began, as on the serving
// connection. The server stops it with SIGKILL (idle, closing, or failed); if the server is gone
// first, the channel closes and it exits.
import { Database, type Statement } from "bun:sqlite";
import { type SqlParam } from "./queries";

/** The environment variable that makes the executable a reader process ("1"). */
export const READER_ENV = "SPYGLASS_READER_PROCESS";

/**
 * A statement as sent: its parameters as JSON carries them, the BLOBs (base64) and bigints (decimal
 * text) among them named by their places.
 */
export interface WireStatement {
  sql: string;
  params: Array<Exclude<SqlParam, Uint8Array | bigint>>;
  blobs?: number[];
  bigints?: number[];
}

/** A scan: its statements' rows, read in one snapshot (a read transaction when there are several). */
export type ReaderRequest = { type: "open"; path: string } | { type: "scan"; id: number; statements: WireStatement[] };

export type ReaderAnswer =
  | { type: "opened" }
  | { type: "failed"; message: string }
  | { type: "rows"; id: number; rows: unknown[][]; blobs?: BlobAt[] }
  | { type: "error"; id: number; message: string; code?: string };

/**
 * A BLOB value among the rows, which JSON cannot carry: [statement, row, column], its place, where
 * its bytes travel as base64 text (reader.ts puts them back). Analytics read none; scan() is general.
 */
export type BlobAt = [number, number, string];

/** Prepared statements kept per SQL text, up to this many (then all are finalized and kept anew). */
const KEPT_STATEMENTS = 200;

export function runReaderProcess(): void {
  const send = process.send?.bind(process);
  if (send === undefined) {
    // Run by hand: there is no server to answer.
    process.stderr.write(`${READER_ENV} is set by a serving Spyglass for its reader process; unset it to use the CLI.\n`);
    process.exit(2);
  }
  const answer = (message: ReaderAnswer) => send(message);
  let db: Database | null = null;
  const statements = new Map<string, Statement>();
  const prepared = (sql: string): Statement => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      if (statements.size >= KEPT_STATEMENTS) {
        for (const kept of statements.values()) kept.finalize();
        statements.clear();
      }
      statement = db!.prepare(sql);
      statements.set(sql, statement);
    }
    return statement;
  };

  // Gone with the server: when the channel closes, whatever closed it. The signals that stop a server
  // (Ctrl-C in a terminal, a service manager's stop) reach this process too, as one of its group: it
  // stays until the server, stopping gracefully, is done with it (reader.ts stops it with SIGKILL).
  process.on("disconnect", () => process.exit(0));
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => {});
  process.on("message", (data: ReaderRequest) => {
    if (data.type === "open") {
      try {
        db = new Database(data.path, { readwrite: true, create: false, strict: true });
        db.exec("PRAGMA busy_timeout = 5000");
        // This connection only reads: a write sent here by mistake fails instead of taking the lock.
        db.exec("PRAGMA query_only = ON");
        db.exec("PRAGMA temp_store = MEMORY");
        // The serving connection's page cache size; the process's idle stop frees it.
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
      const rows = data.statements.map((statement) => prepared(statement.sql).all(...parameters(statement)) as unknown[]);
      if (together) db.exec("COMMIT");
      const blobs = encodeBlobs(rows);
      answer(blobs.length > 0 ? { type: "rows", id: data.id, rows, blobs } : { type: "rows", id: data.id, rows });
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
  });
}

/** Replaces each BLOB value of the rows by its base64 text, and says where they were. */
function encodeBlobs(statements: unknown[][]): BlobAt[] {
  const blobs: BlobAt[] = [];
  for (const [s, rows] of statements.entries()) {
    for (const [r, row] of rows.entries()) {
      const values = row as Record<string, unknown>;
      for (const column in values) {
        const value = values[column];
        if (value instanceof Uint8Array) {
          values[column] = textOf(value);
          blobs.push([s, r, column]);
        }
      }
    }
  }
  return blobs;
}

/** A statement's parameters as the server gave them (reader.ts's onTheWire, undone). */
function parameters({ params, blobs, bigints }: WireStatement): SqlParam[] {
  const values: SqlParam[] = [...params];
  for (const i of blobs ?? []) values[i] = blobOf(params[i] as string);
  for (const i of bigints ?? []) values[i] = BigInt(params[i] as string);
  return values;
}

/** A BLOB as JSON carries it, both ways (parameters to the reader, rows from it): base64 text. */
export function textOf(blob: Uint8Array): string {
  return Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength).toString("base64");
}

export function blobOf(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, "base64"));
}
