// Competitors of a brand: names and aliases the answer analysis counts as mentions of them, and the
// domains whose citations count as theirs. Every query is keyed by the brand id of a verified
// credential. Every change announces a roster change (tracking re-analyses the stored answers).
import { and, asc, eq, gt, sql } from "drizzle-orm";
import { normalizeDomain } from "../brands/domain";
import { type AppContext } from "../context";
import { type Db } from "../db/client";
import { competitors } from "../db/schema";
import { Conflict, Invalid, NotFound } from "../errors";
import { iso, newId } from "../ids";
import { sameList } from "../lists";
import { decodeCursor, page } from "../paging";

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

type CompetitorRow = typeof competitors.$inferSelect;

const rowid = sql<number>`${competitors}.rowid`;

function cleanName(value: string, field: string, what: string): string {
  const name = value.trim().replace(/\s+/g, " ");
  if (name.length < NAME_MIN || name.length > NAME_MAX) {
    throw new Invalid(
      `${field}: ${what} must be ${NAME_MIN} to ${NAME_MAX} characters (shorter names match too much text).`,
      "invalid_name",
    );
  }
  return name;
}

function cleanAliases(values: readonly string[], name: string): string[] {
  const seen = new Set([name.toLowerCase()]);
  const out: string[] = [];
  values.forEach((value, i) => {
    const alias = cleanName(value, `aliases[${i}]`, "an alias");
    const key = alias.toLowerCase();
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

function findRow(db: Db, brandId: string, competitorId: string): CompetitorRow | undefined {
  return db.orm
    .select()
    .from(competitors)
    .where(and(eq(competitors.brandId, brandId), eq(competitors.id, competitorId)))
    .get();
}

function assertNameFree(db: Db, brandId: string, name: string, exceptId?: string): void {
  const clash = db.orm
    .select({ id: competitors.id })
    .from(competitors)
    .where(and(eq(competitors.brandId, brandId), sql`lower(${competitors.name}) = ${name.toLowerCase()}`))
    .get();
  if (clash && clash.id !== exceptId) {
    throw new Conflict(`A competitor named "${name}" already exists for this brand; update it instead.`, "competitor_exists");
  }
}

/** The brand's competitors in the order they were added, paged. */
export function listCompetitors(
  db: Db,
  brandId: string,
  options: { limit: number; cursor?: string },
): { competitors: CompetitorView[]; next_cursor: string | null } {
  const after = decodeCursor(options.cursor, ["number"] as const);
  const rows = db.orm
    .select({ row: competitors, rowid })
    .from(competitors)
    .where(and(eq(competitors.brandId, brandId), after ? gt(rowid, after[0]) : undefined))
    .orderBy(asc(rowid))
    .limit(options.limit + 1)
    .all();
  const { items, next } = page(rows, options.limit, (r) => [r.rowid]);
  return { competitors: items.map((r) => view(r.row)), next_cursor: next };
}

/** Every competitor of the brand, oldest first: the roster the answer analysis matches (prepared: read by every analysis). */
export function listAllCompetitors(db: Db, brandId: string): CompetitorView[] {
  const ofBrand = db.prepared("competitors.ofBrand", () =>
    db.orm
      .select()
      .from(competitors)
      .where(eq(competitors.brandId, sql.placeholder("brandId")))
      .orderBy(asc(rowid))
      .prepare(),
  );
  return ofBrand.all({ brandId }).map(view);
}

type RosterWriter = Pick<AppContext, "db" | "events">;

export function createCompetitor(app: RosterWriter, brandId: string, input: CompetitorInput & { name: string }): CompetitorView {
  const { db } = app;
  const name = cleanName(input.name, "name", "a competitor's name");
  const aliases = cleanAliases(input.aliases ?? [], name);
  const domains = cleanDomains(input.domains ?? []);
  const created = db.sqlite
    .transaction(() => {
      assertNameFree(db, brandId, name);
      const count = db.orm.select({ n: sql<number>`count(*)` }).from(competitors).where(eq(competitors.brandId, brandId)).get();
      if ((count?.n ?? 0) >= MAX_COMPETITORS) {
        throw new Conflict(`A brand can track at most ${MAX_COMPETITORS} competitors; delete one first.`, "competitor_limit");
      }
      const row: CompetitorRow = { id: newId("cmp"), brandId, name, aliases, domains, createdAt: Date.now() };
      db.orm.insert(competitors).values(row).run();
      return view(row);
    })
    .immediate();
  app.events.emit("rosterChanged", { brandId });
  return created;
}

/**
 * Changes the fields given; `aliases` and `domains` replace the current lists. Only a real change
 * is written and announced (an unchanged competitor re-analyses nothing).
 */
export function updateCompetitor(app: RosterWriter, brandId: string, competitorId: string, patch: CompetitorInput): CompetitorView {
  const { db } = app;
  const updated = db.sqlite
    .transaction((): { competitor: CompetitorView; changed: boolean } => {
      const current = findRow(db, brandId, competitorId);
      if (!current) throw notFound();
      const name = patch.name !== undefined ? cleanName(patch.name, "name", "a competitor's name") : current.name;
      if (patch.name !== undefined) assertNameFree(db, brandId, name, competitorId);
      const next: CompetitorRow = {
        ...current,
        name,
        aliases: patch.aliases !== undefined ? cleanAliases(patch.aliases, name) : current.aliases,
        domains: patch.domains !== undefined ? cleanDomains(patch.domains) : current.domains,
      };
      const changed = next.name !== current.name || !sameList(next.aliases, current.aliases) || !sameList(next.domains, current.domains);
      if (changed) {
        db.orm
          .update(competitors)
          .set({ name: next.name, aliases: next.aliases, domains: next.domains })
          .where(and(eq(competitors.brandId, brandId), eq(competitors.id, competitorId)))
          .run();
      }
      return { competitor: view(next), changed };
    })
    .immediate();
  if (updated.changed) app.events.emit("rosterChanged", { brandId });
  return updated.competitor;
}

/** Deletes the competitor; its mentions disappear from the analysis with the re-analysis. */
export function deleteCompetitor(app: RosterWriter, brandId: string, competitorId: string): CompetitorView {
  const { db } = app;
  const current = findRow(db, brandId, competitorId);
  if (!current) throw notFound();
  db.orm
    .delete(competitors)
    .where(and(eq(competitors.brandId, brandId), eq(competitors.id, competitorId)))
    .run();
  app.events.emit("rosterChanged", { brandId });
  return view(current);
}
