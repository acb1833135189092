// The cost forecast (issue 20): how many requests tracking makes per run and per month
// (prompts × engines × samples × scheduled runs), and, where spyglass.toml gives prices, roughly
// what that costs, from the tokens of the brand's recent answers. Nothing is sent to a provider.
import { Cron } from "croner";
import { type EngineSettings } from "../config";
import { type AppContext } from "../context";
import { listActivePrompts } from "../prompts/service";

/** "Per month" is the next 30 days of the schedule. */
export const MONTH_DAYS = 30;
/** Recent answers whose token counts make the per-request estimate. */
export const TOKEN_SAMPLE = 50;
/** Where a schedule is counted one by one (runsOneByOne), at most this many; the rest is extrapolated. */
const RUNS_COUNTED = 1_000;

export interface EngineForecast {
  id: string;
  label: string;
  api: string;
  model: string;
  web_search: boolean;
  requests_per_run: number;
  requests_per_month: number;
  /** Mean tokens per valid answer over the engine's recent answers for the brand; null without any. */
  avg_tokens_in: number | null;
  avg_tokens_out: number | null;
  /** How many recent answers the token means come from. */
  token_sample: number;
  price_per_request: number | null;
  price_per_million_input_tokens: number | null;
  price_per_million_output_tokens: number | null;
  /** Estimated cost of one request; null when the engine has no price, or a token price but no answers to measure. */
  cost_per_request: number | null;
  cost_per_run: number | null;
  cost_per_month: number | null;
  note: string | null;
}

export interface Forecast {
  prompts: number;
  engines: number;
  samples: number;
  schedule: { cron: string; enabled: boolean; runs_per_month: number; runs_per_day: number };
  requests_per_run: number;
  requests_per_month: number;
  requests_per_day: number;
  /** Sum over the engines whose cost could be estimated; null when none could. */
  estimated_cost_per_run: number | null;
  estimated_cost_per_month: number | null;
  /** Engines left out of the estimate (no price, or no answers yet to measure tokens). */
  unestimated_engines: string[];
  by_engine: EngineForecast[];
  basis: string;
}

/**
 * Scheduled runs in the `days` days after `from` (0 when scheduled tracking is off), counted exactly
 * without going through them one by one (every minute of 30 days is 43,200 of croner's nextRun, ~60 µs
 * each: 2.5 s a count): a cron schedule fires at the same times of day (its seconds × minutes × hours)
 * on every day its day fields match, so the count is, day by day, that day's times within the window.
 * Whether a day matches is croner's answer (its first run from the day's start falls in the day: the
 * day-of-month, month and weekday rules and their L, W, # forms stay croner's).
 */
export function runsIn(cron: string, enabled: boolean, from: Date, days = MONTH_DAYS): number {
  if (!enabled) return 0;
  const start = from.getTime();
  const until = start + days * 86_400_000;
  const job = new Cron(cron, { paused: true, timezone: "UTC" });
  const times = timesOfDay(job);
  if (times === null) return runsOneByOne(job, from, until);
  let n = 0;
  for (let day = start - (start % DAY_MS); day <= until; day += DAY_MS) {
    const first = job.nextRun(new Date(day - 1));
    if (first === null || first.getTime() >= day + DAY_MS) continue;
    // Seconds of the day in the window: after `from`, up to `until`.
    const low = Math.max(0, Math.floor((start - day) / 1000) + 1);
    const high = Math.min(DAY_SECONDS - 1, Math.floor((until - day) / 1000));
    if (high >= low) n += times.upTo(high) - times.upTo(low - 1);
  }
  return n;
}

const DAY_MS = 86_400_000;
const DAY_SECONDS = 86_400;

/**
 * The schedule's times of day, from croner's parsed pattern (its second, minute and hour flags), as
 * a count of those up to a second of the day; null when the pattern is not in that shape (another
 * croner), for runsOneByOne.
 */
function timesOfDay(job: Cron): { upTo(second: number): number } | null {
  const pattern = (job as unknown as { _states?: { pattern?: Record<string, unknown> } })._states?.pattern;
  const flags = (name: string, length: number): boolean[] | null => {
    const values = pattern?.[name];
    return Array.isArray(values) && values.length === length ? values.map(Boolean) : null;
  };
  const seconds = flags("second", 60);
  const minutes = flags("minute", 60);
  const hours = flags("hour", 24);
  if (!seconds || !minutes || !hours) return null;
  const count = (list: boolean[], upTo: number) => list.slice(0, upTo + 1).filter(Boolean).length;
  const perMinute = count(seconds, 59);
  const perHour = count(minutes, 59) * perMinute;
  return {
    upTo(second) {
      if (second < 0) return 0;
      const h = Math.floor(second / 3600);
      const m = Math.floor((second % 3600) / 60);
      const sec = second % 60;
      let n = count(hours, h - 1) * perHour;
      if (hours[h]) n += count(minutes, m - 1) * perMinute + (minutes[m] ? count(seconds, sec) : 0);
      return n;
    },
  };
}

/** Counted one by one, up to RUNS_COUNTED, the rest extrapolated over the window. */
function runsOneByOne(job: Cron, from: Date, until: number): number {
  let n = 0;
  let next = job.nextRun(from);
  while (next !== null && next.getTime() <= until) {
    n++;
    if (n === RUNS_COUNTED) return Math.round((n * (until - from.getTime())) / (next.getTime() - from.getTime()));
    next = job.nextRun(next);
  }
  return n;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}

function round(value: number, digits = 6): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

async function tokenMeans(
  app: AppContext,
  brandId: string,
  engine: string,
): Promise<{ n: number; tin: number | null; tout: number | null }> {
  const row = await app.db.get<{ n: number; tin: number | null; tout: number | null }>(
    `SELECT count(*) AS n, avg(tokens_in) AS tin, avg(tokens_out) AS tout FROM (
         SELECT tokens_in, tokens_out FROM answers
         WHERE brand_id = ? AND engine = ? AND status = 'ok' AND tokens_in IS NOT NULL AND tokens_out IS NOT NULL
         ORDER BY created_at DESC LIMIT ?) recent`,
    [brandId, engine, TOKEN_SAMPLE],
  );
  return { n: row?.n ?? 0, tin: row?.tin ?? null, tout: row?.tout ?? null };
}

async function engineForecast(
  app: AppContext,
  brandId: string,
  e: EngineSettings,
  perRun: number,
  runsPerMonth: number,
): Promise<EngineForecast> {
  const tokens = await tokenMeans(app, brandId, e.id);
  const perRequest = e.price_per_request ?? null;
  const pin = e.price_per_million_input_tokens ?? null;
  const pout = e.price_per_million_output_tokens ?? null;
  const tokenPriced = pin !== null || pout !== null;
  let cost: number | null = null;
  let note: string | null = null;
  if (perRequest === null && !tokenPriced) {
    note = "no price in spyglass.toml (price_per_request or price_per_million_input_tokens/output_tokens)";
  } else if (tokenPriced && tokens.n === 0) {
    note =
      perRequest === null
        ? "priced per token, but no answer of this engine has token counts yet: run tracking once, then check again"
        : `priced per request and per token: at least ${money(perRequest)} a request, and the tokens' part once an answer of this engine has token counts (run tracking once, then check again)`;
  } else {
    cost = (perRequest ?? 0) + (tokenPriced ? ((tokens.tin ?? 0) * (pin ?? 0) + (tokens.tout ?? 0) * (pout ?? 0)) / 1_000_000 : 0);
  }
  return {
    id: e.id,
    label: e.label,
    api: e.api,
    model: e.model,
    web_search: e.web_search,
    requests_per_run: perRun,
    requests_per_month: perRun * runsPerMonth,
    avg_tokens_in: tokens.tin === null ? null : round(tokens.tin, 1),
    avg_tokens_out: tokens.tout === null ? null : round(tokens.tout, 1),
    token_sample: tokens.n,
    price_per_request: perRequest,
    price_per_million_input_tokens: pin,
    price_per_million_output_tokens: pout,
    cost_per_request: cost === null ? null : round(cost),
    cost_per_run: cost === null ? null : round(cost * perRun),
    cost_per_month: cost === null ? null : round(cost * perRun * runsPerMonth),
    note,
  };
}

/**
 * The forecast for one brand: its active prompts × the configured engines × samples, per run and
 * over the next 30 days of the schedule. Requests are counted before retries.
 */
export async function forecast(
  app: AppContext,
  brandId: string,
  now = new Date(),
  options: { scheduled?: boolean } = {},
): Promise<Forecast> {
  const { tracking, engines } = app.config;
  const prompts = (await listActivePrompts(app.db, brandId)).length;
  const perEngineRun = prompts * tracking.samples;
  // `scheduled: false`: a brand the schedule leaves out (the demo's) has runs only when asked.
  const scheduled = options.scheduled ?? true;
  const runsPerMonth = engines.length === 0 || !scheduled ? 0 : runsIn(tracking.schedule, tracking.enabled, now);
  const byEngine: EngineForecast[] = [];
  for (const e of engines) byEngine.push(await engineForecast(app, brandId, e, perEngineRun, runsPerMonth));
  const estimated = byEngine.filter((e) => e.cost_per_run !== null);
  const requestsPerRun = perEngineRun * engines.length;
  return {
    prompts,
    engines: engines.length,
    samples: tracking.samples,
    schedule: {
      cron: tracking.schedule,
      enabled: tracking.enabled,
      runs_per_month: runsPerMonth,
      runs_per_day: round(runsPerMonth / MONTH_DAYS, 2),
    },
    requests_per_run: requestsPerRun,
    requests_per_month: requestsPerRun * runsPerMonth,
    requests_per_day: round((requestsPerRun * runsPerMonth) / MONTH_DAYS, 1),
    estimated_cost_per_run: estimated.length === 0 ? null : round(estimated.reduce((s, e) => s + e.cost_per_run!, 0)),
    estimated_cost_per_month: estimated.length === 0 ? null : round(estimated.reduce((s, e) => s + e.cost_per_month!, 0)),
    unestimated_engines: byEngine.filter((e) => e.cost_per_run === null).map((e) => e.id),
    by_engine: byEngine,
    basis: `${plural(prompts, "active prompt")} × ${plural(engines.length, "engine")} × ${plural(tracking.samples, "sample")} = ${requestsPerRun} requests per run (before retries); ${plural(runsPerMonth, "scheduled run")} in the next ${MONTH_DAYS} days ("${tracking.schedule}", UTC${!scheduled ? ", a brand the schedule leaves out" : tracking.enabled ? "" : ", scheduled tracking off"}). Costs in the currency of the configured prices, from the mean tokens of up to ${TOKEN_SAMPLE} recent valid answers per engine.`,
  };
}

// Nothing is 0, not "0.0000"; under one unit, four decimals (a request costs fractions of a cent).
const money = (v: number | null): string => (v === null ? "unknown" : v === 0 ? "0" : v < 1 ? v.toFixed(4) : v.toFixed(2));

/**
 * The forecast as `spyglass track --dry-run` prints it. `onSchedule`: false for a brand the schedule
 * leaves out (forecast's `scheduled: false`).
 */
export function forecastText(f: Forecast, brandName: string, brandId: string, onSchedule = true, configPlace = "spyglass.toml"): string {
  const head = `${brandName} (${brandId}): ${plural(f.prompts, "prompt")} × ${plural(f.engines, "engine")} × ${plural(f.samples, "sample")} = ${f.requests_per_run} requests per run`;
  // Not "0 runs in the next 30 days" as if the schedule never fired: there is nothing to ask.
  if (f.engines === 0)
    return `${head}\n  no engine is configured, so nothing would be asked: add an [[engines]] section to ${configPlace}\n`;
  const lines = [
    head,
    !onSchedule
      ? `  not on the schedule (its account has no paid plan, it has no active prompt, or it is the demo's): runs only when asked, none counted per month`
      : `  schedule "${f.schedule.cron}" (UTC)${f.schedule.enabled ? "" : " is off"}: ${plural(f.schedule.runs_per_month, "run")} in the next ${MONTH_DAYS} days → ${f.requests_per_month} requests per month (${f.requests_per_day} a day)`,
  ];
  for (const e of f.by_engine) {
    const tokens =
      e.token_sample > 0
        ? `, ~${Math.round(e.avg_tokens_in ?? 0)} in / ${Math.round(e.avg_tokens_out ?? 0)} out tokens (${e.token_sample} answers)`
        : "";
    const cost =
      e.cost_per_run === null ? `cost unknown: ${e.note}` : `~${money(e.cost_per_run)} per run, ~${money(e.cost_per_month)} per month`;
    lines.push(
      `  ${e.id} (${e.api}${e.web_search ? ", web search" : ""}): ${e.requests_per_run} per run, ${e.requests_per_month} per month${tokens}; ${cost}`,
    );
  }
  lines.push(
    f.estimated_cost_per_run === null
      ? `  estimated cost: unknown (${
          f.by_engine.some((e) => e.price_per_million_input_tokens !== null || e.price_per_million_output_tokens !== null)
            ? "the engines priced per token need an answer's token counts first: run tracking once, then check again"
            : "no engine has a price in spyglass.toml"
        })`
      : `  estimated cost: ~${money(f.estimated_cost_per_run)} per run, ~${money(f.estimated_cost_per_month)} per month${f.unestimated_engines.length > 0 ? ` (not counted: ${f.unestimated_engines.join(", ")})` : ""}`,
  );
  return `${lines.join("\n")}\n`;
}
