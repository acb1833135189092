// Brands: a name, an optional domain, aliases the analysis also counts as the brand, and a public
// site key for the content API. Queries on the brands table live here only. A change to the name,
// domain or aliases announces a roster change (tracking re-analyses the stored answers).
import { and, asc, eq, inArray, max, sql } from "drizzle-orm";
import { type AppContext } from "../context";
import { type Db } from "../db/client";
import { brands } from "../db/schema";
import { Conflict, Invalid, NotFound } from "../errors";
import { newId } from "../ids";
import { sameList } from "../lists";
import { normalizeDomain } from "./domain";

export const MAX_ALIASES = 20;
const MAX_NAME = 100;
const MIN_ALIAS = 3;
const MAX_ALIAS = 100;

export interface BrandView {
  id: string;
  name: string;
  domain: string | null;
  aliases: string[];
  site_key: string;
}

export interface BrandInput {
  name?: unknown;
  domain?: unknown;
  aliases?: unknown;
}

/** `pk_` + 32 lowercase hex characters (128 bits from the CSPRNG). */
export function generateSiteKey(): string {
  return `pk_${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("hex")}`;
}

export function parseBrandName(value: unknown): string {
  if (typeof value !== "string") throw new Invalid("name: give the brand's name as a string.", "invalid_name");
  const name = value.trim().replace(/\s+/g, " ");
  if (name.length < 1 || name.length > MAX_NAME) {
    throw new Invalid(`name: the brand's name must be 1 to ${MAX_NAME} characters.`, "invalid_name");
  }
  return name;
}

/** Absent, null or "" means no domain; anything else must normalise to a valid host. */
export function parseBrandDomain(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value !== "string") throw new Invalid("domain: give a host name such as example.com.", "invalid_domain");
  if (value.trim() === "") return null;
  return normalizeDomain(value, "domain");
}

/** Trims, drops case-insensitive duplicates (first spelling wins), at most MAX_ALIASES. */
export function parseBrandAliases(value: unknown): string[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) throw new Invalid("aliases: give a list of names.", "invalid_aliases");
  const seen = new Set<string>();
  const out: string[] = [];
  for (const item of value) {
    if (typeof item !== "string") throw new Invalid("aliases: every alias must be a string.", "invalid_aliases");
    const alias = item.trim().replace(/\s+/g, " ");
    if (alias.length < MIN_ALIAS || alias.length > MAX_ALIAS) {
      throw new Invalid(
        `aliases: "${alias.slice(0, 40)}" must be ${MIN_ALIAS} to ${MAX_ALIAS} characters (shorter names match too much text).`,
        "invalid_aliases",
      );
    }
    const key = alias.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(alias);
  }
  if (out.length > MAX_ALIASES) {
    throw new Invalid(`aliases: a brand can have at most ${MAX_ALIASES} aliases.`, "invalid_aliases");
  }
  return out;
}

type BrandRow = typeof brands.$inferSelect;

function view(row: BrandRow): BrandView {
  return { id: row.id, name: row.name, domain: row.domain, aliases: row.aliases, site_key: row.siteKey };
}

/** An account's brands have different names (compared without case); call inside the write transaction. */
function requireFreeName(db: Db, accountId: string, name: string, exceptBrandId?: string): void {
  const same = db.orm
    .select({ id: brands.id, name: brands.name })
    .from(brands)
    .where(eq(brands.accountId, accountId))
    .all()
    .find((b) => b.id !== exceptBrandId && b.name.toLowerCase() === name.toLowerCase());
  if (same) {
    throw new Conflict(`The account already has a brand named "${same.name}" (${same.id}); give this brand another name.`, "brand_exists");
  }
}

export function createBrand(db: Db, accountId: string, input: BrandInput): BrandView {
  const fields = {
    name: parseBrandName(input.name),
    domain: parseBrandDomain(input.domain),
    aliases: parseBrandAliases(input.aliases),
  };
  return db.sqlite
    .transaction(() => {
      requireFreeName(db, accountId, fields.name);
      // Strictly increasing per account, so "the account's first brand" (the default for new keys)
      // is well defined even for brands created within the same millisecond.
      const last = db.orm
        .select({ at: max(brands.createdAt) })
        .from(brands)
        .where(eq(brands.accountId, accountId))
        .get()?.at;
      const createdAt = Math.max(Date.now(), (last ?? 0) + 1);
      const row: BrandRow = { id: newId("brd"), accountId, ...fields, siteKey: generateSiteKey(), createdAt, updatedAt: createdAt };
      db.orm.insert(brands).values(row).run();
      return view(row);
    })
    .immediate();
}

/** The account's brands, oldest first (the first one is the default for new API keys). */
export function listBrands(db: Db, accountId: string): BrandView[] {
  return db.orm.select().from(brands).where(eq(brands.accountId, accountId)).orderBy(asc(brands.createdAt), asc(brands.id)).all().map(view);
}

/**
 * A brand by id; for callers whose brand id comes from a verified credential (the tool server).
 * Prepared once per connection: it runs on every authenticated tool request and every analysis.
 */
export function getBrand(db: Db, brandId: string): BrandView {
  const byId = db.prepared("brands.byId", () =>
    db.orm
      .select()
      .from(brands)
      .where(eq(brands.id, sql.placeholder("id")))
      .prepare(),
  );
  const row = byId.get({ id: brandId });
  if (!row) throw new NotFound("Brand not found.", "brand_not_found");
  return view(row);
}

/** The id of the brand whose public site key this is, or null (the public content API's lookup). */
export function findBrandIdBySiteKey(db: Db, siteKey: string): string | null {
  const bySiteKey = db.prepared("brands.bySiteKey", () =>
    db.orm
      .select({ id: brands.id })
      .from(brands)
      .where(eq(brands.siteKey, sql.placeholder("siteKey")))
      .prepare(),
  );
  return bySiteKey.get({ siteKey })?.id ?? null;
}

/** Ids of the given accounts' brands, oldest first. */
export function listBrandIdsOfAccounts(db: Db, accountIds: readonly string[]): string[] {
  if (accountIds.length === 0) return [];
  return db.orm
    .select({ id: brands.id })
    .from(brands)
    .where(inArray(brands.accountId, [...accountIds]))
    .orderBy(asc(brands.createdAt), asc(brands.id))
    .all()
    .map((row) => row.id);
}

/** A brand of the given account; another account's brand is NotFound, like an unknown one. */
export function getAccountBrand(db: Db, accountId: string, brandId: string): BrandView {
  const row = db.orm
    .select()
    .from(brands)
    .where(and(eq(brands.id, brandId), eq(brands.accountId, accountId)))
    .get();
  if (!row) throw new NotFound("Brand not found.", "brand_not_found");
  return view(row);
}

/**
 * Changes the fields given; `domain: null` (or "") removes the domain. The site key never changes.
 * Only a field whose value differs is written, and only then is the roster change announced.
 */
export function updateBrand(
  app: Pick<AppContext, "db" | "events">,
  brandId: string,
  patch: { name?: string; domain?: string | null; aliases?: string[] },
): BrandView {
  const { db } = app;
  const parsed = {
    name: patch.name !== undefined ? parseBrandName(patch.name) : undefined,
    domain: patch.domain !== undefined ? parseBrandDomain(patch.domain) : undefined,
    aliases: patch.aliases !== undefined ? parseBrandAliases(patch.aliases) : undefined,
  };
  const updated = db.sqlite
    .transaction((): { brand: BrandView; changed: boolean } => {
      const current = getBrand(db, brandId);
      const changes: Partial<BrandRow> = {};
      if (parsed.name !== undefined && parsed.name !== current.name) changes.name = parsed.name;
      if (parsed.domain !== undefined && parsed.domain !== current.domain) changes.domain = parsed.domain;
      if (parsed.aliases !== undefined && !sameList(parsed.aliases, current.aliases)) changes.aliases = parsed.aliases;
      if (Object.keys(changes).length === 0) return { brand: current, changed: false };
      if (changes.name !== undefined) {
        const owner = db.orm.select({ accountId: brands.accountId }).from(brands).where(eq(brands.id, brandId)).get();
        if (owner) requireFreeName(db, owner.accountId, changes.name, brandId);
      }
      const row = db.orm
        .update(brands)
        .set({ ...changes, updatedAt: Date.now() })
        .where(eq(brands.id, brandId))
        .returning()
        .get();
      if (!row) throw new NotFound("Brand not found.", "brand_not_found");
      return { brand: view(row), changed: true };
    })
    .immediate();
  if (updated.changed) app.events.emit("rosterChanged", { brandId });
  return updated.brand;
}
