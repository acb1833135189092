// What the assistant searched and read, stored beside an answer's mentions and citations: its web
// search queries, the passages that cite a source, and the sources its search retrieved without
// citing them. Called by the runner inside the answer's writing transaction, for valid answers only
// (like mentions and citations), with the answer's share of the daily rollups search_query_days
// (get_search_queries) and answer_source_days (the retrieval rate). Neither depends on the roster, so a
// re-analysis leaves them as they are. The tracking feature owns these tables' writes; analytics reads them.
import { type Queries, type SqlParam } from "../db/queries";
import { isGroundingRedirect } from "../llm/sources";
import { type SourceRef } from "../llm/types";
import { registrableDomain } from "../public-suffixes";
import { normalizeUrl } from "./analysis/citations";
import { writeRows } from "./bulk-rows";

export interface SearchRecord {
  queries: readonly string[];
  cited: readonly SourceRef[];
  retrieved: readonly SourceRef[];
}

export interface AnswerKey {
  brandId: string;
  engine: string;
  promptId: string;
  createdAt: number;
}

/** The key two answers' queries are compared by: case and spacing do not make a new query. */
export function queryKey(query: string): string {
  return query.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}

/** Host (no `www.`) and registrable domain of a source; null for an unresolved redirect or a non-URL. */
export function sourceHost(url: string): { host: string; domain: string } | null {
  if (isGroundingRedirect(url)) return null;
  const normalized = normalizeUrl(url);
  if (normalized === null) return null;
  const host = new URL(normalized).hostname.toLowerCase().replace(/^www\./, "");
  return { host, domain: registrableDomain(host) };
}

const DAY_MS = 86_400_000;

/**
 * The rollup rows of search_query_days recomputed from search_queries, for one brand's rows with
 * created_at in [?2, ?3): the same sums as SearchStore.write's upserts, and as the migration's backfill.
 */
const REFILL_DAYS = `INSERT INTO search_query_days (brand_id, query_key, day, engine, prompt_id, query, uses, answers)
  SELECT brand_id, query_key, created_at / ${DAY_MS}, engine, prompt_id, query, count(*), sum(first)
  FROM (
    SELECT q.brand_id, q.query_key, q.created_at, q.engine, q.prompt_id, q.query,
      CASE WHEN q.position = min(q.position) OVER (PARTITION BY q.answer_id, q.query_key) THEN 1 ELSE 0 END AS first
    FROM search_queries q WHERE q.brand_id = ?1 AND q.created_at >= ?2 AND q.created_at < ?3
  ) s
  GROUP BY brand_id, query_key, created_at / ${DAY_MS}, engine, prompt_id, query`;

/**
 * The same for answer_source_days, from answer_sources: per answer and registrable domain, its sorted
 * distinct hosts there, as the JSON text `write` stores (hosts are URL-normalised, so quoting them by
 * hand is valid JSON). PostgreSQL has no json_group_array; its string_agg sorts in code-point order.
 */
const refillSourceDays = (
  hosts: string,
): string => `INSERT INTO answer_source_days (brand_id, domain, day, engine, prompt_id, hosts, answers)
  SELECT brand_id, domain, created_at / ${DAY_MS}, engine, prompt_id, hosts, count(*)
  FROM (
    SELECT brand_id, domain, created_at, engine, prompt_id, answer_id, ${hosts} AS hosts
    FROM (
      SELECT DISTINCT brand_id, domain, created_at, engine, prompt_id, answer_id, host FROM answer_sources
      WHERE brand_id = ?1 AND created_at >= ?2 AND created_at < ?3 AND domain IS NOT NULL ORDER BY answer_id, domain, host
    ) h
    GROUP BY answer_id, domain, brand_id, created_at, engine, prompt_id
  ) a
  GROUP BY brand_id, domain, created_at / ${DAY_MS}, engine, prompt_id, hosts`;
const REFILL_SOURCE_DAYS = {
  sqlite: refillSourceDays("json_group_array(host)"),
  postgres: refillSourceDays(`'[' || string_agg('"' || host || '"', ',' ORDER BY host COLLATE "C") || ']'`),
};

const QUERIES_HEAD = "INSERT INTO search_queries (answer_id, brand_id, position, query, query_key, engine, prompt_id, created_at)";
const INSERT_QUERY = `${QUERIES_HEAD} VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT DO NOTHING`;
const SOURCES_HEAD = `INSERT INTO answer_sources (answer_id, brand_id, kind, position, url, host, domain, title, start_index, end_index, engine, prompt_id, created_at)`;
const INSERT_SOURCE = `${SOURCES_HEAD} VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13) ON CONFLICT DO NOTHING`;
const UPSERT_QUERY_DAY = `INSERT INTO search_query_days AS r (brand_id, query_key, day, engine, prompt_id, query, uses, answers)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1, ?7)
       ON CONFLICT (brand_id, query_key, day, engine, prompt_id, query) DO UPDATE SET uses = r.uses + 1, answers = r.answers + excluded.answers`;
const UPSERT_SOURCE_DAY = `INSERT INTO answer_source_days AS r (brand_id, domain, day, engine, prompt_id, hosts, answers) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 1)
       ON CONFLICT (brand_id, domain, day, engine, prompt_id, hosts) DO UPDATE SET answers = r.answers + 1`;
/** The same upserts for many answers: their additions summed per row first. */
const ADD_QUERY_DAYS = {
  head: "INSERT INTO search_query_days AS r (brand_id, query_key, day, engine, prompt_id, query, uses, answers)",
  tail: "ON CONFLICT (brand_id, query_key, day, engine, prompt_id, query) DO UPDATE SET uses = r.uses + excluded.uses, answers = r.answers + excluded.answers",
};
const ADD_SOURCE_DAYS = {
  head: "INSERT INTO answer_source_days AS r (brand_id, domain, day, engine, prompt_id, hosts, answers)",
  tail: "ON CONFLICT (brand_id, domain, day, engine, prompt_id, hosts) DO UPDATE SET answers = r.answers + excluded.answers",
};
const CLEAR_DAYS = "DELETE FROM search_query_days WHERE brand_id = ?1 AND day >= ?2 AND day < ?3";
const CLEAR_SOURCE_DAYS = "DELETE FROM answer_source_days WHERE brand_id = ?1 AND day >= ?2 AND day < ?3";

/** An answer's rows of search_queries and answer_sources, in the order `write` inserts them. */
interface SearchRows {
  queries: Array<{ position: number; text: string; key: string }>;
  sources: Array<{ kind: "cited" | "retrieved"; position: number; source: SourceRef; where: { host: string; domain: string } | null }>;
}

/**
 * Only web pages are sources: a provider's `javascript:` or `data:` URL (a fault, or a hostile
 * gateway) is not stored, so no client is ever handed it as a link.
 */
function isWebUrl(source: SourceRef): boolean {
  return /^https?:\/\//i.test(source.url);
}

/** What `write` stores of a record: each query text once, the cited sources, then the retrieved ones not cited. */
function searchRows(record: SearchRecord): SearchRows {
  const queries: SearchRows["queries"] = [];
  const seenQueries = new Set<string>();
  for (const query of record.queries) {
    const text = query.trim().slice(0, 500);
    if (text === "" || seenQueries.has(text)) continue;
    seenQueries.add(text);
    queries.push({ position: queries.length, text, key: queryKey(text) });
  }
  const sources: SearchRows["sources"] = [];
  const citedUrls = new Set<string>();
  record.cited.filter(isWebUrl).forEach((s, position) => {
    citedUrls.add(s.url);
    sources.push({ kind: "cited", position, source: s, where: sourceHost(s.url) });
  });
  let position = 0;
  const seen = new Set<string>();
  for (const s of record.retrieved) {
    if (!isWebUrl(s) || citedUrls.has(s.url) || seen.has(s.url)) continue;
    seen.add(s.url);
    sources.push({ kind: "retrieved", position: position++, source: { ...s, start: null, end: null }, where: sourceHost(s.url) });
  }
  return { queries, sources };
}

function queryRow(answerId: number, answer: AnswerKey, q: SearchRows["queries"][number]): SqlParam[] {
  return [answerId, answer.brandId, q.position, q.text, q.key, answer.engine, answer.promptId, answer.createdAt];
}

function sourceRow(answerId: number, answer: AnswerKey, s: SearchRows["sources"][number]): SqlParam[] {
  return [
    answerId,
    answer.brandId,
    s.kind,
    s.position,
    s.source.url.slice(0, 2000),
    s.where?.host ?? null,
    s.where?.domain ?? null,
    s.source.title?.slice(0, 500) ?? null,
    s.source.start,
    s.source.end,
    answer.engine,
    answer.promptId,
    answer.createdAt,
  ];
}

/** The hosts of an answer's stored sources per registrable domain, as answer_source_days keys them. */
function hostLists(hosts: Map<string, Set<string>>): Array<[domain: string, hosts: string]> {
  // Sorted in code-point order, as SQLite's ORDER BY sorts them in the rebuild.
  return [...hosts].map(([domain, set]) => [domain, JSON.stringify([...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)))]);
}

function addHost(hosts: Map<string, Set<string>>, where: { host: string; domain: string }): void {
  const set = hosts.get(where.domain) ?? new Set<string>();
  set.add(where.host);
  hosts.set(where.domain, set);
}

/** Writes through the connection it is handed: the transaction that writes the answer. */
export class SearchStore {
  /** Stores the answer's queries and sources; call inside the transaction that wrote the answer. */
  async write(tx: Queries, answerId: number, answer: AnswerKey, record: SearchRecord): Promise<void> {
    const rows = searchRows(record);
    // The query keys this answer has counted in the rollup: its first spelling of a key carries the answer.
    const counted = new Set<string>();
    const day = Math.floor(answer.createdAt / DAY_MS);
    for (const q of rows.queries) {
      const changes = await tx.run(INSERT_QUERY, queryRow(answerId, answer, q));
      if (changes === 0) continue;
      await tx.run(UPSERT_QUERY_DAY, [answer.brandId, q.key, day, answer.engine, answer.promptId, q.text, counted.has(q.key) ? 0 : 1]);
      counted.add(q.key);
    }
    // The hosts of the sources stored, per registrable domain: the answer's rows of answer_source_days.
    const hosts = new Map<string, Set<string>>();
    for (const s of rows.sources) {
      const changes = await tx.run(INSERT_SOURCE, sourceRow(answerId, answer, s));
      if (changes !== 0 && s.where !== null) addHost(hosts, s.where);
    }
    for (const [domain, list] of hostLists(hosts)) {
      await tx.run(UPSERT_SOURCE_DAY, [answer.brandId, domain, day, answer.engine, answer.promptId, list]);
    }
  }

  /**
   * `write` for many answers just inserted in this transaction, in a few multi-row statements: none
   * of their rows is stored yet, so each one is new (write's ON CONFLICT never skips one), and their
   * rollup additions are summed per row before one upsert each.
   */
  async writeMany(tx: Queries, entries: ReadonlyArray<{ answerId: number; answer: AnswerKey; record: SearchRecord }>): Promise<void> {
    const queries: SqlParam[][] = [];
    const sources: SqlParam[][] = [];
    const queryDays = new Map<string, SqlParam[]>();
    const sourceDays = new Map<string, SqlParam[]>();
    const add = (days: Map<string, SqlParam[]>, key: SqlParam[], values: number[]): void => {
      const id = key.join("\u0000");
      const row = days.get(id);
      if (row === undefined) {
        days.set(id, [...key, ...values]);
        return;
      }
      values.forEach((v, k) => {
        row[key.length + k] = (row[key.length + k] as number) + v;
      });
    };
    for (const { answerId, answer, record } of entries) {
      const rows = searchRows(record);
      const day = Math.floor(answer.createdAt / DAY_MS);
      const counted = new Set<string>();
      for (const q of rows.queries) {
        queries.push(queryRow(answerId, answer, q));
        add(queryDays, [answer.brandId, q.key, day, answer.engine, answer.promptId, q.text], [1, counted.has(q.key) ? 0 : 1]);
        counted.add(q.key);
      }
      const hosts = new Map<string, Set<string>>();
      for (const s of rows.sources) {
        sources.push(sourceRow(answerId, answer, s));
        if (s.where !== null) addHost(hosts, s.where);
      }
      for (const [domain, list] of hostLists(hosts))
        add(sourceDays, [answer.brandId, domain, day, answer.engine, answer.promptId, list], [1]);
    }
    await writeRows(tx, QUERIES_HEAD, 8, queries, "ON CONFLICT DO NOTHING");
    await writeRows(tx, SOURCES_HEAD, 13, sources, "ON CONFLICT DO NOTHING");
    await writeRows(tx, ADD_QUERY_DAYS.head, 8, [...queryDays.values()], ADD_QUERY_DAYS.tail);
    await writeRows(tx, ADD_SOURCE_DAYS.head, 7, [...sourceDays.values()], ADD_SOURCE_DAYS.tail);
  }

  /**
   * Recomputes the brand's rollup rows (search_query_days, answer_source_days) of the UTC days
   * [fromDay, toDay) from its stored queries and sources; call inside a transaction after deleting or
   * rewriting search_queries or answer_sources rows by other means than write() (the cascades of a
   * brand's or a prompt's deletion need not: the rollups cascade with them).
   */
  async rebuildDays(tx: Queries, brandId: string, fromDay: number, toDay: number): Promise<void> {
    await tx.run(CLEAR_DAYS, [brandId, fromDay, toDay]);
    await tx.run(REFILL_DAYS, [brandId, fromDay * DAY_MS, toDay * DAY_MS]);
    await tx.run(CLEAR_SOURCE_DAYS, [brandId, fromDay, toDay]);
    await tx.run(REFILL_SOURCE_DAYS, [brandId, fromDay * DAY_MS, toDay * DAY_MS]);
  }
}
