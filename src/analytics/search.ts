// What assistants searched and read for the brand's prompts (search_queries, answer_sources, written
// by src/tracking/search-store.ts): the retrieval rate, and the queries they ran. METRICS.md's
// figures stay on cited sources; these sit beside them.
import { type AppContext } from "../context";
import { type SqlText } from "../db/queries";
import { getPromptTexts } from "../prompts/service";
import { normalizeUrl, registrableDomain } from "../tracking/analysis/citations";
import { loadRoster } from "../tracking/roster";
import { DAY_MS, describeFilter, type Filter, type Read, readTogether, type SqlParam, where } from "./filters";

/**
 * Valid answers whose search retrieved (or whose provider cited) a URL on one of the brand's
 * domains, per engine, in the current and previous period: the numerator of the retrieval rate.
 * Sources are stored for valid answers only, so every counted answer is a valid one. Read from the
 * daily rollup answer_source_days: an answer is in one of its rows per registrable domain, with the
 * hosts of its sources there, so the sum over the rows of the brand's registrable domain whose hosts
 * include the brand's host or a subdomain of it counts each such answer once. Without a tag or prompt
 * filter, from its sum over prompts, answer_source_engine_days.
 */
export interface RetrievalCounts {
  overall: [number, number];
  byEngine: Map<string, [number, number]>;
}

/** The read of those counts (readTogether); nothing to read when the brand has no domain. */
export async function retrievalRead(app: AppContext, filter: Filter): Promise<Read<RetrievalCounts>> {
  const domains = (await loadRoster(app.db, filter.brandId)).brandDomains;
  const from = (rows: unknown[]): RetrievalCounts => {
    const byEngine = new Map<string, [number, number]>();
    const overall: [number, number] = [0, 0];
    for (const r of rows as RetrievalRow[]) {
      let pair = byEngine.get(r.engine);
      if (!pair) {
        pair = [0, 0];
        byEngine.set(r.engine, pair);
      }
      pair[r.cur ? 0 : 1] += r.n;
      overall[r.cur ? 0 : 1] += r.n;
    }
    return { overall, byEngine };
  };
  if (domains.length === 0) return { text: null, params: [], from };
  const registrable = [...new Set(domains.map((d) => registrableDomain(d)))];
  // A brand has one domain today; were its domains on several registrable domains, an answer could
  // sit in several rows, and only the sources themselves could count it once.
  const read = registrable.length === 1 ? fromRollup(filter, registrable[0]!, domains) : fromSources(filter, registrable, domains);
  return { ...read, from };
}

export async function retrievalCounts(app: AppContext, filter: Filter): Promise<RetrievalCounts> {
  const [counts] = await readTogether<[RetrievalCounts]>(app, filter, [await retrievalRead(app, filter)]);
  return counts;
}

type RetrievalRow = { engine: string; cur: number; n: number };

function fromRollup(filter: Filter, registrable: string, domains: string[]): { text: SqlText; params: SqlParam[] } {
  const w = dayRangeWhere("r", filter, filter.previous.start, filter.period.end);
  // Without a tag or prompt, the rollup without the prompt: a few rows per day and engine.
  const table = filter.scope === null ? "answer_source_engine_days" : "answer_source_days";
  return {
    text: `SELECT r.engine, r.day >= ? AS cur, sum(r.answers) AS n
       FROM ${table} r
       WHERE r.domain = ? AND ${w.sql}
         AND EXISTS (SELECT 1 FROM json_each(r.hosts) h, json_each(?) d WHERE h.value = d.value OR h.value LIKE '%.' || d.value)
       GROUP BY r.engine, cur`,
    params: [filter.period.start / DAY_MS, registrable, ...w.params, JSON.stringify(domains)],
  };
}

function fromSources(filter: Filter, registrable: string[], domains: string[]): { text: SqlText; params: SqlParam[] } {
  const w = where("s", filter, filter.previous.start, filter.period.end);
  // Only the rows on the brand's registrable domains are read (answer_sources_brand_domain_idx:
  // SQLite is told, PostgreSQL's planner picks it); the host then decides (a brand on shop.acme.com
  // does not own blog.acme.com).
  const text = (from: string) =>
    `SELECT s.engine, s.created_at >= ? AS cur, count(DISTINCT s.answer_id) AS n
       FROM ${from}
       WHERE ${w.sql} AND s.domain IN (SELECT value FROM json_each(?))
         AND EXISTS (SELECT 1 FROM json_each(?) d WHERE s.host = d.value OR s.host LIKE '%.' || d.value)
       GROUP BY s.engine, cur`;
  return {
    text: { sqlite: text("answer_sources s INDEXED BY answer_sources_brand_domain_idx"), postgres: text("answer_sources s") },
    params: [filter.period.start, ...w.params, JSON.stringify(registrable), JSON.stringify(domains)],
  };
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
 * Conditions on a per-prompt daily rollup (search_query_days, answer_source_days) aliased `alias`
 * for the whole UTC days of [from, to) and the filter's engine and prompt scope (tag or prompt).
 */
function dayRangeWhere(alias: string, filter: Filter, from: number, to: number): { sql: string; params: SqlParam[] } {
  const parts = [`${alias}.brand_id = ?`, `${alias}.day >= ?`, `${alias}.day < ?`];
  const params: SqlParam[] = [filter.brandId, from / DAY_MS, to / DAY_MS];
  if (filter.engine !== null) {
    parts.push(`${alias}.engine = ?`);
    params.push(filter.engine);
  }
  if (filter.scope !== null) {
    parts.push(`${alias}.prompt_id IN (SELECT value FROM json_each(?))`);
    params.push(filter.scope);
  }
  return { sql: parts.join(" AND "), params };
}

/**
 * The web search queries assistants ran for the brand's prompts in the period, grouped by their
 * normalised text: queries that recur across prompts first, then by how many answers ran them.
 * Read from the daily rollup search_query_days (src/tracking/search-store.ts): the work grows with
 * the distinct queries × days × engines × prompts of the period, not with its answers. A query is
 * shown in its most frequent spelling (ties: the first in code-point order).
 */
export async function searchQueries(app: AppContext, filter: Filter, opts: { limit: number; offset: number }) {
  const w = dayRangeWhere("d", filter, filter.period.start, filter.period.end);
  const db = app.db;
  // An answer counts once per query: its `answers` sit on the row of its first spelling of it. The
  // engines come as a JSON list (in no particular order); SQLite is told the period index,
  // PostgreSQL's planner picks it.
  const ranking = (engines: string, from: string) =>
    `SELECT d.query_key, sum(d.answers) AS answers, count(DISTINCT d.prompt_id) AS prompt_count, ${engines} AS engines
       FROM ${from} WHERE ${w.sql}
       GROUP BY d.query_key
       ORDER BY prompt_count DESC, answers DESC, d.query_key
       LIMIT ? OFFSET ?`;
  const rows = await db.scan<{ query_key: string; answers: number; prompt_count: number; engines: string }>(
    {
      sqlite: ranking("json_group_array(DISTINCT d.engine)", "search_query_days d INDEXED BY search_query_days_period_idx"),
      postgres: ranking("json_agg(DISTINCT d.engine)::text", "search_query_days d"),
    },
    [...w.params, opts.limit + 1, opts.offset],
  );
  const page = rows.slice(0, opts.limit);
  const keys = JSON.stringify(page.map((r) => r.query_key));
  // The page's queries' spellings, most used first, and the prompts that caused them, most uses
  // first: one seek per query (the primary key starts with brand and query).
  const spelling = new Map<string, string>();
  for (const r of await db.scan<{ query_key: string; query: string }>(
    `SELECT d.query_key, d.query FROM search_query_days d
       WHERE d.query_key IN (SELECT value FROM json_each(?)) AND ${w.sql}
       GROUP BY d.query_key, d.query ORDER BY d.query_key, sum(d.uses) DESC, d.query`,
    [keys, ...w.params],
  )) {
    if (!spelling.has(r.query_key)) spelling.set(r.query_key, r.query);
  }
  const causes = new Map<string, string[]>();
  for (const r of await db.scan<{ query_key: string; prompt_id: string }>(
    `SELECT query_key, prompt_id FROM (
       SELECT d.query_key, d.prompt_id,
              row_number() OVER (PARTITION BY d.query_key ORDER BY sum(d.uses) DESC, d.prompt_id) AS k
         FROM search_query_days d
         WHERE d.query_key IN (SELECT value FROM json_each(?)) AND ${w.sql}
         GROUP BY d.query_key, d.prompt_id) c
       WHERE k <= ? ORDER BY query_key, k`,
    [keys, ...w.params, PROMPTS_PER_QUERY],
  )) {
    const list = causes.get(r.query_key) ?? [];
    if (list.length < PROMPTS_PER_QUERY) list.push(r.prompt_id);
    causes.set(r.query_key, list);
  }
  // Their text comes from the prompts feature.
  const texts = await getPromptTexts(app.db, filter.brandId, [...new Set([...causes.values()].flat())]);
  const queries: SearchQueryItem[] = page.map((r) => ({
    id: r.query_key,
    query: spelling.get(r.query_key) ?? r.query_key,
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
export async function answerSearch(app: AppContext, answerId: number): Promise<AnswerSearch> {
  const db = app.db;
  const search_queries = (
    await db.all<{ query: string }>("SELECT query FROM search_queries WHERE answer_id = ? ORDER BY position", [answerId])
  ).map((r) => r.query);
  const sources = await db.all<{
    kind: string;
    url: string;
    domain: string | null;
    title: string | null;
    start_index: number | null;
    end_index: number | null;
  }>("SELECT kind, url, domain, title, start_index, end_index FROM answer_sources WHERE answer_id = ? ORDER BY kind, position", [answerId]);
  // One source per page and passage: a provider may list one page twice under two spellings
  // ("https://cobalt.dev/" and "https://www.cobalt.dev"), which the citations count once (METRICS.md).
  const seen = new Set<string>();
  const once = (s: (typeof sources)[number]) => {
    const key = `${s.kind} ${normalizeUrl(s.url) ?? s.url} ${s.start_index} ${s.end_index}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  };
  const unique = sources.filter(once);
  return {
    search_queries,
    cited_sources: unique
      .filter((s) => s.kind === "cited")
      .map((s) => ({ url: s.url, domain: s.domain, title: s.title, start: s.start_index, end: s.end_index })),
    retrieved_sources: unique.filter((s) => s.kind === "retrieved").map((s) => ({ url: s.url, domain: s.domain, title: s.title })),
  };
}
