// Which sources the engines cite: per registrable domain or per URL, with citation_share (METRICS.md)
// and whether the source is the brand's own site. Summed from the daily citation rollups, or, with a
// tag filter, from the citations of the tag's prompts.
import { type AppContext } from "../context";
import { loadRoster, siteOwners } from "../tracking/roster";
import { countOf, dayWhere, describeFilter, encodeOffset, type Filter, type Read, readTogether, where } from "./filters";
import { type Rate, rate } from "./rates";
import { validAnswersRead } from "./visibility";

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
  /** The competitor whose site this is (a domain of theirs on the roster), or null; never set on an owned source. */
  competitor: { id: string; name: string } | null;
}

type Page = { level: "domain" | "url"; limit: number; offset: number };

interface SourceRow {
  key: string;
  domain: string;
  citations: number;
  answers: number;
}

export async function topSources(app: AppContext, filter: Filter, opts: Page) {
  // A rate's numerator and denominator in one snapshot: the three read together (readTogether).
  const [total, rows, valid] = await readTogether<[number, SourceRow[], number]>(app, filter, [
    ...(filter.scope === null ? fromRollups(filter, opts) : fromCitations(filter, opts)),
    validAnswersRead(filter),
  ]);
  const roster = await loadRoster(app.db, filter.brandId);
  const ownerOf = siteOwners(roster, opts.level);
  const sources: Source[] = rows.slice(0, opts.limit).map((r) => {
    const { owned, competitor } = ownerOf(r.key);
    return {
      domain: r.domain,
      ...(opts.level === "url" ? { url: r.key } : {}),
      citations: r.citations,
      citation_share: rate(r.citations, total),
      answers: r.answers,
      answer_rate: rate(r.answers, valid),
      owned,
      competitor,
    };
  });
  return {
    filter: describeFilter(filter),
    level: opts.level,
    total_citations: total,
    valid_answers: valid,
    sources,
    next_cursor: rows.length > opts.limit ? encodeOffset(opts.offset + opts.limit) : null,
  };
}

/** Without a tag: sums over the daily rollups (a few rows per day, engine and source). */
function fromRollups(filter: Filter, opts: Page): [Read<number>, Read<SourceRow[]>] {
  const d = dayWhere("d", filter, filter.period.start, filter.period.end);
  // Per URL, every citation is a different answer (an answer cites a URL once).
  const sql =
    opts.level === "url"
      ? `SELECT d.url AS key, min(d.domain) AS domain, sum(d.citations) AS citations, sum(d.citations) AS answers
         FROM citation_url_days d WHERE ${d.sql} GROUP BY d.url`
      : `SELECT d.domain AS key, d.domain AS domain, sum(d.citations) AS citations, sum(d.answers) AS answers
         FROM citation_domain_days d WHERE ${d.sql} GROUP BY d.domain`;
  return [
    { text: `SELECT sum(d.citations) AS n FROM citation_domain_days d WHERE ${d.sql}`, params: d.params, from: countOf },
    { text: `${sql} ORDER BY citations DESC, key LIMIT ? OFFSET ?`, params: [...d.params, opts.limit + 1, opts.offset], from: sourceRows },
  ];
}

/** With a tag: from the citations of the tag's prompts themselves (covering index). */
function fromCitations(filter: Filter, opts: Page): [Read<number>, Read<SourceRow[]>] {
  const cw = where("c", filter, filter.period.start, filter.period.end);
  const key = opts.level === "url" ? "c.url" : "c.domain";
  return [
    { text: `SELECT count(*) AS n FROM citations c WHERE ${cw.sql}`, params: cw.params, from: countOf },
    {
      text: `SELECT ${key} AS key, min(c.domain) AS domain, count(*) AS citations, count(DISTINCT c.answer_id) AS answers
       FROM citations c WHERE ${cw.sql} GROUP BY ${key}
       ORDER BY citations DESC, key LIMIT ? OFFSET ?`,
      params: [...cw.params, opts.limit + 1, opts.offset],
      from: sourceRows,
    },
  ];
}

const sourceRows = (rows: unknown[]) => rows as SourceRow[];
