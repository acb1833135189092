// Every row of one brand, deleted without holding the server: a year of a large brand is a few
// million rows (answers, what hangs on them, the daily sums), and one `DELETE FROM brands` cascading
// through them all held the serving thread for seconds. Each table that keys its rows by brand (an
// index or primary key led by brand_id) is emptied in slices of a few milliseconds, children before
// parents (so that no delete cascades into a large table), yielding between slices. The brand's
// credentials (API keys, OAuth grants and codes) go first, so that they stop working before anything
// else, then the small tables without such an index (queued tasks), in one statement each. The
// brand's own row goes last, its cascade finding nothing left. A parent's delete seeks its children
// by an index on their foreign key (every one has one: test/db/schema-parity.test.ts). The database
// knows every table; no feature names another's.

import { is } from "drizzle-orm";
import { getTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import { type Db } from "./client";
import { tablesInDependencyOrder } from "./move";
import * as schema from "./schema";
import { nextSliceSize } from "./slices";

/** A slice's target time, and the rows a slice starts with (it adapts to keep near the target). */
const SLICE_MS = 8;
const FIRST_SLICE_ROWS = 200;
const MAX_SLICE_ROWS = 20_000;

interface BrandTable {
  name: string;
  /** Whether an index or the primary key leads with brand_id, so that a slice reads only the brand's rows. */
  brandLed: boolean;
}

/** What lets a client act for a brand: its API keys, OAuth grants (with their tokens) and codes. */
const CREDENTIALS = new Set(["api_keys", "oauth_grants", "oauth_codes"]);

let tables: BrandTable[] | null = null;

/** The tables with a brand_id column, children before parents; `brands` itself is not among them. */
export function brandTables(): BrandTable[] {
  if (tables) return tables;
  const configs = new Map<string, ReturnType<typeof getTableConfig>>();
  for (const value of Object.values(schema)) if (is(value, SQLiteTable)) configs.set(getTableConfig(value).name, getTableConfig(value));
  const leads = (columns: ReadonlyArray<{ name: string }>) => columns[0]?.name === "brand_id";
  // move.ts's order has parents first (the order rows can be inserted in): reversed, children first.
  const ordered = tablesInDependencyOrder()
    .reverse()
    .filter((shape) => shape.columns.includes("brand_id"))
    .map(({ name }): BrandTable => {
      const config = configs.get(name)!;
      return {
        name,
        brandLed:
          config.columns.some((c) => c.primary && c.name === "brand_id") ||
          config.primaryKeys.some((pk) => leads(pk.columns)) ||
          config.indexes.some((index) => leads(index.config.columns as Array<{ name: string }>)),
      };
    });
  // The brand's credentials first, so that they stop working before anything else goes.
  const credentials = [...CREDENTIALS].flatMap((name) => ordered.filter((t) => t.name === name));
  const rest = ordered.filter((t) => !CREDENTIALS.has(t.name));
  tables = [...credentials, ...rest.filter((t) => !t.brandLed), ...rest.filter((t) => t.brandLed)];
  return tables;
}

export interface DeleteProgress {
  /** Called after each statement, with its table, the rows it deleted and its time (tests and benches). */
  onSlice?(table: string, rows: number, ms: number): void;
}

/**
 * Deletes the brand's rows from every table, then the brand's row; resolves to the rows deleted per
 * table (the brand's own row not counted). The caller makes sure nothing writes to the brand meanwhile.
 */
export async function deleteBrandRows(db: Db, brandId: string, progress: DeleteProgress = {}): Promise<Map<string, number>> {
  const deleted = new Map<string, number>();
  // A row's address in its table: SQLite's rowid, PostgreSQL's ctid.
  const address = db.dialect === "sqlite" ? "rowid" : "ctid";
  for (const table of brandTables()) {
    let rows = FIRST_SLICE_ROWS;
    let total = 0;
    if (!table.brandLed || CREDENTIALS.has(table.name)) {
      const started = performance.now();
      total = await db.run(`DELETE FROM "${table.name}" WHERE brand_id = ?`, [brandId]);
      progress.onSlice?.(table.name, total, performance.now() - started);
    } else {
      for (;;) {
        const started = performance.now();
        const n = await db.run(
          `DELETE FROM "${table.name}" WHERE ${address} IN (SELECT ${address} FROM "${table.name}" WHERE brand_id = ? LIMIT ?)`,
          [brandId, rows],
        );
        const ms = performance.now() - started;
        total += n;
        progress.onSlice?.(table.name, n, ms);
        if (n < rows) break;
        rows = nextSliceSize(n, ms, { size: rows, targetMs: SLICE_MS, min: 50, max: MAX_SLICE_ROWS });
        await db.betweenSlices();
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
    if (total > 0) deleted.set(table.name, total);
  }
  await db.run("DELETE FROM brands WHERE id = ?", [brandId]);
  return deleted;
}
