// What a trend's chart and table say about its points, for the overview's trend, a prompt's, and the
// MCP Apps trend and overview views: the points' names (a week by its days, a part week said so),
// where the chart starts, and the sentences under it.
import { type ToolOutput } from "../../../catalogue/types";
import { count, percent } from "../pages/overview/format";
import { formatDay, formatDays } from "./dates";
import { rangeText } from "./figures";
import { ScrollTable } from "./scroll-table";

type Trend = ToolOutput<"get_visibility_trend">;
export type TrendPoint = Trend["points"][number];
type Interval = Trend["interval"];

const DAY_MS = 86_400_000;

/** The point's last day: a week's point covers `days` days from its date (fewer than 7 at a period's edges). */
function lastDay(p: TrendPoint): string {
  return new Date(Date.parse(`${p.date}T00:00:00Z`) + (p.days - 1) * DAY_MS).toISOString().slice(0, 10);
}

/** A point as a person names it: "Nov 28, 2026"; a week by its days, "Nov 2 – Nov 8, 2026", and "(3 days)" when a part of one. */
export function pointLabel(p: TrendPoint, interval: Interval): string {
  if (interval === "day") return formatDay(p.date);
  const days = formatDays(p.date, lastDay(p));
  return p.days < 7 ? `${days} (${p.days} ${p.days === 1 ? "day" : "days"})` : days;
}

/**
 * Where the chart starts: at the first point with a valid answer. A period chosen before a brand had
 * answers drew its empty days or weeks first (up to ~40% of the chart); the table keeps every point,
 * and the caption says where the chart starts.
 */
export function chartStart(points: TrendPoint[]): number {
  return Math.max(firstValid(points), 0);
}

/** The first point with a valid answer, or -1. */
function firstValid(points: TrendPoint[]): number {
  return points.findIndex((p) => p.visibility.n > 0);
}

/** The sentences under a trend: how visibility and share of voice went, where the chart starts, and its part weeks. */
export function trendSummary(points: TrendPoint[], interval: Interval): string {
  // A week by its days: "(Oct 30, 2026)" for a part week of three days read as one day's figure.
  const when = (p: TrendPoint) => (interval === "week" ? formatDays(p.date, lastDay(p)) : formatDay(p.date));
  const seen = points.filter((p) => p.visibility.n > 0);
  if (seen.length === 0) return "No answers in this period.";
  // Weeks of most of their days compared when there are two: a part week of one to three days at the
  // period's edge read as a jump ("went from 0.0% to 100.0%" on three answers each, the dashboard walk).
  const whole = interval === "week" ? seen.filter((p) => p.days >= 4) : seen;
  const ends = whole.length >= 2 ? whole : seen;
  const first = ends[0]!;
  const last = ends[ends.length - 1]!;
  // Each end with the answers it stands on, to read its figure by.
  const of = (p: TrendPoint) => `${when(p)}: ${count(p.visibility.n)} ${p.visibility.n === 1 ? "answer" : "answers"}`;
  const said: string[] = [];
  if (first === last) {
    said.push(
      `Only ${pointLabel(first, interval)} has answers: visibility ${percent(first.visibility.rate)}, share of voice ${percent(first.share_of_voice.rate)}.`,
    );
  } else {
    said.push(
      `Visibility went from ${percent(first.visibility.rate)} (${of(first)}) to ${percent(last.visibility.rate)} (${of(last)}); share of voice from ${percent(first.share_of_voice.rate)} to ${percent(last.share_of_voice.rate)}.`,
    );
  }
  const start = chartStart(points);
  if (start > 0)
    said.push(`No answer before ${interval === "week" ? "the week of " : ""}${formatDay(seen[0]!.date)}: the chart starts there.`);
  if (interval === "week") {
    const parts = points.slice(start).filter((p) => p.days < 7);
    if (parts.length > 0) {
      const named = parts.map((p) => pointLabel(p, interval)).join(" and ");
      said.push(`${named} ${parts.length === 1 ? "is a part week" : "are part weeks"}, at the period's edge.`);
    }
  }
  return said.join(" ");
}

/** The chart's points and their x labels from `chartStart` on. */
export function chartDates(points: TrendPoint[]): string[] {
  return points.slice(chartStart(points)).map((p) => p.date);
}

/**
 * The trend's figures as a table, every point of the period (the chart may start later; the points
 * before its first valid answer are one row): its days
 * with their valid answers under them, visibility and share of voice with their 95% intervals under
 * them (as the competitor ranking writes them: in six columns, the table scrolled sideways on a
 * phone to reach share of voice), and any `more` columns (the overview's visibility per engine).
 */
export function TrendTable({
  points,
  interval,
  more = [],
}: {
  points: TrendPoint[];
  interval: Interval;
  more?: Array<{ label: string; values: Array<string> }>;
}) {
  // The days (or weeks) before the first valid answer, when more than one, are one row: a 90-day
  // period chosen for a brand tracked for 60 listed 30 empty days before its first figure. A period
  // without any is one row.
  const first = firstValid(points);
  const start = first === -1 ? points.length : first;
  return (
    <ScrollTable label="Trend figures, scrollable">
      <table class={`trend-table by-${interval}`}>
        <caption>
          Visibility and share of voice by {interval}. Under each {interval}, its valid answers; under each figure, its 95% interval.
        </caption>
        <thead>
          <tr>
            <th scope="col">{interval === "week" ? "Week" : "Day"}</th>
            <th scope="col" class="num">
              Visibility
            </th>
            <th scope="col" class="num">
              Share of voice
            </th>
            {more.map((m) => (
              <th scope="col" class="num" key={m.label}>
                {m.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {start > 1 && (
            <tr class="trend-none">
              <th scope="row">
                <span class="point-name">
                  {interval === "week"
                    ? formatDays(points[0]!.date, lastDay(points[start - 1]!))
                    : formatDays(points[0]!.date, points[start - 1]!.date)}{" "}
                  ({points.slice(0, start).reduce((days, p) => days + p.days, 0)} days)
                </span>
                <span class="cell-meta">no valid answers</span>
              </th>
              <td class="num">—</td>
              <td class="num">—</td>
              {more.map((m) => (
                <td class="num" key={m.label}>
                  —
                </td>
              ))}
            </tr>
          )}
          {points.map((p, i) =>
            i < start && start > 1 ? null : (
              <tr key={p.date}>
                <th scope="row">
                  <span class="point-name">{pointLabel(p, interval)}</span>
                  <span class="cell-meta">
                    {count(p.answers.valid)} valid {p.answers.valid === 1 ? "answer" : "answers"}
                  </span>
                </th>
                <td class="num">
                  {percent(p.visibility.rate)}
                  <IntervalUnder range={p.visibility} />
                </td>
                <td class="num">
                  {percent(p.share_of_voice.rate)}
                  <IntervalUnder range={p.share_of_voice} />
                </td>
                {more.map((m) => (
                  <td class="num" key={m.label}>
                    {m.values[i]}
                  </td>
                ))}
              </tr>
            ),
          )}
        </tbody>
      </table>
    </ScrollTable>
  );
}

/** A figure's 95% interval on a line of its own under it; nothing when it has none. */
function IntervalUnder({ range }: { range: { low: number | null; high: number | null } }) {
  const text = rangeText(range);
  return text ? <span class="cell-meta">{text}</span> : null;
}
