// Upgrades and rollbacks as an operator meets them with the binary: a backup is the database as it
// was (not upgraded on the way), and an older binary refuses a database a newer one has migrated.

import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { join } from "node:path";
import postgres from "postgres";
import { RENDERER_VERSION } from "../../src/content/renderer-version";
import { MIGRATION_JOURNAL } from "../../src/db/migrations";
import { type Sandbox, sandbox } from "../support/binary";
import { downgradeTo } from "../support/migrations";

let box: Sandbox | null = null;
afterEach(() => {
  box?.cleanup();
  box = null;
});

const migrationsTable = (dialect: string) => (dialect === "sqlite" ? "__drizzle_migrations" : "drizzle.__drizzle_migrations");

/** The migrations recorded, read without Spyglass's own opening (which refuses such a database too). */
async function migrationCount(box: Sandbox): Promise<number> {
  if (box.database === "sqlite") {
    const db = new Database(join(box.dataDir, "spyglass.db"), { readonly: true });
    try {
      return (db.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
    } finally {
      db.close();
    }
  }
  const sql = postgres(box.databaseUrl!, { max: 1, onnotice: () => undefined });
  try {
    return Number((await sql.unsafe("SELECT count(*) AS n FROM drizzle.__drizzle_migrations"))[0]!.n);
  } finally {
    await sql.end();
  }
}

test("every command refuses a database migrated by a newer Spyglass, naming it, and changes nothing", async () => {
  box = await sandbox();
  expect((await box.cli(["account", "create", "--email", "owner@example.com", "--password", "correct horse"])).code).toBe(0);
  // A migration from the future, as a newer binary would have recorded it.
  const before = await box.withDb(async (db) => {
    const table = migrationsTable(db.dialect);
    await db.run(`INSERT INTO ${table} (hash, created_at) VALUES ('from-a-newer-version', 99999999999999)`);
    return (await db.get<{ n: number }>(`SELECT count(*) AS n FROM ${table}`))!.n;
  });
  for (const args of [["brand", "list", "--email", "owner@example.com"], ["migrate"], ["serve", "--port", "0", "--host", "127.0.0.1"]]) {
    const refused = await box.cli(args);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("was upgraded by a newer Spyglass: its schema has migrations this version does not know");
    expect(refused.stderr).toContain("Run the newer version, or restore a backup made before the upgrade.");
  }
  expect(await migrationCount(box)).toBe(before);
});

test("a backup of a database made by an older Spyglass is that database, not upgraded; the live one is not upgraded either", async () => {
  box = await sandbox({ database: "sqlite" });
  expect((await box.cli(["account", "create", "--email", "owner@example.com", "--password", "correct horse"])).code).toBe(0);
  const file = join(box.dataDir, "spyglass.db");
  // The database as the release before the last migration left it.
  const live = new Database(file);
  downgradeTo(live, MIGRATION_JOURNAL.at(-2)!.tag);
  const migrations = (db: Database) => (db.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
  const schema = (db: Database) => db.query("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").all();
  const applied = migrations(live);
  const older = schema(live);
  live.close();
  const backup = join(box.dir, "pre-upgrade.db");
  const made = await box.cli(["backup", backup]);
  expect(made.code).toBe(0);
  for (const path of [backup, file]) {
    const db = new Database(path, { readonly: true });
    expect(migrations(db)).toBe(applied);
    expect(schema(db)).toEqual(older);
    db.close();
  }
  // The upgrade itself is still one command away, and says what it applied (a line on stderr, as
  // serve's log has it); once done, a second migrate has nothing to say.
  const migrated = await box.cli(["migrate"]);
  expect(migrated.code).toBe(0);
  const line = JSON.parse(migrated.stderr.trim());
  expect(line).toMatchObject({
    level: "info",
    msg: "database upgraded: 1 migration applied",
    schema: { from: applied, to: applied + 1 },
    applied: MIGRATION_JOURNAL.slice(-1).map((entry) => entry.tag),
  });
  expect(line.database).toBe(file);
  const upgraded = new Database(file, { readonly: true });
  expect(migrations(upgraded)).toBe(applied + 1);
  upgraded.close();
  const again = await box.cli(["migrate"]);
  expect(again.code).toBe(0);
  expect(again.stderr).toBe("");
});

test("migrate refuses a data directory without a database instead of creating one", async () => {
  box = await sandbox({ database: "sqlite" });
  const typo = await box.cli(["migrate", "--data", join(box.dir, "dta")]);
  expect(typo.code).toBe(1);
  expect(typo.stderr).toContain("There is no Spyglass database at");
});

test("a server whose database a newer Spyglass migrates while it runs logs why and stops, exit 1", async () => {
  box = await sandbox();
  expect((await box.cli(["account", "create", "--email", "owner@example.com", "--password", "correct horse"])).code).toBe(0);
  const server = await box.serve({ env: { SPYGLASS_SCHEMA_CHECK_MS: "200" } });
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  // A newer binary's `spyglass migrate`, run while this server is up, as its recorded migration.
  await box.withDb(async (db) => {
    await db.run(`INSERT INTO ${migrationsTable(db.dialect)} (hash, created_at) VALUES ('from-a-newer-version', 99999999999999)`);
  });
  const code = await Promise.race([server.proc.exited, Bun.sleep(10_000).then(() => "still running")]);
  expect(code).toBe(1);
  const line = server
    .logs()
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((l) => l.msg === "the database's schema changed under this server: it stops");
  expect(line.level).toBe("error");
  expect(line.problem).toContain("was upgraded by a newer Spyglass");
});

test("a server started on articles an older build's renderer made renders them again, and the public API serves the new HTML", async () => {
  box = await sandbox();
  const demo = await box.cliJson<{ brand: { site_key: string } }>(["demo", "--json"]);
  // As an older build left it: its renderer's HTML, and no version (the column's default).
  const stale = "<p>rendered by an older build</p>";
  const published = await box.withDb(async (db) => {
    await db.run("UPDATE articles SET html = ?, rendered_by = 0", [stale]);
    return (await db.get<{ slug: string; markdown: string }>("SELECT slug, markdown FROM articles WHERE status = 'published'"))!;
  });
  const server = await box.serve();
  try {
    const read = async () =>
      (await (await fetch(`${server.url}/api/public/articles/${published.slug}?key=${demo.brand.site_key}`)).json()) as {
        article: { html: string };
      };
    let html = (await read()).article.html;
    for (let i = 0; i < 300 && html === stale; i++) {
      await Bun.sleep(100);
      html = (await read()).article.html;
    }
    expect(html).not.toBe(stale);
    expect(html).toContain("<h2");
    const line = server
      .logs()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === "articles rendered again by this build's renderer");
    expect(line).toMatchObject({ level: "info", failed: 0, renderer: RENDERER_VERSION });
    expect(line.changed).toBeGreaterThan(0);
    const versions = await box.withDb((db) => db.all<{ rendered_by: number }>("SELECT DISTINCT rendered_by FROM articles"));
    expect(versions).toEqual([{ rendered_by: RENDERER_VERSION }]);
  } finally {
    await server.stop();
  }
}, 90_000);
