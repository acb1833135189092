// The roster the answer analysis matches: the brand (name, aliases, domain) and its competitors,
// read through their owners' services as they stand now.
import { getBrand } from "../brands/service";
import { listAllCompetitors } from "../competitors/service";
import { type Queries } from "../db/queries";
import { registrableDomain } from "../public-suffixes";
import { type RosterMember } from "./analysis/mentions";

/** The brand plus its competitors, brand first; `domains` decide whether a citation is "owned". */
export interface Roster {
  brandId: string;
  members: Array<RosterMember & { isBrand: boolean; domains: string[] }>;
  /** Hosts of the brand's own site (its domain), lowercased, without `www.`. */
  brandDomains: string[];
}

/** Reads the roster as it stands now (brand name and aliases, competitors with aliases and domains). */
export async function loadRoster(db: Queries, brandId: string): Promise<Roster> {
  const brand = await getBrand(db, brandId);
  const competitors = await listAllCompetitors(db, brandId);
  const brandDomains = brand.domain ? [brand.domain.toLowerCase()] : [];
  return {
    brandId,
    brandDomains,
    members: [
      { id: brandId, name: brand.name, aliases: brand.aliases, isBrand: true, domains: brandDomains },
      ...competitors.map((c) => ({ id: c.id, name: c.name, aliases: c.aliases, isBrand: false, domains: c.domains })),
    ],
  };
}

/** True when the URL's host is one of `domains` or a subdomain of one. */
export function isOnDomains(url: string, domains: readonly string[]): boolean {
  if (domains.length === 0) return false;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^www\./, "");
  } catch {
    return false;
  }
  return domains.some((d) => host === d || host.endsWith(`.${d}`));
}

/** The registrable domains that count as the brand's own at `level: "domain"` (get_top_sources). */
export function ownedRegistrableDomains(roster: Roster): Set<string> {
  return new Set(roster.brandDomains.map((d) => registrableDomain(d)));
}

/** Whose site a cited source is: the brand's own (owned), a competitor's (by its domains), or neither. */
export interface SiteOwner {
  owned: boolean;
  competitor: { id: string; name: string } | null;
}

/**
 * Whose site each source is, for sources by registrable domain (level "domain": a competitor one of
 * whose domains has that registrable domain) or by URL (level "url": one whose domains hold the URL's
 * host). The brand's own site is never a competitor's; the first competitor on the roster wins a tie.
 */
export function siteOwners(roster: Roster, level: "domain" | "url"): (key: string) => SiteOwner {
  const competitors = roster.members.filter((m) => !m.isBrand && m.domains.length > 0);
  if (level === "url") {
    return (url) => {
      if (isOnDomains(url, roster.brandDomains)) return { owned: true, competitor: null };
      const found = competitors.find((c) => isOnDomains(url, c.domains));
      return { owned: false, competitor: found ? { id: found.id, name: found.name } : null };
    };
  }
  const owned = ownedRegistrableDomains(roster);
  const byDomain = new Map<string, { id: string; name: string }>();
  for (const c of competitors) {
    for (const d of c.domains) {
      const key = registrableDomain(d);
      if (!byDomain.has(key)) byDomain.set(key, { id: c.id, name: c.name });
    }
  }
  return (domain) => (owned.has(domain) ? { owned: true, competitor: null } : { owned: false, competitor: byDomain.get(domain) ?? null });
}

/**
 * Whether the brand's stored answers are being analysed again with a changed roster (by any
 * instance), or were left part-way by a stop: its figures then mix the new roster and the old.
 */
export async function reanalysisPending(db: Queries, brandId: string): Promise<boolean> {
  const row = await db.get<{ version: number; analysed: number }>("SELECT version, analysed FROM roster_versions WHERE brand_id = ?", [
    brandId,
  ]);
  return row !== undefined && row.analysed < row.version;
}
