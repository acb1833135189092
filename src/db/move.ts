// `spyglass migrate-to-postgres`: copies an instance's SQLite database into an empty, migrated
// PostgreSQL database, table by table in foreign-key order, in one transaction on the target (a
// failure leaves it empty), then proves the copy: per table, the row count and an order-independent
// checksum of every row, read back from both databases, must be equal.
import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { Conflict, Unavailable } from "../errors";
import { type Queries, type SqlParam } from "./queries";
import * as schema from "./schema";

/** Tables the target fills itself, by triggers on another table (migration 0006): verified, not copied. */
const FILLED_BY_TRIGGERS = new Set(["answer_source_engine_days"]);

/**
 * Columns the target computes itself, by triggers: copied, then rewritten there in its own JSON
 * spelling (`["a", "b"]`) and order when the rows they are made from are copied (prompts.tag_names,
 * from prompt_tags and tags: PostgreSQL 0005), or given a value of its own (prompts.version, at every
 * insert: PostgreSQL 0014). Left out of the checksums; what they are made from is in them.
 */
const DERIVED_COLUMNS: Record<string, readonly string[]> = { prompts: ["tag_names", "version"] };

const checkedColumns = (table: TableShape): string[] => table.columns.filter((column) => !DERIVED_COLUMNS[table.name]?.includes(column));

/** Rows read from the source per page (bounded memory whatever the database's size). */
const PAGE_ROWS = 2_000;
/** PostgreSQL takes at most 65,535 parameters per statement. */
const MAX_PARAMS = 30_000;

export interface TableCopy {
  table: string;
  rows: number;
  /** The sum of the rows' hashes, mod 2^64, in hex: equal on both sides or the move fails. */
  checksum: string;
  copied: boolean;
}

export interface MoveReport {
  tables: TableCopy[];
  rows: number;
}

interface TableShape {
  name: string;
  columns: string[];
  /** Its primary key's columns. */
  key: string[];
  /** An integer `id` key (an identity column on PostgreSQL, whose sequence must pass the copied ids). */
  integerId: boolean;
  /** Tables whose rows this one's foreign keys point at. */
  parents: string[];
}

/** Every table of the schema, parents before children (the order rows can be inserted in). */
export function tablesInDependencyOrder(): TableShape[] {
  const shapes = new Map<string, TableShape>();
  for (const value of Object.values(schema)) {
    if (!is(value, SQLiteTable)) continue;
    const config = getTableConfig(value);
    shapes.set(config.name, {
      name: config.name,
      columns: config.columns.map((c) => c.name),
      integerId: config.columns.some((c) => c.name === "id" && c.primary && c.columnType === "SQLiteInteger"),
      key: config.primaryKeys[0]?.columns.map((c) => c.name) ?? config.columns.filter((c) => c.primary).map((c) => c.name),
      parents: config.foreignKeys.map((fk) => getTableConfig(fk.reference().foreignTable).name).filter((n) => n !== config.name),
    });
  }
  const ordered: TableShape[] = [];
  const placed = new Set<string>();
  const visit = (name: string, path: Set<string>) => {
    if (placed.has(name)) return;
    if (path.has(name)) throw new Error(`foreign keys form a cycle through ${name}`);
    const shape = shapes.get(name);
    if (!shape) return;
    path.add(name);
    for (const parent of shape.parents) visit(parent, path);
    path.delete(name);
    placed.add(name);
    ordered.push(shape);
  };
  for (const name of [...shapes.keys()].sort()) visit(name, new Set());
  return ordered;
}

const quote = (name: string) => `"${name}"`;

/** Pages of a table's rows in a stable order (its rowid on SQLite), `PAGE_ROWS` at a time. */
async function* sqlitePages(source: Queries, table: TableShape): AsyncGenerator<Record<string, SqlParam>[]> {
  const columns = table.columns.map(quote).join(", ");
  let after = Number.MIN_SAFE_INTEGER;
  for (;;) {
    const rows = await source.all<Record<string, SqlParam> & { _rowid: number }>(
      `SELECT rowid AS _rowid, ${columns} FROM ${quote(table.name)} WHERE rowid > ? ORDER BY rowid LIMIT ?`,
      [after, PAGE_ROWS],
    );
    if (rows.length === 0) return;
    after = rows[rows.length - 1]!._rowid;
    yield rows;
  }
}

/**
 * Pages of a table's rows on any database, by its primary key (a row-value comparison, the same on
 * both): only the checksum reads these, and it does not depend on their order.
 */
async function* keyPages(db: Queries, table: TableShape): AsyncGenerator<Record<string, SqlParam>[]> {
  if (table.key.length === 0) throw new Error(`table ${table.name} has no primary key`);
  const columns = table.columns.map(quote).join(", ");
  const key = `(${table.key.map(quote).join(", ")})`;
  const order = table.key.map(quote).join(", ");
  let after: SqlParam[] | null = null;
  for (;;) {
    const where: string = after ? `WHERE ${key} > (${table.key.map(() => "?").join(", ")})` : "";
    const rows: Record<string, SqlParam>[] = await db.all<Record<string, SqlParam>>(
      `SELECT ${columns} FROM ${quote(table.name)} ${where} ORDER BY ${order} LIMIT ${PAGE_ROWS}`,
      after ?? [],
    );
    if (rows.length === 0) return;
    const last = rows[rows.length - 1]!;
    after = table.key.map((c) => last[c] ?? null);
    yield rows;
  }
}

const MASK = (1n << 64n) - 1n;

/** The first 8 bytes of the SHA-256 of the row's values in column order, as a number mod 2^64. */
function rowHash(row: Record<string, SqlParam>, columns: readonly string[]): bigint {
  const values = columns.map((c) => {
    const v = row[c];
    return typeof v === "bigint" ? Number(v) : v === undefined ? null : v;
  });
  const digest = new Bun.CryptoHasher("sha256").update(JSON.stringify(values)).digest();
  return digest.readBigUInt64BE(0);
}

async function tally(
  pages: AsyncGenerator<Record<string, SqlParam>[]>,
  columns: readonly string[],
): Promise<{ rows: number; sum: bigint }> {
  let rows = 0;
  let sum = 0n;
  for await (const page of pages) {
    for (const row of page) sum = (sum + rowHash(row, columns)) & MASK;
    rows += page.length;
  }
  return { rows, sum };
}

export interface MoveOptions {
  /** Told each table as it is copied (the CLI prints it). */
  onTable?: (table: string, rows: number) => void;
}

/**
 * Copies every row of `source` (an SQLite instance's database) into `target` (a migrated, empty
 * PostgreSQL database) and verifies the copy. Refuses a target that holds any row.
 */
export async function moveToPostgres(source: Queries, target: Queries, options: MoveOptions = {}): Promise<MoveReport> {
  if (source.dialect !== "sqlite" || target.dialect !== "postgres") {
    throw new Error("moveToPostgres copies an SQLite database into a PostgreSQL one");
  }
  const tables = tablesInDependencyOrder();
  for (const table of tables) {
    const any = await target.get(`SELECT 1 AS x FROM ${quote(table.name)} LIMIT 1`);
    if (any) {
      throw new Conflict(
        `The PostgreSQL database is not empty (table ${table.name} has rows): give an empty database, so that nothing in it is mixed with or overwritten by the copy.`,
        "target_not_empty",
      );
    }
  }
  await target.transaction(async (tx) => {
    for (const table of tables) {
      if (FILLED_BY_TRIGGERS.has(table.name)) continue;
      const columns = table.columns.map(quote).join(", ");
      const perStatement = Math.max(1, Math.floor(MAX_PARAMS / table.columns.length));
      let copied = 0;
      for await (const page of sqlitePages(source, table)) {
        for (let i = 0; i < page.length; i += perStatement) {
          const chunk = page.slice(i, i + perStatement);
          const row = `(${table.columns.map(() => "?").join(", ")})`;
          await tx.run(
            `INSERT INTO ${quote(table.name)} (${columns}) VALUES ${chunk.map(() => row).join(", ")}`,
            chunk.flatMap((r) => table.columns.map((c) => r[c] ?? null)),
          );
        }
        copied += page.length;
      }
      options.onTable?.(table.name, copied);
      // Identity columns go on from the largest id copied, or the next insert would collide with it.
      if (table.integerId && copied > 0) {
        await tx.get(`SELECT setval(pg_get_serial_sequence(?, 'id'), (SELECT max(id) FROM ${quote(table.name)})) AS id`, [table.name]);
      }
    }
  });
  // At once rather than when autovacuum comes round (measured at the demo's 60×, 432,000 answers):
  // - the planner's statistics of the copied rows (ANALYZE): without them PostgreSQL took a period's
  //   216,000 answers for ~15 rows, and a content gaps call read them all for its 20 prompts (92 ms)
  //   instead of seeking those prompts' answers by index (6 ms);
  // - the dead versions the triggers left in the rollups they keep (VACUUM): each copied source
  //   updated its day's row of answer_source_engine_days, whose 180 rows of the period then sat
  //   among 12,600 pages for the overview's retrieval read (8 ms).
  await target.run("VACUUM ANALYZE");
  return verifyCopy(source, target);
}

/**
 * Reads every table of both databases and compares its row count and checksum; throws naming the
 * first table that differs.
 */
export async function verifyCopy(source: Queries, target: Queries): Promise<MoveReport> {
  const report: TableCopy[] = [];
  for (const table of tablesInDependencyOrder()) {
    const from = await tally(sqlitePages(source, table), checkedColumns(table));
    const to = await tally(keyPages(target, table), checkedColumns(table));
    if (from.rows !== to.rows || from.sum !== to.sum) {
      throw new Unavailable(
        `The copy of table ${table.name} does not match the source (${from.rows} rows, checksum ${hex(from.sum)}; copied ${to.rows}, checksum ${hex(to.sum)}): the PostgreSQL database holds the copy for inspection; empty it before trying again.`,
        "copy_mismatch",
      );
    }
    report.push({ table: table.name, rows: from.rows, checksum: hex(from.sum), copied: !FILLED_BY_TRIGGERS.has(table.name) });
  }
  return { tables: report, rows: report.reduce((n, t) => n + t.rows, 0) };
}

function hex(n: bigint): string {
  return n.toString(16).padStart(16, "0");
}
