// An in-process Spyglass for the content tests: a fresh test database (SQLite in memory, or PostgreSQL
// with SPYGLASS_TEST_DATABASE=postgres; on SQLite a file when dbPath is given, so that a second
// connection can open it), one account on the
// Autopilot plan with two brands, and the app built on it (requests go through app.handle).
import { buildApp } from "../../src/app";
import { type BrandView, createBrand } from "../../src/brands/service";
import { type Config, loadConfig } from "../../src/config";
import { type AppContext, createAppContext } from "../../src/context";
import { newId } from "../../src/ids";
import { createApiKey } from "../../src/keys/service";
import { configureLog } from "../../src/log";
import { openTestDatabase } from "../support/database";
import { testCatalog } from "../support/http";
import { scratchDir } from "../support/scratch";

export interface World {
  ctx: AppContext;
  app: ReturnType<typeof buildApp>;
  accountId: string;
  brand: BrandView;
  other: BrandView;
  close(): Promise<void>;
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  const dataDir = scratchDir("spyglass-content-");
  return { ...loadConfig({ flags: { data: dataDir }, env: {} }), ...overrides };
}

export async function makeWorld(options: { config?: Partial<Config>; dbPath?: string } = {}): Promise<World> {
  configureLog({ quiet: true });
  const config = testConfig(options.config);
  const db = await openTestDatabase({ file: options.dbPath });
  // Inserted directly: hashing a password costs half a second, and these tests never log in.
  const account = { id: newId("acc") };
  await db.run("INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES (?, ?, '-', 'autopilot', ?)", [
    account.id,
    `${account.id}@example.com`,
    Date.now(),
  ]);
  const brand = await createBrand(db, account.id, { name: "Acme CRM", domain: "acme.com", aliases: ["AcmeCRM"] });
  const other = await createBrand(db, account.id, { name: "Other Brand", domain: "other.com" });
  const ctx = createAppContext(config, db);
  return { ctx, app: buildApp(ctx, testCatalog()), accountId: account.id, brand, other, close: async () => await db.close() };
}

export async function addPrompt(world: World, brandId: string, text: string): Promise<string> {
  const id = newId("prm");
  await world.ctx.db.run("INSERT INTO prompts (id, brand_id, text, text_key, created_at) VALUES (?, ?, ?, ?, ?)", [
    id,
    brandId,
    text,
    text.toLowerCase().replace(/\s+/g, " ").trim(),
    Date.now(),
  ]);
  return id;
}

/** An API key of the world's account for `brandId`, made as the dashboard makes them. */
export async function apiKeyFor(world: World, brandId: string): Promise<string> {
  return (await createApiKey(world.ctx.db, world.accountId, { name: "test", brandId })).plaintext;
}

export interface ToolOutcome {
  data: any;
  error: string | null;
}

/** One tools/call through app.handle, as an MCP client would post it (stateless JSON responses). */
export async function callTool(world: World, key: string, name: string, args: Record<string, unknown> = {}): Promise<ToolOutcome> {
  const response = await world.app.handle(
    new Request("http://localhost/api/mcp/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
    }),
  );
  const body = (await response.json()) as {
    result?: { isError?: boolean; structuredContent?: unknown; content?: Array<{ text?: string }> };
    error?: { message: string };
  };
  if (!body.result) throw new Error(`${name}: JSON-RPC error ${JSON.stringify(body.error ?? body)}`);
  return {
    data: body.result.structuredContent ?? null,
    error: body.result.isError ? (body.result.content?.[0]?.text ?? "") : null,
  };
}
