// Per-prompt figures and content gaps (METRICS.md "Content gaps").
import { type AppContext } from "../context";
import { ALL_ENGINES } from "../db/values";
import { brandPromptIds, getPromptHeads } from "../prompts/service";
import { refreshWindows, WINDOW_DAYS, windowState } from "../tracking/prompt-windows";
import { loadRoster, type SiteOwner, siteOwners } from "../tracking/roster";
import { DAY_MS, describeFilter, encodeOffset, type Filter, type SqlParam, startOfUtcDay, where } from "./filters";
import { periodNote } from "./notes";
import { type Mean, mean, type Rate, rate } from "./rates";

export interface PromptPerformance {
  id: string;
  text: string;
  /** Archived: no longer asked; its answers of the period still count. */
  archived: boolean;
  visibility: Rate;
  avg_position: Mean;
  answers: { total: number; valid: number };
  top_competitor: { id: string; name: string; answers: number } | null;
}

const marks = (list: readonly unknown[]) => list.map(() => "?").join(",");

/**
 * Conditions on the per-prompt rollups aliased d for the filter's period, on its engine or on all
 * engines together; the prompt comes from the caller's scope, which holds the brand's prompts only
 * (a prompt id names one brand's prompt), so the brand is not repeated: the covering index
 * (prompt, engine, day, …) then answers every probe. Its parameters are numbered ?1 to ?3 and come
 * first in a text's parameters, so a text may use the conditions twice with one set of them.
 */
function promptDayWhere(filter: Filter): { sql: string; params: SqlParam[] } {
  return {
    sql: "d.engine = ?1 AND d.day >= ?2 AND d.day < ?3",
    params: [filter.engine ?? ALL_ENGINES, filter.period.start / DAY_MS, filter.period.end / DAY_MS],
  };
}

/**
 * The prompts a ranking goes over, as a table of one column, `value`, aliased p, whose parameter is
 * ?4: the scope's JSON list, or without a tag or prompt the brand's prompts, read by the statement
 * itself. Listing them first cost the serving thread ~1.4 ms for the demo's 1,200 prompts, and at 10×
 * that the list (12,000 ids, ~250 KB of JSON) was made there and copied to the reader process.
 */
function rankedPrompts(filter: Filter): { from: string; param: SqlParam } {
  return filter.scope !== null ? { from: "json_each(?4)", param: filter.scope } : { from: brandPromptIds("?4"), param: filter.brandId };
}

/**
 * The engine ("*" for all) of the prompt_windows rows that hold the filter's per-prompt sums, or null
 * to sum prompt_days: the windows hold one period per brand, the WINDOW_DAYS days ending on their
 * state's day, and only a complete state is read. A filter for today's default period that finds
 * them older (a new day) or unbuilt starts their rebuild, and is answered from prompt_days meanwhile
 * (tracking/prompt-windows.ts).
 */
async function windowEngine(app: AppContext, filter: Filter): Promise<string | null> {
  if (filter.scope !== null || filter.period.days !== WINDOW_DAYS) return null;
  const endDay = filter.period.end / DAY_MS - 1;
  const state = await windowState(app.db, filter.brandId);
  if (state?.end_day === endDay && state.complete === 1) return filter.engine ?? ALL_ENGINES;
  // Today's period, unbuilt, older or cut short (a stop; another instance's rebuild under way): rebuilt
  // (refreshWindows joins one under way here). A state ahead of today (another instance's clock) is left.
  const today = startOfUtcDay(Date.now()) / DAY_MS;
  if (endDay === today && (state === undefined || state.end_day <= today)) void refreshWindows(app.db, filter.brandId, today);
  return null;
}

/** Competitor mention counts per prompt for the given prompts, in the period (current roster members only). */
async function competitorCounts(
  app: AppContext,
  filter: Filter,
  promptIds: string[],
): Promise<Map<string, Array<{ id: string; n: number }>>> {
  const out = new Map<string, Array<{ id: string; n: number }>>();
  if (promptIds.length === 0) return out;
  const competitorIds = (await loadRoster(app.db, filter.brandId)).members.filter((m) => !m.isBrand).map((m) => m.id);
  if (competitorIds.length === 0) return out;
  const mw = where("m", filter, filter.period.start, filter.period.end);
  // A page's prompts, but each one's mentions over the whole period: a scan (db/reader.ts).
  const rows = await app.db.scan<{ prompt_id: string; member_id: string; n: number }>(
    `SELECT m.prompt_id AS prompt_id, m.member_id AS member_id, count(*) AS n FROM mentions m
       WHERE ${mw.sql} AND m.prompt_id IN (${marks(promptIds)}) AND m.member_id IN (${marks(competitorIds)})
       GROUP BY m.prompt_id, m.member_id`,
    [...mw.params, ...promptIds, ...competitorIds],
  );
  for (const r of rows) {
    const list = out.get(r.prompt_id) ?? [];
    list.push({ id: r.member_id, n: r.n });
    out.set(r.prompt_id, list);
  }
  for (const list of out.values()) list.sort((a, b) => b.n - a.n || a.id.localeCompare(b.id));
  return out;
}

export async function promptPerformance(
  app: AppContext,
  filter: Filter,
  opts: { limit: number; offset: number; order: "visibility_desc" | "visibility_asc" },
) {
  const direction = opts.order === "visibility_asc" ? "ASC" : "DESC";
  const engine = await windowEngine(app, filter);
  const rows =
    engine !== null
      ? // One row per prompt, in the order of the windows' rank index (read from its end by default).
        await app.db.all<RankedPrompt>(
          `SELECT prompt_id, total, valid, mentioned, position_sum AS pos_sum FROM prompt_windows
           WHERE brand_id = ? AND engine = ? AND total > 0
           ORDER BY rate ${direction} NULLS LAST, valid DESC, prompt_id LIMIT ? OFFSET ?`,
          [filter.brandId, engine, opts.limit + 1, opts.offset],
        )
      : await rankFromDays(app, filter, direction, opts);
  const page = rows.slice(0, opts.limit);
  const ids = page.map((r) => r.prompt_id);
  const heads = await getPromptHeads(app.db, filter.brandId, ids);
  const competitors = await competitorCounts(app, filter, ids);
  const names = new Map((await loadRoster(app.db, filter.brandId)).members.map((m) => [m.id, m.name]));
  const prompts: PromptPerformance[] = page.map((r) => {
    const top = competitors.get(r.prompt_id)?.find((c) => names.has(c.id));
    return {
      id: r.prompt_id,
      text: heads.get(r.prompt_id)?.text ?? "",
      archived: heads.get(r.prompt_id)?.archived ?? false,
      visibility: rate(r.mentioned, r.valid),
      avg_position: mean(r.pos_sum ?? 0, r.mentioned),
      answers: { total: r.total, valid: r.valid },
      top_competitor: top ? { id: top.id, name: names.get(top.id)!, answers: top.n } : null,
    };
  });
  return {
    filter: describeFilter(filter),
    prompts,
    next_cursor: rows.length > opts.limit ? encodeOffset(opts.offset + opts.limit) : null,
    note: await periodNote(app, filter, prompts.length === 0 && opts.offset === 0),
  };
}

interface RankedPrompt {
  prompt_id: string;
  total: number;
  valid: number;
  mentioned: number;
  pos_sum: number | null;
}

/** The page of the ranking (and one more) summed from the prompts' days of the period. */
async function rankFromDays(
  app: AppContext,
  filter: Filter,
  direction: "ASC" | "DESC",
  opts: { limit: number; offset: number },
): Promise<RankedPrompt[]> {
  const d = promptDayWhere(filter);
  const prompts = rankedPrompts(filter);
  return app.db.scan<RankedPrompt>(
    // Prompt by prompt, each prompt's days of the period from the covering (brand, prompt, engine,
    // day…) index of the per-prompt rollups: on SQLite their sums packed into one value, on
    // PostgreSQL (which has neither json_array nor an integer ->>) a lateral subquery.
    {
      sqlite: `WITH per_prompt (prompt_id, sums) AS MATERIALIZED (
         SELECT p.value, (SELECT json_array(sum(d.total), sum(d.valid), sum(d.mentioned), sum(d.position_sum))
                          FROM prompt_days d WHERE d.prompt_id = p.value AND ${d.sql})
         FROM ${prompts.from} p),
       figures AS (SELECT prompt_id, sums ->> 0 AS total, sums ->> 1 AS valid, sums ->> 2 AS mentioned, sums ->> 3 AS pos_sum FROM per_prompt)
       SELECT prompt_id, total, valid, mentioned, pos_sum FROM figures WHERE total > 0
       ORDER BY (CASE WHEN valid > 0 THEN CAST(mentioned AS REAL) / valid END) ${direction} NULLS LAST, valid DESC, prompt_id
       LIMIT ? OFFSET ?`,
      postgres: `SELECT p.value AS prompt_id, s.total, s.valid, s.mentioned, s.pos_sum
       FROM ${prompts.from} p
       CROSS JOIN LATERAL (SELECT sum(d.total) AS total, sum(d.valid) AS valid, sum(d.mentioned) AS mentioned,
                                  sum(d.position_sum) AS pos_sum
                           FROM prompt_days d WHERE d.prompt_id = p.value AND ${d.sql}) s
       WHERE s.total > 0
       ORDER BY (CASE WHEN s.valid > 0 THEN CAST(s.mentioned AS DOUBLE PRECISION) / s.valid END) ${direction} NULLS LAST,
         s.valid DESC, p.value
       LIMIT ? OFFSET ?`,
    },
    [...d.params, prompts.param, opts.limit + 1, opts.offset],
  );
}

export interface ContentGap {
  prompt_id: string;
  text: string;
  /** Archived: no longer asked; its answers of the period still count. */
  archived: boolean;
  /** Valid answers of the prompt in the period that mention at least one competitor. */
  competitor_answers: number;
  valid_answers: number;
  competitors: Array<{ id: string; name: string; answers: number }>;
  /** Most cited domains in the answers that mention competitors, and whose site each is. */
  top_domains: Array<{ domain: string; citations: number } & SiteOwner>;
}

const TOP_DOMAINS = 5;

/**
 * Prompts where, in the period, some valid answer mentions a competitor and none mentions the
 * brand; ranked by the number of answers mentioning competitors.
 */
export async function contentGaps(app: AppContext, filter: Filter, opts: { limit: number; offset: number }) {
  const db = app.db;
  const engine = await windowEngine(app, filter);
  const rows = engine !== null ? await gapsFromWindows(app, filter.brandId, engine, opts) : await gapsFromDays(app, filter, opts);
  const page = rows.slice(0, opts.limit);
  const ids = page.map((r) => r.prompt_id);
  const heads = await getPromptHeads(app.db, filter.brandId, ids);
  const competitors = await competitorCounts(app, filter, ids);
  const roster = await loadRoster(app.db, filter.brandId);
  const names = new Map(roster.members.map((m) => [m.id, m.name]));
  const ownerOf = siteOwners(roster, "domain");
  const domains = new Map<string, Array<{ domain: string; citations: number }>>();
  if (ids.length > 0) {
    const w = where("a", filter, filter.period.start, filter.period.end);
    // Citations of the answers that mention a competitor, reached from those answers by primary key.
    // A page's prompts, but every citation of their answers in the period: 7 ms for 90 days of the
    // demo's 20 prompts on the serving thread, hence a scan (db/reader.ts).
    for (const r of await db.scan<{ prompt_id: string; domain: string; n: number }>(
      `SELECT a.prompt_id AS prompt_id, c.domain AS domain, count(*) AS n
         FROM answers a JOIN citations c ON c.answer_id = a.id
         WHERE ${w.sql} AND a.prompt_id IN (${marks(ids)}) AND a.roster_mentions > a.brand_mentioned
         GROUP BY a.prompt_id, c.domain`,
      [...w.params, ...ids],
    )) {
      const list = domains.get(r.prompt_id) ?? [];
      list.push({ domain: r.domain, citations: r.n });
      domains.set(r.prompt_id, list);
    }
  }
  const gaps: ContentGap[] = page.map((r) => ({
    prompt_id: r.prompt_id,
    text: heads.get(r.prompt_id)?.text ?? "",
    archived: heads.get(r.prompt_id)?.archived ?? false,
    competitor_answers: r.competitor_answers,
    valid_answers: r.valid_answers,
    competitors: (competitors.get(r.prompt_id) ?? [])
      .filter((c) => names.has(c.id))
      .map((c) => ({ id: c.id, name: names.get(c.id)!, answers: c.n })),
    top_domains: (domains.get(r.prompt_id) ?? [])
      .sort((a, b) => b.citations - a.citations || a.domain.localeCompare(b.domain))
      .slice(0, TOP_DOMAINS)
      .map((d) => ({ ...d, ...ownerOf(d.domain) })),
  }));
  return {
    filter: describeFilter(filter),
    total_gaps: rows[0]?.total_gaps ?? 0,
    gaps,
    next_cursor: rows.length > opts.limit ? encodeOffset(opts.offset + opts.limit) : null,
    note: await periodNote(app, filter, rows.length === 0 && opts.offset === 0),
  };
}

interface RankedGap {
  prompt_id: string;
  competitor_answers: number;
  valid_answers: number;
  total_gaps: number;
}

/**
 * The page of the gaps (and one more) from the default period's windows, in the order of their gaps
 * index (its entries are the gaps: the page reads its rows, the count only the entries).
 */
async function gapsFromWindows(
  app: AppContext,
  brandId: string,
  engine: string,
  opts: { limit: number; offset: number },
): Promise<RankedGap[]> {
  const gaps = "FROM prompt_windows WHERE brand_id = ? AND engine = ? AND mentioned = 0 AND competitor > 0";
  const rows = await app.db.all<Omit<RankedGap, "total_gaps">>(
    `SELECT prompt_id, competitor AS competitor_answers, valid AS valid_answers ${gaps} ORDER BY competitor DESC, prompt_id LIMIT ? OFFSET ?`,
    [brandId, engine, opts.limit + 1, opts.offset],
  );
  if (rows.length === 0) return [];
  const total = Number((await app.db.get<{ n: number }>(`SELECT count(*) AS n ${gaps}`, [brandId, engine]))?.n ?? 0);
  return rows.map((row) => ({ ...row, total_gaps: total }));
}

/**
 * The page of the gaps (and one more) from the prompts' days of the period: per prompt, one probe for
 * a day with an answer mentioning the brand (most prompts stop there), then, for prompts without one,
 * their days of the period summed (on PostgreSQL in a lateral subquery, as in rankFromDays).
 */
async function gapsFromDays(app: AppContext, filter: Filter, opts: { limit: number; offset: number }): Promise<RankedGap[]> {
  const d = promptDayWhere(filter);
  const prompts = rankedPrompts(filter);
  return app.db.scan<RankedGap>(
    {
      sqlite: `WITH per_prompt (prompt_id, sums) AS MATERIALIZED (
         SELECT p.value, (SELECT json_array(sum(d.competitor), sum(d.valid)) FROM prompt_days d WHERE d.prompt_id = p.value AND ${d.sql})
         FROM ${prompts.from} p
         WHERE NOT EXISTS (SELECT 1 FROM prompt_days d WHERE d.prompt_id = p.value AND ${d.sql} AND d.mentioned > 0)),
       candidates AS (SELECT prompt_id, sums ->> 0 AS competitor_answers, sums ->> 1 AS valid_answers FROM per_prompt WHERE sums ->> 0 > 0)
       SELECT prompt_id, competitor_answers, valid_answers, count(*) OVER () AS total_gaps FROM candidates
       ORDER BY competitor_answers DESC, prompt_id
       LIMIT ? OFFSET ?`,
      postgres: `SELECT p.value AS prompt_id, s.competitor_answers, s.valid_answers, count(*) OVER () AS total_gaps
       FROM ${prompts.from} p
       CROSS JOIN LATERAL (SELECT sum(d.competitor) AS competitor_answers, sum(d.valid) AS valid_answers
                           FROM prompt_days d WHERE d.prompt_id = p.value AND ${d.sql}) s
       WHERE s.competitor_answers > 0
         AND NOT EXISTS (SELECT 1 FROM prompt_days d WHERE d.prompt_id = p.value AND ${d.sql} AND d.mentioned > 0)
       ORDER BY s.competitor_answers DESC, p.value
       LIMIT ? OFFSET ?`,
    },
    [...d.params, prompts.param, opts.limit + 1, opts.offset],
  );
}
