// Test helpers: an in-memory database with a config loaded from a real spyglass.toml, and a brand
// with competitors, tags and prompts written directly (the analytics and runner tests own no API
// for those).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { type AppContext, type AppContextOptions, createAppContext } from "../../src/context";
import { openDatabase } from "../../src/db/client";
import { newId } from "../../src/ids";
import { scratchDir } from "../support/scratch";
import { sqliteOf } from "../support/sqlite";

/** An app on `:memory:` whose config is the given TOML text (engines, tracking, …). */
export function memoryApp(toml = "", options: AppContextOptions = {}): AppContext {
  const dir = scratchDir("spyglass-test-");
  writeFileSync(join(dir, "spyglass.toml"), toml);
  const config = loadConfig({ flags: { data: dir }, env: {} });
  return createAppContext(config, openDatabase(":memory:"), options);
}

export interface SeededBrand {
  accountId: string;
  brandId: string;
  competitors: Record<string, string>;
  tags: Record<string, string>;
  prompts: Record<string, string>;
}

export function seedBrand(
  app: AppContext,
  spec: {
    name: string;
    domain?: string;
    aliases?: string[];
    plan?: "none" | "visibility" | "autopilot";
    competitors?: Array<{ key: string; name: string; aliases?: string[]; domains?: string[] }>;
    tags?: string[];
    prompts?: Array<{ key: string; text: string; tags?: string[]; archived?: boolean }>;
  },
): SeededBrand {
  const db = sqliteOf(app.db);
  const accountId = newId("acc");
  const brandId = newId("brd");
  const now = Date.UTC(2025, 0, 1);
  db.query("INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES (?, ?, 'x', ?, ?)").run(
    accountId,
    `${accountId}@example.com`,
    spec.plan ?? "visibility",
    now,
  );
  db.query(
    "INSERT INTO brands (id, account_id, name, domain, aliases, site_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  ).run(brandId, accountId, spec.name, spec.domain ?? null, JSON.stringify(spec.aliases ?? []), newId("pk"), now, now);
  const competitors: Record<string, string> = {};
  (spec.competitors ?? []).forEach((c, i) => {
    const id = newId("cmp");
    competitors[c.key] = id;
    db.query("INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(
      id,
      brandId,
      c.name,
      JSON.stringify(c.aliases ?? []),
      JSON.stringify(c.domains ?? []),
      now + i,
    );
  });
  const tags: Record<string, string> = {};
  (spec.tags ?? []).forEach((name, i) => {
    const id = newId("tag");
    tags[name] = id;
    db.query("INSERT INTO tags (id, brand_id, name, name_key, created_at) VALUES (?, ?, ?, ?, ?)").run(
      id,
      brandId,
      name,
      name.toLowerCase(),
      now + i,
    );
  });
  const prompts: Record<string, string> = {};
  (spec.prompts ?? []).forEach((p, i) => {
    const id = newId("prm");
    prompts[p.key] = id;
    db.query("INSERT INTO prompts (id, brand_id, text, text_key, archived_at, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(
      id,
      brandId,
      p.text,
      p.text.toLowerCase(),
      p.archived ? now : null,
      now + i,
    );
    for (const tag of p.tags ?? []) db.query("INSERT INTO prompt_tags (prompt_id, tag_id) VALUES (?, ?)").run(id, tags[tag]!);
  });
  return { accountId, brandId, competitors, tags, prompts };
}
