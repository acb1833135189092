// Test helpers: an app whose config is loaded from a real spyglass.toml, on the test database
// (SQLite in memory, or PostgreSQL with SPYGLASS_TEST_DATABASE=postgres), and a brand with
// competitors, tags and prompts written directly through the data access (the analytics and runner
// tests own no API for those), so the figures worked out by hand are checked on both databases.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { type AppContext, type AppContextOptions, createAppContext } from "../../src/context";
import { openDatabase } from "../../src/db/client";
import { type SqlParam } from "../../src/db/queries";
import { newId } from "../../src/ids";
import { openTestDatabase } from "../support/database";
import { scratchDir } from "../support/scratch";
import { sqliteOf } from "../support/sqlite";

/** One OpenAI-compatible engine, "gpt", that nothing reaches (answers are written directly). */
export const GPT_ENGINE_TOML = `
[[engines]]
id = "gpt"
label = "GPT"
api = "openai"
base_url = "http://127.0.0.1:9/v1"
model = "gpt-test"
`;

/** The config a spyglass.toml with this text gives (in a scratch data directory). */
export function configOf(toml: string) {
  const dir = scratchDir("spyglass-test-");
  writeFileSync(join(dir, "spyglass.toml"), toml);
  return loadConfig({ flags: { data: dir }, env: {} });
}

/** An app on the test database whose config is the given TOML text (engines, tracking, …); close its db when done. */
export async function openApp(toml = "", options: AppContextOptions = {}): Promise<AppContext> {
  return createAppContext(configOf(toml), await openTestDatabase(), options);
}

/** An app on SQLite `:memory:`, for the tests that have not moved to openApp and addBrand (SQLite only). */
export function memoryApp(toml = "", options: AppContextOptions = {}): AppContext {
  return createAppContext(configOf(toml), openDatabase(":memory:"), options);
}

export interface SeededBrand {
  accountId: string;
  brandId: string;
  competitors: Record<string, string>;
  tags: Record<string, string>;
  prompts: Record<string, string>;
}

export interface BrandSpec {
  name: string;
  domain?: string;
  aliases?: string[];
  plan?: "none" | "visibility" | "autopilot";
  competitors?: Array<{ key: string; name: string; aliases?: string[]; domains?: string[] }>;
  tags?: string[];
  prompts?: Array<{ key: string; text: string; tags?: string[]; archived?: boolean }>;
}

type Statement = [sql: string, params: SqlParam[]];

/** The brand's rows (account, brand, competitors, tags, prompts) as portable statements, and their ids. */
function brandStatements(spec: BrandSpec): { seeded: SeededBrand; statements: Statement[] } {
  const accountId = newId("acc");
  const brandId = newId("brd");
  const now = Date.UTC(2025, 0, 1);
  const statements: Statement[] = [
    [
      "INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES (?, ?, 'x', ?, ?)",
      [accountId, `${accountId}@example.com`, spec.plan ?? "visibility", now],
    ],
    [
      "INSERT INTO brands (id, account_id, name, domain, aliases, site_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      [brandId, accountId, spec.name, spec.domain ?? null, JSON.stringify(spec.aliases ?? []), newId("pk"), now, now],
    ],
  ];
  const competitors: Record<string, string> = {};
  (spec.competitors ?? []).forEach((c, i) => {
    const id = newId("cmp");
    competitors[c.key] = id;
    statements.push([
      "INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      [id, brandId, c.name, JSON.stringify(c.aliases ?? []), JSON.stringify(c.domains ?? []), now + i],
    ]);
  });
  const tags: Record<string, string> = {};
  (spec.tags ?? []).forEach((name, i) => {
    const id = newId("tag");
    tags[name] = id;
    statements.push([
      "INSERT INTO tags (id, brand_id, name, name_key, created_at) VALUES (?, ?, ?, ?, ?)",
      [id, brandId, name, name.toLowerCase(), now + i],
    ]);
  });
  const prompts: Record<string, string> = {};
  (spec.prompts ?? []).forEach((p, i) => {
    const id = newId("prm");
    prompts[p.key] = id;
    statements.push([
      "INSERT INTO prompts (id, brand_id, text, text_key, archived_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      [id, brandId, p.text, p.text.toLowerCase(), p.archived ? now : null, now + i],
    ]);
    for (const tag of p.tags ?? []) statements.push(["INSERT INTO prompt_tags (prompt_id, tag_id) VALUES (?, ?)", [id, tags[tag]!]]);
  });
  return { seeded: { accountId, brandId, competitors, tags, prompts }, statements };
}

/** Writes a brand through the data access, on whichever database the app runs. */
export async function addBrand(app: AppContext, spec: BrandSpec): Promise<SeededBrand> {
  const { seeded, statements } = brandStatements(spec);
  await app.db.transaction(async (tx) => {
    for (const [sql, params] of statements) await tx.run(sql, params);
  });
  return seeded;
}

/** The same, synchronously, on a memoryApp (SQLite only). */
export function seedBrand(app: AppContext, spec: BrandSpec): SeededBrand {
  const { seeded, statements } = brandStatements(spec);
  const db = sqliteOf(app.db);
  for (const [sql, params] of statements) db.query(sql).run(...(params as Array<string | number | null>));
  return seeded;
}
