// The one way feature code reaches the database once it is asynchronous (issue 21): the same calls
// on SQLite (bun:sqlite, one connection) and on PostgreSQL (a pool). Features move to it one by one;
// until every feature has, `Db` (client.ts) still exposes the synchronous `sqlite` handle beside it.
//
// Rules for code written against it:
// - Every call is awaited; drizzle builders are awaited (`await orm.select()…`), never `.all()`,
//   `.get()` or `.run()`, which exist on SQLite only.
// - Every write runs inside `transaction`, even a single statement: on SQLite the transaction also
//   serializes writers on the one connection, so that an awaited statement of one request never
//   lands inside another request's open transaction.
// - Raw SQL (where the builder cannot say it) uses `?` placeholders; where the dialects' texts
//   differ, both sit side by side in the owning feature as `{ sqlite, postgres }`.

/** A raw statement: one text for both dialects, or one text each. */
export type SqlText = string | { sqlite: string; postgres: string };

export type SqlParam = string | number | bigint | boolean | null | Uint8Array;

export type Dialect = "sqlite" | "postgres";

export interface SqlRunner {
  /** Every row, as objects keyed by column name. */
  all<Row>(text: SqlText, params?: readonly SqlParam[]): Promise<Row[]>;
  /** The first row, or undefined. */
  get<Row>(text: SqlText, params?: readonly SqlParam[]): Promise<Row | undefined>;
  /** A statement without rows: how many rows it changed. */
  run(text: SqlText, params?: readonly SqlParam[]): Promise<{ changes: number }>;
}

/** The dialect's text of a raw statement. */
export function textFor(dialect: Dialect, text: SqlText): string {
  return typeof text === "string" ? text : text[dialect];
}
