// An in-process Spyglass for the content tests: a fresh in-memory database, one account on the
// Autopilot plan with two brands, and the app built on it (requests go through app.handle).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp, type AppContext } from "../../src/app";
import { type BrandView, createBrand } from "../../src/brands/service";
import { type Config, loadConfig } from "../../src/config";
import { openDatabase } from "../../src/db/client";
import { accounts, prompts } from "../../src/db/schema";
import { newId } from "../../src/ids";
import { configureLog } from "../../src/log";

export interface World {
  ctx: AppContext;
  app: ReturnType<typeof buildApp>;
  accountId: string;
  brand: BrandView;
  other: BrandView;
  close(): void;
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  const dataDir = mkdtempSync(join(tmpdir(), "spyglass-content-"));
  return { ...loadConfig({ flags: { data: dataDir }, env: {} }), ...overrides };
}

export async function makeWorld(options: { config?: Partial<Config>; dbPath?: string } = {}): Promise<World> {
  configureLog({ quiet: true });
  const config = testConfig(options.config);
  const db = openDatabase(options.dbPath ?? ":memory:");
  // Inserted directly: hashing a password costs half a second, and these tests never log in.
  const account = { id: newId("acc") };
  db.orm.insert(accounts).values({ id: account.id, email: `${account.id}@example.com`, passwordHash: "-", plan: "autopilot", createdAt: Date.now() }).run();
  const brand = createBrand(db, account.id, { name: "Acme CRM", domain: "acme.com", aliases: ["AcmeCRM"] });
  const other = createBrand(db, account.id, { name: "Other Brand", domain: "other.com" });
  const ctx: AppContext = { config, db };
  return { ctx, app: buildApp(ctx), accountId: account.id, brand, other, close: () => db.close() };
}

export function addPrompt(world: World, brandId: string, text: string): string {
  const id = newId("prm");
  world.ctx.db.orm
    .insert(prompts)
    .values({ id, brandId, text, textKey: text.toLowerCase().replace(/\s+/g, " ").trim(), createdAt: Date.now() })
    .run();
  return id;
}
