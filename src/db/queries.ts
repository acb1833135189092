// The data access every feature uses, the same on both databases (SQLite in the data directory, or
// PostgreSQL when SPYGLASS_DATABASE_URL is set): asynchronous reads and writes of SQL text with
// positional parameters, and transactions. A feature writes one portable text where it can; where the
// dialects differ (JSON functions, INDEXED BY, upserts with dialect-only syntax), it gives both texts
// side by side, `{ sqlite, postgres }`, in the owning feature.
//
// Placeholders are SQLite's: `?` (numbered in order) or `?N` (the N-th parameter); the PostgreSQL
// connection rewrites them to `$N`. Rows come back with the same JavaScript types on both: integers
// (64-bit ones included, such as millisecond timestamps) and sums as numbers, text as strings.

export type Dialect = "sqlite" | "postgres";

export type SqlParam = string | number | bigint | boolean | null | Uint8Array;

/** One text for both databases, or each database's own. */
export type SqlText = string | { readonly sqlite: string; readonly postgres: string };

export interface Queries {
  readonly dialect: Dialect;
  /** Every row of a query. */
  all<T>(text: SqlText, params?: readonly SqlParam[]): Promise<T[]>;
  /**
   * Every row of a read that may take long: a ranking summed from thousands of prompts' days. On
   * SQLite, outside a transaction, it runs in the reader process, with its own connection (reader.ts), so
   * that the serving thread answers other requests meanwhile; same rows as `all`. On PostgreSQL, `all`.
   */
  scan<T>(text: SqlText, params?: readonly SqlParam[]): Promise<T[]>;
  /**
   * Several scans whose figures are read together (a count and the rows it is the denominator of):
   * each statement's rows, in order. On SQLite they read one snapshot (one read transaction on the
   * reader process). On PostgreSQL, one after another, as `all` (READ COMMITTED, as every call there).
   */
  scanTogether(statements: ReadonlyArray<{ text: SqlText; params?: readonly SqlParam[] }>): Promise<unknown[][]>;
  /** The first row of a query, or undefined. */
  get<T>(text: SqlText, params?: readonly SqlParam[]): Promise<T | undefined>;
  /** A statement; resolves to the number of rows it changed. */
  run(text: SqlText, params?: readonly SqlParam[]): Promise<number>;
  /**
   * Runs `fn` in one transaction with the write lock taken at its start (SQLite's BEGIN IMMEDIATE;
   * on PostgreSQL a transaction on one pooled connection), committed when `fn` resolves and rolled
   * back when it throws. Inside, use the connection `fn` is handed. A transaction opened inside
   * another joins it. `fn` must not wait on anything but the database: on SQLite every other query
   * of the process waits for the transaction to end.
   */
  transaction<T>(fn: (tx: Queries) => Promise<T>): Promise<T>;
  /**
   * Inside a transaction: waits until no other transaction holds `name`, and holds it until this one
   * ends. For a read-then-write that must see every earlier writer's result (the first account, a
   * limit, a name taken): SQLite's BEGIN IMMEDIATE already serialises every writer, so there it does
   * nothing; PostgreSQL's READ COMMITTED does not, so there it takes a transaction-level advisory lock.
   */
  lock(name: string): Promise<void>;
}

/**
 * Each statement's rows, read one after another on `queries` (scanTogether where the statements need
 * no reader of their own: inside a transaction, on PostgreSQL, and the reader process's fallback).
 */
export async function allInTurn(
  queries: Pick<Queries, "all">,
  statements: ReadonlyArray<{ text: SqlText; params?: readonly SqlParam[] }>,
): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  for (const { text, params } of statements) rows.push(await queries.all(text, params));
  return rows;
}

/** The text of `text` for a dialect. */
export function textFor(text: SqlText, dialect: Dialect): string {
  return typeof text === "string" ? text : text[dialect];
}

const PLACEHOLDER = /'(?:[^']|'')*'|"(?:[^"]|"")*"|\?(\d*)/g;

/**
 * SQLite placeholders (`?`, `?N`) as PostgreSQL's (`$N`); string literals and quoted names are left
 * alone. A bare `?` takes the number after the largest one seen so far, as SQLite numbers them.
 */
export function toPostgresPlaceholders(text: string): string {
  let next = 0;
  return text.replace(PLACEHOLDER, (match, digits: string | undefined) => {
    if (digits === undefined) return match;
    if (digits === "") return `$${++next}`;
    const n = Number(digits);
    next = Math.max(next, n);
    return `$${n}`;
  });
}

/** A list of `n` placeholders, for `IN (…)`: `?, ?, ?`. */
export function placeholders(n: number): string {
  return n === 0 ? "NULL" : Array.from({ length: n }, () => "?").join(", ");
}
