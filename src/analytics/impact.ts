// Article impact, defined here in METRICS.md's terms: for each published article linked to a prompt, the
// prompt's visibility and citation rate in the window_days whole UTC days before the publication
// day and in the window_days after it (ending today when fewer have passed; the publication day
// itself is in neither), compared as periods are, and whether the article's own URL was cited since.
import { type AppContext } from "../context";
import { getPrompt } from "../prompts/service";
import { registrableDomain } from "../public-suffixes";
import { isOnDomains, loadRoster } from "../tracking/roster";
import { DAY_MS, dayString, encodeOffset, startOfUtcDay } from "./filters";
import { type Rate, rate } from "./rates";
import { comparePeriods, type PeriodComparison, wilson } from "./stats";

export const DEFAULT_WINDOW_DAYS = 14;
export const MAX_WINDOW_DAYS = 90;

export interface Window {
  start_date: string | null;
  end_date: string | null;
  days: number;
}

export interface BeforeAfter extends PeriodComparison {
  before: Rate;
  after: Rate;
}

export interface ArticleImpact {
  article: { id: string; title: string; slug: string; published_at: string };
  prompt: { id: string; text: string };
  before: Window;
  after: Window;
  answers: { before: { total: number; valid: number }; after: { total: number; valid: number } };
  visibility: BeforeAfter;
  citation_rate: BeforeAfter;
  article_cited: { cited: boolean; citations: number; first_cited_at: string | null; last_cited_at: string | null };
}

function window(start: number, days: number): Window {
  return days <= 0
    ? { start_date: null, end_date: null, days: 0 }
    : { start_date: dayString(start), end_date: dayString(start + (days - 1) * DAY_MS), days };
}

function beforeAfter(before: [number, number], after: [number, number]): BeforeAfter {
  return {
    before: rate(before[0], before[1]),
    after: rate(after[0], after[1]),
    ...comparePeriods(wilson(after[0], after[1]), wilson(before[0], before[1])),
  };
}

/** True when `url` is the article's own page: its last path segment is the slug, on the brand's domains or under public_url. */
export function isArticleUrl(url: string, slug: string, brandDomains: readonly string[], publicUrl: string | null): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const last = parsed.pathname.replace(/\/+$/, "").split("/").pop();
  if (last !== slug) return false;
  if (isOnDomains(url, brandDomains)) return true;
  return publicUrl !== null && url.toLowerCase().startsWith(publicUrl.replace(/\/+$/, "").toLowerCase());
}

/** A published article as the content service lists it (analytics reads no content table). */
export interface PublishedArticle {
  id: string;
  title: string;
  slug: string;
  promptId: string | null;
  publishedAt: number | null;
}

/** `published`: the brand's published articles, newest publication first (content's listPublishedArticles). */
export async function articleImpact(
  app: AppContext,
  brandId: string,
  published: readonly PublishedArticle[],
  options: { windowDays: number; limit: number; offset: number },
  now = Date.now(),
) {
  const db = app.db;
  const today = startOfUtcDay(now);
  const linked = published.filter((a) => a.promptId !== null && a.publishedAt !== null);
  const page = linked.slice(options.offset, options.offset + options.limit);
  const roster = await loadRoster(app.db, brandId);
  const W = options.windowDays;
  type Counts = { total: number; valid: number | null; mentioned: number | null; cited: number | null };
  const counts = async (promptId: string, from: number, to: number): Promise<Counts> =>
    (await db.get<Counts>(
      `SELECT count(*) AS total, count(*) FILTER (WHERE a.status = 'ok') AS valid, sum(a.brand_mentioned) AS mentioned, sum(a.brand_cited) AS cited
     FROM answers a WHERE a.brand_id = ? AND a.prompt_id = ? AND a.created_at >= ? AND a.created_at < ?`,
      [brandId, promptId, from, to],
    ))!;
  // The article's page is on the brand's domains or under public_url: only URLs of those domains can
  // be it. The URLs cited since the publication day, with their citations per day, come from the
  // daily URL rollups (a few rows per day); only the publication day (counted from the moment of
  // publication) and the first and last days citing the article are read from the citations.
  const hosts = [...roster.brandDomains];
  if (app.config.publicUrl !== null) hosts.push(new URL(app.config.publicUrl).hostname.toLowerCase().replace(/^www\./, ""));
  const domains = JSON.stringify([...new Set(hosts.flatMap((h) => [h, registrableDomain(h)]))]);
  const articleCitations = async (slug: string, publishedAt: number) => {
    const pubDay = Math.floor(publishedAt / DAY_MS);
    const rows = (
      await db.all<{ url: string; day: number; citations: number }>(
        `SELECT u.url, u.day, sum(u.citations) AS citations FROM citation_url_days u
     WHERE u.brand_id = ? AND u.day >= ? AND u.domain IN (SELECT value FROM json_each(?)) GROUP BY u.url, u.day`,
        [brandId, pubDay, domains],
      )
    ).filter((r) => isArticleUrl(r.url, slug, roster.brandDomains, app.config.publicUrl));
    const urls = JSON.stringify([...new Set(rows.map((r) => r.url))]);
    const on = (day: number) =>
      db.all<{ created_at: number }>(
        `SELECT c.created_at FROM citations c WHERE c.brand_id = ? AND c.created_at >= ? AND c.created_at < ?
       AND c.url IN (SELECT value FROM json_each(?)) ORDER BY c.created_at`,
        [brandId, Math.max(publishedAt, day * DAY_MS), (day + 1) * DAY_MS, urls],
      );
    const byDay = new Map<number, number>();
    for (const r of rows) byDay.set(r.day, (byDay.get(r.day) ?? 0) + r.citations);
    // The publication day counts only what was cited from the moment of publication.
    if (byDay.has(pubDay)) byDay.set(pubDay, (await on(pubDay)).length);
    const days = [...byDay.entries()].filter(([, n]) => n > 0).map(([day]) => day);
    if (days.length === 0) return { citations: 0, first: null, last: null };
    const firstDay = await on(Math.min(...days));
    const lastDay = await on(Math.max(...days));
    return {
      citations: [...byDay.values()].reduce((a, b) => a + b, 0),
      first: firstDay[0]!.created_at,
      last: lastDay[lastDay.length - 1]!.created_at,
    };
  };
  const items: ArticleImpact[] = [];
  for (const a of page) {
    const prompt = await getPrompt(app.db, brandId, a.promptId!);
    const publishedAt = a.publishedAt!;
    const pubDay = startOfUtcDay(publishedAt);
    const beforeStart = pubDay - W * DAY_MS;
    const afterStart = pubDay + DAY_MS;
    const afterDays = Math.max(0, Math.min(W, Math.round((today - afterStart) / DAY_MS) + 1));
    const b = await counts(prompt.id, beforeStart, pubDay);
    const f =
      afterDays === 0
        ? { total: 0, valid: 0, mentioned: 0, cited: 0 }
        : await counts(prompt.id, afterStart, afterStart + afterDays * DAY_MS);
    const cites = await articleCitations(a.slug, publishedAt);
    items.push({
      article: { id: a.id, title: a.title, slug: a.slug, published_at: new Date(publishedAt).toISOString() },
      prompt: { id: prompt.id, text: prompt.text },
      before: window(beforeStart, W),
      after: window(afterStart, afterDays),
      answers: { before: { total: b.total, valid: b.valid ?? 0 }, after: { total: f.total, valid: f.valid ?? 0 } },
      visibility: beforeAfter([b.mentioned ?? 0, b.valid ?? 0], [f.mentioned ?? 0, f.valid ?? 0]),
      citation_rate: beforeAfter([b.cited ?? 0, b.valid ?? 0], [f.cited ?? 0, f.valid ?? 0]),
      article_cited: {
        cited: cites.citations > 0,
        citations: cites.citations,
        first_cited_at: cites.first === null ? null : new Date(cites.first).toISOString(),
        last_cited_at: cites.last === null ? null : new Date(cites.last).toISOString(),
      },
    });
  }
  const end = options.offset + page.length;
  return {
    window_days: W,
    total_articles: linked.length,
    articles: items,
    next_cursor: end < linked.length ? encodeOffset(end) : null,
  };
}
