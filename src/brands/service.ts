// Brands: a name, an optional domain, aliases the analysis also counts as the brand, and a public
// site key for the content API. Queries on the brands table live here only. A change to the name,
// domain or aliases announces a roster change (tracking re-analyses the stored answers).

import { type AppContext } from "../context";
import { placeholders, type Queries } from "../db/queries";
import { Conflict, Invalid, NotFound } from "../errors";
import { newId } from "../ids";
import { cleanLabel, compatibilityKey, labelKey, labelLength } from "../labels";
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
  const name = cleanLabel(value);
  if (name.length < 1 || labelLength(name) > MAX_NAME) {
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
    const alias = cleanLabel(item);
    if (labelLength(alias) < MIN_ALIAS || labelLength(alias) > MAX_ALIAS) {
      throw new Invalid(
        `aliases: "${alias.slice(0, 40)}" must be ${MIN_ALIAS} to ${MAX_ALIAS} characters (shorter names match too much text).`,
        "invalid_aliases",
      );
    }
    const key = labelKey(alias);
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(alias);
  }
  if (out.length > MAX_ALIASES) {
    throw new Invalid(`aliases: a brand can have at most ${MAX_ALIASES} aliases.`, "invalid_aliases");
  }
  return out;
}

/** The aliases without the one that is the name itself (labelKey: case, width and spacing aside). */
function withoutName(aliases: string[], name: string): string[] {
  const key = labelKey(name);
  return aliases.filter((alias) => labelKey(alias) !== key);
}

/** A brands row as read (aliases still JSON text). */
interface BrandRow {
  id: string;
  accountId: string;
  name: string;
  domain: string | null;
  aliases: string;
  siteKey: string;
}

const BRAND_COLUMNS = `id, account_id AS "accountId", name, domain, aliases, site_key AS "siteKey"`;

function view(row: BrandRow): BrandView {
  return { id: row.id, name: row.name, domain: row.domain, aliases: JSON.parse(row.aliases) as string[], site_key: row.siteKey };
}

/** An account's brands have different names (compared without case or compatibility forms); call inside the write transaction. */
async function requireFreeName(db: Queries, accountId: string, name: string, exceptBrandId?: string): Promise<void> {
  const rows = await db.all<{ id: string; name: string }>("SELECT id, name FROM brands WHERE account_id = ?", [accountId]);
  // Compatibility forms too: "Ａcme" (full-width A) is Acme.
  const key = compatibilityKey(name);
  const same = rows.find((b) => b.id !== exceptBrandId && compatibilityKey(b.name) === key);
  if (same) {
    throw new Conflict(`The account already has a brand named "${same.name}" (${same.id}); give this brand another name.`, "brand_exists");
  }
}

export async function createBrand(db: Queries, accountId: string, input: BrandInput): Promise<BrandView> {
  const fields = {
    name: parseBrandName(input.name),
    domain: parseBrandDomain(input.domain),
    aliases: parseBrandAliases(input.aliases),
  };
  fields.aliases = withoutName(fields.aliases, fields.name);
  return db.transaction(async (tx) => {
    await tx.lock(`brands:${accountId}`);
    await requireFreeName(tx, accountId, fields.name);
    // Strictly increasing per account, so "the account's first brand" (the default for new keys)
    // is well defined even for brands created within the same millisecond.
    const last = (await tx.get<{ at: number | null }>("SELECT max(created_at) AS at FROM brands WHERE account_id = ?", [accountId]))?.at;
    const createdAt = Math.max(Date.now(), (last ?? 0) + 1);
    const row: BrandRow = { id: newId("brd"), accountId, ...fields, aliases: JSON.stringify(fields.aliases), siteKey: generateSiteKey() };
    await tx.run(
      "INSERT INTO brands (id, account_id, name, domain, aliases, site_key, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
      [row.id, accountId, row.name, row.domain, row.aliases, row.siteKey, createdAt, createdAt],
    );
    return view(row);
  });
}

/** The account's brands, oldest first (the first one is the default for new API keys). */
export async function listBrands(db: Queries, accountId: string): Promise<BrandView[]> {
  const rows = await db.all<BrandRow>(`SELECT ${BRAND_COLUMNS} FROM brands WHERE account_id = ? ORDER BY created_at, id`, [accountId]);
  return rows.map(view);
}

/** A brand by id; for callers whose brand id comes from a verified credential (the tool server). */
export async function getBrand(db: Queries, brandId: string): Promise<BrandView> {
  const row = await db.get<BrandRow>(`SELECT ${BRAND_COLUMNS} FROM brands WHERE id = ?`, [brandId]);
  if (!row) throw new NotFound("Brand not found.", "brand_not_found");
  return view(row);
}

/** The id of the account that owns a brand (the article renderer's tenant: accounts take turns, whatever their number of brands). */
export async function brandAccountId(db: Queries, brandId: string): Promise<string> {
  const row = await db.get<{ accountId: string }>(`SELECT account_id AS "accountId" FROM brands WHERE id = ?`, [brandId]);
  if (!row) throw new NotFound("Brand not found.", "brand_not_found");
  return row.accountId;
}

/** The id of the brand whose public site key this is, or null (the public content API's lookup). */
export async function findBrandIdBySiteKey(db: Queries, siteKey: string): Promise<string | null> {
  return (await db.get<{ id: string }>("SELECT id FROM brands WHERE site_key = ?", [siteKey]))?.id ?? null;
}

/** Ids of the given accounts' brands, oldest first. */
export async function listBrandIdsOfAccounts(db: Queries, accountIds: readonly string[]): Promise<string[]> {
  if (accountIds.length === 0) return [];
  const rows = await db.all<{ id: string }>(
    `SELECT id FROM brands WHERE account_id IN (${placeholders(accountIds.length)}) ORDER BY created_at, id`,
    accountIds,
  );
  return rows.map((row) => row.id);
}

const BRAND_ID = /^brd_[0-9a-z]{16}$/i;

/**
 * The brand a command line names with --brand: by its id, or by its name (compared as brand names are:
 * compatibilityKey), among the account's brands when an account is given, else among all.
 * A name two brands share is refused with their ids; neither an id nor a name is NotFound, as is a
 * brand id (brd_ and 16 characters) of no brand in reach, even when a brand is named so.
 */
export async function resolveBrandRef(db: Queries, ref: string, accountId: string | null): Promise<string> {
  const rows = await db.all<{ id: string; name: string }>(
    accountId === null
      ? "SELECT id, name FROM brands ORDER BY created_at, id"
      : "SELECT id, name FROM brands WHERE account_id = ? ORDER BY created_at, id",
    accountId === null ? [] : [accountId],
  );
  const byId = rows.find((row) => row.id === ref);
  if (byId) return byId.id;
  // Something shaped like a brand id is an id, never a name: a brand named "brd_…" after another
  // brand's id must not be what `brand delete --brand <that id>` deletes.
  if (BRAND_ID.test(ref.trim())) {
    throw new NotFound(`No brand${accountId === null ? "" : " of this account"} has the id "${ref}".`, "brand_not_found");
  }
  const key = compatibilityKey(ref);
  const named = rows.filter((row) => compatibilityKey(row.name) === key);
  if (named.length === 1) return named[0]!.id;
  const where = accountId === null ? "" : " of this account";
  if (named.length > 1) {
    throw new Invalid(
      `${named.length} brands${where} are named "${ref}": give one's id with --brand (${named.map((row) => row.id).join(", ")}).`,
      "ambiguous_brand",
    );
  }
  throw new NotFound(
    `No brand${where} has the id or name "${ref}" (spyglass brand list --email E shows the account's brands).`,
    "brand_not_found",
  );
}

/** A brand of the given account; another account's brand is NotFound, like an unknown one. */
export async function getAccountBrand(db: Queries, accountId: string, brandId: string): Promise<BrandView> {
  const row = await db.get<BrandRow>(`SELECT ${BRAND_COLUMNS} FROM brands WHERE id = ? AND account_id = ?`, [brandId, accountId]);
  if (!row) throw new NotFound("Brand not found.", "brand_not_found");
  return view(row);
}

/**
 * Changes the fields given; `domain: null` (or "") removes the domain. The site key never changes.
 * Only a field whose value differs is written, and only then is the roster change announced.
 */
export async function updateBrand(
  app: Pick<AppContext, "db" | "events">,
  brandId: string,
  patch: { name?: string; domain?: string | null; aliases?: string[] },
  /**
   * Checks the changed fields against the rest of the roster, in the edit's transaction (the
   * competitors' service gives it: this folder does not read their table).
   */
  checkRoster?: (tx: Queries, brandId: string, changes: { name?: string; domain?: string | null; aliases?: string[] }) => Promise<void>,
): Promise<BrandView> {
  const { db } = app;
  const parsed = {
    name: patch.name !== undefined ? parseBrandName(patch.name) : undefined,
    domain: patch.domain !== undefined ? parseBrandDomain(patch.domain) : undefined,
    aliases: patch.aliases !== undefined ? parseBrandAliases(patch.aliases) : undefined,
  };
  const updated = await db.transaction(async (tx): Promise<{ brand: BrandView; changed: boolean }> => {
    const current = await getBrand(tx, brandId);
    const changes: { name?: string; domain?: string | null; aliases?: string[] } = {};
    if (parsed.name !== undefined && parsed.name !== current.name) changes.name = parsed.name;
    if (parsed.domain !== undefined && parsed.domain !== current.domain) changes.domain = parsed.domain;
    // An alias that is the brand's name (as names compare: case, width and spacing aside) says
    // nothing more: dropped, as a competitor's is, whether the aliases or the name changed.
    const aliases = withoutName(parsed.aliases ?? current.aliases, changes.name ?? current.name);
    if (!sameList(aliases, current.aliases)) changes.aliases = aliases;
    if (Object.keys(changes).length === 0) return { brand: current, changed: false };
    await checkRoster?.(tx, brandId, changes);
    if (changes.name !== undefined) {
      const owner = await tx.get<{ accountId: string }>(`SELECT account_id AS "accountId" FROM brands WHERE id = ?`, [brandId]);
      if (owner) {
        await tx.lock(`brands:${owner.accountId}`);
        await requireFreeName(tx, owner.accountId, changes.name, brandId);
      }
    }
    const next = { ...current, ...changes };
    const row = await tx.get<BrandRow>(
      `UPDATE brands SET name = ?, domain = ?, aliases = ?, updated_at = ? WHERE id = ? RETURNING ${BRAND_COLUMNS}`,
      [next.name, next.domain, JSON.stringify(next.aliases), Date.now(), brandId],
    );
    if (!row) throw new NotFound("Brand not found.", "brand_not_found");
    return { brand: view(row), changed: true };
  });
  if (updated.changed) app.events.emit("rosterChanged", { brandId });
  return updated.brand;
}
