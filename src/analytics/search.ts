// What assistants searched and read for the brand's prompts (search_queries, answer_sources, written
// by src/tracking/search-store.ts): the retrieval rate, and the queries they ran. METRICS.md's
// figures stay on cited sources; these sit beside them.
import { type AppContext } from "../context";
import { getPromptTexts } from "../prompts/service";
import { registrableDomain } from "../tracking/analysis/citations";
import { loadRoster } from "../tracking/roster";
import { describeFilter, type Filter, where } from "./filters";

/**
 * Valid answers whose search retrieved (or whose provider cited) a URL on one of the brand's
 * domains, per engine, in the current and previous period: the numerator of the retrieval rate.
 * Sources are stored for valid answers only, so every counted answer is a valid one.
 */
export function retrievalCounts(app: AppContext, filter: Filter): { overall: [number, number]; byEngine: Map<string, [number, number]> } {
  const domains = loadRoster(app.db, filter.brandId).brandDomains;
  const byEngine = new Map<string, [number, number]>();
  const overall: [number, number] = [0, 0];
  if (domains.length === 0) return { overall, byEngine };
  const w = where("s", filter, filter.previous.start, filter.period.end);
  // Only the rows on the brand's registrable domains are read (answer_sources_brand_domain_idx);
  // the host then decides (a brand on shop.acme.com does not own blog.acme.com).
  const registrable = [...new Set(domains.map((d) => registrableDomain(d)))];
  const rows = app.db.sqlite
    .query<{ engine: string; cur: number; n: number }, Array<string | number>>(
      `SELECT s.engine, s.created_at >= ? AS cur, count(DISTINCT s.answer_id) AS n
       FROM answer_sources s INDEXED BY answer_sources_brand_domain_idx
       WHERE ${w.sql} AND s.domain IN (SELECT value FROM json_each(?))
         AND EXISTS (SELECT 1 FROM json_each(?) d WHERE s.host = d.value OR s.host LIKE '%.' || d.value)
       GROUP BY s.engine, cur`,
    )
    .all(filter.period.start, ...w.params, JSON.stringify(registrable), JSON.stringify(domains));
  for (const r of rows) {
    let pair = byEngine.get(r.engine);
    if (!pair) {
      pair = [0, 0];
      byEngine.set(r.engine, pair);
    }
    pair[r.cur ? 0 : 1] += r.n;
    overall[r.cur ? 0 : 1] += r.n;
  }
  return { overall, byEngine };
}

export interface SearchQueryItem {
  id: string;
  query: string;
  /** Valid answers that ran it. */
  answers: number;
  /** Distinct prompts whose answers ran it: > 1 is a query that recurs across prompts. */
  prompt_count: number;
  engines: string[];
  prompts: Array<{ id: string; text: string }>;
}

/** Prompts listed per query; prompt_count says how many there are in all. */
const PROMPTS_PER_QUERY = 5;

/**
 * The web search queries assistants ran for the brand's prompts in the period, grouped by their
 * normalised text: queries that recur across prompts first, then by how many answers ran them.
 */
export function searchQueries(app: AppContext, filter: Filter, opts: { limit: number; offset: number }) {
  const w = where("q", filter, filter.period.start, filter.period.end);
  const db = app.db.sqlite;
  const rows = db
    .query<{ query_key: string; query: string; answers: number; prompt_count: number; engines: string }, Array<string | number>>(
      `SELECT q.query_key, min(q.query) AS query, count(DISTINCT q.answer_id) AS answers,
         count(DISTINCT q.prompt_id) AS prompt_count, json_group_array(DISTINCT q.engine) AS engines
       FROM search_queries q WHERE ${w.sql}
       GROUP BY q.query_key
       ORDER BY prompt_count DESC, answers DESC, q.query_key
       LIMIT ? OFFSET ?`,
    )
    .all(...w.params, opts.limit + 1, opts.offset);
  const page = rows.slice(0, opts.limit);
  // The prompts that caused the page's queries, most answers first, in one pass; their text comes
  // from the prompts feature.
  const keys = JSON.stringify(page.map((r) => r.query_key));
  const causes = new Map<string, string[]>();
  for (const r of db
    .query<{ query_key: string; prompt_id: string }, Array<string | number>>(
      `SELECT q.query_key, q.prompt_id FROM search_queries q
       WHERE ${w.sql} AND q.query_key IN (SELECT value FROM json_each(?))
       GROUP BY q.query_key, q.prompt_id ORDER BY q.query_key, count(*) DESC, q.prompt_id`,
    )
    .all(...w.params, keys)) {
    const list = causes.get(r.query_key) ?? [];
    if (list.length < PROMPTS_PER_QUERY) list.push(r.prompt_id);
    causes.set(r.query_key, list);
  }
  const texts = getPromptTexts(app.db, filter.brandId, [...new Set([...causes.values()].flat())]);
  const queries: SearchQueryItem[] = page.map((r) => ({
    id: r.query_key,
    query: r.query,
    answers: r.answers,
    prompt_count: r.prompt_count,
    engines: (JSON.parse(r.engines) as string[]).sort(),
    prompts: (causes.get(r.query_key) ?? []).map((id) => ({ id, text: texts.get(id) ?? "" })),
  }));
  return { filter: describeFilter(filter), queries, more: rows.length > opts.limit };
}

export interface AnswerSearch {
  search_queries: string[];
  cited_sources: Array<{ url: string; domain: string | null; title: string | null; start: number | null; end: number | null }>;
  retrieved_sources: Array<{ url: string; domain: string | null; title: string | null }>;
}

/** One answer's queries, cited passages and retrieved-but-not-cited sources, in provider order. */
export function answerSearch(app: AppContext, answerId: number): AnswerSearch {
  const db = app.db.sqlite;
  const search_queries = db
    .query<{ query: string }, [number]>("SELECT query FROM search_queries WHERE answer_id = ? ORDER BY position")
    .all(answerId)
    .map((r) => r.query);
  const sources = db
    .query<
      { kind: string; url: string; domain: string | null; title: string | null; start_index: number | null; end_index: number | null },
      [number]
    >("SELECT kind, url, domain, title, start_index, end_index FROM answer_sources WHERE answer_id = ? ORDER BY kind, position")
    .all(answerId);
  return {
    search_queries,
    cited_sources: sources
      .filter((s) => s.kind === "cited")
      .map((s) => ({ url: s.url, domain: s.domain, title: s.title, start: s.start_index, end: s.end_index })),
    retrieved_sources: sources.filter((s) => s.kind === "retrieved").map((s) => ({ url: s.url, domain: s.domain, title: s.title })),
  };
}
