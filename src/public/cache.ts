// In-memory cache of what the public content API serves: per site key, the serialized list and each
// requested article with its ETag. A brand's entry is dropped the moment one of its articles is
// published, edited or unpublished (the articlesChanged event), so a publish is readable at the
// origin on the very next request. Writes by another process on the same database (the CLI's
// `demo`, a second server) are caught by SQLite's `PRAGMA data_version`, checked at most every
// DATA_VERSION_CHECK_MS (it takes a shared-memory lock: on every request it was the costliest step):
// when it moves, the whole cache is dropped. Such a publish is served within that delay.
import { type Statement } from "bun:sqlite";
import { findBrandIdBySiteKey } from "../brands/service";
import { getPublishedArticleBySlug, listPublishedArticles, type PublicArticleRow } from "../content/service";
import { isValidSlug } from "../content/slug";
import { type Db } from "../db/client";
import { iso } from "../ids";
import { type CachedBody, cachedBody } from "./http";

/** Beyond this many cached bytes the oldest brands are dropped first. */
const MAX_CACHED_BYTES = 64 * 1024 * 1024;
const SITE_KEY = /^pk_[0-9a-f]{32}$/;
const EMPTY_LIST = cachedBody('{"articles":[]}');
export const DATA_VERSION_CHECK_MS = 10;

interface BrandEntry {
  brandId: string;
  siteKey: string;
  list: CachedBody | null;
  articles: Map<string, CachedBody>;
  bytes: number;
}

export class PublicContentCache {
  private readonly bySiteKey = new Map<string, BrandEntry>();
  private readonly byBrand = new Map<string, BrandEntry>();
  private bytes = 0;
  private dataVersion: number;
  private dataVersionCheckedAt = 0;
  private readonly dataVersionQuery: Statement<{ data_version: number }>;

  constructor(private readonly db: Db) {
    this.dataVersionQuery = db.sqlite.query("PRAGMA data_version");
    this.dataVersion = this.readDataVersion();
  }

  /** `{"articles":[…]}` for a site key; the empty list for an unknown or malformed one. */
  list(siteKey: unknown): CachedBody {
    const entry = this.entry(siteKey);
    if (!entry) return EMPTY_LIST;
    if (!entry.list) {
      const body = JSON.stringify({ articles: listPublishedArticles(this.db, entry.brandId).map(listItem) });
      entry.list = this.remember(entry, cachedBody(body));
    }
    return entry.list;
  }

  /** `{"article":{…}}`, or null for an unknown key or slug, a draft, or another brand's slug. */
  article(siteKey: unknown, slug: string): CachedBody | null {
    if (!isValidSlug(slug)) return null;
    const entry = this.entry(siteKey);
    if (!entry) return null;
    const hit = entry.articles.get(slug);
    if (hit) return hit;
    const row = getPublishedArticleBySlug(this.db, entry.brandId, slug);
    if (!row) return null;
    const cached = this.remember(entry, cachedBody(JSON.stringify({ article: articleItem(row) })));
    entry.articles.set(slug, cached);
    return cached;
  }

  /** Drops what is cached for a brand: on any article change, and if its site key ever changes. */
  invalidateBrand(brandId: string): void {
    const entry = this.byBrand.get(brandId);
    if (!entry) return;
    this.byBrand.delete(brandId);
    this.bySiteKey.delete(entry.siteKey);
    this.bytes -= entry.bytes;
  }

  private clear(): void {
    this.bySiteKey.clear();
    this.byBrand.clear();
    this.bytes = 0;
  }

  private entry(siteKey: unknown): BrandEntry | null {
    if (typeof siteKey !== "string" || !SITE_KEY.test(siteKey)) return null;
    const now = performance.now();
    if (now - this.dataVersionCheckedAt >= DATA_VERSION_CHECK_MS) {
      this.dataVersionCheckedAt = now;
      const version = this.readDataVersion();
      if (version !== this.dataVersion) {
        this.dataVersion = version;
        this.clear();
      }
    }
    const cached = this.bySiteKey.get(siteKey);
    if (cached) return cached;
    // Unknown keys are not remembered: random keys must not be able to fill the memory.
    const brandId = findBrandIdBySiteKey(this.db, siteKey);
    if (brandId === null) return null;
    const entry: BrandEntry = { brandId, siteKey, list: null, articles: new Map(), bytes: 0 };
    this.bySiteKey.set(siteKey, entry);
    this.byBrand.set(brandId, entry);
    return entry;
  }

  private remember(entry: BrandEntry, cached: CachedBody): CachedBody {
    entry.bytes += cached.body.size;
    this.bytes += cached.body.size;
    for (const oldest of this.bySiteKey.values()) {
      if (this.bytes <= MAX_CACHED_BYTES || oldest === entry) break;
      this.invalidateBrand(oldest.brandId);
    }
    return cached;
  }

  private readDataVersion(): number {
    return this.dataVersionQuery.get()?.data_version ?? 0;
  }
}

// Spec "Article (public content API)": these fields, in this order; updatedAt is always null.
function listItem(row: PublicArticleRow) {
  return {
    slug: row.slug,
    title: row.title === "" ? "Untitled" : row.title,
    description: row.description,
    publishedAt: iso(row.publishedAt ?? row.createdAt),
    updatedAt: null,
  };
}

function articleItem(row: PublicArticleRow) {
  return {
    slug: row.slug,
    title: row.title === "" ? "Untitled" : row.title,
    description: row.description,
    html: row.html,
    publishedAt: iso(row.publishedAt ?? row.createdAt),
    updatedAt: null,
  };
}
