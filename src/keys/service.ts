// API keys: create, list, revoke, and verification of a bearer header for the tool server.
import { and, count, desc, eq, isNull, max } from "drizzle-orm";
import { planChangeHint, requirePlan } from "../accounts/plans";
import { type Db } from "../db/client";
import { accounts, apiKeys, brands, type Plan } from "../db/schema";
import { Conflict, Invalid, NotFound } from "../errors";
import { iso, isoOrNull, newId } from "../ids";
import { generateApiKey, hashApiKey, isWellFormedApiKey } from "./format";

export const MAX_ACTIVE_KEYS = 20;

export interface ApiKeyView {
  id: string;
  name: string;
  key_prefix: string;
  created_at: string;
  last_used_at: string | null;
  brand_id: string;
}

export interface CreatedKey {
  key: Omit<ApiKeyView, "last_used_at">;
  plaintext: string;
}

export function validateKeyName(name: unknown): string {
  if (typeof name !== "string") throw new Invalid("name is required and must be a string.", "invalid_name");
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > 100) {
    throw new Invalid("name must be 1 to 100 characters.", "invalid_name");
  }
  return trimmed;
}

/** Creates a key bound (for ever) to one brand of the account. */
export function createApiKey(db: Db, accountId: string, input: { name: unknown; brandId?: unknown }): CreatedKey {
  const name = validateKeyName(input.name);
  if (input.brandId !== undefined && input.brandId !== null && typeof input.brandId !== "string") {
    throw new Invalid("brand_id must be a string.", "invalid_brand_id");
  }
  return db.sqlite
    .transaction((): CreatedKey => {
      const account = db.orm.select({ plan: accounts.plan, email: accounts.email }).from(accounts).where(eq(accounts.id, accountId)).get();
      if (!account) throw new NotFound("Account not found.");
      requirePlan(
        account.plan,
        "visibility",
        `API keys need a paid plan (Visibility or Autopilot); ${planChangeHint("visibility", account.email)}.`,
      );
      let brandId: string;
      if (typeof input.brandId === "string") {
        const brand = db.orm
          .select({ id: brands.id })
          .from(brands)
          .where(and(eq(brands.id, input.brandId), eq(brands.accountId, accountId)))
          .get();
        if (!brand) throw new NotFound("Brand not found.", "brand_not_found");
        brandId = brand.id;
      } else {
        const first = db.orm
          .select({ id: brands.id })
          .from(brands)
          .where(eq(brands.accountId, accountId))
          .orderBy(brands.createdAt, brands.id)
          .limit(1)
          .get();
        if (!first) throw new Conflict("Create a brand before creating an API key.", "no_brand");
        brandId = first.id;
      }
      const active = db.orm
        .select({ n: count() })
        .from(apiKeys)
        .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
        .get();
      if ((active?.n ?? 0) >= MAX_ACTIVE_KEYS) {
        throw new Conflict(`An account can have at most ${MAX_ACTIVE_KEYS} active API keys; revoke one first.`, "key_limit");
      }
      // Strictly increasing per account, so "newest first" is exact even within one millisecond.
      const last = db.orm
        .select({ at: max(apiKeys.createdAt) })
        .from(apiKeys)
        .where(eq(apiKeys.accountId, accountId))
        .get()?.at;
      const generated = generateApiKey();
      const row = {
        id: newId("key"),
        accountId,
        brandId,
        name,
        keyHash: generated.hash,
        keyPrefix: generated.prefix,
        createdAt: Math.max(Date.now(), (last ?? 0) + 1),
      };
      db.orm.insert(apiKeys).values(row).run();
      return {
        key: { id: row.id, name, key_prefix: row.keyPrefix, created_at: iso(row.createdAt), brand_id: brandId },
        plaintext: generated.plaintext,
      };
    })
    .immediate();
}

export function listApiKeys(db: Db, accountId: string): ApiKeyView[] {
  return db.orm
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
    .all()
    .map((k) => ({
      id: k.id,
      name: k.name,
      key_prefix: k.keyPrefix,
      created_at: iso(k.createdAt),
      last_used_at: isoOrNull(pendingLastUsed(db, k.id) ?? k.lastUsedAt),
      brand_id: k.brandId,
    }));
}

/** Revokes an active key of the account; effective on the very next request (verification reads the row). */
export function revokeApiKey(db: Db, accountId: string, keyId: string): void {
  const revoked = db.orm
    .update(apiKeys)
    .set({ revokedAt: Date.now() })
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
    .get();
  if (!revoked) throw new NotFound("API key not found.", "key_not_found");
}

export interface VerifiedKey {
  key: { id: string; name: string; prefix: string };
  brand: { id: string; name: string; domain: string | null; aliases: string[]; siteKey: string };
  account: { id: string; email: string };
  plan: Plan;
}

export type BearerFailure = "missing" | "malformed" | "unknown" | "revoked";
export type BearerResult = { ok: true; value: VerifiedKey } | { ok: false; reason: BearerFailure };

interface KeyRow {
  key_id: string;
  key_name: string;
  key_prefix: string;
  revoked_at: number | null;
  account_id: string;
  email: string;
  plan: Plan;
  brand_id: string;
  brand_name: string;
  domain: string | null;
  aliases: string;
  site_key: string;
}

const statements = new WeakMap<Db, ReturnType<Db["sqlite"]["query"]>>();

/**
 * Verifies an `Authorization` header value. Malformed keys are rejected before any database work;
 * otherwise one indexed read. Nothing is cached, so a revocation or a plan change made by any
 * process (the CLI included) applies on the very next request.
 */
export function verifyBearerKey(db: Db, header: string | null | undefined): BearerResult {
  if (!header) return { ok: false, reason: "missing" };
  const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  if (!match?.[1] || !isWellFormedApiKey(match[1])) return { ok: false, reason: "malformed" };
  let statement = statements.get(db);
  if (!statement) {
    statement = db.sqlite.query(
      `SELECT k.id AS key_id, k.name AS key_name, k.key_prefix, k.revoked_at, a.id AS account_id, a.email, a.plan,
              b.id AS brand_id, b.name AS brand_name, b.domain, b.aliases, b.site_key
         FROM api_keys k JOIN accounts a ON a.id = k.account_id JOIN brands b ON b.id = k.brand_id
        WHERE k.key_hash = ?`,
    );
    statements.set(db, statement);
  }
  const row = statement.get(hashApiKey(match[1])) as KeyRow | null;
  if (!row) return { ok: false, reason: "unknown" };
  if (row.revoked_at !== null) return { ok: false, reason: "revoked" };
  noteKeyUsed(db, row.key_id);
  return {
    ok: true,
    value: {
      key: { id: row.key_id, name: row.key_name, prefix: row.key_prefix },
      brand: {
        id: row.brand_id,
        name: row.brand_name,
        domain: row.domain,
        aliases: JSON.parse(row.aliases) as string[],
        siteKey: row.site_key,
      },
      account: { id: row.account_id, email: row.email },
      plan: row.plan,
    },
  };
}

// last_used_at: remembered in memory and written at most once a minute per key, in one batch off
// the request's critical path, so authenticated requests never wait on a write.
const LAST_USED_RESOLUTION_MS = 60_000;

interface UsageState {
  pending: Map<string, number>;
  written: Map<string, number>;
  timer: ReturnType<typeof setTimeout> | null;
}

const usage = new WeakMap<Db, UsageState>();

function usageOf(db: Db): UsageState {
  let state = usage.get(db);
  if (!state) {
    state = { pending: new Map(), written: new Map(), timer: null };
    usage.set(db, state);
  }
  return state;
}

function noteKeyUsed(db: Db, keyId: string): void {
  const state = usageOf(db);
  const now = Date.now();
  state.pending.set(keyId, now);
  const written = state.written.get(keyId);
  if (written !== undefined && now - written < LAST_USED_RESOLUTION_MS) return;
  state.written.set(keyId, now);
  state.timer ??= setTimeout(() => flushLastUsed(db), 0);
}

function pendingLastUsed(db: Db, keyId: string): number | undefined {
  return usage.get(db)?.pending.get(keyId);
}

/** Writes remembered last-use times now (also called at shutdown). */
export function flushLastUsed(db: Db): void {
  const state = usage.get(db);
  if (!state) return;
  if (state.timer) clearTimeout(state.timer);
  state.timer = null;
  if (state.pending.size === 0) return;
  const entries = [...state.pending];
  state.pending.clear();
  try {
    const update = db.sqlite.query("UPDATE api_keys SET last_used_at = ?1 WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at < ?1)");
    db.sqlite.transaction(() => {
      for (const [id, at] of entries) update.run(at, id);
    })();
  } catch {
    // A failed bookkeeping write must not affect requests; the next use will try again.
    for (const [id] of entries) state.written.delete(id);
  }
}
