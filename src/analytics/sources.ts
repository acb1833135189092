// Which sources the engines cite: per registrable domain or per URL, with citation_share (METRICS.md)
// and whether the source is the brand's own site.
import type { AppContext } from "../app";
import { isOnDomains, loadRoster, ownedRegistrableDomains } from "../tracking/store";
import { describeFilter, encodeOffset, where, type Filter, type SqlParam } from "./filters";
import { rate, type Rate } from "./rates";

export interface Source {
  domain: string;
  url?: string;
  citations: number;
  /** This source's citations ÷ all citations in the period (n = all citations). */
  citation_share: Rate;
  /** Valid answers citing this source, and that count ÷ valid answers. */
  answers: number;
  answer_rate: Rate;
  owned: boolean;
}

export function topSources(app: AppContext, filter: Filter, opts: { level: "domain" | "url"; limit: number; offset: number }) {
  const db = app.db.sqlite;
  const cw = where("c", filter, filter.period.start, filter.period.end);
  const total = db.query<{ n: number }, SqlParam[]>(`SELECT count(*) AS n FROM citations c WHERE ${cw.sql}`).get(...cw.params)?.n ?? 0;
  const w = where("a", filter, filter.period.start, filter.period.end);
  const valid = db.query<{ n: number }, SqlParam[]>(`SELECT count(*) AS n FROM answers a WHERE ${w.sql} AND a.status = 'ok'`).get(...w.params)?.n ?? 0;
  const key = opts.level === "url" ? "c.url" : "c.domain";
  const rows = db
    .query<{ key: string; domain: string; citations: number; answers: number }, SqlParam[]>(
      `SELECT ${key} AS key, min(c.domain) AS domain, count(*) AS citations, count(DISTINCT c.answer_id) AS answers
       FROM citations c WHERE ${cw.sql} GROUP BY ${key}
       ORDER BY citations DESC, key LIMIT ? OFFSET ?`,
    )
    .all(...cw.params, opts.limit + 1, opts.offset);
  const roster = loadRoster(app.db, filter.brandId);
  const ownedDomains = ownedRegistrableDomains(roster);
  const sources: Source[] = rows.slice(0, opts.limit).map((r) => ({
    domain: r.domain,
    ...(opts.level === "url" ? { url: r.key } : {}),
    citations: r.citations,
    citation_share: rate(r.citations, total),
    answers: r.answers,
    answer_rate: rate(r.answers, valid),
    owned: opts.level === "url" ? isOnDomains(r.key, roster.brandDomains) : ownedDomains.has(r.domain),
  }));
  return {
    filter: describeFilter(filter),
    level: opts.level,
    total_citations: total,
    valid_answers: valid,
    sources,
    next_cursor: rows.length > opts.limit ? encodeOffset(opts.offset + opts.limit) : null,
  };
}
