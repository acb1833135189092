// What the analytics tools say beside their figures: why a period has no answer, and that the
// figures are not settled while the stored answers are analysed again.
import { type AppContext } from "../context";
import { type Queries } from "../db/queries";
import { reanalysisPending } from "../tracking/roster";
import { DAY_MS, dayString, dayWhere, type Filter, where } from "./filters";

/** Said while a roster change is being applied to the stored answers (figures moved from one call to the next without a word). */
export const REANALYSIS_NOTE =
  "The stored answers are being analysed again (after a change of the brand's names or its competitors, or an upgrade of Spyglass): until that ends (seconds for most brands), these figures mix answers read the new way and the old. Look again shortly for the settled figures.";

/** REANALYSIS_NOTE while the brand's stored answers are being analysed again (by any instance); null otherwise. */
export async function reanalysisNote(db: Queries, brandId: string): Promise<string | null> {
  return (await reanalysisPending(db, brandId)) ? REANALYSIS_NOTE : null;
}

/** The first and last day with a stored answer of the brand (any engine), and how many answers: null before the first. */
export async function storedAnswerDays(
  app: AppContext,
  brandId: string,
): Promise<{ first_day: string; last_day: string; answers: number } | null> {
  const row = await app.db.get<{ first: number | null; last: number | null; n: number | null }>(
    "SELECT min(day) AS first, max(day) AS last, sum(total) AS n FROM answer_days WHERE brand_id = ?",
    [brandId],
  );
  if (row?.first == null || row.last == null) return null;
  return { first_day: dayString(row.first * DAY_MS), last_day: dayString(row.last * DAY_MS), answers: Number(row.n ?? 0) };
}

/**
 * Why a period has no answer at all, for a client that would otherwise read a page of nulls: none
 * is stored yet, or the period (a wrong year, the future) misses the days that have some.
 */
export async function emptyPeriodNote(app: AppContext, filter: Filter): Promise<string> {
  const today = dayString(Date.now());
  const stored = await storedAnswerDays(app, filter.brandId);
  if (!stored) {
    return `No answer is stored for this brand yet (today is ${today}, UTC): tracking stores them; get_tracking_status shows the engines and the next scheduled run, and run_tracking starts one.`;
  }
  const narrowed = [filter.engine && `engine ${filter.engine}`, filter.tag && `tag ${filter.tag.name}`, filter.prompt && "this prompt"]
    .filter(Boolean)
    .join(", ");
  return `No answer in ${filter.period.start_date}..${filter.period.end_date}${narrowed ? ` for ${narrowed}` : ""}. The brand's stored answers span ${stored.first_day}..${stored.last_day} (today is ${today}, UTC).`;
}

/** Answers of any status in the filter's period: from the daily rollups, or, with a tag or a prompt, from the answers. */
async function answersInPeriod(app: AppContext, filter: Filter): Promise<number> {
  const rollups = filter.scope === null;
  const { sql, params } = (rollups ? dayWhere : where)("a", filter, filter.period.start, filter.period.end);
  const [count, table] = rollups ? ["sum(a.total)", "answer_days a"] : ["count(*)", "answers a"];
  const row = await app.db.get<{ n: number | string | null }>(`SELECT ${count} AS n FROM ${table} WHERE ${sql}`, params);
  return Number(row?.n ?? 0);
}

/**
 * What a tool says beside its figures: why the period has no answer, when it has none, else
 * REANALYSIS_NOTE while the figures are not settled. `looksEmpty` is whether the tool's own figures
 * are all empty (no valid answer, no row): only then are the period's answers counted. The overview
 * alone said it, and an empty list of gaps or sources read as "none" (the AI-client walk).
 */
export async function periodNote(app: AppContext, filter: Filter, looksEmpty: boolean): Promise<string | null> {
  if (looksEmpty && (await answersInPeriod(app, filter)) === 0) return await emptyPeriodNote(app, filter);
  return await reanalysisNote(app.db, filter.brandId);
}

/** The output field of the analytics tools that carry periodNote (its description). */
export const PERIOD_NOTE_DESCRIPTION =
  "when the period has no answer at all: why (none stored yet, or the days that have answers, with today's date); while the stored answers are analysed again after a roster change (a competitor or an alias added, edited or deleted): that the figures are not settled yet; null otherwise";
