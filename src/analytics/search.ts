// What assistants searched and read for the brand's prompts (search_queries, answer_sources, written
// by src/tracking/search-store.ts): the retrieval rate, and the queries they ran. METRICS.md's
// figures stay on cited sources; these sit beside them.
import { type AppContext } from "../context";
import { type SqlText } from "../db/queries";
import { getPromptTexts } from "../prompts/service";
import { registrableDomain } from "../public-suffixes";
import { normalizeUrl } from "../tracking/analysis/citations";
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
 * shown in its most frequent spelling (ties: the first in code-point order), with the prompts that ran
 * it most (ties: by id).
 *
 * One statement: the period's rows are grouped once by query, prompt, spelling and engine, and the
 * page, its spellings and its prompts are read from those groups (each CTE MATERIALIZED: PostgreSQL
 * would otherwise inline the spellings and prompts into each page row's subquery). At 216,000 answers (90 days) that
 * took ~85 ms in-process where the ranking, then the page's spellings, then its prompts, each over the
 * rows themselves, took ~780 (scratch measurement, the bench's demo database).
 */
export async function searchQueries(app: AppContext, filter: Filter, opts: { limit: number; offset: number }) {
  const w = dayRangeWhere("d", filter, filter.period.start, filter.period.end);
  const db = app.db;
  // An answer counts once per query: its `answers` sit on the row of its first spelling of it.
  // The lists come as JSON (json_group_array / json_agg); the prompts as [rank, id] pairs, put in
  // order here (an aggregate's ORDER BY needs SQLite 3.44, and Bun on macOS uses the system's).
  const page = (from: string, list: (value: string) => string, pair: string) =>
    `WITH g AS MATERIALIZED (
       SELECT d.query_key AS k, d.prompt_id AS p, d.query AS q, d.engine AS e, sum(d.answers) AS a, sum(d.uses) AS u
         FROM ${from} WHERE ${w.sql}
         GROUP BY d.query_key, d.prompt_id, d.query, d.engine),
     ranked AS MATERIALIZED (
       SELECT k, sum(a) AS answers, count(DISTINCT p) AS prompt_count, ${list("DISTINCT e")} AS engines FROM g
         GROUP BY k ORDER BY prompt_count DESC, answers DESC, k LIMIT ? OFFSET ?),
     spellings AS MATERIALIZED (
       SELECT k, q FROM (
         SELECT k, q, row_number() OVER (PARTITION BY k ORDER BY sum(u) DESC, q) AS n FROM g
           WHERE k IN (SELECT k FROM ranked) GROUP BY k, q) x
       WHERE n = 1),
     causes AS MATERIALIZED (
       SELECT k, p, n FROM (
         SELECT k, p, row_number() OVER (PARTITION BY k ORDER BY sum(u) DESC, p) AS n FROM g
           WHERE k IN (SELECT k FROM ranked) GROUP BY k, p) x
       WHERE n <= ${PROMPTS_PER_QUERY})
     SELECT r.k AS query_key, r.answers, r.prompt_count, r.engines,
            (SELECT s.q FROM spellings s WHERE s.k = r.k) AS query,
            (SELECT ${list(`${pair}(c.n, c.p)`)} FROM causes c WHERE c.k = r.k) AS prompts
       FROM ranked r ORDER BY r.prompt_count DESC, r.answers DESC, r.k`;
  const text =
    db.dialect === "sqlite"
      ? page(`search_query_days d INDEXED BY ${await groupingIndex(app, filter)}`, (value) => `json_group_array(${value})`, "json_array")
      : page("search_query_days d", (value) => `json_agg(${value})::text`, "json_build_array");
  const rows = await db.scan<{ query_key: string; answers: number; prompt_count: number; engines: string; query: string; prompts: string }>(
    text,
    [...w.params, opts.limit + 1, opts.offset],
  );
  const shown = rows.slice(0, opts.limit);
  const causes = new Map(
    shown.map((r) => [
      r.query_key,
      (JSON.parse(r.prompts ?? "[]") as Array<[number, string]>).sort((x, y) => x[0] - y[0]).map(([, id]) => id),
    ]),
  );
  // Their text comes from the prompts feature.
  const texts = await getPromptTexts(app.db, filter.brandId, [...new Set([...causes.values()].flat())]);
  const queries: SearchQueryItem[] = shown.map((r) => ({
    id: r.query_key,
    query: r.query,
    answers: r.answers,
    prompt_count: r.prompt_count,
    engines: (JSON.parse(r.engines) as string[]).sort(),
    prompts: causes.get(r.query_key)!.map((id) => ({ id, text: texts.get(id) ?? "" })),
  }));
  return { filter: describeFilter(filter), queries, more: rows.length > opts.limit };
}

/**
 * The index SQLite groups the period's rows through. search_query_days_key_idx holds them in the
 * grouping's order, so nothing is sorted, but it reads the brand's rows of every day; the period index
 * reads the period's rows only, and sorts them. Measured on the demo's 216,000 answers (60 days of
 * rows), the whole statement: 7 days 55 / 48 ms (key / period index), 30 days 66 / 164, 90 days 84 /
 * 337. So the key index while the brand's days are no more than 8 times the period's.
 */
async function groupingIndex(app: AppContext, filter: Filter): Promise<string> {
  // SQLite's numbered parameters: this text is SQLite's only.
  const span = await app.db.get<{ first: number | null; last: number | null }>(
    `SELECT (SELECT min(day) FROM search_query_days WHERE brand_id = ?1) AS first,
            (SELECT max(day) FROM search_query_days WHERE brand_id = ?1) AS last`,
    [filter.brandId],
  );
  const brandDays = span?.first == null || span.last == null ? 0 : span.last - span.first + 1;
  const periodDays = (filter.period.end - filter.period.start) / DAY_MS;
  return brandDays <= 8 * periodDays ? "search_query_days_key_idx" : "search_query_days_period_idx";
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
