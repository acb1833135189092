// In-memory cache of what the public content API serves: per site key, the serialized list and each
// requested article with its ETag. A brand's entry is dropped the moment one of its articles is
// published, edited or unpublished (the articlesChanged event), so a publish is readable at the
// origin on the very next request. Writes by another process on the same database (the CLI's
// `demo`, a second server) are caught by the database's change stamp (SQLite's `PRAGMA
// data_version`, checked at most every DATA_VERSION_CHECK_MS: it takes a shared-memory lock, on every
// request the costliest step; PostgreSQL's change feed, on every request): when it moves, the whole
// cache is dropped. Such a publish is served within that delay. Hits are answered synchronously, the request that makes the check too.
import { findBrandIdBySiteKey } from "../brands/service";
import { getPublishedArticleBySlug, listPublishedArticles, type PublicArticleRow, shownTitle } from "../content/service";
import { isValidSlug } from "../content/slug";
import { changeStamp } from "../db/change-stamp";
import { type Db } from "../db/client";
import { iso } from "../ids";
import { RepeatedFailure } from "../log";
import { type CachedBody, cachedBody } from "./http";

/** Beyond this many cached bytes the oldest brands are dropped first. */
const MAX_CACHED_BYTES = 64 * 1024 * 1024;
const SITE_KEY = /^pk_[0-9a-f]{32}$/;
const EMPTY_LIST = cachedBody('{"articles":[]}');
export const DATA_VERSION_CHECK_MS = 10;
/** What the cache holds is read from these: on PostgreSQL, writes to other tables (a key's last use) leave it alone. */
const PUBLIC_TABLES = ["articles", "brands"] as const;

interface BrandEntry {
  brandId: string;
  siteKey: string;
  list: CachedBody | null;
  articles: Map<string, CachedBody>;
  bytes: number;
}

/** How long a public request waits for PostgreSQL before the last good answer (or a 503) is given. */
const LOAD_TIMEOUT_MS = 5_000;

export class PublicContentCache {
  private readonly bySiteKey = new Map<string, BrandEntry>();
  private readonly byBrand = new Map<string, BrandEntry>();
  private bytes = 0;
  private stamp: number | null = null;
  private stampCheckedAt = Number.NEGATIVE_INFINITY;
  /** The answers served before the last clear, by site key: served when the database fails (see clear). */
  private readonly lastGood = new Map<string, BrandEntry>();
  private lastGoodBytes = 0;
  private readonly servedStale = new RepeatedFailure(
    "the public content API is serving its last good answers: the database does not answer",
    {},
    "the public content API answers from the database again",
  );
  /**
   * How often the stamp is read: on SQLite at most every DATA_VERSION_CHECK_MS (a lock); on PostgreSQL
   * on every request (a counter in memory, moved by the change feed: a wait on top of the
   * notification's own delay served another instance's unpublished article for up to 10 ms more).
   */
  private readonly checkEveryMs: number;

  /** How long a read of the database may take before it counts as failed (PostgreSQL only, unless told). */
  private readonly loadTimeoutMs: number | null;

  constructor(
    private readonly db: Db,
    options: { loadTimeoutMs?: number | null } = {},
  ) {
    this.checkEveryMs = db.dialect === "postgres" ? 0 : DATA_VERSION_CHECK_MS;
    this.loadTimeoutMs = options.loadTimeoutMs !== undefined ? options.loadTimeoutMs : db.dialect === "postgres" ? LOAD_TIMEOUT_MS : null;
  }

  /**
   * A read of the database, failed once it has taken loadTimeoutMs: a PostgreSQL that stops
   * answering without closing its connections (a partition, a frozen host) held a site's request
   * for ever, where the last good answer, or a 503, was there to give.
   */
  private bounded<T>(read: () => Promise<T>): Promise<T> {
    const limit = this.loadTimeoutMs;
    if (limit === null) return read();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(Object.assign(new Error(`the database did not answer within ${limit} ms`), { code: "DATABASE_TIMEOUT" })),
        limit,
      );
    });
    return Promise.race([read(), late]).finally(() => clearTimeout(timer));
  }

  /** The cached list of a site key, answered synchronously, or null when it is not cached (then `list` answers). */
  cachedList(siteKey: string): CachedBody | null {
    this.checkStamp();
    return this.bySiteKey.get(siteKey)?.list ?? null;
  }

  /** The cached article of a site key and slug, synchronously, as `cachedList`. */
  cachedArticle(siteKey: string, slug: string): CachedBody | null {
    this.checkStamp();
    return this.bySiteKey.get(siteKey)?.articles.get(slug) ?? null;
  }

  /** `{"articles":[…]}` for a site key; the empty list for an unknown or malformed one. */
  async list(siteKey: unknown): Promise<CachedBody> {
    try {
      const body = await this.bounded(() => this.freshList(siteKey));
      // Here, not in the read: one that ends after the bound (a slow database) is no recovery.
      this.servedStale.succeeded();
      return body;
    } catch (error) {
      const stale = typeof siteKey === "string" ? this.lastGood.get(siteKey)?.list : undefined;
      if (!stale) throw error;
      this.servedStale.failed(error);
      return stale;
    }
  }

  /** `{"article":{…}}`, or null for an unknown key or slug, a draft, or another brand's slug. */
  async article(siteKey: unknown, slug: string): Promise<CachedBody | null> {
    try {
      const body = await this.bounded(() => this.freshArticle(siteKey, slug));
      this.servedStale.succeeded();
      return body;
    } catch (error) {
      const stale = typeof siteKey === "string" ? this.lastGood.get(siteKey)?.articles.get(slug) : undefined;
      if (!stale) throw error;
      this.servedStale.failed(error);
      return stale;
    }
  }

  private async freshList(siteKey: unknown): Promise<CachedBody> {
    const entry = await this.entry(siteKey);
    if (!entry) return EMPTY_LIST;
    if (entry.list) return entry.list;
    const rows = await listPublishedArticles(this.db, entry.brandId);
    const body = cachedBody(JSON.stringify({ articles: rows.map(listItem) }));
    // A change announced while the rows were read dropped the entry: this answer is not kept.
    if (!this.holds(entry)) return body;
    entry.list ??= this.remember(entry, body);
    return entry.list;
  }

  private async freshArticle(siteKey: unknown, slug: string): Promise<CachedBody | null> {
    if (!isValidSlug(slug)) return null;
    const entry = await this.entry(siteKey);
    if (!entry) return null;
    const hit = entry.articles.get(slug);
    if (hit) return hit;
    const row = await getPublishedArticleBySlug(this.db, entry.brandId, slug);
    if (!row) return null;
    const body = cachedBody(JSON.stringify({ article: articleItem(row) }));
    if (!this.holds(entry)) return body;
    const cached = entry.articles.get(slug) ?? this.remember(entry, body);
    entry.articles.set(slug, cached);
    return cached;
  }

  /** Drops what is cached for a brand: on any article change, and if its site key ever changes. */
  invalidateBrand(brandId: string): void {
    // A known change of the brand's articles: what was served for it before is not to be served again.
    for (const [siteKey, old] of this.lastGood) {
      if (old.brandId !== brandId) continue;
      this.lastGood.delete(siteKey);
      this.lastGoodBytes -= old.bytes;
    }
    this.drop(brandId);
  }

  /** Drops the brand's current entry (a change, or the oldest one past the memory bound). */
  private drop(brandId: string): void {
    const entry = this.byBrand.get(brandId);
    if (!entry) return;
    this.byBrand.delete(brandId);
    this.bySiteKey.delete(entry.siteKey);
    this.bytes -= entry.bytes;
  }

  private clear(): void {
    // What was served is kept as the last good answers, over those of earlier clears (a site key not
    // asked for since keeps its older ones), within the same bound: should the database fail to
    // answer now (PostgreSQL down, which also moves the stamp every few seconds), the site is served
    // what it was served rather than a 500, as a CDN's stale-if-error would.
    for (const [siteKey, entry] of this.bySiteKey) {
      const older = this.lastGood.get(siteKey);
      if (older) this.lastGoodBytes -= older.bytes;
      this.lastGood.delete(siteKey);
      this.lastGood.set(siteKey, entry);
      this.lastGoodBytes += entry.bytes;
    }
    for (const [siteKey, entry] of this.lastGood) {
      if (this.lastGoodBytes <= MAX_CACHED_BYTES) break;
      this.lastGood.delete(siteKey);
      this.lastGoodBytes -= entry.bytes;
    }
    this.bySiteKey.clear();
    this.byBrand.clear();
    this.bytes = 0;
  }

  /** Whether the entry is still the cached one (no invalidation or clear since it was taken). */
  private holds(entry: BrandEntry): boolean {
    return this.byBrand.get(entry.brandId) === entry;
  }

  /**
   * Drops the whole cache if another connection has written since the last check, made at most
   * every DATA_VERSION_CHECK_MS. The check is synchronous (a prepared PRAGMA), so the request that
   * makes it is still answered from the cache: it used to be sent through the surface (an Elysia
   * dispatch and an awaited read), which was a tenth of the CPU of cached hits at a few thousand
   * requests a second (bun --cpu-prof).
   */
  private checkStamp(): void {
    const now = performance.now();
    if (now - this.stampCheckedAt < this.checkEveryMs) return;
    const stamp = changeStamp(this.db, PUBLIC_TABLES);
    if (stamp !== this.stamp) {
      // The first reading only sets the baseline: nothing was cached before it.
      if (this.stamp !== null) this.clear();
      this.stamp = stamp;
    }
    this.stampCheckedAt = now;
  }

  private async entry(siteKey: unknown): Promise<BrandEntry | null> {
    if (typeof siteKey !== "string" || !SITE_KEY.test(siteKey)) return null;
    this.checkStamp();
    const cached = this.bySiteKey.get(siteKey);
    if (cached) return cached;
    // Unknown keys are not remembered: random keys must not be able to fill the memory.
    const brandId = await findBrandIdBySiteKey(this.db, siteKey);
    if (brandId === null) return null;
    const raced = this.bySiteKey.get(siteKey);
    if (raced) return raced;
    const entry: BrandEntry = { brandId, siteKey, list: null, articles: new Map(), bytes: 0 };
    this.bySiteKey.set(siteKey, entry);
    this.byBrand.set(brandId, entry);
    return entry;
  }

  private remember(entry: BrandEntry, cached: CachedBody): CachedBody {
    const size = cached.body.size + (cached.gzip?.body.size ?? 0);
    entry.bytes += size;
    this.bytes += size;
    for (const oldest of this.bySiteKey.values()) {
      if (this.bytes <= MAX_CACHED_BYTES || oldest === entry) break;
      this.drop(oldest.brandId);
    }
    return cached;
  }
}

// Spec "Article (public content API)": these fields, in this order; updatedAt is always null.
function listItem(row: PublicArticleRow) {
  return {
    slug: row.slug,
    title: shownTitle(row.title),
    description: row.description,
    publishedAt: iso(row.publishedAt ?? row.createdAt),
    updatedAt: null,
  };
}

function articleItem(row: PublicArticleRow) {
  return {
    slug: row.slug,
    title: shownTitle(row.title),
    description: row.description,
    html: row.html,
    publishedAt: iso(row.publishedAt ?? row.createdAt),
    updatedAt: null,
  };
}
