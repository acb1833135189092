import { Database as SQLite, type Statement } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";
import { accessSync, closeSync, existsSync, constants as fsConstants, mkdirSync, openSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { type BunSQLiteDatabase, drizzle } from "drizzle-orm/bun-sqlite";
import { type MigrationMeta } from "drizzle-orm/migrator";
import { NotFound, Unavailable } from "../errors";
import { log } from "../log";
import { fileIdentity, stillAt } from "./file-identity";
import { EMBEDDED_MIGRATIONS, embeddedMigrations, logMigrations, MIGRATION_JOURNAL, newerSchemaProblem } from "./migrations";
import { type PostgresDb } from "./postgres";
import { allInTurn, type Queries, type SqlParam, type SqlText, textFor } from "./queries";
import { type ReaderOptions, SqliteReader } from "./reader";
import type * as schema from "./schema";
import { StorageHealth } from "./storage-health";
import { WalIndexStamp } from "./wal-stamp";
import { WriteGate } from "./write-gate";

export type Orm = BunSQLiteDatabase<typeof schema>;

/**
 * The database an instance runs on: SQLite in its data directory (SqliteDb, below), or PostgreSQL
 * (postgres.ts) when SPYGLASS_DATABASE_URL is set. Features use its Queries; `dialect` tells the two
 * apart where a caller needs what only one has (the WAL checkpointer, VACUUM INTO, LISTEN).
 */
export type Db = SqliteDb | PostgresDb;

export interface SqliteDb extends Queries {
  readonly dialect: "sqlite";
  sqlite: SQLite;
  /**
   * Drizzle's ORM over schema.ts, made on first use: only the tests read through it (the features
   * send SQL text through Queries), and a start need not define the tables (with db/values.ts, that
   * took `spyglass --version` from 88 to 81 ms, median of 15 alternated runs).
   */
  readonly orm: Orm;
  path: string;
  /**
   * The connection's prepared form of a hot query, built by `prepare` on first use and kept until
   * the connection closes (bun:sqlite's own `query()` cache stops caching after 20 statements).
   * `key` names the query; its owning feature prefixes it ("keys.byHash").
   */
  prepared<T>(key: string, prepare: () => T): T;
  /**
   * What a bulk job (re-analysis, demo seeding) awaits between its slices: at once, unless a WAL
   * checkpointer runs (checkpointer.ts) and the WAL has grown past its limit, then until the
   * checkpointer has copied it all, so that the next write starts the WAL over.
   */
  betweenSlices(): Promise<void>;
  /** Set by the checkpointer while it runs. */
  walPressure: (() => Promise<void>) | null;
  /**
   * What this connection's writes wait for while a worker thread writes to the same file (write-gate.ts):
   * handed to such a worker, which takes it for each of its transactions.
   */
  readonly writeGate: WriteGate;
  /** A stamp that moves with every commit to the file, read without a transaction (wal-stamp.ts). */
  readonly walIndex: WalIndexStamp;
  /** Whether the file's storage takes writes (storage-health.ts). */
  readonly storage: StorageHealth;
  /**
   * Whether the file at `path` is still the one this connection opened (file-identity.ts): a thread's
   * or a process's own connection is opened by path only while it is.
   */
  atItsPath(): boolean;
  /** The process that runs scans (reader.ts). */
  readonly reader: SqliteReader;
  /**
   * Closes the connection, its prepared statements first (a statement left open would keep the
   * connection alive, unusable, until collected). `optimize` (default true): update the query
   * planner's statistics first (PRAGMA optimize), as a process does when it stops.
   */
  close(options?: { optimize?: boolean }): void;
}

export interface OpenOptions {
  /**
   * Create the file (and its directory) when it does not exist; default true. Commands that only
   * work on an existing instance pass false, so a mistyped --data is refused instead of answered
   * from a new, empty database.
   */
  create?: boolean;
  /**
   * Apply pending migrations; default true. A worker thread's second connection to a database the
   * process has already opened passes false.
   */
  migrate?: boolean;
  /** The reader process's options (reader.ts; tests make it stop sooner, or fail). */
  reader?: ReaderOptions;
}

/** How long a statement waits for another process's write to end before SQLITE_BUSY. */
const BUSY_TIMEOUT_MS = 5_000;

/**
 * Opens (creating if needed) the SQLite file, sets the pragmas and applies pending migrations.
 * Throws a one-sentence error naming the file when it is missing (create: false) or cannot be
 * written, so that the problem shows at start rather than on a user's first write.
 */
export function openDatabase(path: string, options: OpenOptions = {}): SqliteDb {
  if (path !== ":memory:" && !databaseFileExists(path)) {
    if (options.create === false) {
      throw new NotFound(
        `There is no Spyglass database at ${path}: check --data (or SPYGLASS_DATA); \`spyglass serve\` or \`spyglass account create\` creates one.`,
        "no_database",
      );
    }
    createPrivately(path);
  }
  if (path !== ":memory:") refuseWithoutAccess(path);
  const sqlite = new SQLite(path, { create: true, strict: true });
  refuseUnwritable(sqlite, path, () => {
    sqlite.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // bun:sqlite defaults to a rollback journal with synchronous=FULL: WAL + NORMAL is durable across
    // application crashes and several times faster for our write pattern.
    useWal(sqlite);
    sqlite.exec("PRAGMA synchronous = NORMAL");
    sqlite.exec("PRAGMA foreign_keys = ON");
    // What is deleted (a brand, an article, a prompt's words) is overwritten in the file, not left
    // readable in freed space until SQLite happens to reuse it (the privacy review found deleted
    // articles' bodies in the file after a clean stop).
    sqlite.exec("PRAGMA secure_delete = ON");
    sqlite.exec("PRAGMA temp_store = MEMORY");
    sqlite.exec("PRAGMA cache_size = -32000");
    // Without the busy timeout, so that the probe never waits for another process's write.
    sqlite.exec("PRAGMA busy_timeout = 0");
    try {
      probeWrite(sqlite);
    } finally {
      sqlite.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  });
  try {
    refuseNewerSchema(sqlite, path);
  } catch (error) {
    sqlite.close(false);
    throw error;
  }
  if (options.migrate !== false) {
    try {
      applyMigrations(sqlite, path);
    } catch (error) {
      sqlite.close(false);
      throw unusableDatabase(path, (error as { code?: string }).code ?? "", (error as Error).message) ?? error;
    }
  }
  const opened = path === ":memory:" ? null : fileIdentity(path);
  const statements = new Map<string, unknown>();
  const writeGate = new WriteGate();
  const walIndex = new WalIndexStamp(path);
  const { queries, reader, finalize } = sqliteQueries(sqlite, writeGate, path, options.reader);
  let orm: Orm | null = null;
  return {
    ...queries,
    dialect: "sqlite",
    sqlite,
    get orm(): Orm {
      orm ??= drizzle({ client: sqlite, schema: require("./schema") as typeof schema });
      return orm;
    },
    path,
    walPressure: null,
    writeGate,
    storage: new StorageHealth(),
    atItsPath: () => stillAt(path, opened),
    walIndex,
    reader,
    async betweenSlices(): Promise<void> {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.walPressure) await this.walPressure();
    },
    prepared<T>(key: string, prepare: () => T): T {
      let statement = statements.get(key) as T | undefined;
      if (statement === undefined) {
        statement = prepare();
        statements.set(key, statement);
      }
      return statement;
    },
    close(options: { optimize?: boolean } = {}) {
      try {
        if (options.optimize !== false) sqlite.exec("PRAGMA optimize");
      } catch (error) {
        // Only statistics for the query planner are lost; stopping must not fail for them.
        log.warn("PRAGMA optimize failed on close", { message: (error as Error).message });
      } finally {
        walIndex.release();
        finalize();
        sqlite.close(false);
      }
    },
  };
}

/**
 * Whether the database file exists. A directory the user may not enter is said to be so (existsSync
 * said "no database here", and advised creating one), as is a --data that is a file.
 */
function databaseFileExists(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) !== undefined;
  } catch (error) {
    throw directoryProblem(path, error);
  }
}

/**
 * A database this user may not read and write, refused before SQLite touches it. Opened, SQLite made
 * the -wal and -shm files beside it, as this user, before it failed; a server running as the owner
 * could then not open them, and every command of the owner's was refused (the review: a backup run by
 * another user stopped the server's writes). The journal files, when there, must be writable too.
 */
function refuseWithoutAccess(path: string): void {
  const wanted: Array<[string, string]> = [[path, "the database file"]];
  const journals = [`${path}-wal`, `${path}-shm`];
  for (const journal of journals) if (existsSync(journal)) wanted.push([journal, journal]);
  // The directory only when SQLite has a journal file to make in it.
  if (wanted.length < 3) wanted.push([dirname(path), "its directory"]);
  for (const [target, what] of wanted) {
    try {
      accessSync(target, fsConstants.R_OK | fsConstants.W_OK);
    } catch (error) {
      throw new Unavailable(
        `The database ${path} cannot be written (${what} is not readable and writable by this user: ${(error as NodeJS.ErrnoException).code}): make it and its directory writable by the user running Spyglass.`,
        "database_read_only",
      );
    }
  }
}

function directoryProblem(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EACCES" || code === "EPERM") {
    return new Unavailable(
      `The data directory ${dirname(path)} cannot be read or written by this user (${code}): run Spyglass as the user that owns it, or give that user access (--data or SPYGLASS_DATA names the directory).`,
      "database_read_only",
    );
  }
  if (code === "ENOTDIR" || code === "EEXIST") {
    return new Unavailable(
      `The data directory ${dirname(path)} is not a directory (${code}): --data (or SPYGLASS_DATA) names a directory, which is created if missing.`,
      "database_read_only",
    );
  }
  return error;
}

/**
 * The data directory (0700) and an empty database file (0600), created by us: they hold emails,
 * password and key hashes and drafts. SQLite gives the WAL and shared-memory files the database
 * file's mode.
 */
function createPrivately(path: string): void {
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    closeSync(openSync(path, "wx", 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !databaseFileExists(path)) throw directoryProblem(path, error);
  }
}

/**
 * The journal switched to WAL. While another process is creating the same database (commands
 * started at once on a new data directory), SQLite can refuse the switch with SQLITE_BUSY at once,
 * without waiting in the busy handler: it is tried again until the busy timeout has passed.
 */
function useWal(sqlite: SQLite): void {
  const deadline = performance.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      sqlite.exec("PRAGMA journal_mode = WAL");
      return;
    } catch (error) {
      if (!(error as { code?: string }).code?.startsWith("SQLITE_BUSY") || performance.now() > deadline) throw error;
      Bun.sleepSync(5);
    }
  }
}

/**
 * A write, rolled back: the header's user_version rewritten with its own value. When another
 * process (a running server) holds the write lock, the file is in use for writing and the probe is
 * skipped rather than waited for: a backup must not queue behind a long write.
 */
function probeWrite(sqlite: SQLite): void {
  try {
    sqlite.exec("BEGIN IMMEDIATE");
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith("SQLITE_BUSY")) return;
    throw error;
  }
  try {
    const { user_version } = sqlite.query("PRAGMA user_version").get() as { user_version: number };
    sqlite.exec(`PRAGMA user_version = ${Number(user_version)}`);
  } finally {
    sqlite.exec("ROLLBACK");
  }
}

/** A database file SQLite cannot use, in a sentence naming it and what to do; null for other errors. */
export function unusableDatabase(path: string, code: string, message: string): Unavailable | null {
  if (code.startsWith("SQLITE_NOTADB")) {
    return new Unavailable(
      `${path} is not a Spyglass database (SQLite says: ${message}): check --data (or SPYGLASS_DATA), or restore the database from a backup.`,
      "database_not_sqlite",
    );
  }
  if (code.startsWith("SQLITE_CORRUPT")) {
    return new Unavailable(
      `The database ${path} is damaged (SQLite says: ${message}): stop every Spyglass using it and restore it from a backup (README: Backup and restore).`,
      "database_damaged",
    );
  }
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) {
    return new Unavailable(
      `The database ${path} stayed locked by another process (SQLite says: ${message}): a long write by another spyglass command or a program holding it open; try again when it is done.`,
      "database_locked",
    );
  }
  return null;
}

/** Runs `setup`; a database this process cannot write (read-only file or directory) is refused. */
function refuseUnwritable(sqlite: SQLite, path: string, setup: () => void): void {
  try {
    setup();
  } catch (error) {
    sqlite.close(false);
    const code = (error as { code?: string }).code ?? "";
    if (/^SQLITE_(READONLY|CANTOPEN|PERM|AUTH)/.test(code)) {
      throw new Unavailable(
        `The database ${path} cannot be written (${(error as Error).message}): make it and its directory writable by the user running Spyglass.`,
        "database_read_only",
      );
    }
    const problem = unusableDatabase(path, code, (error as Error).message);
    if (problem) throw problem;
    throw error;
  }
}

/**
 * Drizzle's migrator applies the migrations later than the database's newest and says nothing when
 * the database is ahead of it: an older binary started after an upgrade (a rollback) would work on
 * a schema it does not know. Refused, before anything is written.
 */
function refuseNewerSchema(sqlite: SQLite, path: string): void {
  const table = sqlite.query("SELECT 1 AS one FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!table) return;
  const row = sqlite.query("SELECT max(created_at) AS at FROM __drizzle_migrations").get() as { at: number | null };
  const problem = newerSchemaProblem(path, row.at === null ? null : Number(row.at), MIGRATION_JOURNAL);
  if (problem) throw new Unavailable(problem, "database_newer");
}

function applyMigrations(sqlite: SQLite, path: string): void {
  const started = performance.now();
  const before = appliedMigrations(sqlite);
  // The same call drizzle-orm/bun-sqlite/migrator makes, fed from the embedded files instead of disk.
  const internal = drizzle({ client: sqlite }) as unknown as {
    dialect: { migrate(m: MigrationMeta[], session: unknown, config: object): void };
    session: unknown;
  };
  const migrations = embeddedMigrations(MIGRATION_JOURNAL, EMBEDDED_MIGRATIONS);
  for (let attempt = 1; ; attempt++) {
    const applied = appliedMigrations(sqlite);
    try {
      internal.dialect.migrate(migrations, internal.session, {});
      break;
    } catch (error) {
      // The migrator reads which migrations are applied before its transaction begins: another
      // process applying them at the same moment (two commands started at once on a new data
      // directory, or a server and a command after an upgrade) makes its first statement fail
      // ("table … already exists"). Once that process's transaction has ended, the migrations it
      // applied are looked at again; a failure that is not that is the migration's own.
      if (attempt === MIGRATION_ATTEMPTS || !waitForOtherWriter(sqlite) || appliedMigrations(sqlite) === applied) throw error;
      // That process may be a newer Spyglass, whose migrations this one does not know.
      refuseNewerSchema(sqlite, path);
    }
  }
  logMigrations(path, before, appliedMigrations(sqlite), MIGRATION_JOURNAL, started);
}

const MIGRATION_ATTEMPTS = 3;

/** Waits (up to the busy timeout) until no other connection is writing; false when one still is. */
function waitForOtherWriter(sqlite: SQLite): boolean {
  try {
    sqlite.exec("BEGIN IMMEDIATE");
  } catch {
    return false;
  }
  sqlite.exec("ROLLBACK");
  return true;
}

/** How many migrations the database has had (0 for a new one). */
function appliedMigrations(sqlite: SQLite): number {
  const table = sqlite.query("SELECT 1 AS one FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!table) return 0;
  return Number((sqlite.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n);
}

/** A statement that writes, sent alone (outside a transaction) through all() or get(): UPDATE … RETURNING. */
const WRITES = /^\s*(?:INSERT|UPDATE|DELETE|REPLACE)\b/i;

/**
 * Queries on one bun:sqlite connection. SQLite runs them synchronously; the promises only make them
 * look like PostgreSQL's. A transaction holds the connection from BEGIN IMMEDIATE to COMMIT across
 * its awaits, so every query issued outside it (another request's, which would otherwise run inside
 * it, seeing its uncommitted rows and joining its writes) waits until it ends; the queries of the
 * transaction itself are told apart by their async context. A write outside a transaction, and a
 * transaction before its BEGIN, first pass the write gate (write-gate.ts): with no worker writing,
 * at once.
 */
function sqliteQueries(
  sqlite: SQLite,
  gate: WriteGate,
  path: string,
  readerOptions?: ReaderOptions,
): { queries: Queries; reader: SqliteReader; finalize(): void } {
  const statements = new Map<string, { prepared: Statement; writes: boolean }>();
  const statement = (text: SqlText): { prepared: Statement; writes: boolean } => {
    const source = typeof text === "string" ? text : text.sqlite;
    let entry = statements.get(source);
    if (entry === undefined) {
      // Texts are the features' own, but some carry a list of n placeholders: bounded all the same.
      if (statements.size >= 1_000) statements.clear();
      entry = { prepared: sqlite.prepare(source), writes: WRITES.test(source) };
      statements.set(source, entry);
    }
    return entry;
  };
  const context = new AsyncLocalStorage<symbol>();
  let open: { token: symbol; ended: Promise<void> } | null = null;
  const reader = new SqliteReader(
    path,
    (list) =>
      allInTurn(
        queries,
        list.map(({ sql, params }) => ({ text: sql, params })),
      ),
    readerOptions,
  );
  let queue: Promise<void> = Promise.resolve();
  const outside = (): boolean => open !== null && context.getStore() !== open.token;
  const wait = async (): Promise<void> => {
    while (outside()) await open!.ended;
  };
  /** `write` run alone, past the gate (inside a transaction, the transaction already is). */
  const gated = async <T>(write: () => T): Promise<T> => {
    if (open !== null) return write();
    const waiting = gate.enter();
    try {
      if (waiting) {
        await waiting;
        // Another transaction may have begun while this waited.
        if (outside()) await wait();
      }
      return write();
    } finally {
      gate.leave();
    }
  };
  const queries: Queries = {
    dialect: "sqlite",
    async all<T>(text: SqlText, params: readonly SqlParam[] = []): Promise<T[]> {
      if (outside()) await wait();
      const { prepared, writes } = statement(text);
      if (writes) return gated(() => prepared.all(...(params as SqlParam[])) as T[]);
      return prepared.all(...(params as SqlParam[])) as T[];
    },
    async get<T>(text: SqlText, params: readonly SqlParam[] = []): Promise<T | undefined> {
      if (outside()) await wait();
      const { prepared, writes } = statement(text);
      if (writes) return gated(() => (prepared.get(...(params as SqlParam[])) ?? undefined) as T | undefined);
      return (prepared.get(...(params as SqlParam[])) ?? undefined) as T | undefined;
    },
    async run(text: SqlText, params: readonly SqlParam[] = []): Promise<number> {
      if (outside()) await wait();
      const { prepared } = statement(text);
      return gated(() => prepared.run(...(params as SqlParam[])).changes);
    },
    async scan<T>(text: SqlText, params: readonly SqlParam[] = []): Promise<T[]> {
      // Inside its transaction, a scan must see the transaction's own writes: its connection answers.
      if (open !== null && context.getStore() === open.token) return queries.all<T>(text, params);
      return reader.scan<T>(textFor(text, "sqlite"), params);
    },
    async scanTogether(list: ReadonlyArray<{ text: SqlText; params?: readonly SqlParam[] }>): Promise<unknown[][]> {
      if (open !== null && context.getStore() === open.token) return allInTurn(queries, list);
      return reader.scanTogether(list.map(({ text, params }) => ({ sql: textFor(text, "sqlite"), params: [...(params ?? [])] })));
    },
    async lock(): Promise<void> {},
    async transaction<T>(fn: (tx: Queries) => Promise<T>): Promise<T> {
      if (open !== null && context.getStore() === open.token) return fn(queries);
      const previous = queue;
      let release!: () => void;
      queue = new Promise((resolve) => {
        release = resolve;
      });
      await previous;
      // Past the gate before BEGIN, and before this connection's other queries wait for the
      // transaction: a worker's transaction under way ends first, with no thread blocked on SQLite's lock.
      const waiting = gate.enter();
      const token = Symbol("transaction");
      let ended = () => {};
      try {
        if (waiting) await waiting;
        await wait();
        open = { token, ended: new Promise((resolve) => (ended = resolve)) };
        sqlite.exec("BEGIN IMMEDIATE");
        const result = await context.run(token, () => fn(queries));
        sqlite.exec("COMMIT");
        return result;
      } catch (error) {
        if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
        throw error;
      } finally {
        gate.leave();
        if (open?.token === token) open = null;
        ended();
        release();
      }
    },
  };
  const finalize = () => {
    reader.close();
    for (const { prepared } of statements.values()) prepared.finalize();
    statements.clear();
  };
  return { queries, reader, finalize };
}
