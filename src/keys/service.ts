// API keys: create, list, revoke, and verification of a bearer header for the tool server. Queries
// on the api_keys table live here only; the account and brand behind a key come from their services.
import { planChangeHint, requirePlan } from "../accounts/plans";
import { getAccount } from "../accounts/service";
import { getAccountBrand, getBrand, listBrands } from "../brands/service";
import { type AppContext } from "../context";
import { commitStamp } from "../db/change-stamp";
import { type Db, type SqliteDb } from "../db/client";
import { type Queries } from "../db/queries";
import { type Plan } from "../db/values";
import { Conflict, Invalid, NotFound } from "../errors";
import { iso, isoOrNull, newId } from "../ids";
import { bearerCredential, generateApiKey, hashApiKey, isWellFormedApiKey } from "./format";

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
  if (typeof name !== "string") throw new Invalid("name: a key's name is required, as text.", "invalid_name");
  const trimmed = name.trim();
  // Characters as people count them (code points): an emoji is one, not two UTF-16 units.
  const characters = [...trimmed].length;
  if (characters < 1 || characters > 100) {
    throw new Invalid(
      characters < 1
        ? "name: give the key a name (where it will be used), 1 to 100 characters."
        : `name: a key's name is at most 100 characters; this one is ${characters}.`,
      "invalid_name",
    );
  }
  return trimmed;
}

/** Creates a key bound (for ever) to one brand of the account. */
export async function createApiKey(db: Queries, accountId: string, input: { name: unknown; brandId?: unknown }): Promise<CreatedKey> {
  const name = validateKeyName(input.name);
  if (input.brandId !== undefined && input.brandId !== null && typeof input.brandId !== "string") {
    throw new Invalid("brand_id must be a string.", "invalid_brand_id");
  }
  return db.transaction(async (tx): Promise<CreatedKey> => {
    await tx.lock(`api_keys:${accountId}`);
    const account = await getAccount(tx, accountId);
    requirePlan(
      account.plan,
      "visibility",
      `API keys need a paid plan (Visibility or Autopilot); ${planChangeHint("visibility", account.email)}.`,
    );
    let brandId: string;
    if (typeof input.brandId === "string") {
      brandId = (await getAccountBrand(tx, accountId, input.brandId)).id;
    } else {
      const first = (await listBrands(tx, accountId))[0];
      if (!first) throw new Conflict("Create a brand before creating an API key.", "no_brand");
      brandId = first.id;
    }
    const active = await tx.get<{ n: number }>("SELECT count(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL", [
      accountId,
    ]);
    if ((active?.n ?? 0) >= MAX_ACTIVE_KEYS) {
      throw new Conflict(`An account can have at most ${MAX_ACTIVE_KEYS} active API keys; revoke one first.`, "key_limit");
    }
    // Strictly increasing per account, so "newest first" is exact even within one millisecond.
    const last = (await tx.get<{ at: number | null }>("SELECT max(created_at) AS at FROM api_keys WHERE account_id = ?", [accountId]))?.at;
    const generated = generateApiKey();
    const id = newId("key");
    const createdAt = Math.max(Date.now(), (last ?? 0) + 1);
    await tx.run("INSERT INTO api_keys (id, account_id, brand_id, name, key_hash, key_prefix, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [
      id,
      accountId,
      brandId,
      name,
      generated.hash,
      generated.prefix,
      createdAt,
    ]);
    return {
      key: { id, name, key_prefix: generated.prefix, created_at: iso(createdAt), brand_id: brandId },
      plaintext: generated.plaintext,
    };
  });
}

/** How many of the account's API keys are active (not revoked). */
export async function countActiveApiKeys(db: Queries, accountId: string): Promise<number> {
  return (
    (await db.get<{ n: number }>("SELECT count(*) AS n FROM api_keys WHERE account_id = ? AND revoked_at IS NULL", [accountId]))?.n ?? 0
  );
}

export async function listApiKeys(app: Pick<AppContext, "db" | "keys">, accountId: string): Promise<ApiKeyView[]> {
  const rows = await app.db.all<{
    id: string;
    name: string;
    keyPrefix: string;
    createdAt: number;
    lastUsedAt: number | null;
    brandId: string;
  }>(
    `SELECT id, name, key_prefix AS "keyPrefix", created_at AS "createdAt", last_used_at AS "lastUsedAt", brand_id AS "brandId"
     FROM api_keys WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`,
    [accountId],
  );
  return rows.map((k) => ({
    id: k.id,
    name: k.name,
    key_prefix: k.keyPrefix,
    created_at: iso(k.createdAt),
    last_used_at: isoOrNull(app.keys.pendingLastUsed(k.id) ?? k.lastUsedAt),
    brand_id: k.brandId,
  }));
}

/** Revokes an active key of the account; effective on the very next request (verification reads the row). */
export async function revokeApiKey(db: Queries, accountId: string, keyId: string): Promise<void> {
  const revoked = await db.get<{ id: string }>(
    "UPDATE api_keys SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL RETURNING id",
    [Date.now(), keyId, accountId],
  );
  if (!revoked) throw new NotFound("API key not found.", "key_not_found");
}

/** A valid key's own record: what it is, and the account and brand it acts for. */
export interface KeyIdentity {
  id: string;
  name: string;
  prefix: string;
  accountId: string;
  brandId: string;
}

/** The principal of a tool request: the key, its brand and its account with the account's plan. */
export interface VerifiedKey {
  key: { id: string; name: string; prefix: string };
  brand: { id: string; name: string; domain: string | null; aliases: string[]; siteKey: string };
  account: { id: string; email: string };
  plan: Plan;
}

export type BearerFailure = "missing" | "malformed" | "unknown" | "revoked";
export type BearerResult<T> = { ok: true; value: T } | { ok: false; reason: BearerFailure };

/**
 * Verifies an `Authorization` header value. Malformed keys are rejected before any database work;
 * otherwise one indexed read. Nothing is cached, so a revocation made by any process (the CLI
 * included) applies on the very next request.
 */
export async function verifyBearerKey(
  app: Pick<AppContext, "db" | "keys">,
  header: string | null | undefined,
): Promise<BearerResult<KeyIdentity>> {
  if (!header) return { ok: false, reason: "missing" };
  const key = bearerKey(header);
  if (!key) return { ok: false, reason: "malformed" };
  const row = await app.db.get<KeyIdentity & { revokedAt: number | null }>(
    `SELECT id, name, key_prefix AS prefix, account_id AS "accountId", brand_id AS "brandId", revoked_at AS "revokedAt"
     FROM api_keys WHERE key_hash = ?`,
    [hashApiKey(key)],
  );
  if (!row) return { ok: false, reason: "unknown" };
  if (row.revokedAt !== null) return { ok: false, reason: "revoked" };
  app.keys.noteUsed(row.id);
  const { revokedAt: _revoked, ...identity } = row;
  return { ok: true, value: identity };
}

/**
 * The tool server's principal for a bearer header: the verified key with its brand, account and
 * plan, read through their services whenever the database has changed since they were last read
 * (see below), so a revocation or a plan change applies at once.
 */
export async function authenticateBearerKey(
  app: Pick<AppContext, "db" | "keys">,
  header: string | null | undefined,
): Promise<BearerResult<VerifiedKey>> {
  return rememberedBearerKey(app, header) ?? verifyAndRemember(app, header);
}

/**
 * authenticateBearerKey's answer when it needs no read: the key's principal when it was verified
 * since the database last changed, else null (the caller then awaits authenticateBearerKey). Sync,
 * so that a tool request whose key is known costs no promise (the door's hot path: routes.ts).
 */
export function rememberedBearerKey(
  app: Pick<AppContext, "db" | "keys">,
  header: string | null | undefined,
): BearerResult<VerifiedKey> | null {
  const { db } = app;
  // On PostgreSQL another instance's revocation or plan change reaches this one's change feed a
  // moment after its commit, which a request right behind it could beat: the principal is read on
  // every request there (the key, then its brand and account at once: two round trips).
  if (db.dialect === "postgres" || !header) return null;
  const remembered = verifiedKeys.get(db)?.get(bearerHash(header) ?? "");
  if (!remembered || remembered.stamp !== commitStamp(db)) return null;
  app.keys.noteUsed(remembered.result.value.key.id);
  return remembered.result;
}

async function verifyAndRemember(
  app: Pick<AppContext, "db" | "keys">,
  header: string | null | undefined,
): Promise<BearerResult<VerifiedKey>> {
  const { db } = app;
  if (db.dialect === "postgres") return lookUpBearerKey(app, header);
  // Read before the lookups: a write that lands between them leaves the entry stale for ever.
  const stamp = commitStamp(db);
  const value = await lookUpBearerKey(app, header);
  const hash = value.ok && header ? bearerHash(header) : null;
  if (value.ok && hash) remember(db, hash, stamp, value);
  return value;
}

// The principal of a key, remembered for as long as the database has not changed: the three reads
// above (key, brand, account) were most of a tools/list's own work (measured: ~17 of ~55 µs in
// process), and one read of the database's change stamp is ~3 µs. Any committed write at all — a
// revocation, a plan or brand change, by this process or by any other (the CLI) — changes the stamp,
// and the next request reads the key again: a revocation still applies on the very next request.
// Only valid keys are remembered, by their hash, at most MAX_REMEMBERED_KEYS per database.
const MAX_REMEMBERED_KEYS = 1_000;
const verifiedKeys = new WeakMap<SqliteDb, Map<string, { stamp: string; result: { ok: true; value: VerifiedKey } }>>();

function remember(db: SqliteDb, hash: string, stamp: string, result: { ok: true; value: VerifiedKey }): void {
  let keys = verifiedKeys.get(db);
  if (!keys) verifiedKeys.set(db, (keys = new Map()));
  if (keys.size >= MAX_REMEMBERED_KEYS) keys.clear();
  keys.set(hash, { stamp, result });
}

/** The hash of a well-formed bearer key, or null. */
function bearerHash(header: string): string | null {
  const key = bearerKey(header);
  return key ? hashApiKey(key) : null;
}

/** The API key of an `Authorization` header (`Bearer <key>`), or null when it carries none that is well formed. */
function bearerKey(header: string): string | null {
  const credential = bearerCredential(header);
  return credential && isWellFormedApiKey(credential) ? credential : null;
}

async function lookUpBearerKey(
  app: Pick<AppContext, "db" | "keys">,
  header: string | null | undefined,
): Promise<BearerResult<VerifiedKey>> {
  const verified = await verifyBearerKey(app, header);
  if (!verified.ok) return verified;
  const { id, name, prefix, accountId, brandId } = verified.value;
  // The brand and the account through their own services (each feature queries its own tables).
  const [brand, account] = await Promise.all([getBrand(app.db, brandId), getAccount(app.db, accountId)]);
  return {
    ok: true,
    value: {
      key: { id, name, prefix },
      brand: { id: brand.id, name: brand.name, domain: brand.domain, aliases: brand.aliases, siteKey: brand.site_key },
      account: { id: account.id, email: account.email },
      plan: account.plan,
    },
  };
}

// last_used_at: remembered in memory and written at most once a minute per key, in one batch off
// the request's critical path, so authenticated requests never wait on a write.
const LAST_USED_RESOLUTION_MS = 60_000;

/** The last-use bookkeeping of the keys of one database: one per AppContext (`ctx.keys`). */
export class KeyUsage {
  private readonly pending = new Map<string, number>();
  private readonly written = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly db: Db) {}

  noteUsed(keyId: string): void {
    const now = Date.now();
    this.pending.set(keyId, now);
    const written = this.written.get(keyId);
    if (written !== undefined && now - written < LAST_USED_RESOLUTION_MS) return;
    this.written.set(keyId, now);
    this.timer ??= setTimeout(() => void this.flush(), 0);
  }

  /** A use noted but not yet written, so that a list shows it at once. */
  pendingLastUsed(keyId: string): number | undefined {
    return this.pending.get(keyId);
  }

  /** Writes remembered last-use times now (also called at shutdown). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.size === 0) return;
    const entries = [...this.pending];
    this.pending.clear();
    try {
      await this.db.transaction(async (tx) => {
        for (const [id, at] of entries) {
          await tx.run("UPDATE api_keys SET last_used_at = ?1 WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at < ?1)", [at, id]);
        }
      });
    } catch {
      // A failed bookkeeping write must not affect requests; the next use will try again.
      for (const [id] of entries) this.written.delete(id);
    }
  }
}
