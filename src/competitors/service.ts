// Competitors of a brand: names and aliases the answer analysis counts as mentions of them, and the
// domains whose citations count as theirs. Every query is keyed by the brand id of a verified
// credential. Every change announces a roster change (tracking re-analyses the stored answers).

import { normalizeDomain } from "../brands/domain";
import { getBrand } from "../brands/service";
import { type AppContext } from "../context";
import { type Queries } from "../db/queries";
import { Conflict, Invalid, NotFound } from "../errors";
import { iso, newId } from "../ids";
import { cleanLabel, compatibilityKey, labelKey, labelLength, nameWeight } from "../labels";
import { sameList } from "../lists";
import { decodeCursor, page } from "../paging";
import { registrableDomain } from "../public-suffixes";

export const NAME_MIN = 3;
export const NAME_MAX = 100;
export const MAX_ALIASES = 20;
export const MAX_DOMAINS = 20;
export const MAX_COMPETITORS = 100;

export interface CompetitorView {
  id: string;
  name: string;
  aliases: string[];
  domains: string[];
  created_at: string;
}

export interface CompetitorInput {
  name?: string;
  aliases?: string[];
  domains?: string[];
}

interface CompetitorRow {
  id: string;
  brandId: string;
  name: string;
  aliases: string[];
  domains: string[];
  createdAt: number;
}

// aliases and domains are stored as JSON arrays.
const COMPETITOR_COLUMNS = "id, brand_id, name, aliases, domains, created_at";

interface CompetitorSqlRow {
  id: string;
  brand_id: string;
  name: string;
  aliases: string;
  domains: string;
  created_at: number;
}

function fromSql(row: CompetitorSqlRow): CompetitorRow {
  return {
    id: row.id,
    brandId: row.brand_id,
    name: row.name,
    aliases: JSON.parse(row.aliases) as string[],
    domains: JSON.parse(row.domains) as string[],
    createdAt: row.created_at,
  };
}

/**
 * A name of NAME_MIN to NAME_MAX characters. A member's name may be 2 Chinese, Japanese or Korean
 * characters (nameWeight: 東芝, 日立); an alias is at least NAME_MIN characters in any script (METRICS.md).
 */
function cleanName(value: string, field: string, what: string, kind: "name" | "alias" = "name"): string {
  const name = cleanLabel(value);
  const weight = kind === "name" ? nameWeight(name) : labelLength(name);
  if (weight < NAME_MIN || labelLength(name) > NAME_MAX) {
    throw new Invalid(
      `${field}: ${what} must be ${NAME_MIN} to ${NAME_MAX} characters${kind === "name" ? ", or 2 in Chinese, Japanese or Korean script" : ""} (shorter names match too much text).`,
      "invalid_name",
    );
  }
  return name;
}

function cleanAliases(values: readonly string[], name: string): string[] {
  const seen = new Set([labelKey(name)]);
  const out: string[] = [];
  values.forEach((value, i) => {
    const alias = cleanName(value, `aliases[${i}]`, "an alias", "alias");
    const key = labelKey(alias);
    if (seen.has(key)) return;
    seen.add(key);
    out.push(alias);
  });
  if (out.length > MAX_ALIASES) throw new Invalid(`aliases: at most ${MAX_ALIASES} aliases per competitor.`, "invalid_aliases");
  return out;
}

function cleanDomains(values: readonly string[]): string[] {
  const out = [...new Set(values.map((value, i) => normalizeDomain(value, `domains[${i}]`)))];
  if (out.length > MAX_DOMAINS) throw new Invalid(`domains: at most ${MAX_DOMAINS} domains per competitor.`, "invalid_domains");
  return out;
}

function view(row: CompetitorRow): CompetitorView {
  return { id: row.id, name: row.name, aliases: row.aliases, domains: row.domains, created_at: iso(row.createdAt) };
}

function notFound(): NotFound {
  return new NotFound("Competitor not found; list_competitors shows the brand's competitors and their ids.", "competitor_not_found");
}

/**
 * A competitor of the brand by its id, or by its name as clients often give it (case and spacing
 * aside: sameWords, in JS, as on both databases alike; names are unique per brand).
 */
async function findRow(db: Queries, brandId: string, competitorId: string): Promise<CompetitorRow | undefined> {
  const row = await db.get<CompetitorSqlRow>(`SELECT ${COMPETITOR_COLUMNS} FROM competitors WHERE brand_id = ? AND id = ?`, [
    brandId,
    competitorId,
  ]);
  if (row) return fromSql(row);
  const wanted = sameWords(competitorId);
  const named = (await db.all<CompetitorSqlRow>(`SELECT ${COMPETITOR_COLUMNS} FROM competitors WHERE brand_id = ?`, [brandId])).find(
    (r) => sameWords(r.name) === wanted,
  );
  return named && fromSql(named);
}

// Compared in JS from the stored names (no stored key): compatibility forms fold too ("Ｎｏｂｉｌｉａ").
const sameWords = compatibilityKey;

/** The name and aliases being set, each with its field's name (those not being set are left out). */
function nameFields(next: { name?: string; aliases?: string[] }): Array<readonly [string, string]> {
  return [
    ...(next.name !== undefined ? [["name", next.name] as const] : []),
    ...(next.aliases ?? []).map((a, i) => [`aliases[${i}]`, a] as const),
  ];
}

/**
 * Where `domain` meets `other` (the same domain, or the same site: its registrable domain, as
 * get_top_sources groups citations, where every citation of the brand's site is the brand's):
 * words for a refusal, or null.
 */
function sameSite(domain: string, other: string): string | null {
  if (domain === other) return "is";
  return registrableDomain(domain) === registrableDomain(other) ? `shares its site (${registrableDomain(domain)}) with` : null;
}

/**
 * A competitor named like the brand itself (its name or an alias) would make every mention of the
 * brand count for both, and a domain on the brand's own site would never count as the competitor's
 * (the brand's site comes first): refused, naming the field. Only the fields being set are checked:
 * one stored before this check cannot block a change to another field.
 */
async function assertNotTheBrand(
  db: Queries,
  brandId: string,
  next: { name?: string; aliases?: string[]; domains?: string[] },
): Promise<void> {
  const brand = await getBrand(db, brandId);
  const own = new Map([brand.name, ...brand.aliases].map((n) => [sameWords(n), n]));
  for (const [field, value] of nameFields(next)) {
    const clash = own.get(sameWords(value));
    if (clash !== undefined) {
      throw new Invalid(
        `${field}: "${value}" is ${clash === brand.name ? "the brand's own name" : `the brand's alias "${clash}"`}; a competitor cannot have it, or every mention of the brand would count for both.`,
        "competitor_is_brand",
      );
    }
  }
  if (brand.domain === null) return;
  for (const [i, domain] of (next.domains ?? []).entries()) {
    const meets = sameSite(domain, brand.domain);
    if (meets) {
      throw new Invalid(
        `domains[${i}]: ${domain} ${meets} the brand's own domain (${brand.domain}); its citations count as the brand's, never a competitor's.`,
        "competitor_is_brand",
      );
    }
  }
}

/**
 * The brand's side of assertNotTheBrand, for a brand edit (update_brand): a name or alias that is a
 * competitor's name or alias, or a domain on the site of a competitor's domain, is refused, naming
 * the field and the competitor. Only the fields being changed are checked. Runs in the edit's
 * transaction, under the lock competitor edits take, so neither side slips past the other.
 */
export async function assertBrandClearOfCompetitors(
  db: Queries,
  brandId: string,
  next: { name?: string; aliases?: string[]; domain?: string | null },
): Promise<void> {
  await db.lock(`competitors:${brandId}`);
  const competitors = await listAllCompetitors(db, brandId);
  const names = new Map<string, { competitor: CompetitorView; as: string }>();
  for (const c of competitors) {
    names.set(sameWords(c.name), { competitor: c, as: "the name" });
    for (const alias of c.aliases) if (!names.has(sameWords(alias))) names.set(sameWords(alias), { competitor: c, as: "an alias" });
  }
  for (const [field, value] of nameFields(next)) {
    const clash = names.get(sameWords(value));
    if (clash) {
      throw new Invalid(
        `${field}: "${value}" is ${clash.as} of the competitor ${clash.competitor.name} (${clash.competitor.id}); the brand cannot have it, or every mention of that competitor would count for both.`,
        "brand_is_competitor",
      );
    }
  }
  const domain = next.domain;
  if (domain === undefined || domain === null) return;
  for (const c of competitors) {
    for (const theirs of c.domains) {
      const meets = sameSite(domain, theirs);
      if (meets) {
        throw new Invalid(
          `domain: ${domain} ${domain === theirs ? "is" : `${meets} ${theirs}, which is`} a domain of the competitor ${c.name} (${c.id}); take it off the competitor first (update_competitor), or its citations would count as the brand's.`,
          "brand_is_competitor",
        );
      }
    }
  }
}

/**
 * A competitor's name or alias that is another competitor's name or alias (or a domain that is
 * another's domain) would count each of their mentions (or citations) for both: refused, naming the
 * field and the competitor that has it. The exact name of another competitor is assertNameFree's.
 */
async function assertNotAnotherCompetitor(
  db: Queries,
  brandId: string,
  next: { name: string; aliases: string[]; domains: string[] },
  exceptId?: string,
): Promise<void> {
  const others = (await listAllCompetitors(db, brandId)).filter((c) => c.id !== exceptId);
  const names = new Map<string, { competitor: CompetitorView; as: string }>();
  const domains = new Map<string, CompetitorView>();
  for (const c of others) {
    names.set(sameWords(c.name), { competitor: c, as: "the name" });
    for (const alias of c.aliases) if (!names.has(sameWords(alias))) names.set(sameWords(alias), { competitor: c, as: `an alias` });
    for (const domain of c.domains) domains.set(domain, c);
  }
  const fields = [["name", next.name], ...next.aliases.map((a, i) => [`aliases[${i}]`, a] as const)] as const;
  for (const [field, value] of fields) {
    const clash = names.get(sameWords(value));
    // The same name as another competitor's name is assertNameFree's sentence.
    if (!clash || (field === "name" && clash.as === "the name")) continue;
    throw new Conflict(
      `${field}: "${value}" is ${clash.as} of the competitor ${clash.competitor.name} (${clash.competitor.id}); add it there (update_competitor) rather than here, or each of its mentions would count for both.`,
      "competitor_exists",
    );
  }
  for (const [i, domain] of next.domains.entries()) {
    const clash = domains.get(domain);
    if (clash) {
      throw new Conflict(
        `domains[${i}]: ${domain} is already a domain of the competitor ${clash.name} (${clash.id}); a site belongs to one competitor.`,
        "competitor_exists",
      );
    }
  }
}

async function assertNameFree(db: Queries, brandId: string, name: string, exceptId?: string): Promise<void> {
  // Compared in JS (sameWords): SQLite's lower() folds ASCII only, PostgreSQL's every letter.
  const clash = (await listAllCompetitors(db, brandId)).find((c) => sameWords(c.name) === sameWords(name));
  if (clash && clash.id !== exceptId) {
    throw new Conflict(`A competitor named "${name}" already exists for this brand; update it instead.`, "competitor_exists");
  }
}

/** The brand's competitors in the order they were added, paged. */
export async function listCompetitors(
  db: Queries,
  brandId: string,
  options: { limit: number; cursor?: string },
): Promise<{ competitors: CompetitorView[]; next_cursor: string | null }> {
  const after = decodeCursor(options.cursor, ["number", "string"] as const);
  const rows = after
    ? await db.all<CompetitorSqlRow>(
        `SELECT ${COMPETITOR_COLUMNS} FROM competitors WHERE brand_id = ?1 AND (created_at > ?2 OR (created_at = ?2 AND id > ?3))
         ORDER BY created_at, id LIMIT ?4`,
        [brandId, after[0], after[1], options.limit + 1],
      )
    : await db.all<CompetitorSqlRow>(`SELECT ${COMPETITOR_COLUMNS} FROM competitors WHERE brand_id = ? ORDER BY created_at, id LIMIT ?`, [
        brandId,
        options.limit + 1,
      ]);
  const { items, next } = page(rows, options.limit, (r) => [r.created_at, r.id]);
  return { competitors: items.map((r) => view(fromSql(r))), next_cursor: next };
}

/** Every competitor of the brand, oldest first: the roster the answer analysis matches (read by every analysis). */
export async function listAllCompetitors(db: Queries, brandId: string): Promise<CompetitorView[]> {
  const rows = await db.all<CompetitorSqlRow>(`SELECT ${COMPETITOR_COLUMNS} FROM competitors WHERE brand_id = ? ORDER BY created_at, id`, [
    brandId,
  ]);
  return rows.map((row) => view(fromSql(row)));
}

type RosterWriter = Pick<AppContext, "db" | "events">;

export async function createCompetitor(
  app: RosterWriter,
  brandId: string,
  input: CompetitorInput & { name: string },
): Promise<CompetitorView> {
  const { db } = app;
  const name = cleanName(input.name, "name", "a competitor's name");
  const aliases = cleanAliases(input.aliases ?? [], name);
  const domains = cleanDomains(input.domains ?? []);
  const created = await db.transaction(async (tx) => {
    // The name check, the limit and the order below read before they write.
    await tx.lock(`competitors:${brandId}`);
    await assertNotTheBrand(tx, brandId, { name, aliases, domains });
    await assertNameFree(tx, brandId, name);
    await assertNotAnotherCompetitor(tx, brandId, { name, aliases, domains });
    const count = await tx.get<{ n: number; at: number | null }>(
      "SELECT count(*) AS n, max(created_at) AS at FROM competitors WHERE brand_id = ?",
      [brandId],
    );
    if ((count?.n ?? 0) >= MAX_COMPETITORS) {
      throw new Conflict(`A brand can track at most ${MAX_COMPETITORS} competitors; delete one first.`, "competitor_limit");
    }
    // Strictly increasing per brand: with the id it orders the roster as the competitors were added (PostgreSQL has no rowid).
    const createdAt = Math.max(Date.now(), (count?.at ?? 0) + 1);
    const row: CompetitorRow = { id: newId("cmp"), brandId, name, aliases, domains, createdAt };
    await tx.run("INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES (?, ?, ?, ?, ?, ?)", [
      row.id,
      row.brandId,
      row.name,
      JSON.stringify(row.aliases),
      JSON.stringify(row.domains),
      row.createdAt,
    ]);
    return view(row);
  });
  app.events.emit("rosterChanged", { brandId });
  return created;
}

/**
 * Changes the fields given; `aliases` and `domains` replace the current lists. Only a real change
 * is written and announced (an unchanged competitor re-analyses nothing).
 */
export async function updateCompetitor(
  app: RosterWriter,
  brandId: string,
  competitorId: string,
  patch: CompetitorInput,
): Promise<CompetitorView> {
  const { db } = app;
  const updated = await db.transaction(async (tx): Promise<{ competitor: CompetitorView; changed: boolean }> => {
    await tx.lock(`competitors:${brandId}`);
    const current = await findRow(tx, brandId, competitorId);
    if (!current) throw notFound();
    const name = patch.name !== undefined ? cleanName(patch.name, "name", "a competitor's name") : current.name;
    if (patch.name !== undefined) await assertNameFree(tx, brandId, name, current.id);
    const next: CompetitorRow = {
      ...current,
      name,
      aliases: patch.aliases !== undefined ? cleanAliases(patch.aliases, name) : current.aliases,
      domains: patch.domains !== undefined ? cleanDomains(patch.domains) : current.domains,
    };
    await assertNotTheBrand(tx, brandId, {
      name: patch.name !== undefined ? next.name : undefined,
      aliases: patch.aliases !== undefined ? next.aliases : undefined,
      domains: patch.domains !== undefined ? next.domains : undefined,
    });
    if (patch.name !== undefined || patch.aliases !== undefined || patch.domains !== undefined) {
      await assertNotAnotherCompetitor(tx, brandId, next, current.id);
    }
    const changed = next.name !== current.name || !sameList(next.aliases, current.aliases) || !sameList(next.domains, current.domains);
    if (changed) {
      await tx.run("UPDATE competitors SET name = ?, aliases = ?, domains = ? WHERE brand_id = ? AND id = ?", [
        next.name,
        JSON.stringify(next.aliases),
        JSON.stringify(next.domains),
        brandId,
        current.id,
      ]);
    }
    return { competitor: view(next), changed };
  });
  if (updated.changed) app.events.emit("rosterChanged", { brandId });
  return updated.competitor;
}

/** Deletes the competitor; its mentions disappear from the analysis with the re-analysis. */
export async function deleteCompetitor(app: RosterWriter, brandId: string, competitorId: string): Promise<CompetitorView> {
  const { db } = app;
  const current = await findRow(db, brandId, competitorId);
  if (!current) throw notFound();
  await db.run("DELETE FROM competitors WHERE brand_id = ? AND id = ?", [brandId, current.id]);
  app.events.emit("rosterChanged", { brandId });
  return view(current);
}
