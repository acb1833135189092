// What the assistant searched and read, stored beside an answer's mentions and citations: its web
// search queries, the passages that cite a source, and the sources its search retrieved without
// citing them. Called by the runner inside the answer's writing transaction, for valid answers only
// (like mentions and citations). The tracking feature owns these tables' writes; analytics reads them.
import { type Statement } from "bun:sqlite";
import { type Db } from "../db/client";
import { isGroundingRedirect } from "../llm/sources";
import { type SourceRef } from "../llm/types";
import { normalizeUrl, registrableDomain } from "./analysis/citations";

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

export class SearchStore {
  private readonly insertQuery: Statement;
  private readonly insertSource: Statement;

  constructor(db: Db) {
    this.insertQuery = db.sqlite.prepare(
      `INSERT OR IGNORE INTO search_queries (answer_id, brand_id, position, query, query_key, engine, prompt_id, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)`,
    );
    this.insertSource = db.sqlite.prepare(
      `INSERT OR IGNORE INTO answer_sources (answer_id, brand_id, kind, position, url, host, domain, title, start_index, end_index, engine, prompt_id, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)`,
    );
  }

  /** Stores the answer's queries and sources; call inside the transaction that wrote the answer. */
  write(answerId: number, answer: AnswerKey, record: SearchRecord): void {
    let position = 0;
    const seenQueries = new Set<string>();
    for (const query of record.queries) {
      const text = query.trim().slice(0, 500);
      if (text === "" || seenQueries.has(text)) continue;
      seenQueries.add(text);
      this.insertQuery.run(answerId, answer.brandId, position++, text, queryKey(text), answer.engine, answer.promptId, answer.createdAt);
    }
    const citedUrls = new Set<string>();
    position = 0;
    for (const s of record.cited) {
      citedUrls.add(s.url);
      this.source(answerId, answer, "cited", position++, s);
    }
    position = 0;
    const seen = new Set<string>();
    for (const s of record.retrieved) {
      if (citedUrls.has(s.url) || seen.has(s.url)) continue;
      seen.add(s.url);
      this.source(answerId, answer, "retrieved", position++, { ...s, start: null, end: null });
    }
  }

  private source(answerId: number, answer: AnswerKey, kind: "cited" | "retrieved", position: number, s: SourceRef): void {
    const where = sourceHost(s.url);
    this.insertSource.run(
      answerId,
      answer.brandId,
      kind,
      position,
      s.url.slice(0, 2000),
      where?.host ?? null,
      where?.domain ?? null,
      s.title?.slice(0, 500) ?? null,
      s.start,
      s.end,
      answer.engine,
      answer.promptId,
      answer.createdAt,
    );
  }
}
