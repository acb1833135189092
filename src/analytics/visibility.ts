// The brand's period figures (overview), their trend, and the roster ranking: SQL aggregates over
// the covering period indexes of answers and mentions, pooled counts only (METRICS.md).
import type { AppContext } from "../app";
import { Invalid } from "../errors";
import { loadRoster } from "../tracking/store";
import { DAY_MS, dayString, describeFilter, where, type Filter, type SqlParam } from "./filters";
import { mean, periodMean, periodRate, rate, type Mean, type PeriodMean, type PeriodRate, type Rate } from "./rates";

/** Pooled counts of one slice (an engine, or everything) in one period. */
export interface Counts {
  total: number;
  valid: number;
  mentioned: number;
  posSum: number;
  top1: number;
  top3: number;
  sentSum: number;
  sentN: number;
  cited: number;
  rosterMentions: number;
  brandMentions: number;
  prompts: number;
  coveredPrompts: number;
}

const zero = (): Counts => ({
  total: 0,
  valid: 0,
  mentioned: 0,
  posSum: 0,
  top1: 0,
  top3: 0,
  sentSum: 0,
  sentN: 0,
  cited: 0,
  rosterMentions: 0,
  brandMentions: 0,
  prompts: 0,
  coveredPrompts: 0,
});

export interface Figures {
  answers: { total: number; valid: number; no_answer: number };
  visibility: PeriodRate;
  share_of_voice: PeriodRate;
  avg_position: PeriodMean & { top1_rate: PeriodRate; top3_rate: PeriodRate };
  sentiment: PeriodMean;
  citation_rate: PeriodRate;
  prompt_coverage: PeriodRate;
  no_answer_rate: PeriodRate;
}

export function figures(cur: Counts, prev: Counts): Figures {
  return {
    answers: { total: cur.total, valid: cur.valid, no_answer: cur.total - cur.valid },
    visibility: periodRate([cur.mentioned, cur.valid], [prev.mentioned, prev.valid]),
    // n = Σ over the roster of answers mentioning that member; null (n = 0) when nobody is mentioned.
    share_of_voice: periodRate([cur.brandMentions, cur.rosterMentions], [prev.brandMentions, prev.rosterMentions]),
    avg_position: {
      ...periodMean([cur.posSum, cur.mentioned], [prev.posSum, prev.mentioned]),
      top1_rate: periodRate([cur.top1, cur.mentioned], [prev.top1, prev.mentioned]),
      top3_rate: periodRate([cur.top3, cur.mentioned], [prev.top3, prev.mentioned]),
    },
    sentiment: periodMean([cur.sentSum, cur.sentN], [prev.sentSum, prev.sentN]),
    citation_rate: periodRate([cur.cited, cur.valid], [prev.cited, prev.valid]),
    prompt_coverage: periodRate([cur.coveredPrompts, cur.prompts], [prev.coveredPrompts, prev.prompts]),
    no_answer_rate: periodRate([cur.total - cur.valid, cur.total], [prev.total - prev.valid, prev.total]),
  };
}

interface AnswerAgg {
  engine: string;
  cur: number;
  total: number;
  valid: number;
  mentioned: number;
  pos_sum: number | null;
  top1: number;
  top3: number;
  sent_sum: number | null;
  sent_n: number;
  cited: number;
  prompts: number;
  covered: number;
}

/** Counts for [previous.start, period.end) split by engine and by period (cur = 1 for the current one). */
function collectCounts(app: AppContext, filter: Filter): { byEngine: Map<string, [Counts, Counts]>; overall: [Counts, Counts] } {
  const db = app.db.sqlite;
  const cutoff = filter.period.start;
  const w = where("a", filter, filter.previous.start, filter.period.end);
  const byEngine = new Map<string, [Counts, Counts]>();
  const slot = (engine: string, cur: number): Counts => {
    let pair = byEngine.get(engine);
    if (!pair) {
      pair = [zero(), zero()];
      byEngine.set(engine, pair);
    }
    return pair[cur ? 0 : 1];
  };
  const overall: [Counts, Counts] = [zero(), zero()];

  // brand_position / brand_sentiment are only set on valid answers that mention the brand.
  const answerRows = db
    .query<AnswerAgg, SqlParam[]>(
      `SELECT a.engine AS engine, (a.created_at >= ?) AS cur, count(*) AS total,
         sum(a.status = 'ok') AS valid, sum(a.brand_mentioned) AS mentioned,
         sum(a.brand_position) AS pos_sum, count(CASE WHEN a.brand_position = 1 THEN 1 END) AS top1, count(CASE WHEN a.brand_position <= 3 THEN 1 END) AS top3,
         sum(a.brand_sentiment) AS sent_sum, count(a.brand_sentiment) AS sent_n, sum(a.brand_cited) AS cited,
         count(DISTINCT CASE WHEN a.status = 'ok' THEN a.prompt_id END) AS prompts,
         count(DISTINCT CASE WHEN a.brand_mentioned THEN a.prompt_id END) AS covered
       FROM answers a WHERE ${w.sql} GROUP BY a.engine, cur`,
    )
    .all(cutoff, ...w.params);
  for (const r of answerRows) {
    for (const c of [slot(r.engine, r.cur), overall[r.cur ? 0 : 1]]) {
      c.total += r.total;
      c.valid += r.valid;
      c.mentioned += r.mentioned;
      c.posSum += r.pos_sum ?? 0;
      c.top1 += r.top1;
      c.top3 += r.top3;
      c.sentSum += r.sent_sum ?? 0;
      c.sentN += r.sent_n;
      c.cited += r.cited;
    }
    // Per engine, its own prompts; the overall figure is counted separately below.
    const own = slot(r.engine, r.cur);
    own.prompts = r.prompts;
    own.coveredPrompts = r.covered;
  }

  const mw = where("m", filter, filter.previous.start, filter.period.end);
  const mentionRows = db
    .query<{ engine: string; cur: number; roster: number; brand: number }, SqlParam[]>(
      `SELECT m.engine AS engine, (m.created_at >= ?) AS cur, count(*) AS roster, sum(m.is_brand) AS brand
       FROM mentions m WHERE ${mw.sql} GROUP BY m.engine, cur`,
    )
    .all(cutoff, ...mw.params);
  for (const r of mentionRows) {
    for (const c of [slot(r.engine, r.cur), overall[r.cur ? 0 : 1]]) {
      c.rosterMentions += r.roster;
      c.brandMentions += r.brand;
    }
  }

  // Overall, a prompt counts once across engines; count(DISTINCT …) dedupes into a small ephemeral index.
  for (const [index, p] of [filter.period, filter.previous].entries()) {
    const pw = where("a", filter, p.start, p.end);
    const r = db
      .query<{ prompts: number; covered: number }, SqlParam[]>(
        `SELECT count(DISTINCT CASE WHEN a.status = 'ok' THEN a.prompt_id END) AS prompts,
           count(DISTINCT CASE WHEN a.brand_mentioned THEN a.prompt_id END) AS covered
         FROM answers a WHERE ${pw.sql}`,
      )
      .get(...pw.params);
    overall[index]!.prompts = r?.prompts ?? 0;
    overall[index]!.coveredPrompts = r?.covered ?? 0;
  }
  return { byEngine, overall };
}

export function visibilityOverview(app: AppContext, filter: Filter) {
  const { byEngine, overall } = collectCounts(app, filter);
  const labels = new Map(app.config.engines.map((e) => [e.id, e.label]));
  // Configured engines appear even without data (n = 0), so "nothing yet" is visible.
  const engineIds = new Set<string>(filter.engine !== null ? [filter.engine] : [...labels.keys()]);
  for (const id of byEngine.keys()) engineIds.add(id);
  const by_engine = [...engineIds].sort().map((engine) => {
    const [cur, prev] = byEngine.get(engine) ?? [zero(), zero()];
    return { engine, label: labels.get(engine) ?? engine, ...figures(cur, prev) };
  });
  return { filter: describeFilter(filter), ...figures(overall[0], overall[1]), by_engine };
}

export interface TrendPoint {
  date: string;
  visibility: Rate;
  share_of_voice: Rate;
  avg_position: Mean;
  answers: { total: number; valid: number };
}

const MAX_DAY_POINTS = 400;

/** Points per UTC day, or per ISO week (Monday; the first point is dated the period's first day). */
export function visibilityTrend(app: AppContext, filter: Filter, interval: "day" | "week") {
  const db = app.db.sqlite;
  const { start, end } = filter.period;
  if (interval === "day" && filter.period.days > MAX_DAY_POINTS) {
    throw new Invalid(`interval "day" allows at most ${MAX_DAY_POINTS} days; use interval "week" or a shorter period.`, "invalid_interval");
  }
  // 1970-01-05 was a Monday: weeks are counted from there.
  const origin = interval === "day" ? 0 : 4 * DAY_MS;
  const size = interval === "day" ? DAY_MS : 7 * DAY_MS;
  const bucketOf = (ms: number) => Math.floor((ms - origin) / size);
  const w = where("a", filter, start, end);
  const answerRows = db
    .query<{ b: number; total: number; valid: number; mentioned: number; pos_sum: number | null }, SqlParam[]>(
      `SELECT (a.created_at - ?) / ? AS b, count(*) AS total, sum(a.status = 'ok') AS valid,
         sum(a.brand_mentioned) AS mentioned, sum(a.brand_position) AS pos_sum
       FROM answers a WHERE ${w.sql} GROUP BY b`,
    )
    .all(origin, size, ...w.params);
  const mw = where("m", filter, start, end);
  const mentionRows = db
    .query<{ b: number; roster: number; brand: number }, SqlParam[]>(
      `SELECT (m.created_at - ?) / ? AS b, count(*) AS roster, sum(m.is_brand) AS brand FROM mentions m WHERE ${mw.sql} GROUP BY b`,
    )
    .all(origin, size, ...mw.params);
  const answersBy = new Map(answerRows.map((r) => [r.b, r]));
  const mentionsBy = new Map(mentionRows.map((r) => [r.b, r]));
  const points: TrendPoint[] = [];
  for (let b = bucketOf(start); b <= bucketOf(end - 1); b++) {
    const a = answersBy.get(b);
    const m = mentionsBy.get(b);
    points.push({
      date: dayString(Math.max(start, origin + b * size)),
      visibility: rate(a?.mentioned ?? 0, a?.valid ?? 0),
      share_of_voice: rate(m?.brand ?? 0, m?.roster ?? 0),
      avg_position: mean(a?.pos_sum ?? 0, a?.mentioned ?? 0),
      answers: { total: a?.total ?? 0, valid: a?.valid ?? 0 },
    });
  }
  return { filter: describeFilter(filter), interval, points };
}

export interface RankingRow {
  id: string;
  name: string;
  is_brand: boolean;
  visibility: Rate;
  share_of_voice: Rate;
  avg_position: Mean & { top1_rate: Rate };
  sentiment: Mean;
}

/** The brand and each competitor on the same valid answers, most visible first. */
export function competitorRanking(app: AppContext, filter: Filter) {
  const db = app.db.sqlite;
  const roster = loadRoster(app.db, filter.brandId);
  const w = where("a", filter, filter.period.start, filter.period.end);
  const valid = db.query<{ n: number }, SqlParam[]>(`SELECT count(*) AS n FROM answers a WHERE ${w.sql} AND a.status = 'ok'`).get(...w.params)?.n ?? 0;
  const mw = where("m", filter, filter.period.start, filter.period.end);
  const rows = db
    .query<{ member_id: string; n: number; pos_sum: number; top1: number; sent_sum: number | null; sent_n: number }, SqlParam[]>(
      `SELECT m.member_id AS member_id, count(*) AS n, sum(m.rank) AS pos_sum, sum(m.rank = 1) AS top1,
         sum(m.sentiment) AS sent_sum, count(m.sentiment) AS sent_n
       FROM mentions m WHERE ${mw.sql} GROUP BY m.member_id`,
    )
    .all(...mw.params);
  const byMember = new Map(rows.map((r) => [r.member_id, r]));
  // Members no longer on the roster have no mentions after re-analysis; only current members count.
  const rosterTotal = roster.members.reduce((sum, m) => sum + (byMember.get(m.id)?.n ?? 0), 0);
  const ranking: RankingRow[] = roster.members.map((member) => {
    const r = byMember.get(member.id);
    const n = r?.n ?? 0;
    return {
      id: member.id,
      name: member.name,
      is_brand: member.isBrand,
      visibility: rate(n, valid),
      share_of_voice: rate(n, rosterTotal),
      avg_position: { ...mean(r?.pos_sum ?? 0, n), top1_rate: rate(r?.top1 ?? 0, n) },
      sentiment: mean(r?.sent_sum ?? 0, r?.sent_n ?? 0),
    };
  });
  ranking.sort((a, b) => (b.visibility.rate ?? 0) - (a.visibility.rate ?? 0) || b.visibility.successes - a.visibility.successes || a.name.localeCompare(b.name));
  return { filter: describeFilter(filter), valid_answers: valid, ranking };
}
