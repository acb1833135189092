// The PostgreSQL side of the data access against a real server (test/support/postgres.ts): rows of
// the same types as SQLite's, SQLite's placeholders, transactions, migrations under a lock, and the
// sentences of a failed connection.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import postgres from "postgres";
import { type Db, openDatabase } from "../../src/db/client";
import { EMBEDDED_PG_MIGRATIONS, PG_MIGRATION_JOURNAL } from "../../src/db/migrations-pg";
import { openPostgres, type PostgresDb } from "../../src/db/postgres";
import { type Queries, toPostgresPlaceholders } from "../../src/db/queries";
import { isUnreachable } from "../../src/db/storage-health";
import { Unavailable } from "../../src/errors";
import { captureLog } from "../support/log";
import { freshPostgresUrl } from "../support/postgres";

const opened: Array<Db | PostgresDb> = [];
async function pg(url?: string): Promise<PostgresDb> {
  const db = await openPostgres(url ?? (await freshPostgresUrl()));
  opened.push(db);
  return db;
}
function sqlite(): Db {
  const db = openDatabase(":memory:");
  opened.push(db);
  return db;
}

// The first call initialises and starts the cluster: seconds, more than a test's default timeout.
beforeAll(() => freshPostgresUrl(), 120_000);
afterAll(async () => {
  for (const db of opened.splice(0)) await db.close();
});

/** The same rows, written with the same SQL texts, on either database. */
async function seed(db: Queries): Promise<void> {
  await db.run("INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES (?, ?, ?, ?, ?)", [
    "acc_1",
    "a@example.com",
    "h",
    "visibility",
    1_767_225_600_000,
  ]);
  await db.run("INSERT INTO brands (id, account_id, name, site_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)", [
    "brd_1",
    "acc_1",
    "Acme",
    "pk_1",
    1_767_225_600_000,
    1_767_225_600_000,
  ]);
  await db.run("INSERT INTO prompts (id, brand_id, text, text_key, created_at) VALUES (?, ?, ?, ?, ?)", [
    "prm_1",
    "brd_1",
    "Best?",
    "best?",
    1,
  ]);
  const answers: Array<[string, number, boolean, number | null, number | null]> = [
    ["chatgpt", 1_767_225_600_001, true, 120, 0.5],
    ["chatgpt", 1_767_225_600_002, false, 80, null],
    ["gemini", 1_767_225_600_003, true, null, -0.25],
  ];
  for (const [engine, createdAt, mentioned, latency, sentiment] of answers) {
    await db.run(
      "INSERT INTO answers (brand_id, prompt_id, engine, status, text, created_at, brand_mentioned, latency_ms, brand_sentiment) VALUES (?, ?, ?, 'ok', ?, ?, ?, ?, ?)",
      ["brd_1", "prm_1", engine, `answer of ${engine}`, createdAt, mentioned, latency, sentiment],
    );
  }
}

describe("rows have the types SQLite gives", () => {
  const queries = [
    "SELECT id, email, plan, created_at FROM accounts",
    "SELECT count(*) AS n, sum(latency_ms) AS latency, max(created_at) AS newest, min(created_at) AS oldest FROM answers",
    "SELECT engine, count(*) AS n, sum(brand_mentioned) AS mentioned, sum(brand_sentiment) AS sentiment FROM answers GROUP BY engine ORDER BY engine",
    "SELECT id, created_at > 1767225600001 AS later, brand_mentioned = 1 AS mentioned, latency_ms IS NULL AS no_latency, model, brand_sentiment FROM answers ORDER BY id",
    "SELECT created_at / 86400000 AS day, created_at % 1000 AS ms, latency_ms * 2 AS twice, length(text) AS chars FROM answers ORDER BY id",
    "SELECT count(*) AS n, max(latency_ms) AS m FROM answers WHERE engine = 'nobody'",
    "SELECT coalesce(sum(latency_ms), 0) AS total, count(model) AS models FROM answers WHERE engine = ?",
  ];
  let lite: Db;
  let post: PostgresDb;
  beforeAll(async () => {
    lite = sqlite();
    post = await pg();
    await seed(lite);
    await seed(post);
  });

  for (const text of queries) {
    test(text, async () => {
      const params = text.includes("?") ? ["chatgpt"] : [];
      const expected = await lite.all(text, params);
      expect(expected.length).toBeGreaterThan(0);
      expect(await post.all(text, params)).toEqual(expected);
    });
  }

  test("get gives the first row or undefined, and run the number of rows changed", async () => {
    expect(await post.get("SELECT engine FROM answers ORDER BY id")).toEqual({ engine: "chatgpt" });
    expect(await post.get("SELECT engine FROM answers WHERE engine = 'nobody'")).toBeUndefined();
    expect(await post.run("UPDATE answers SET model = ? WHERE engine = ?", ["m", "chatgpt"])).toBe(2);
    expect(await post.run("UPDATE answers SET model = ? WHERE engine = ?", ["m", "nobody"])).toBe(0);
  });

  test("a { sqlite, postgres } pair runs each database's own text", async () => {
    const text = { sqlite: "SELECT 'lite' AS which", postgres: "SELECT 'post' AS which" };
    expect(await lite.get(text)).toEqual({ which: "lite" });
    expect(await post.get(text)).toEqual({ which: "post" });
  });
});

describe("placeholders", () => {
  test("? numbers in order, ?N names a parameter, and a ? inside a string or a quoted name is left alone", () => {
    expect(toPostgresPlaceholders("SELECT ? , ?")).toBe("SELECT $1 , $2");
    expect(toPostgresPlaceholders("a = ?2 AND b = ?1 AND c = ?")).toBe("a = $2 AND b = $1 AND c = $3");
    expect(toPostgresPlaceholders("SELECT '?', 'it''s ?', \"col?\" WHERE x = ?")).toBe("SELECT '?', 'it''s ?', \"col?\" WHERE x = $1");
  });

  test("on the server: ?N used twice, ? after ?N, and a literal '?' in the text", async () => {
    const db = await pg();
    await seed(db);
    const text = "SELECT '?' AS mark, email FROM accounts WHERE (id = ?1 OR email = ?1) AND plan = ?";
    expect(await db.all(text, ["acc_1", "visibility"])).toEqual([{ mark: "?", email: "a@example.com" }]);
    expect(await db.all(text, ["a@example.com", "visibility"])).toEqual([{ mark: "?", email: "a@example.com" }]);
  });
});

describe("transactions", () => {
  let db: PostgresDb;
  beforeAll(async () => {
    db = await pg();
    await seed(db);
  });
  const plan = async () => (await db.get<{ plan: string }>("SELECT plan FROM accounts WHERE id = 'acc_1'"))?.plan;

  test("commit when fn resolves; its result is returned", async () => {
    const result = await db.transaction(async (tx) => {
      await tx.run("UPDATE accounts SET plan = 'autopilot' WHERE id = 'acc_1'");
      return tx.get<{ plan: string }>("SELECT plan FROM accounts WHERE id = 'acc_1'");
    });
    expect(result).toEqual({ plan: "autopilot" });
    expect(await plan()).toBe("autopilot");
  });

  test("rollback when fn throws, and the error reaches the caller", async () => {
    await db.run("UPDATE accounts SET plan = 'none' WHERE id = 'acc_1'");
    const failing = db.transaction(async (tx) => {
      await tx.run("UPDATE accounts SET plan = 'visibility' WHERE id = 'acc_1'");
      throw new Error("stop");
    });
    await expect(failing).rejects.toThrow("stop");
    expect(await plan()).toBe("none");
  });

  test("a nested transaction joins the outer one: the inner one's writes go with the outer's rollback", async () => {
    await db.run("UPDATE accounts SET plan = 'none' WHERE id = 'acc_1'");
    // Read inside, asserted outside: an expect that threw in there would only be the rejection's reason.
    let seenInside: unknown;
    const failing = db.transaction(async (tx) => {
      await tx.transaction(async (inner) => {
        await inner.run("UPDATE accounts SET plan = 'visibility' WHERE id = 'acc_1'");
      });
      await db.transaction(async (inner) => {
        seenInside = await inner.get("SELECT plan FROM accounts WHERE id = 'acc_1'");
      });
      throw new Error("stop");
    });
    await expect(failing).rejects.toThrow("stop");
    expect(seenInside).toEqual({ plan: "visibility" });
    expect(await plan()).toBe("none");
  });

  test("inside a transaction, queries through the database itself run in it; outside, they do not see it", async () => {
    await db.run("UPDATE accounts SET plan = 'none' WHERE id = 'acc_1'");
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const transaction = db.transaction(async (tx) => {
      await tx.run("UPDATE accounts SET plan = 'autopilot' WHERE id = 'acc_1'");
      expect(await plan()).toBe("autopilot");
      written();
      await held;
    });
    await wrote;
    // Another request's query, from outside the transaction's async context: the committed row only.
    expect(await plan()).toBe("none");
    release();
    await transaction;
    expect(await plan()).toBe("autopilot");
  });
});

describe("migrations", () => {
  test("every drizzle-pg/*.sql file is in the journal and embedded in src/db/migrations-pg.ts", () => {
    const files = readdirSync(join(import.meta.dir, "../../drizzle-pg"))
      .filter((f) => f.endsWith(".sql"))
      .map((f) => f.replace(/\.sql$/, ""))
      .sort();
    expect(PG_MIGRATION_JOURNAL.map((e) => e.tag).sort()).toEqual(files);
    expect(Object.keys(EMBEDDED_PG_MIGRATIONS).sort()).toEqual(files);
  });

  test("two instances opening one empty database at once both succeed, and the migrations run once", async () => {
    const url = await freshPostgresUrl({ schema: "empty" });
    const [a, b] = await Promise.all([pg(url), pg(url)]);
    const applied = await a.all<{ hash: string }>("SELECT hash FROM drizzle.__drizzle_migrations");
    expect(applied.length).toBe(PG_MIGRATION_JOURNAL.length);
    await seed(a);
    expect(await b.get("SELECT email FROM accounts")).toEqual({ email: "a@example.com" });
  });

  test("opening a migrated database again changes nothing and keeps its rows", async () => {
    const url = await freshPostgresUrl({ schema: "empty" });
    const first = await pg(url);
    await seed(first);
    await first.close();
    const again = await pg(url);
    expect(await again.all("SELECT count(*) AS n FROM drizzle.__drizzle_migrations")).toEqual([{ n: PG_MIGRATION_JOURNAL.length }]);
    expect(await again.all("SELECT count(*) AS n FROM answers")).toEqual([{ n: 3 }]);
  });

  test("answer_source_engine_days follows answer_source_days through inserts, updates and deletes, as on SQLite", async () => {
    const steps: Array<[string, unknown[]]> = [
      [
        "INSERT INTO answer_source_days (brand_id, domain, day, engine, prompt_id, hosts, answers) VALUES ('brd_1', 'a.com', 1, 'e', 'prm_1', '[]', 2)",
        [],
      ],
      ["INSERT INTO prompts (id, brand_id, text, text_key, created_at) VALUES ('prm_2', 'brd_1', 'Other?', 'other?', 1)", []],
      [
        "INSERT INTO answer_source_days (brand_id, domain, day, engine, prompt_id, hosts, answers) VALUES ('brd_1', 'a.com', 1, 'e', 'prm_2', '[]', 3)",
        [],
      ],
      ["UPDATE answer_source_days SET answers = answers + 4 WHERE prompt_id = 'prm_1'", []],
      ["DELETE FROM prompts WHERE id = 'prm_2'", []],
    ];
    const lite = sqlite();
    const post = await pg();
    const read = "SELECT brand_id, domain, day, engine, hosts, answers FROM answer_source_engine_days ORDER BY domain";
    for (const db of [lite, post] as Queries[]) await seed(db);
    for (const [text, params] of steps) {
      for (const db of [lite, post] as Queries[]) await db.run(text, params as never[]);
      expect(await post.all(read)).toEqual(await lite.all(read));
    }
    expect(await post.all(read)).toEqual([{ brand_id: "brd_1", domain: "a.com", day: 1, engine: "e", hosts: "[]", answers: 6 }]);
    await post.run("DELETE FROM answer_source_days");
    expect(await post.all(read)).toEqual([]);
  });

  /** Two instances on one fresh database with a prompt, its tag 'Old' (tag_x) and another tag (tag_y). */
  async function twoInstancesWithTags(): Promise<[PostgresDb, PostgresDb]> {
    const url = await freshPostgresUrl();
    const first = await pg(url);
    const second = await pg(url);
    await seed(first);
    await first.run(
      "INSERT INTO tags (id, brand_id, name, name_key, created_at) VALUES ('tag_x', 'brd_1', 'Old', 'old', 1), ('tag_y', 'brd_1', 'Other', 'other', 1)",
    );
    return [first, second];
  }

  /** A transaction of `db` that runs `sql` and commits when the returned commit() is called. */
  function heldOpen(db: PostgresDb, sql: string): { done: Promise<void>; commit: () => void } {
    let commit = () => {};
    const committed = new Promise<void>((resolve) => {
      commit = resolve;
    });
    const done = db.transaction(async (tx) => {
      await tx.run(sql);
      await committed;
    });
    return { done, commit };
  }

  const tagNames = async (db: PostgresDb) =>
    JSON.parse((await db.get<{ tag_names: string }>("SELECT tag_names FROM prompts WHERE id = 'prm_1'"))?.tag_names ?? "[]").sort();

  test("a prompt tagged by one instance while another renames one of its tags ends with the new name", async () => {
    // The rename's trigger locks the prompt's row first; the tagging's trigger waits for it, then
    // reads the names after the rename's commit (not from its statement's snapshot).
    const [renaming, tagging] = await twoInstancesWithTags();
    await renaming.run("INSERT INTO prompt_tags (prompt_id, tag_id) VALUES ('prm_1', 'tag_x')");
    const rename = heldOpen(renaming, "UPDATE tags SET name = 'New', name_key = 'new' WHERE id = 'tag_x'");
    await Bun.sleep(100);
    const tag = tagging.run("INSERT INTO prompt_tags (prompt_id, tag_id) VALUES ('prm_1', 'tag_y')");
    await Bun.sleep(300);
    rename.commit();
    await rename.done;
    await tag;
    expect(await tagNames(tagging)).toEqual(["New", "Other"]);
  });

  test("a tag renamed while another instance is giving it to a prompt: the prompt ends with the new name", async () => {
    // The tagging's trigger read the old name; the rename waits for it to commit, then sees its row.
    // A change of case only: name_key stays, so the rename's own row lock (FOR NO KEY UPDATE) would
    // not wait for the tagging's foreign key check (FOR KEY SHARE); a new name_key's would.
    const [tagging, renaming] = await twoInstancesWithTags();
    const tag = heldOpen(tagging, "INSERT INTO prompt_tags (prompt_id, tag_id) VALUES ('prm_1', 'tag_x')");
    await Bun.sleep(100);
    const rename = renaming.run("UPDATE tags SET name = 'OLD', name_key = 'old' WHERE id = 'tag_x'");
    await Bun.sleep(300);
    tag.commit();
    await tag.done;
    await rename;
    expect(await tagNames(renaming)).toEqual(["OLD"]);
  });
});

describe("the ORM", () => {
  test("drizzle's PostgreSQL builder works with db.tables: insert, select with eq/and, update and delete with returning, upsert", async () => {
    const db = await pg();
    const { accounts } = db.tables;
    await db.orm.insert(accounts).values({ id: "acc_1", email: "a@example.com", passwordHash: "h", createdAt: 1_767_225_600_000 });
    expect(
      await db.orm
        .select()
        .from(accounts)
        .where(and(eq(accounts.id, "acc_1"), eq(accounts.plan, "none"))),
    ).toEqual([{ id: "acc_1", email: "a@example.com", passwordHash: "h", plan: "none", createdAt: 1_767_225_600_000 }]);
    expect(
      await db.orm.update(accounts).set({ plan: "visibility" }).where(eq(accounts.id, "acc_1")).returning({ plan: accounts.plan }),
    ).toEqual([{ plan: "visibility" }]);
    const upserted = await db.orm
      .insert(accounts)
      .values({ id: "acc_1", email: "a@example.com", passwordHash: "h2", createdAt: 1 })
      .onConflictDoUpdate({ target: accounts.id, set: { passwordHash: "h2" } })
      .returning({ hash: accounts.passwordHash, createdAt: accounts.createdAt });
    expect(upserted).toEqual([{ hash: "h2", createdAt: 1_767_225_600_000 }]);
    expect(await db.orm.delete(accounts).where(eq(accounts.id, "acc_1")).returning({ id: accounts.id })).toEqual([{ id: "acc_1" }]);
  });

  test("booleans and JSON columns read back as on SQLite's ORM", async () => {
    const db = await pg();
    await seed(db);
    const { answers, brands } = db.tables;
    const rows = await db.orm
      .select({ mentioned: answers.brandMentioned, cited: answers.brandCited, sources: answers.providerCitations })
      .from(answers);
    expect(rows[0]).toEqual({ mentioned: true, cited: false, sources: [] });
    await db.orm.update(brands).set({ aliases: ["Acme Inc"] });
    expect(await db.get("SELECT aliases FROM brands")).toEqual({ aliases: '["Acme Inc"]' });
  });
});

describe("connection failures", () => {
  async function closedPort(): Promise<number> {
    return new Promise((resolve) => {
      const probe = createServer();
      probe.listen(0, "127.0.0.1", () => {
        const address = probe.address() as { port: number };
        probe.close(() => resolve(address.port));
      });
    });
  }

  test("an unreachable server: one sentence naming host and database, never the password", async () => {
    const port = await closedPort();
    const error = await openPostgres(`postgres://spyglass:Sup3r-Secret@127.0.0.1:${port}/spyglass`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Unavailable);
    expect((error as Unavailable).code).toBe("database_unreachable");
    expect((error as Error).message).toContain(`127.0.0.1:${port}/spyglass`);
    expect((error as Error).message).not.toContain("Sup3r-Secret");
    expect((error as Error).message).toContain("check SPYGLASS_DATABASE_URL and that the server is running");
    // The URL read from the variable database_url_env names: that variable is the one to check.
    const named = await openPostgres(`postgres://spyglass:Sup3r-Secret@127.0.0.1:${port}/spyglass`, { variable: "DATABASE_URL" }).catch(
      (e: unknown) => e,
    );
    expect((named as Error).message).toContain("check DATABASE_URL and that the server is running");
    expect((named as Error).message).not.toContain("SPYGLASS_DATABASE_URL");
  });

  test("a port that answers as something else (an HTTP server keeping the connection open): a sentence after the start-up's deadline, not a wait for ever", async () => {
    const sockets: Array<{ end(): void }> = [];
    const http = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        open(socket) {
          sockets.push(socket);
        },
        data(socket) {
          socket.write("HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n");
        },
      },
    });
    try {
      // Without the deadline this waited for ever (the test's own timeout ended it).
      const error = await openPostgres(`postgres://spyglass:Sup3r-Secret@127.0.0.1:${http.port}/spyglass`, { startupTimeoutMs: 500 }).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(Unavailable);
      expect((error as Error).message).toBe(
        `PostgreSQL at 127.0.0.1:${http.port}/spyglass as spyglass did not complete its start-up within 1 s: check that SPYGLASS_DATABASE_URL's host and port are PostgreSQL's (something else answers there, or the server is overloaded).`,
      );
    } finally {
      for (const socket of sockets) socket.end();
      http.stop(true);
    }
  });

  test("'PostgreSQL does not answer' is told apart from a request's own network failures (a fetch reset or refused)", async () => {
    const resetting = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        data(socket) {
          socket.write("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nabc");
          socket.terminate();
        },
      },
    });
    const port = await closedPort();
    try {
      const reset = await fetch(`http://127.0.0.1:${resetting.port}/`)
        .then((r) => r.text())
        .catch((e: unknown) => e);
      const refused = await fetch(`http://127.0.0.1:${port}/`).catch((e: unknown) => e);
      expect([(reset as { code?: string }).code, isUnreachable(reset)]).toEqual(["ECONNRESET", false]);
      expect([(refused as { code?: string }).code, isUnreachable(refused)]).toEqual(["ECONNREFUSED", false]);
      // The driver's own: a refused connection, and the server's "too many connections".
      const driver = postgres(`postgres://u:p@127.0.0.1:${port}/db`, { connect_timeout: 5, onnotice: () => undefined });
      const down = await driver.unsafe("SELECT 1").catch((e: unknown) => e);
      await driver.end({ timeout: 0 });
      expect([(down as { code?: string }).code, isUnreachable(down)]).toEqual(["ECONNREFUSED", true]);
      expect(isUnreachable(Object.assign(new Error("sorry, too many clients already"), { code: "53300", severity: "FATAL" }))).toBe(true);
      expect(isUnreachable(Object.assign(new Error("protocol violation"), { code: "08P01", severity: "ERROR" }))).toBe(false);
    } finally {
      resetting.stop(true);
    }
  });

  test("a refused login: one sentence naming host, database and user, never the password", async () => {
    const url = new URL(await freshPostgresUrl({ schema: "empty" }));
    url.password = "Wr0ng-Secret";
    const error = await openPostgres(url.toString()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Unavailable);
    expect((error as Unavailable).code).toBe("database_login_refused");
    expect((error as Error).message).toContain(`${url.host}${url.pathname} as ${url.username}`);
    expect((error as Error).message).not.toContain("Wr0ng-Secret");
  });

  test("a user that may not create the tables: one sentence naming the fix, and the cause (drizzle's wrapper had hidden it)", async () => {
    const owner = new URL(await freshPostgresUrl({ schema: "empty" }));
    const admin = await openPostgres(owner.toString(), { poolSize: 1, migrate: false });
    opened.push(admin);
    const role = `limited_${process.pid}`;
    await admin.run(`DROP ROLE IF EXISTS ${role}`);
    await admin.run(`CREATE ROLE ${role} LOGIN PASSWORD 'L1mited-Secret'`);
    const limited = new URL(owner);
    limited.username = role;
    limited.password = "L1mited-Secret";
    const error = await openPostgres(limited.toString()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Unavailable);
    expect((error as Unavailable).code).toBe("database_permission");
    expect((error as Error).message).toContain("permission denied");
    expect((error as Error).message).toContain("createdb --owner=USER");
    expect((error as Error).message).not.toContain("L1mited-Secret");
  });

  test("a database whose collation is not C is opened with a warning saying what it changes and how to mend it", async () => {
    const url = new URL(await freshPostgresUrl({ schema: "empty" }));
    const admin = await openPostgres(url.toString(), { poolSize: 1, migrate: false });
    opened.push(admin);
    const name = `icu_${process.pid}`;
    await admin.run(`DROP DATABASE IF EXISTS ${name}`);
    await admin.run(`CREATE DATABASE ${name} TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C'`);
    url.pathname = `/${name}`;
    const logs = await captureLog(async () => void opened.push(await openPostgres(url.toString(), { poolSize: 1 })));
    expect(logs).toContain("sorts text by an ICU locale's collation, not C");
    expect(logs).toContain("createdb --locale=C");
    // The tests' own databases (C) open without it.
    expect(await captureLog(async () => void (await pg()))).not.toContain("collation");
  });

  test("db.path is the URL without its password", async () => {
    const url = await freshPostgresUrl();
    const db = await pg(url);
    const password = new URL(url).password;
    expect(password.length).toBeGreaterThan(0);
    expect(db.path).not.toContain(password);
    expect(db.path).toContain(new URL(url).pathname);
  });
});

/** Waits until the notifications of earlier writes (which reach the writer too, a moment later) have landed. */
async function settled(db: PostgresDb): Promise<void> {
  for (let last = db.changes.stamp(), quietSince = Date.now(); Date.now() - quietSince < 200; await Bun.sleep(10)) {
    if (db.changes.stamp() !== last) [last, quietSince] = [db.changes.stamp(), Date.now()];
  }
}

describe("the change feed between instances", () => {
  test("a write to a watched table by another instance moves this one's stamp; its own writes move it at once, after the commit", async () => {
    const url = await freshPostgresUrl();
    const one = await pg(url);
    const two = await pg(url);
    await seed(one);
    const before = two.changes.stamp();
    await one.run("UPDATE accounts SET plan = 'autopilot' WHERE id = ?", ["acc_1"]);
    const deadline = Date.now() + 5_000;
    while (two.changes.stamp() === before && Date.now() < deadline) await Bun.sleep(5);
    expect(two.changes.stamp()).toBeGreaterThan(before);

    // Own writes: outside a transaction at once; inside one, only once it has committed.
    const own = one.changes.stamp();
    await one.run("UPDATE accounts SET plan = 'visibility' WHERE id = ?", ["acc_1"]);
    expect(one.changes.stamp()).toBeGreaterThan(own);
    await settled(one);
    let during = 0;
    const start = one.changes.stamp();
    await one.transaction(async (tx) => {
      await tx.run("UPDATE accounts SET plan = 'none' WHERE id = ?", ["acc_1"]);
      during = one.changes.stamp();
    });
    expect(during).toBe(start);
    expect(one.changes.stamp()).toBeGreaterThan(start);
    // A write elsewhere (not a cached table) leaves the stamp alone.
    await settled(one);
    const quiet = one.changes.stamp();
    await one.run("DELETE FROM sessions WHERE expires_at < 0");
    expect(one.changes.stamp()).toBe(quiet);
  });

  test("a table's own stamp moves only for writes to it, from this instance or another", async () => {
    const url = await freshPostgresUrl();
    const one = await pg(url);
    const two = await pg(url);
    await seed(one);
    await settled(two);
    // The tables' own part of a stamp: without what moves every stamp (a reconnection, the 5 s bound).
    const own = (tables: string[]) => two.changes.stamp(tables) - two.changes.stamp([]);
    const articles = own(["articles", "brands"]);
    const keys = own(["api_keys"]);
    // Another instance writes an account: neither table's stamp moves, the whole feed's does.
    const all = two.changes.stamp();
    await one.run("UPDATE accounts SET plan = 'autopilot' WHERE id = ?", ["acc_1"]);
    const deadline = Date.now() + 5_000;
    while (two.changes.stamp() === all && Date.now() < deadline) await Bun.sleep(5);
    expect(two.changes.stamp()).toBeGreaterThan(all);
    expect(own(["articles", "brands"])).toBe(articles);
    expect(own(["api_keys"])).toBe(keys);
    // Another instance writes a brand: that stamp moves.
    await one.run("UPDATE brands SET name = name WHERE account_id = ?", ["acc_1"]);
    while (own(["articles", "brands"]) === articles && Date.now() < deadline) await Bun.sleep(5);
    expect(own(["articles", "brands"])).toBeGreaterThan(articles);
    expect(own(["api_keys"])).toBe(keys);
    // Its own write in a transaction moves the tables it named, once committed.
    await settled(two);
    const before = own(["brands"]);
    let during = 0;
    await two.transaction(async (tx) => {
      await tx.run("UPDATE brands SET name = name WHERE account_id = ?", ["acc_1"]);
      during = own(["brands"]);
    });
    expect(during).toBe(before);
    expect(own(["brands"])).toBeGreaterThan(before);
  });
});
