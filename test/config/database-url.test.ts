// The database a configuration selects (CONTRACT §6): SPYGLASS_DATABASE_URL, or the variable named by
// database_url_env, selects PostgreSQL; the URL itself never lives in the file.
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config";
import { openConfiguredDatabase } from "../../src/db/open";
import { freshPostgresUrl } from "../support/postgres";
import { scratchDir } from "../support/scratch";

function withFile(toml: string): string {
  const dir = scratchDir("spyglass-config-");
  writeFileSync(join(dir, "spyglass.toml"), toml);
  return dir;
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

const URL_WITH_PASSWORD = "postgres://spyglass:Sup3r-Secret@db.internal:5432/spyglass";

describe("databaseUrl", () => {
  test("null without SPYGLASS_DATABASE_URL (SQLite), and when it is empty", () => {
    expect(loadConfig({ flags: {}, env: {}, cwd: "/srv" }).databaseUrl).toBeNull();
    expect(loadConfig({ flags: {}, env: { SPYGLASS_DATABASE_URL: "" }, cwd: "/srv" }).databaseUrl).toBeNull();
  });

  test("SPYGLASS_DATABASE_URL with postgres:// or postgresql://", () => {
    expect(loadConfig({ flags: {}, env: { SPYGLASS_DATABASE_URL: URL_WITH_PASSWORD } }).databaseUrl).toBe(URL_WITH_PASSWORD);
    const other = "postgresql://u@localhost/db?sslmode=require";
    expect(loadConfig({ flags: {}, env: { SPYGLASS_DATABASE_URL: other } }).databaseUrl).toBe(other);
  });

  test("another scheme or no URL at all: a sentence naming the variable, never its value", () => {
    for (const value of ["mysql://root:Sup3r-Secret@db/spyglass", "Sup3r-Secret", "/var/lib/spyglass.db"]) {
      const message = errorOf(() => loadConfig({ flags: {}, env: { SPYGLASS_DATABASE_URL: value } }));
      expect(message).toContain("SPYGLASS_DATABASE_URL: must be a postgres:// or postgresql:// URL");
      expect(message).not.toContain("Sup3r-Secret");
      expect(message).not.toContain(value);
    }
  });

  test("a password whose / @ or % is not percent-encoded is refused saying so, never quoted (it read as the host and the path)", () => {
    for (const value of [
      "postgres://spy:1234/Sup3r-Secret@127.0.0.1:5432/spy1",
      "postgres://spy:Sup3r@Secret@127.0.0.1:5432/spy1",
      "postgres://spy:Sup3r%Secret@127.0.0.1:5432/spy1",
      "postgres://spy:2024?Sup3r-Secret@127.0.0.1:5432/spy1",
      "postgres://spy:2024#Sup3r-Secret@127.0.0.1:5432/spy1",
    ]) {
      const message = errorOf(() => loadConfig({ flags: {}, env: { SPYGLASS_DATABASE_URL: value } }));
      expect(message).toStartWith("SPYGLASS_DATABASE_URL: ");
      expect(message).not.toContain("Secret");
      expect(message).not.toContain("1234");
      expect(message).toMatch(/percent-encoded|%25/);
    }
    // No host is the driver's default (PGHOST, or localhost), as before.
    expect(loadConfig({ flags: {}, env: { SPYGLASS_DATABASE_URL: "postgres:///spy1" } }).databaseUrl).toBe("postgres:///spy1");
    // Encoded, the same password is taken.
    const encoded = "postgres://spy:1234%2FSup3r%40Secret%25@127.0.0.1:5432/spy1";
    expect(loadConfig({ flags: {}, env: { SPYGLASS_DATABASE_URL: encoded } }).databaseUrl).toBe(encoded);
  });

  test("database_url_env names the variable instead; SPYGLASS_DATABASE_URL is then ignored", () => {
    const dir = withFile('database_url_env = "DATABASE_URL"\n');
    const config = loadConfig({
      flags: { data: dir },
      env: { DATABASE_URL: URL_WITH_PASSWORD, SPYGLASS_DATABASE_URL: "postgres://other/db" },
    });
    expect(config.databaseUrl).toBe(URL_WITH_PASSWORD);
    // Errors about the database name that variable (they named SPYGLASS_DATABASE_URL, never set here).
    expect(config.databaseUrlVariable).toBe("DATABASE_URL");
    expect(loadConfig({ flags: { data: withFile("") }, env: { SPYGLASS_DATABASE_URL: URL_WITH_PASSWORD } }).databaseUrlVariable).toBe(
      "SPYGLASS_DATABASE_URL",
    );
  });

  test("a variable named by database_url_env that is not set is an error, not a silent SQLite", () => {
    const dir = withFile('database_url_env = "DATABASE_URL"\n');
    expect(errorOf(() => loadConfig({ flags: { data: dir }, env: {} }))).toBe(
      `${join(dir, "spyglass.toml")}: database_url_env: the environment variable DATABASE_URL is not set`,
    );
  });

  test("database_url_env must be a variable's name", () => {
    const dir = withFile('database_url_env = "postgres://x"\n');
    expect(errorOf(() => loadConfig({ flags: { data: dir }, env: {} }))).toContain(
      "database_url_env: must be the name of an environment variable",
    );
  });

  test("a URL in the file is refused with where it belongs instead", () => {
    const dir = withFile(`database_url = "${URL_WITH_PASSWORD}"\n`);
    const message = errorOf(() => loadConfig({ flags: { data: dir }, env: {} }));
    expect(message).toContain("database_url: the database URL holds a password and never lives in the file: set SPYGLASS_DATABASE_URL");
    expect(message).not.toContain("Sup3r-Secret");
  });
});

describe("openConfiguredDatabase", () => {
  const closing: Array<() => unknown> = [];
  afterAll(async () => {
    for (const close of closing) await close();
  });

  test("SQLite in the data directory without a URL", async () => {
    const dir = scratchDir("spyglass-config-");
    const db = await openConfiguredDatabase(loadConfig({ flags: { data: dir }, env: {} }));
    closing.push(() => db.close());
    expect(db.dialect).toBe("sqlite");
    expect(db.path).toBe(join(dir, "spyglass.db"));
  });

  test("PostgreSQL with one", async () => {
    const url = await freshPostgresUrl();
    const db = await openConfiguredDatabase(loadConfig({ flags: {}, env: { SPYGLASS_DATABASE_URL: url } }));
    closing.push(() => db.close());
    expect(db.dialect).toBe("postgres");
    expect(await db.get("SELECT count(*) AS n FROM accounts")).toEqual({ n: 0 });
  }, 120_000);
});
