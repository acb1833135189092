// In-process test harness: a real app (buildApp) over a real SQLite database, driven through
// `app.handle(new Request(...))`, no ports.
//
//   const t = await testApp({ publicUrl?, signup?, dbPath? });
//   const cookie = await t.signIn("a@example.com", { plan: "visibility" });   // creates + logs in
//   const res = await t.call("POST", "/api/brands", { cookie, body: { name: "Acme" } });
//   res.status, res.json, res.headers
//   t.close();
//
// `call` sends `Content-Type: application/json` whenever there is a body (override with
// `headers`); pass `rawBody` to send a string as is.
import { setDefaultTimeout } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccount, setAccountPlan } from "../../src/accounts/service";
import { buildApp } from "../../src/app";
import { buildCatalog, type ToolCatalog } from "../../src/catalogue/registry";
import { TOOLS } from "../../src/catalogue/tools";
import { type Config, loadConfig } from "../../src/config";
import { type AppContext, createAppContext } from "../../src/context";
import { type Db, openDatabase } from "../../src/db/client";
import { type Plan } from "../../src/db/schema";
import { configureLog } from "../../src/log";
import { openTestDatabase } from "./database";

// bunfig.toml's [test] timeout is not read by Bun 1.3; argon2id hashing and child processes on a
// busy machine need more than the 5 s default.
setDefaultTimeout(30_000);

export const BASE = "http://spyglass.test";
export const PASSWORD = "correct horse battery";

export interface CallOptions {
  body?: unknown;
  rawBody?: string;
  cookie?: string;
  headers?: Record<string, string>;
}

export interface CallResult {
  status: number;
  headers: Headers;
  // Tests read fields freely; the body's shape is what they assert.
  json: any;
  text: string;
}

export interface TestApp {
  app: ReturnType<typeof buildApp>;
  ctx: AppContext;
  db: Db;
  config: Config;
  dataDir: string;
  call(method: string, path: string, options?: CallOptions): Promise<CallResult>;
  /** Creates the account (any plan) with PASSWORD and returns its `name=value` session cookie. */
  signIn(email: string, options?: { plan?: Plan }): Promise<string>;
  close(): Promise<void>;
}

let catalogue: ToolCatalog | null = null;

/** The catalogue of TOOLS, built at once (a bad declaration throws) and shared by a file's test apps. */
export function testCatalog(): ToolCatalog {
  return (catalogue ??= buildCatalog(TOOLS));
}

export function testConfig(dataDir: string, overrides: Partial<Config> = {}): Config {
  const base = loadConfig({ flags: { data: dataDir }, env: {} });
  const publicUrl = overrides.publicUrl ?? base.publicUrl;
  return Object.freeze({ ...base, publicOrigin: publicUrl ? new URL(publicUrl).origin : null, ...overrides });
}

export async function testApp(
  options: {
    publicUrl?: string;
    signup?: Config["auth"]["signup"];
    dbPath?: string;
    file?: boolean;
    quiet?: boolean;
    oauthLoopbackClients?: boolean;
    /** [oauth] refresh_reuse_grace_seconds (0 by default). */
    refreshReuseGraceSeconds?: number;
  } = {},
): Promise<TestApp> {
  configureLog({ quiet: options.quiet ?? true });
  const dataDir = mkdtempSync(join(tmpdir(), "spyglass-test-"));
  const config = testConfig(dataDir, {
    ...(options.publicUrl ? { publicUrl: options.publicUrl } : {}),
    auth: { signup: options.signup ?? "first" },
    ...(options.oauthLoopbackClients ? { oauthLoopbackClients: true } : {}),
    ...(options.refreshReuseGraceSeconds ? { oauth: { refresh_reuse_grace_seconds: options.refreshReuseGraceSeconds } } : {}),
  });
  // dbPath: this SQLite file whatever the test database; file: the test database, as a file on SQLite.
  const db: Db = options.dbPath
    ? openDatabase(options.dbPath)
    : await openTestDatabase(options.file ? { file: join(dataDir, "spyglass.db") } : {});
  const ctx = createAppContext(config, db);
  const app = buildApp(ctx, testCatalog());

  const call = async (method: string, path: string, opts: CallOptions = {}): Promise<CallResult> => {
    const headers: Record<string, string> = {};
    let body: string | undefined;
    if (opts.rawBody !== undefined) body = opts.rawBody;
    else if (opts.body !== undefined) body = JSON.stringify(opts.body);
    if (body !== undefined) headers["content-type"] = "application/json";
    if (opts.cookie) headers.cookie = opts.cookie;
    Object.assign(headers, opts.headers);
    const response = await app.handle(new Request(`${BASE}${path}`, { method, headers, body }));
    const text = await response.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    return { status: response.status, headers: response.headers, json, text };
  };

  const signIn = async (email: string, opts: { plan?: Plan } = {}): Promise<string> => {
    await createAccount(db, { email, password: PASSWORD });
    if (opts.plan && opts.plan !== "none") await setAccountPlan(db, email, opts.plan);
    const res = await call("POST", "/api/auth/login", { body: { email, password: PASSWORD } });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
    return sessionCookieOf(res.headers);
  };

  let closed = false;
  return {
    app,
    ctx,
    db,
    config,
    dataDir,
    call,
    signIn,
    async close() {
      if (closed) return;
      closed = true;
      await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The `name=value` part of the response's Set-Cookie, ready for a Cookie header. */
export function sessionCookieOf(headers: Headers): string {
  const value = headers.get("set-cookie");
  if (!value) throw new Error("no Set-Cookie in the response");
  return value.split(";", 1)[0]!;
}
