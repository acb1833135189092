// The PostgreSQL side of the data access (queries.ts), for SPYGLASS_DATABASE_URL: a pool of
// postgres.js connections. postgres.js rather than Bun.SQL: Bun.SQL returns int8 (our millisecond
// timestamps, counts) and sums as strings with no per-type parser to change that, and has no
// LISTEN/NOTIFY, which several instances need to tell each other about changes (issue 21).
import { AsyncLocalStorage } from "node:async_hooks";
import { type MigrationMeta } from "drizzle-orm/migrator";
import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { Unavailable } from "../errors";
import { log } from "../log";
import { embeddedMigrations, logMigrations, newerSchemaProblem } from "./migrations";
import { EMBEDDED_PG_MIGRATIONS, PG_MIGRATION_JOURNAL } from "./migrations-pg";
import { ChangeFeed } from "./pg-changes";
import { allInTurn, type Queries, type SqlParam, type SqlText, toPostgresPlaceholders } from "./queries";
import * as schema from "./schema-pg";
import { StorageHealth } from "./storage-health";

export type PgOrm = PostgresJsDatabase<typeof schema>;

export interface PostgresDb extends Queries {
  readonly dialect: "postgres";
  /** Drizzle's PostgreSQL query builder on the pool; it takes the tables of `tables`, not schema.ts's. */
  orm: PgOrm;
  /** schema-pg.ts: the tables of schema.ts as PostgreSQL tables, for `orm`. */
  tables: typeof schema;
  /** The pool itself, for what only PostgreSQL has (LISTEN/NOTIFY, advisory locks). */
  postgres: postgres.Sql;
  /** What tells this instance that another one changed what it caches (pg-changes.ts). */
  changes: ChangeFeed;
  /** The database's URL without its password: safe to log and to show. */
  path: string;
  /** At once: PostgreSQL has no WAL checkpoint for a bulk job to make room for. */
  betweenSlices(): Promise<void>;
  /** Always null: only SQLite's WAL makes writers wait (checkpointer.ts). */
  walPressure: null;
  /** Whether the database's storage takes writes (storage-health.ts). */
  readonly storage: StorageHealth;
  /** Ends the pool once the queries in flight have finished. */
  close(): Promise<void>;
}

export interface PostgresOptions {
  /** Connections in the pool; default 10. Each instance holds up to this many of the server's max_connections. */
  poolSize?: number;
  /** Apply pending migrations; default true (`spyglass backup` copies the database as it is). */
  migrate?: boolean;
  /** How long the first connection may take to answer its first statement (STARTUP_TIMEOUT_MS). */
  startupTimeoutMs?: number;
  /**
   * The environment variable the URL came from, as errors name it: SPYGLASS_DATABASE_URL, or the one
   * `database_url_env` names (errors named SPYGLASS_DATABASE_URL to one who never set it, the PostgreSQL walk).
   */
  variable?: string;
}

// int8 (counts, sums of integers, our bigint timestamps) and numeric (sums of bigints, averages)
// as numbers, and booleans (comparisons in a select list) as 1/0: the types SQLite gives the same
// query. A numeric beyond 2^53 loses precision, as it would on SQLite.
const TYPES = {
  int8: { to: 20, from: [20, 1700], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) },
  bool: {
    to: 16,
    from: [16],
    serialize: (x: unknown) => (x === true || x === 1 || x === "t" || x === "true" ? "t" : "f"),
    parse: (x: string) => (x === "t" ? 1 : 0),
  },
};

/**
 * How long the first connection may take to answer a statement: the driver's own connect timeout
 * (30 s) covers a port that never answers, not one that answers as something else.
 */
const STARTUP_TIMEOUT_MS = 45_000;

/** Collations that sort text by its bytes, as SQLite does. */
const C_COLLATIONS = new Set(["C", "POSIX", "C.UTF-8", "C.utf8"]);

// Taken while migrating: two instances started at once must not both create the tables. The
// number is arbitrary, fixed, and ours ("spyglass" in ASCII).
const MIGRATION_LOCK = 0x7370_7967_6c61_7373n.toString();

/**
 * Opens a pool on `url`, applies pending migrations (under an advisory lock) and returns the
 * database. Throws a one-sentence Unavailable naming the server and database (never the password)
 * when the server cannot be reached or refuses the login.
 */
export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<PostgresDb> {
  const where = describeUrl(url, options.variable ?? "SPYGLASS_DATABASE_URL");
  const connect = (max: number) =>
    postgres(url, {
      max,
      types: TYPES,
      // Notices ("schema already exists, skipping") are not errors; postgres.js prints them by default.
      onnotice: (notice) => log.debug("postgres notice", { message: notice.message }),
      // No JIT: our queries are short, and the json_each function's default estimate (1,000 rows per
      // list) pushes a scoped analytics query over the JIT thresholds, where compiling took 1-2.5 s of
      // a query that runs in a millisecond (promptCoverage with a tag, 600 answers).
      // Plans made for each execution's parameters, as for the unnamed statements before (see
      // PREPARE_MAX_PARAMS): a generic plan, which PostgreSQL may switch a prepared statement to after
      // five executions, would plan an analytics query for no brand in particular.
      connection: { application_name: "spyglass", jit: "off", plan_cache_mode: "force_custom_plan" },
    });
  // A deadline on the first connection's start-up (its handshake and a first statement): a port that
  // answers but is no PostgreSQL (an HTTP server keeping the connection open) held `migrate` and
  // `serve` for ever, saying nothing. The migrations themselves have none: a long one is no fault.
  const first = connect(1);
  const limit = options.startupTimeoutMs ?? STARTUP_TIMEOUT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Unavailable(
            `PostgreSQL at ${where.label} did not complete its start-up within ${Math.round(limit / 1000)} s: check that ${where.variable}'s host and port are PostgreSQL's (something else answers there, or the server is overloaded).`,
            "database_unreachable",
          ),
        ),
      limit,
    );
  });
  try {
    try {
      await Promise.race([first.unsafe("SELECT 1"), deadline]);
    } finally {
      clearTimeout(timer);
    }
    await migrate(first, where.label, options.migrate !== false);
  } catch (error) {
    await first.end({ timeout: 0 }).catch(() => undefined);
    if (error instanceof Unavailable) throw error;
    throw connectionError(error, where) ?? error;
  }
  const pool = connect(options.poolSize ?? 10);
  const orm = drizzle({ client: pool, schema });
  const changes = new ChangeFeed(pool);
  const queries = postgresQueries(pool, changes);
  return {
    ...queries,
    dialect: "postgres",
    orm,
    tables: schema,
    postgres: pool,
    path: where.safeUrl,
    changes,
    walPressure: null,
    storage: new StorageHealth(true),
    async betweenSlices(): Promise<void> {},
    async close(): Promise<void> {
      await changes.close();
      await pool.end({ timeout: 5 });
    },
  };
}

interface Where {
  /** host:port/database as user, for error messages. */
  label: string;
  /** The environment variable the URL came from. */
  variable: string;
  safeUrl: string;
  password: string;
}

function describeUrl(url: string, variable: string): Where {
  const parsed = new URL(url);
  const password = decodeURIComponent(parsed.password);
  parsed.password = "";
  parsed.searchParams.delete("password");
  const database = decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username) || "postgres";
  const user = decodeURIComponent(parsed.username) || "the default user";
  return { label: `${parsed.host || "localhost"}/${database} as ${user}`, variable, safeUrl: parsed.toString(), password };
}

const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "CONNECT_TIMEOUT",
  "ECONNRESET",
]);
// invalid_authorization_specification, invalid_password, invalid_catalog_name (no such database).
const REFUSED = new Set(["28000", "28P01", "3D000"]);

/** The sentence for a failed first connection, or null when the error is something else. */
function connectionError(thrown: unknown, where: Where): Unavailable | null {
  // Drizzle's migrator wraps the driver's error ("Failed query: …") with it as the cause.
  const cause = (thrown as { cause?: unknown } | null)?.cause;
  const error = cause && typeof (cause as { code?: unknown }).code === "string" ? cause : thrown;
  const code = (error as { code?: string }).code ?? "";
  const reason = scrub((error as Error).message ?? String(error), where.password);
  if (code === "53300") {
    return new Unavailable(
      `PostgreSQL at ${where.label} has no connection left (${reason}): each Spyglass instance keeps 11 (a pool of 10 and one for notifications), and each command one more while it runs; raise the server's max_connections, or run fewer instances.`,
      "database_full",
    );
  }
  if (code === "42501") {
    return new Unavailable(
      `PostgreSQL at ${where.label} does not let this user create Spyglass's tables (${reason}): make the user the database's owner (createdb --owner=USER, or ALTER DATABASE … OWNER TO USER), or GRANT CREATE ON DATABASE and ON SCHEMA public to it.`,
      "database_permission",
    );
  }
  if (UNREACHABLE.has(code) || /ECONNREFUSED|Failed to connect/i.test(reason)) {
    return new Unavailable(
      `PostgreSQL at ${where.label} cannot be reached (${reason}): check ${where.variable} and that the server is running and accepts connections from this machine.`,
      "database_unreachable",
    );
  }
  if (REFUSED.has(code)) {
    return new Unavailable(
      `PostgreSQL at ${where.label} refused the login (${reason}): check the user, password and database name in ${where.variable}.`,
      "database_login_refused",
    );
  }
  return null;
}

/** A message with the password taken out, should a driver ever quote it. */
function scrub(message: string, password: string): string {
  return password === "" ? message : message.split(password).join("***");
}

/**
 * Applies pending migrations on one connection holding a session advisory lock, so that an instance
 * starting while another migrates waits for it and then finds nothing left to do. Drizzle's migrator
 * (what drizzle-orm/postgres-js/migrator calls) is fed from the embedded files instead of disk.
 */
async function migrate(connection: postgres.Sql, where: string, apply: boolean): Promise<void> {
  try {
    await connection.unsafe(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    // Two statements: PostgreSQL resolves a subquery's table when it plans it, even in a branch never taken.
    const [table] = await connection.unsafe<Array<{ found: string | null }>>(
      "SELECT to_regclass('drizzle.__drizzle_migrations')::text AS found",
    );
    const [applied] = table?.found
      ? await connection.unsafe<Array<{ at: string | null }>>("SELECT max(created_at)::text AS at FROM drizzle.__drizzle_migrations")
      : [];
    const problem = newerSchemaProblem(where, applied?.at == null ? null : Number(applied.at), PG_MIGRATION_JOURNAL);
    if (problem) throw new Unavailable(problem, "database_newer");
    // The database's default collation: libc's (datcollate), an ICU locale's (provider "i"), or
    // PostgreSQL 17's builtin one (provider "b", its locale in datlocale, which older versions lack).
    const [collation] = await connection.unsafe<Array<{ collate: string; provider: string; locale: string | null }>>(
      `SELECT datcollate AS "collate", datlocprovider::text AS provider, to_jsonb(d) ->> 'datlocale' AS locale
         FROM pg_database d WHERE datname = current_database()`,
    );
    const sortsByBytes =
      collation?.provider === "b"
        ? C_COLLATIONS.has(collation.locale ?? "")
        : collation?.provider !== "i" && C_COLLATIONS.has(collation?.collate ?? "C");
    if (collation && !sortsByBytes) {
      const name = collation.provider === "i" ? "an ICU locale's" : `the ${collation.collate}`;
      log.warn(
        `PostgreSQL at ${where} sorts text by ${name} collation, not C: lists and pages will not be in SQLite's order. Create the database with createdb --locale=C --template=template0 and copy the data into it (README, "Running more than one instance").`,
        { collation: collation.collate, provider: collation.provider },
      );
    }
    if (!apply) return;
    const started = performance.now();
    const count = async () =>
      table?.found || (await connection.unsafe("SELECT to_regclass('drizzle.__drizzle_migrations')::text AS found"))[0]?.found
        ? Number((await connection.unsafe<Array<{ n: string }>>("SELECT count(*) AS n FROM drizzle.__drizzle_migrations"))[0]?.n ?? 0)
        : 0;
    const before = await count();
    const orm = drizzle({ client: connection });
    const internal = orm as unknown as {
      dialect: { migrate(m: MigrationMeta[], session: unknown, config: object): Promise<void> };
      session: unknown;
    };
    await internal.dialect.migrate(embeddedMigrations(PG_MIGRATION_JOURNAL, EMBEDDED_PG_MIGRATIONS), internal.session, {});
    logMigrations(where, before, await count(), PG_MIGRATION_JOURNAL, started);
    await connection.unsafe(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
  } finally {
    // Ending the session releases the lock too, should the migration have failed.
    await connection.end({ timeout: 5 });
  }
}

type Runner = postgres.Sql | postgres.TransactionSql;

/**
 * A statement with parameters is prepared on each connection the first time it runs there, then only
 * bound and executed: postgres.js's unsafe() otherwise sends every such statement in two round trips
 * (parse and describe, to learn the parameters' types, then bind and execute). Measured (scratch
 * pgprep.ts, a keyed SELECT on loopback): 159–208 against 46–85 µs a query, and half the client's
 * CPU. Texts with more parameters than this are the ones with a list of n placeholders (an IN list
 * of ids), each n a text of its own: those stay unnamed, so that a connection does not keep one
 * statement per list length. (Statements without parameters go by the simple protocol either way.)
 */
const PREPARE_MAX_PARAMS = 16;

/** The open transaction of the current async context, if any (see postgresQueries). */
interface OpenTransaction {
  sql: postgres.TransactionSql;
  queries: Queries;
  open: boolean;
  /** The tables the instances' caches watch that it wrote to: their change stamps move once it commits. */
  wroteWatched: Set<string>;
}

/**
 * Queries on the pool. A transaction runs on one reserved connection (postgres.js's begin); the
 * queries made inside it, through the `tx` it hands out or through this object alike, run on that
 * connection (told apart by async context, as on SQLite), so a helper handed the database rather
 * than `tx` still sees the transaction's rows instead of waiting on its locks from another
 * connection. A transaction opened inside another joins it.
 */
function postgresQueries(pool: postgres.Sql, changes: ChangeFeed): Queries {
  const texts = new Map<string, string>();
  const textOf = (text: SqlText): string => {
    const source = typeof text === "string" ? text : text.postgres;
    let rewritten = texts.get(source);
    if (rewritten === undefined) {
      // Texts are the features' own, but some carry a list of n placeholders: bounded all the same.
      if (texts.size >= 1_000) texts.clear();
      rewritten = toPostgresPlaceholders(source);
      texts.set(source, rewritten);
    }
    return rewritten;
  };
  const context = new AsyncLocalStorage<OpenTransaction>();
  const current = (): OpenTransaction | undefined => {
    const tx = context.getStore();
    return tx?.open ? tx : undefined;
  };
  const execute = async (runner: Runner, text: SqlText, params: readonly SqlParam[]) => {
    const source = textOf(text);
    const result = await runner.unsafe(source, params.map(toDriver) as postgres.ParameterOrJSON<never>[], {
      prepare: params.length <= PREPARE_MAX_PARAMS,
    });
    const written = changes.watchedTablesWritten(source);
    if (written.length > 0) {
      const tx = current();
      if (tx) for (const table of written) tx.wroteWatched.add(table);
      else changes.bump(written);
    }
    return result;
  };

  const on = (runner: () => Runner): Queries => {
    const queries: Queries = {
      dialect: "postgres",
      async all<T>(text: SqlText, params: readonly SqlParam[] = []): Promise<T[]> {
        return Array.from(await execute(runner(), text, params)) as T[];
      },
      scan<T>(text: SqlText, params: readonly SqlParam[] = []): Promise<T[]> {
        return queries.all<T>(text, params);
      },
      scanTogether(list: ReadonlyArray<{ text: SqlText; params?: readonly SqlParam[] }>): Promise<unknown[][]> {
        return allInTurn(queries, list);
      },
      async get<T>(text: SqlText, params: readonly SqlParam[] = []): Promise<T | undefined> {
        return (await execute(runner(), text, params))[0] as T | undefined;
      },
      async run(text: SqlText, params: readonly SqlParam[] = []): Promise<number> {
        return (await execute(runner(), text, params)).count;
      },
      async lock(name: string): Promise<void> {
        // Held until the transaction ends; hashtext folds the name into the lock's integer space.
        await execute(runner(), "SELECT pg_advisory_xact_lock(hashtext(?)) AS locked", [name]);
      },
      async transaction<T>(fn: (tx: Queries) => Promise<T>): Promise<T> {
        const open = current();
        if (open) return fn(open.queries);
        let wroteWatched: ReadonlySet<string> = new Set();
        const result = (await pool.begin(async (sql) => {
          const tx: OpenTransaction = { sql, queries: on(() => sql), open: true, wroteWatched: new Set() };
          try {
            return await context.run(tx, () => fn(tx.queries));
          } finally {
            tx.open = false;
            wroteWatched = tx.wroteWatched;
          }
        })) as T;
        // Committed (begin resolved): now a cache that re-reads sees the write.
        if (wroteWatched.size > 0) changes.bump(wroteWatched);
        return result;
      },
    };
    return queries;
  };
  return on(() => current()?.sql ?? pool);
}

/** Parameters as SQLite takes them: booleans as 1/0 (our booleans are integer columns). */
function toDriver(param: SqlParam): unknown {
  return param === true ? 1 : param === false ? 0 : param;
}
