// schema-pg.ts is schema.ts for PostgreSQL, kept equal by this test: the same tables, columns (with
// their types mapped, nullability, defaults, keys), indexes and foreign keys, read from both with
// drizzle's getTableConfig. A change to one schema without the other fails here.
import { describe, expect, test } from "bun:test";
import { is, SQL } from "drizzle-orm";
import { PgTable, getTableConfig as pgConfig } from "drizzle-orm/pg-core";
import { SQLiteTable, getTableConfig as sqliteConfig } from "drizzle-orm/sqlite-core";
import * as lite from "../../src/db/schema";
import * as pg from "../../src/db/schema-pg";

function tables<T>(module: Record<string, unknown>, kind: new (...args: never[]) => T): Map<string, T> {
  return new Map(Object.entries(module).filter((entry): entry is [string, T] => is(entry[1], kind as never)));
}
const liteTables = tables(lite, SQLiteTable);
const pgTables = tables(pg, PgTable);

/** A default as comparable text: false/true are 0/1 on both (booleans are integers), SQL its text. */
function defaultText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "boolean") return value ? "1" : "0";
  if (is(value, SQL)) return value.queryChunks.map((chunk) => ((chunk as { value?: string[] }).value ?? []).join("")).join("");
  return String(value);
}

/**
 * The PostgreSQL type a SQLite column maps to: integer epoch milliseconds, answer ids and prompts'
 * versions are bigint (PostgreSQL's integer is 32-bit), other integers stay integer (booleans
 * included), REAL is double precision, text stays text (JSON included).
 */
function pgTypeOf(table: string, column: { name: string; getSQLType(): string }): string {
  const type = column.getSQLType();
  if (type === "real") return "double precision";
  if (
    type === "integer" &&
    (column.name.endsWith("_at") ||
      column.name.endsWith("_until") ||
      column.name === "answer_id" ||
      (table === "prompts" && column.name === "version") ||
      ((table === "answers" || table === "tracking_tasks") && column.name === "id"))
  ) {
    return "bigint";
  }
  return type;
}

describe("schema-pg.ts mirrors schema.ts", () => {
  test("the same tables, under the same export names", () => {
    expect([...pgTables.keys()].sort()).toEqual([...liteTables.keys()].sort());
    expect(liteTables.size).toBeGreaterThan(20);
  });

  for (const [key, liteTable] of liteTables) {
    test(`${key}: columns, keys, indexes and foreign keys`, () => {
      const a = sqliteConfig(liteTable);
      const pgTable = pgTables.get(key);
      if (!pgTable) throw new Error(`${key} is missing from schema-pg.ts`);
      const b = pgConfig(pgTable);
      expect(b.name).toBe(a.name);

      const columns = (config: typeof a | typeof b, typeOf: (c: (typeof config.columns)[number]) => string) =>
        config.columns.map((c) => ({
          name: c.name,
          type: typeOf(c),
          notNull: c.notNull,
          primary: c.primary,
          default: defaultText(c.default),
          unique: c.isUnique ? c.uniqueName : null,
        }));
      expect(columns(b, (c) => c.getSQLType())).toEqual(columns(a, (c) => pgTypeOf(a.name, c)));

      // An auto-incremented id on SQLite is an identity column on PostgreSQL.
      const autoIncrement = a.columns.filter((c) => (c as { autoIncrement?: boolean }).autoIncrement).map((c) => c.name);
      const identity = b.columns.filter((c) => c.generatedIdentity !== undefined).map((c) => c.name);
      expect(identity).toEqual(autoIncrement);

      // What the ORM reads and writes: booleans and JSON arrays alike on both.
      for (const column of a.columns) {
        const twin = b.columns.find((c) => c.name === column.name);
        if (column.dataType === "boolean") {
          expect([twin?.mapToDriverValue(true), twin?.mapFromDriverValue(1), twin?.mapFromDriverValue(0)]).toEqual([1, true, false]);
        }
        if (column.dataType === "json") expect(twin?.mapFromDriverValue('["x"]')).toEqual(["x"]);
      }

      const primaryKeys = (config: typeof a | typeof b) => config.primaryKeys.map((k) => k.columns.map((c) => c.name));
      expect(primaryKeys(b)).toEqual(primaryKeys(a));

      const indexes = (config: typeof a | typeof b) =>
        config.indexes
          .map((i) => ({
            name: i.config.name,
            unique: i.config.unique,
            columns: i.config.columns.map((c) => (c as { name: string }).name),
          }))
          .sort((x, y) => String(x.name).localeCompare(String(y.name)));
      expect(indexes(b)).toEqual(indexes(a));

      const foreignKeys = (config: typeof a | typeof b) =>
        config.foreignKeys
          .map((k) => {
            const r = k.reference();
            return {
              columns: r.columns.map((c) => c.name),
              table: (r.foreignTable as unknown as { [key: symbol]: string })[Symbol.for("drizzle:Name")],
              foreignColumns: r.foreignColumns.map((c) => c.name),
              onDelete: k.onDelete ?? "no action",
              onUpdate: k.onUpdate ?? "no action",
            };
          })
          .sort((x, y) => x.columns.join().localeCompare(y.columns.join()));
      expect(foreignKeys(b)).toEqual(foreignKeys(a));
    });
  }
});

describe("foreign keys", () => {
  test("every foreign key's column leads an index or key, so that a parent's delete seeks its children instead of scanning", () => {
    const unindexed: string[] = [];
    for (const table of liteTables.values()) {
      const config = sqliteConfig(table);
      const leading = new Set<string>([
        ...config.columns.filter((c) => c.primary || c.isUnique).map((c) => c.name),
        ...config.primaryKeys.map((pk) => pk.columns[0]!.name),
        ...config.indexes.map((index) => (index.config.columns[0] as { name: string }).name),
      ]);
      for (const fk of config.foreignKeys) {
        const column = fk.reference().columns[0]!.name;
        if (!leading.has(column)) unindexed.push(`${config.name}.${column}`);
      }
    }
    // A brand's deletion deleted its prompts, each of which scanned every brand's answers (seconds).
    expect(unindexed).toEqual([]);
  });
});
