import { Database as SQLite } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { type BunSQLiteDatabase, drizzle } from "drizzle-orm/bun-sqlite";
import { type MigrationMeta } from "drizzle-orm/migrator";
import { EMBEDDED_MIGRATIONS, MIGRATION_JOURNAL } from "./migrations";
import * as schema from "./schema";

export type Orm = BunSQLiteDatabase<typeof schema>;

export interface Db {
  sqlite: SQLite;
  orm: Orm;
  path: string;
  /**
   * The connection's prepared form of a hot query, built by `prepare` on first use and kept until
   * the connection closes (bun:sqlite's own `query()` cache stops caching after 20 statements).
   * `key` names the query; its owning feature prefixes it ("keys.byHash").
   */
  prepared<T>(key: string, prepare: () => T): T;
  close(): void;
}

/** Opens (creating if needed) the SQLite file, sets the pragmas and applies pending migrations. */
export function openDatabase(path: string): Db {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const sqlite = new SQLite(path, { create: true, strict: true });
  // bun:sqlite defaults to a rollback journal with synchronous=FULL: WAL + NORMAL is durable across
  // application crashes and several times faster for our write pattern.
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA temp_store = MEMORY");
  sqlite.exec("PRAGMA cache_size = -32000");
  const orm = drizzle({ client: sqlite, schema });
  applyMigrations(orm);
  const statements = new Map<string, unknown>();
  return {
    sqlite,
    orm,
    path,
    prepared<T>(key: string, prepare: () => T): T {
      let statement = statements.get(key) as T | undefined;
      if (statement === undefined) {
        statement = prepare();
        statements.set(key, statement);
      }
      return statement;
    },
    close() {
      try {
        sqlite.exec("PRAGMA optimize");
      } finally {
        sqlite.close(false);
      }
    },
  };
}

function embeddedMigrations(): MigrationMeta[] {
  return MIGRATION_JOURNAL.map((entry) => {
    const query = EMBEDDED_MIGRATIONS[entry.tag];
    if (query === undefined) throw new Error(`migration ${entry.tag} is not embedded`);
    return {
      sql: query.split("--> statement-breakpoint"),
      bps: entry.breakpoints,
      folderMillis: entry.when,
      hash: new Bun.CryptoHasher("sha256").update(query).digest("hex"),
    };
  });
}

function applyMigrations(orm: Orm): void {
  // The same call drizzle-orm/bun-sqlite/migrator makes, fed from the embedded files instead of disk.
  const internal = orm as unknown as {
    dialect: { migrate(m: MigrationMeta[], session: unknown, config: object): void };
    session: unknown;
  };
  internal.dialect.migrate(embeddedMigrations(), internal.session, {});
}
