// The brand's period figures (overview), their trend, and the roster ranking: pooled counts only
// (METRICS.md), summed from the daily rollups (or, with a tag, from the covering per-prompt indexes
// of answers and mentions), with prompt coverage from the coverage occurrences (or, with a tag, the
// per-prompt rollups).
import { type AppContext } from "../context";
import { ALL_ENGINES } from "../db/values";
import { Invalid } from "../errors";
import { brandEngineIds, brandEngines } from "../tracking/engines";
import { loadRoster, type Roster } from "../tracking/roster";
import { countOf, DAY_MS, dayString, dayWhere, describeFilter, type Filter, type Read, readTogether, where } from "./filters";
import { emptyPeriodNote, periodNote, reanalysisNote } from "./notes";
import { type Mean, mean, type PeriodMean, type PeriodRate, POSITION, periodMean, periodRate, type Rate, rate, SENTIMENT } from "./rates";
import { type RetrievalCounts, retrievalRead } from "./search";
import { comparePeriods } from "./stats";

/** Pooled counts of one slice (an engine, or everything) in one period. */
export interface Counts {
  total: number;
  valid: number;
  mentioned: number;
  posSum: number;
  /** Sums of squares, for the means' intervals. */
  posSq: number;
  top1: number;
  top3: number;
  sentSum: number;
  sentSq: number;
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
  posSq: 0,
  top1: 0,
  top3: 0,
  sentSum: 0,
  sentSq: 0,
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
      ...periodMean([cur.posSum, cur.posSq, cur.mentioned], [prev.posSum, prev.posSq, prev.mentioned], POSITION),
      top1_rate: periodRate([cur.top1, cur.mentioned], [prev.top1, prev.mentioned]),
      top3_rate: periodRate([cur.top3, cur.mentioned], [prev.top3, prev.mentioned]),
    },
    sentiment: periodMean([cur.sentSum, cur.sentSq, cur.sentN], [prev.sentSum, prev.sentSq, prev.sentN], SENTIMENT),
    citation_rate: periodRate([cur.cited, cur.valid], [prev.cited, prev.valid]),
    prompt_coverage: periodRate([cur.coveredPrompts, cur.prompts], [prev.coveredPrompts, prev.prompts]),
    no_answer_rate: periodRate([cur.total - cur.valid, cur.total], [prev.total - prev.valid, prev.total]),
  };
}

interface SliceAgg {
  engine: string;
  cur: number;
  total: number;
  valid: number;
  mentioned: number;
  pos_sum: number | null;
  pos_sq: number | null;
  top1: number;
  top3: number;
  sent_sum: number | null;
  sent_sq: number | null;
  sent_n: number;
  cited: number;
  roster: number;
}

/**
 * Pooled sums per engine and period (cur = 1 for the current one): from the daily rollups, or, with
 * a tag, from the answers of the tag's prompts. brand_position / brand_sentiment are only set on
 * valid answers that mention the brand; roster_mentions is the answer's number of mention rows.
 */
function sliceSumsRead(filter: Filter): Read<SliceAgg[]> {
  const from = (rows: unknown[]) => rows as SliceAgg[];
  if (filter.scope === null) {
    const d = dayWhere("d", filter, filter.previous.start, filter.period.end);
    return {
      text: `SELECT d.engine AS engine, (d.day >= ?) AS cur, sum(d.total) AS total, sum(d.valid) AS valid, sum(d.mentioned) AS mentioned,
           sum(d.position_sum) AS pos_sum, sum(d.position_squares) AS pos_sq, sum(d.top1) AS top1, sum(d.top3) AS top3,
           sum(d.sentiment_sum) AS sent_sum, sum(d.sentiment_squares) AS sent_sq, sum(d.sentiment_n) AS sent_n, sum(d.cited) AS cited,
           sum(d.roster_mentions) AS roster
         FROM answer_days d WHERE ${d.sql} GROUP BY d.engine, cur`,
      params: [filter.period.start / DAY_MS, ...d.params],
      from,
    };
  }
  const w = where("a", filter, filter.previous.start, filter.period.end);
  return {
    text: `SELECT a.engine AS engine, (a.created_at >= ?) AS cur, count(*) AS total, count(*) FILTER (WHERE a.status = 'ok') AS valid,
         sum(a.brand_mentioned) AS mentioned, sum(a.brand_position) AS pos_sum, sum(a.brand_position * a.brand_position) AS pos_sq,
         count(CASE WHEN a.brand_position = 1 THEN 1 END) AS top1, count(CASE WHEN a.brand_position <= 3 THEN 1 END) AS top3,
         sum(a.brand_sentiment) AS sent_sum, sum(a.brand_sentiment * a.brand_sentiment) AS sent_sq, count(a.brand_sentiment) AS sent_n,
         sum(a.brand_cited) AS cited, sum(a.roster_mentions) AS roster
       FROM answers a WHERE ${w.sql} GROUP BY a.engine, cur`,
    params: [filter.period.start, ...w.params],
    from,
  };
}

interface CoverageAgg {
  engine: string | null;
  vc: number | null;
  mc: number | null;
  vp: number | null;
  mp: number | null;
}

/**
 * Prompts with a valid answer (v) and with an answer mentioning the brand (m), in the current (c)
 * and previous (p) periods, per engine and overall (engine null; a prompt counts once across
 * engines), without a tag or prompt: summed from the coverage occurrences (a few rows per day and
 * engine, see prompt_coverage_days). With one: scopedCoverageRead.
 */
async function promptCoverage(app: AppContext, filter: Filter, engines: string[]): Promise<CoverageAgg[]> {
  if (engines.length === 0) return [];
  const cs = filter.period.start / DAY_MS;
  const ce = filter.period.end / DAY_MS;
  const ps = filter.previous.start / DAY_MS;
  // With an engine filter the overall figure is that engine's; otherwise the all-engines occurrences.
  const overall = filter.engine ?? ALL_ENGINES;
  const rows = await app.db.all<{ engine: string; kind: string; cur: number; prev: number }>(
    `SELECT c.engine AS engine, c.kind AS kind,
           coalesce(sum(CASE WHEN c.day >= ?2 AND c.prev_day < ?2 THEN c.prompts END), 0) AS cur,
           coalesce(sum(CASE WHEN c.day < ?2 AND c.prev_day < ?4 THEN c.prompts END), 0) AS prev
         FROM prompt_coverage_days c
         WHERE c.brand_id = ?1 AND c.engine IN (SELECT value FROM json_each(?5)) AND c.day >= ?4 AND c.day < ?3
         GROUP BY c.engine, c.kind`,
    [filter.brandId, cs, ce, ps, JSON.stringify([...new Set([...engines, overall])])],
  );
  const out = new Map<string, CoverageAgg>();
  const slot = (engine: string | null) => {
    const key = engine ?? "";
    let agg = out.get(key);
    if (!agg) {
      agg = { engine, vc: 0, mc: 0, vp: 0, mp: 0 };
      out.set(key, agg);
    }
    return agg;
  };
  for (const r of rows) {
    const targets = [...(engines.includes(r.engine) ? [slot(r.engine)] : []), ...(r.engine === overall ? [slot(null)] : [])];
    for (const agg of targets) {
      if (r.kind === "valid") {
        agg.vc = r.cur;
        agg.vp = r.prev;
      } else {
        agg.mc = r.cur;
        agg.mp = r.prev;
      }
    }
  }
  return [...out.values()];
}

/**
 * promptCoverage with a tag or prompt: one probe of prompt_days per prompt, engine and figure, over
 * `engines` (every engine that may have answers of the scope).
 */
function scopedCoverageRead(filter: Filter, engines: string[]): Read<CoverageAgg[]> {
  const from = (rows: unknown[]) => rows as CoverageAgg[];
  if (engines.length === 0 || filter.scope === null) return { text: null, params: [], from };
  // Each probe as 1 or 0: PostgreSQL has no sum or max of booleans.
  const probe = (from: string, to: string) => `
    CASE WHEN EXISTS (SELECT 1 FROM prompt_days d WHERE d.prompt_id = p.value AND d.engine = e.value
      AND d.day >= ${from} AND d.day < ${to} AND d.valid > 0) THEN 1 ELSE 0 END,
    CASE WHEN EXISTS (SELECT 1 FROM prompt_days d WHERE d.prompt_id = p.value AND d.engine = e.value
      AND d.day >= ${from} AND d.day < ${to} AND d.mentioned > 0) THEN 1 ELSE 0 END`;
  return {
    text: `WITH pe (prompt, engine, vc, mc, vp, mp) AS MATERIALIZED (
         SELECT p.value, e.value, ${probe("?1", "?2")}, ${probe("?3", "?1")}
         FROM json_each(?5) p, json_each(?4) e)
       SELECT engine, sum(vc) AS vc, sum(mc) AS mc, sum(vp) AS vp, sum(mp) AS mp FROM pe GROUP BY engine
       UNION ALL
       SELECT NULL, sum(vc), sum(mc), sum(vp), sum(mp)
       FROM (SELECT max(vc) AS vc, max(mc) AS mc, max(vp) AS vp, max(mp) AS mp FROM pe GROUP BY prompt) per_prompt`,
    // The scope holds only the brand's prompts: the probes name the prompt alone (prompt_days_by_prompt_idx).
    params: [
      filter.period.start / DAY_MS,
      filter.period.end / DAY_MS,
      filter.previous.start / DAY_MS,
      JSON.stringify(engines),
      filter.scope,
    ],
    from,
  };
}

/** Counts for [previous.start, period.end) split by engine and by period. */
async function collectCounts(
  app: AppContext,
  filter: Filter,
): Promise<{ byEngine: Map<string, [Counts, Counts]>; overall: [Counts, Counts]; retrieval: RetrievalCounts }> {
  // With a tag or prompt, the sums, the coverage and the retrieval counts are read in one snapshot
  // (readTogether: the retrieval rate divides one by the other), the coverage over every engine that
  // may have answers, since it is read before the sums say which do.
  const retrievalFigures = await retrievalRead(app, filter);
  let slices: SliceAgg[];
  let coverage: CoverageAgg[] | null = null;
  let retrieval: RetrievalCounts;
  if (filter.scope === null) {
    [slices, retrieval] = await readTogether<[SliceAgg[], RetrievalCounts]>(app, filter, [sliceSumsRead(filter), retrievalFigures]);
  } else {
    const engines = filter.engine !== null ? [filter.engine] : await brandEngineIds(app, filter.brandId);
    [slices, coverage, retrieval] = await readTogether<[SliceAgg[], CoverageAgg[], RetrievalCounts]>(app, filter, [
      sliceSumsRead(filter),
      scopedCoverageRead(filter, engines),
      retrievalFigures,
    ]);
  }
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
  for (const r of slices) {
    for (const c of [slot(r.engine, r.cur), overall[r.cur ? 0 : 1]]) {
      c.total += r.total;
      c.valid += r.valid;
      c.mentioned += r.mentioned;
      c.posSum += r.pos_sum ?? 0;
      c.posSq += r.pos_sq ?? 0;
      c.top1 += r.top1;
      c.top3 += r.top3;
      c.sentSum += r.sent_sum ?? 0;
      c.sentSq += r.sent_sq ?? 0;
      c.sentN += r.sent_n;
      c.cited += r.cited;
      // Share of voice: every mention row is one roster member in one answer; the brand's are the answers mentioning it.
      c.rosterMentions += r.roster;
      c.brandMentions += r.mentioned;
    }
  }
  for (const r of coverage ?? (await promptCoverage(app, filter, [...byEngine.keys()]))) {
    // An engine with no answer of the scope in either period has no figures to cover.
    if (r.engine !== null && !byEngine.has(r.engine)) continue;
    const [cur, prev] = r.engine === null ? overall : byEngine.get(r.engine)!;
    cur.prompts = r.vc ?? 0;
    cur.coveredPrompts = r.mc ?? 0;
    prev.prompts = r.vp ?? 0;
    prev.coveredPrompts = r.mp ?? 0;
  }
  return { byEngine, overall, retrieval };
}

export async function visibilityOverview(app: AppContext, filter: Filter) {
  const { byEngine, overall, retrieval } = await collectCounts(app, filter);
  const retrievalRate = (ret: [number, number] | undefined, cur: Counts, prev: Counts) =>
    periodRate([ret?.[0] ?? 0, cur.valid], [ret?.[1] ?? 0, prev.valid]);
  // Labels as every engine list gives them (a demo engine reads "ChatGPT (demo)").
  const labels = new Map((await brandEngines(app, filter.brandId)).map((e) => [e.id, e.label]));
  // Configured engines appear even without data (n = 0), so "nothing yet" is visible.
  const engineIds = new Set<string>(filter.engine !== null ? [filter.engine] : app.config.engines.map((e) => e.id));
  for (const id of byEngine.keys()) engineIds.add(id);
  const by_engine = [...engineIds].sort().map((engine) => {
    const [cur, prev] = byEngine.get(engine) ?? [zero(), zero()];
    return {
      engine,
      label: labels.get(engine) ?? engine,
      ...figures(cur, prev),
      retrieval_rate: retrievalRate(retrieval.byEngine.get(engine), cur, prev),
    };
  });
  return {
    filter: describeFilter(filter),
    ...figures(overall[0], overall[1]),
    retrieval_rate: retrievalRate(retrieval.overall, overall[0], overall[1]),
    by_engine,
    note: overall[0].total === 0 ? await emptyPeriodNote(app, filter) : await reanalysisNote(app.db, filter.brandId),
  };
}

export interface TrendPoint {
  date: string;
  /** The weekday of `date` (UTC), and how many of the period's days the point covers (a partial first or last week has fewer than 7). */
  weekday: string;
  days: number;
  visibility: Rate;
  /**
   * Visibility's change from the previous point (for the first, the day or week before the period),
   * in points, and whether the two intervals overlap; null when either has no valid answer.
   */
  visibility_change: { change_pp: number | null; within_noise: boolean | null };
  share_of_voice: Rate;
  avg_position: Mean;
  answers: { total: number; valid: number };
}

export const MAX_DAY_POINTS = 400;
const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;

/** Points per UTC day, or per ISO week (Monday; the first point is dated the period's first day). */
export async function visibilityTrend(app: AppContext, filter: Filter, interval: "day" | "week") {
  const db = app.db;
  const { start, end } = filter.period;
  if (interval === "day" && filter.period.days > MAX_DAY_POINTS) {
    throw new Invalid(`interval "day" allows at most ${MAX_DAY_POINTS} days; use interval "week" or a shorter period.`, "invalid_interval");
  }
  // 1970-01-05 was a Monday: weeks are counted from there.
  const origin = interval === "day" ? 0 : 4 * DAY_MS;
  const size = interval === "day" ? DAY_MS : 7 * DAY_MS;
  const bucketOf = (ms: number) => Math.floor((ms - origin) / size);
  type Bucket = { b: number; total: number; valid: number; mentioned: number; pos_sum: number | null; roster: number };
  const buckets = async (from: number, to: number): Promise<Bucket[]> => {
    if (filter.scope === null) {
      // Buckets are whole days (origin and size are multiples of a day): a day's rollup falls in one
      // bucket, counted in days (PostgreSQL's integer day times a day's milliseconds would overflow).
      const d = dayWhere("d", filter, from, to);
      return await db.all<Bucket>(
        `SELECT (d.day - ?) / ? AS b, sum(d.total) AS total, sum(d.valid) AS valid, sum(d.mentioned) AS mentioned,
           sum(d.position_sum) AS pos_sum, sum(d.roster_mentions) AS roster
         FROM answer_days d WHERE ${d.sql} GROUP BY b`,
        [origin / DAY_MS, size / DAY_MS, ...d.params],
      );
    }
    const w = where("a", filter, from, to);
    return await db.scan<Bucket>(
      `SELECT (a.created_at - ?) / ? AS b, count(*) AS total, count(*) FILTER (WHERE a.status = 'ok') AS valid,
           sum(a.brand_mentioned) AS mentioned, sum(a.brand_position) AS pos_sum, sum(a.roster_mentions) AS roster
         FROM answers a WHERE ${w.sql} GROUP BY b`,
      [origin, size, ...w.params],
    );
  };
  const rows = await buckets(start, end);
  // The first point's change is from the whole day, or week, before the one the period starts in,
  // as every other point's is from the point before (read apart: the days of the first week before
  // the period's start are in neither).
  const firstBucketStart = origin + bucketOf(start) * size;
  const [previous] = await buckets(firstBucketStart - size, firstBucketStart);
  const answersBy = new Map(rows.map((r) => [r.b, r]));
  const points: TrendPoint[] = [];
  let before: Rate | null = previous ? rate(previous.mentioned, previous.valid) : null;
  for (let b = bucketOf(start); b <= bucketOf(end - 1); b++) {
    const a = answersBy.get(b);
    const pointFrom = Math.max(start, origin + b * size);
    const to = Math.min(end, origin + (b + 1) * size);
    const visibility = rate(a?.mentioned ?? 0, a?.valid ?? 0);
    points.push({
      date: dayString(pointFrom),
      weekday: WEEKDAYS[new Date(pointFrom).getUTCDay()]!,
      days: Math.round((to - pointFrom) / DAY_MS),
      visibility,
      visibility_change: before === null ? { change_pp: null, within_noise: null } : comparePeriods(visibility, before),
      share_of_voice: rate(a?.mentioned ?? 0, a?.roster ?? 0),
      avg_position: mean(a?.pos_sum ?? 0, a?.mentioned ?? 0),
      answers: { total: a?.total ?? 0, valid: a?.valid ?? 0 },
    });
    before = visibility;
  }
  return {
    filter: describeFilter(filter),
    interval,
    points,
    note: await periodNote(
      app,
      filter,
      points.every((p) => p.answers.total === 0),
    ),
  };
}

export interface RankingRow {
  id: string;
  name: string;
  is_brand: boolean;
  visibility: PeriodRate;
  share_of_voice: PeriodRate;
  avg_position: PeriodMean & { top1_rate: PeriodRate };
  sentiment: PeriodMean;
}

/** Valid (ok) answers in the filter's period: from the daily rollups, or, with a tag, from the answers. */
export function validAnswersRead(filter: Filter): Read<number> {
  if (filter.scope === null) {
    const d = dayWhere("d", filter, filter.period.start, filter.period.end);
    return { text: `SELECT sum(d.valid) AS n FROM answer_days d WHERE ${d.sql}`, params: d.params, from: countOf };
  }
  const w = where("a", filter, filter.period.start, filter.period.end);
  return { text: `SELECT count(*) AS n FROM answers a WHERE ${w.sql} AND a.status = 'ok'`, params: w.params, from: countOf };
}

type MemberAgg = {
  member_id: string;
  n: number;
  pos_sum: number;
  pos_sq: number;
  top1: number;
  sent_sum: number | null;
  sent_sq: number | null;
  sent_n: number;
};

/** Each roster member's mentions in the filter's period: from the daily rollups, or, with a tag, from the mentions. */
function memberAggregatesRead(filter: Filter, roster: Roster): Read<Map<string, MemberAgg>> {
  const from = (rows: unknown[]) => new Map((rows as MemberAgg[]).map((r) => [r.member_id, r]));
  if (filter.scope === null) {
    const d = dayWhere("d", filter, filter.period.start, filter.period.end);
    return {
      text: `SELECT d.member_id AS member_id, sum(d.answers) AS n, sum(d.rank_sum) AS pos_sum, sum(d.rank_squares) AS pos_sq, sum(d.top1) AS top1,
           sum(d.sentiment_sum) AS sent_sum, sum(d.sentiment_squares) AS sent_sq, sum(d.sentiment_n) AS sent_n
         FROM mention_days d WHERE ${d.sql} GROUP BY d.member_id`,
      params: d.params,
      from,
    };
  }
  // Only the roster's members are reported; naming them lets the per-prompt index seek each one.
  const mw = where("m", filter, filter.period.start, filter.period.end);
  const ids = roster.members.map((m) => m.id);
  return {
    text: `SELECT m.member_id AS member_id, count(*) AS n, sum(m.rank) AS pos_sum, sum(m.rank * m.rank) AS pos_sq,
           count(*) FILTER (WHERE m.rank = 1) AS top1, sum(m.sentiment) AS sent_sum, sum(m.sentiment * m.sentiment) AS sent_sq,
           count(m.sentiment) AS sent_n
         FROM mentions m WHERE ${mw.sql} AND m.member_id IN (${ids.map(() => "?").join(",")}) GROUP BY m.member_id`,
    params: [...mw.params, ...ids],
    from,
  };
}

/**
 * The brand and each competitor on the same valid answers, most visible first; visibility and share
 * of voice also in the previous period of equal length, with the change and whether it is within
 * noise (who is gaining).
 */
export async function competitorRanking(app: AppContext, filter: Filter) {
  const roster = await loadRoster(app.db, filter.brandId);
  const before: Filter = { ...filter, period: filter.previous };
  const [valid, byMember, validBefore, byMemberBefore] = await readTogether<
    [number, Map<string, MemberAgg>, number, Map<string, MemberAgg>]
  >(app, filter, [
    validAnswersRead(filter),
    memberAggregatesRead(filter, roster),
    validAnswersRead(before),
    memberAggregatesRead(before, roster),
  ]);
  // Members no longer on the roster have no mentions after re-analysis; only current members count.
  const rosterTotal = roster.members.reduce((sum, m) => sum + (byMember.get(m.id)?.n ?? 0), 0);
  const rosterTotalBefore = roster.members.reduce((sum, m) => sum + (byMemberBefore.get(m.id)?.n ?? 0), 0);
  const ranking: RankingRow[] = roster.members.map((member) => {
    const r = byMember.get(member.id);
    const p = byMemberBefore.get(member.id);
    const n = r?.n ?? 0;
    const nBefore = p?.n ?? 0;
    return {
      id: member.id,
      name: member.name,
      is_brand: member.isBrand,
      visibility: periodRate([n, valid], [nBefore, validBefore]),
      share_of_voice: periodRate([n, rosterTotal], [nBefore, rosterTotalBefore]),
      avg_position: {
        ...periodMean([r?.pos_sum ?? 0, r?.pos_sq ?? 0, n], [p?.pos_sum ?? 0, p?.pos_sq ?? 0, nBefore], POSITION),
        top1_rate: periodRate([r?.top1 ?? 0, n], [p?.top1 ?? 0, nBefore]),
      },
      sentiment: periodMean(
        [r?.sent_sum ?? 0, r?.sent_sq ?? 0, r?.sent_n ?? 0],
        [p?.sent_sum ?? 0, p?.sent_sq ?? 0, p?.sent_n ?? 0],
        SENTIMENT,
      ),
    };
  });
  ranking.sort(
    (a, b) =>
      (b.visibility.rate ?? 0) - (a.visibility.rate ?? 0) ||
      b.visibility.successes - a.visibility.successes ||
      a.name.localeCompare(b.name),
  );
  return { filter: describeFilter(filter), valid_answers: valid, ranking, note: await periodNote(app, filter, valid === 0) };
}
