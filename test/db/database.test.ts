import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle } from "drizzle-orm/bun-sqlite";
import { backupDatabase } from "../../src/db/backup";
import { writeBackup } from "../../src/db/backup-file";
import { type Db, openDatabase } from "../../src/db/client";
import { EMBEDDED_MIGRATIONS, embeddedMigrations, MIGRATION_JOURNAL } from "../../src/db/migrations";

const dirs: string[] = [];
const dbs: Db[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "spyglass-db-"));
  dirs.push(dir);
  return dir;
}
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A database file migrated up to (not including) the migration tagged `tag`, as an older release left it. */
function migratedBefore(tag: string): { path: string; old: ReturnType<typeof drizzle> } {
  const path = join(tempDir(), "spyglass.db");
  const old = drizzle(new Database(path));
  const before = MIGRATION_JOURNAL.filter((entry) => entry.tag < tag);
  (old as unknown as { dialect: { migrate(m: unknown, s: unknown, c: object): void }; session: unknown }).dialect.migrate(
    embeddedMigrations(before, EMBEDDED_MIGRATIONS),
    (old as unknown as { session: unknown }).session,
    {},
  );
  return { path, old };
}

describe("migrations", () => {
  test("every drizzle/*.sql file is in the journal and embedded in src/db/migrations.ts", () => {
    const files = readdirSync(join(import.meta.dir, "../../drizzle"))
      .filter((f) => f.endsWith(".sql"))
      .map((f) => f.replace(/\.sql$/, ""))
      .sort();
    expect(MIGRATION_JOURNAL.map((e) => e.tag).sort()).toEqual(files);
    expect(Object.keys(EMBEDDED_MIGRATIONS).sort()).toEqual(files);
  });

  test("a database from before migration 0019 counts its clients ever signed in with as used, the others not", async () => {
    const { path, old } = migratedBefore("0018");
    old.$client.exec(`
      INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES ('acc_1', 'a@example.com', 'x', 'autopilot', 1);
      INSERT INTO brands (id, account_id, name, domain, aliases, site_key, created_at, updated_at) VALUES ('brd_1', 'acc_1', 'Acme', 'acme.test', '[]', 'sk', 1, 1);
      INSERT INTO oauth_clients (id, kind, name, redirect_uris, created_at) VALUES ('c_granted', 'dcr', 'A', '[]', 10), ('c_coded', 'dcr', 'B', '[]', 20), ('c_never', 'dcr', 'C', '[]', 30);
      INSERT INTO oauth_grants (id, account_id, brand_id, client_id, client_name, resource, created_at) VALUES ('grant_1', 'acc_1', 'brd_1', 'c_granted', 'A', 'r', 11);
      INSERT INTO oauth_codes (code_hash, client_id, account_id, brand_id, redirect_uri, code_challenge, resource, created_at, expires_at) VALUES ('h', 'c_coded', 'acc_1', 'brd_1', 'u', 'c', 'r', 21, 22);
    `);
    old.$client.close();
    const db = openDatabase(path);
    dbs.push(db);
    expect(db.sqlite.query("SELECT id, used_at FROM oauth_clients ORDER BY id").all()).toEqual([
      { id: "c_coded", used_at: 20 },
      { id: "c_granted", used_at: 10 },
      { id: "c_never", used_at: null },
    ]);
  });

  test("a database tagged before migration 0012 has its prompts' tag names filled in", async () => {
    // The database as 0011 left it: a prompt with two tags, one without, written straight in SQL.
    const { path, old } = migratedBefore("0012");
    old.$client.exec(`
      INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES ('acc_1', 'a@example.com', 'x', 'autopilot', 1);
      INSERT INTO brands (id, account_id, name, domain, aliases, site_key, created_at, updated_at) VALUES ('brd_1', 'acc_1', 'Acme', 'acme.test', '[]', 'sk', 1, 1);
      INSERT INTO tags (id, brand_id, name, name_key, created_at) VALUES ('tag_1', 'brd_1', 'Launch', 'launch', 1), ('tag_2', 'brd_1', 'Été "quoted"', 'été "quoted"', 2);
      INSERT INTO prompts (id, brand_id, text, text_key, created_at) VALUES ('prm_1', 'brd_1', 'one', 'one', 1), ('prm_2', 'brd_1', 'two', 'two', 2);
      INSERT INTO prompt_tags (prompt_id, tag_id) VALUES ('prm_1', 'tag_1'), ('prm_1', 'tag_2');
    `);
    old.$client.close();
    const db = openDatabase(path);
    dbs.push(db);
    const names = db.sqlite.query("SELECT id, tag_names FROM prompts ORDER BY id").all() as Array<{ id: string; tag_names: string }>;
    expect(names.map((row) => [row.id, JSON.parse(row.tag_names).sort()])).toEqual([
      ["prm_1", ["Launch", 'Été "quoted"']],
      ["prm_2", []],
    ]);
  });

  test("a database from before migrations 0015 and 0016 has every brand with answers re-analysed at the next start", async () => {
    // The analysis changed (answers in other languages; full-width forms): the brands' answers lag
    // their roster's version, by one for each change.
    const { path, old } = migratedBefore("0015");
    old.$client.exec(`
      INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES ('acc_1', 'a@example.com', 'x', 'autopilot', 1);
      INSERT INTO brands (id, account_id, name, domain, aliases, site_key, created_at, updated_at) VALUES
        ('brd_edited', 'acc_1', 'Acme', 'acme.test', '[]', 'sk1', 1, 1),
        ('brd_answers', 'acc_1', 'Beta', 'beta.test', '[]', 'sk2', 1, 1),
        ('brd_none', 'acc_1', 'Gamma', 'gamma.test', '[]', 'sk3', 1, 1);
      INSERT INTO prompts (id, brand_id, text, text_key, created_at) VALUES ('prm_1', 'brd_edited', 'one', 'one', 1), ('prm_2', 'brd_answers', 'two', 'two', 1);
      INSERT INTO answers (brand_id, prompt_id, engine, status, text, created_at) VALUES
        ('brd_edited', 'prm_1', 'gpt', 'ok', 'Acme ist gut.', 1), ('brd_answers', 'prm_2', 'gpt', 'ok', 'ソニーのテレビ', 1);
      INSERT INTO roster_versions (brand_id, version, analysed) VALUES ('brd_edited', 3, 3);
    `);
    old.$client.close();
    const db = openDatabase(path);
    dbs.push(db);
    expect(db.sqlite.query("SELECT brand_id, version, analysed FROM roster_versions ORDER BY brand_id").all()).toEqual([
      { brand_id: "brd_answers", version: 2, analysed: 0 },
      { brand_id: "brd_edited", version: 5, analysed: 3 },
    ]);
  });

  test("a fresh file gets WAL, synchronous=NORMAL, foreign keys and every table; reopening is a no-op", () => {
    const path = join(tempDir(), "nested", "spyglass.db");
    const db = openDatabase(path);
    dbs.push(db);
    const pragma = (name: string) => Object.values(db.sqlite.query(`PRAGMA ${name}`).get() as object)[0];
    expect(pragma("journal_mode")).toBe("wal");
    expect(pragma("synchronous")).toBe(1);
    expect(pragma("foreign_keys")).toBe(1);
    expect(Number(pragma("busy_timeout"))).toBeGreaterThan(0);
    const tables = (db.sqlite.query("SELECT name FROM sqlite_master WHERE type='table'").all() as Array<{ name: string }>).map(
      (r) => r.name,
    );
    for (const table of ["accounts", "sessions", "brands", "api_keys", "prompts", "answers", "articles"]) expect(tables).toContain(table);
    db.close();
    dbs.pop();
    const again = openDatabase(path);
    dbs.push(again);
    const applied = again.sqlite.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number };
    expect(applied.n).toBe(MIGRATION_JOURNAL.length);
  });

  test("foreign keys are enforced", () => {
    const db = openDatabase(":memory:");
    dbs.push(db);
    expect(() =>
      db.sqlite.exec(
        "INSERT INTO brands (id, account_id, name, site_key, created_at, updated_at) VALUES ('b', 'missing', 'x', 'pk_x', 1, 1)",
      ),
    ).toThrow();
  });

  test("processes that open a new database, or one to upgrade, at the same moment all start, and each migration is applied once", async () => {
    const client = join(import.meta.dir, "../../src/db/client.ts");
    // Each process waits for the same instant, then opens the database (as a server and commands
    // started together by a script or a container's entry point do).
    const openTogether = async (path: string, processes: number) => {
      const at = Date.now() + 1_500;
      const children = Array.from({ length: processes }, () =>
        Bun.spawn(
          [
            process.execPath,
            "--eval",
            `const { openDatabase } = await import(${JSON.stringify(client)}); while (Date.now() < ${at}); await openDatabase(${JSON.stringify(path)}).close();`,
          ],
          { stdout: "ignore", stderr: "pipe" },
        ),
      );
      return Promise.all(children.map(async (child) => ({ code: await child.exited, stderr: await new Response(child.stderr).text() })));
    };
    const applied = (path: string) => {
      const db = new Database(path, { readonly: true });
      try {
        return db.query("SELECT count(*) AS n, count(DISTINCT hash) AS distinct_hashes FROM __drizzle_migrations").get() as object;
      } finally {
        db.close();
      }
    };
    const all = MIGRATION_JOURNAL.length;
    for (let round = 0; round < 3; round++) {
      const path = join(tempDir(), "data", "spyglass.db");
      expect(await openTogether(path, 4)).toEqual(Array.from({ length: 4 }, () => ({ code: 0, stderr: "" })));
      expect(applied(path)).toEqual({ n: all, distinct_hashes: all });
    }
    const { path, old } = migratedBefore("0018");
    (old as unknown as { $client: Database }).$client.close();
    expect(await openTogether(path, 4)).toEqual(Array.from({ length: 4 }, () => ({ code: 0, stderr: "" })));
    expect(applied(path)).toEqual({ n: all, distinct_hashes: all });
  }, 60_000);
});

describe("backup", () => {
  test("VACUUM INTO makes a consistent copy while the source stays open, and never overwrites a file", async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, "spyglass.db"));
    dbs.push(db);
    db.sqlite.exec("INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES ('acc_1', 'a@example.com', 'h', 'none', 1)");
    const result = await backupDatabase(db, join(dir, "copy.db"));
    expect(result.bytes).toBeGreaterThan(0);
    const copy = new Database(result.file, { readonly: true });
    expect(copy.query("SELECT email FROM accounts").all()).toEqual([{ email: "a@example.com" }]);
    copy.close();
    expect(readdirSync(dir).filter((name) => name.endsWith(".partial"))).toEqual([]);
    writeFileSync(join(dir, "taken.db"), "keep me");
    await expect(backupDatabase(db, join(dir, "taken.db"))).rejects.toThrow(/already exists/);
    expect(readFileSync(join(dir, "taken.db"), "utf8")).toBe("keep me");
    await expect(backupDatabase(db, join(dir, "missing", "x.db"))).rejects.toThrow(/does not exist/);
  });

  test("a backup that fails leaves no file that looks like a backup, and a stopped one's partial file is replaced", async () => {
    const dir = tempDir();
    const db = openDatabase(join(dir, "spyglass.db"));
    dbs.push(db);
    // A backup stopped before (a signal in the middle) left its partial file: the next one goes ahead.
    writeFileSync(join(dir, "nightly.db.partial"), "");
    const made = await backupDatabase(db, join(dir, "nightly.db"));
    expect(made.bytes).toBeGreaterThan(0);
    expect(existsSync(join(dir, "nightly.db.partial"))).toBe(false);
    // One that fails on the way (here: the database is closed under it) leaves neither file.
    const closed = openDatabase(join(dir, "other.db"));
    closed.sqlite.close();
    await expect(backupDatabase(closed, join(dir, "failed.db"))).rejects.toThrow();
    expect(readdirSync(dir).filter((name) => name.startsWith("failed.db"))).toEqual([]);
  });

  test("a backup that cannot be written says which file and why in words, and leaves no partial file nor its journal", async () => {
    const dir = tempDir();
    // A full disk: VACUUM INTO fails with SQLite's words and leaves FILE.partial-journal beside the copy.
    const full = join(dir, "nightly.db");
    const failure = writeBackup(full, (partial) => {
      writeFileSync(`${partial}-journal`, "journal");
      throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    });
    await expect(failure).rejects.toThrow(`${full} could not be written (the disk is full); nothing of it was left behind.`);
    expect(readdirSync(dir)).toEqual([]);
    // The source database's own failure is not the backup file's: it passes as it is (the CLI says the database is damaged).
    const corrupt = Object.assign(new Error("database disk image is malformed"), { code: "SQLITE_CORRUPT" });
    await expect(
      writeBackup(full, () => {
        throw corrupt;
      }),
    ).rejects.toBe(corrupt);
    expect(readdirSync(dir)).toEqual([]);
    // A directory that takes no new file (it was "unexpected error: ENOENT … open '/proc/x.db.partial'").
    await expect(writeBackup("/proc/spyglass-backup.db", () => undefined)).rejects.toThrow(
      "/proc/spyglass-backup.db could not be written (its directory refused the file, or is gone); nothing of it was left behind.",
    );
  });
});

describe("files on disk", () => {
  const modeOf = (path: string) => statSync(path).mode & 0o777;

  test("the data directory Spyglass creates is 0700; the database, its WAL and shared memory and backups are 0600", async () => {
    const dataDir = join(tempDir(), "data");
    const path = join(dataDir, "spyglass.db");
    const db = openDatabase(path);
    dbs.push(db);
    db.sqlite.exec("CREATE TABLE probe (x)");
    expect(modeOf(dataDir)).toBe(0o700);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) expect([file, modeOf(file)]).toEqual([file, 0o600]);
    const backup = join(tempDir(), "copy.db");
    await backupDatabase(db, backup);
    expect(modeOf(backup)).toBe(0o600);
  });

  test("a file that is no SQLite database is refused with a sentence naming it and what to do, and left as it was", () => {
    const path = join(tempDir(), "spyglass.db");
    writeFileSync(path, "these bytes are not a database, whatever the file is called. ".repeat(4));
    expect(() => openDatabase(path)).toThrow(
      `${path} is not a Spyglass database (SQLite says: file is not a database): check --data (or SPYGLASS_DATA), or restore the database from a backup.`,
    );
    expect(readFileSync(path, "utf8")).toStartWith("these bytes are not a database");
  });

  test("with create: false, a missing database is refused with a sentence naming the file, and nothing is created", () => {
    const dataDir = join(tempDir(), "mistyped");
    const path = join(dataDir, "spyglass.db");
    expect(() => openDatabase(path, { create: false })).toThrow(`There is no Spyglass database at ${path}`);
    expect(existsSync(dataDir)).toBe(false);
  });

  test("a database another connection is writing to still opens (the write probe does not wait for the lock)", () => {
    const path = join(tempDir(), "spyglass.db");
    dbs.push(openDatabase(path));
    const writer = new Database(path);
    writer.exec("BEGIN IMMEDIATE");
    try {
      const reader = openDatabase(path, { create: false });
      dbs.push(reader);
      expect(reader.sqlite.query("SELECT count(*) AS n FROM accounts").get()).toEqual({ n: 0 });
    } finally {
      writer.exec("ROLLBACK");
      writer.close();
    }
  });

  test("closing never throws, even when PRAGMA optimize fails", () => {
    const db = openDatabase(join(tempDir(), "spyglass.db"));
    const exec = db.sqlite.exec.bind(db.sqlite);
    db.sqlite.exec = ((sql: string) => {
      if (sql.includes("optimize")) throw new Error("attempt to write a readonly database");
      return exec(sql);
    }) as typeof db.sqlite.exec;
    expect(() => db.close()).not.toThrow();
  });
});
