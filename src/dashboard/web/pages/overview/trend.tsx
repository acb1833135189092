// The overview's trend: visibility and share of voice by day or week with their 95% intervals as
// bands, and on demand one visibility line per engine (get_visibility_trend with the engine filter).
// The chart has a caption summarising it and the same figures as a table.
import { useId, useMemo } from "preact/hooks";
import { useLocation } from "preact-iso";
import { type ToolOutput } from "../../../../catalogue/types";
import { api, errorMessage } from "../../api";
import { type AnalyticsFilter } from "../../components/filters";
import { ScrollTable } from "../../components/scroll-table";
import { chartPercent, LINE_DASHES, TrendChart, type TrendSeries, visibilityAndShareSeries } from "../../components/trend-chart";
import { formatDay, LoadFailed, Notice, useLoad } from "../../components/ui";
import { count, percent } from "./format";

type Trend = ToolOutput<"get_visibility_trend">;
type Point = Trend["points"][number];
/** The chart's own settings in the URL: ?interval=day|week (when not `initial`) and ?lines=engines. */
function useTrendSettings(initial: "day" | "week") {
  const { query, path, route } = useLocation();
  const set = (key: "interval" | "lines", value: string | null) => {
    const next = new URLSearchParams(query);
    if (value) next.set(key, value);
    else next.delete(key);
    const search = next.toString();
    route(search ? `${path}?${search}` : path, true);
  };
  const interval = query.interval === "week" || query.interval === "day" ? query.interval : initial;
  return { interval, perEngine: query.lines === "engines", set };
}

function summary(points: Point[]): string {
  const seen = points.filter((p) => p.visibility.n > 0);
  const first = seen[0];
  const last = seen[seen.length - 1];
  if (!first || !last) return "No answers in this period.";
  if (first === last)
    return `Only ${first.date} has answers: visibility ${percent(first.visibility.rate)}, share of voice ${percent(first.share_of_voice.rate)}.`;
  return `Visibility went from ${percent(first.visibility.rate)} (${formatDay(first.date)}) to ${percent(last.visibility.rate)} (${formatDay(last.date)}); share of voice from ${percent(first.share_of_voice.rate)} to ${percent(last.share_of_voice.rate)}.`;
}

/**
 * `engines`: the engines with answers in the period (the overview's by_engine), for the per-engine
 * lines. `initial`: the points' interval until one is chosen.
 */
export function TrendSection({
  brandId,
  filter,
  engines: engineList,
  initial = "day",
}: {
  brandId: string;
  filter: AnalyticsFilter;
  engines: Array<{ engine: string; label: string }> | null;
  initial?: "day" | "week";
}) {
  const id = useId();
  const { interval, perEngine, set } = useTrendSettings(initial);
  const key = JSON.stringify(filter);
  const trend = useLoad(() => api.tool(brandId, "get_visibility_trend", { ...filter, interval }), [brandId, key, interval]);
  const engines = useLoad(async () => {
    if (!perEngine || filter.engine) return [];
    const brand = await api.tool(brandId, "get_brand", {});
    return Promise.all(
      brand.engines.map(async (e) => ({
        label: e.label,
        trend: await api.tool(brandId, "get_visibility_trend", { ...filter, engine: e.id, interval }),
      })),
    );
  }, [brandId, key, interval, perEngine]);

  const points = trend.data?.points ?? [];
  const perEngineData = engines.data ?? [];
  const { dates, series } = useMemo(() => {
    const s: TrendSeries[] = visibilityAndShareSeries(points);
    perEngineData.forEach((e, i) => {
      s.push({
        label: `Visibility on ${e.label}`,
        color: `--chart-${3 + (i % 4)}`,
        dash: LINE_DASHES[i % LINE_DASHES.length],
        values: e.trend.points.map((p) => chartPercent(p.visibility.rate)),
      });
    });
    return { dates: points.map((p) => p.date), series: s };
  }, [trend.data, engines.data]);

  return (
    <section class="panel trend" aria-labelledby={`${id}-h`}>
      <div class="panel-head">
        <h2 id={`${id}-h`}>Trend</h2>
        <div class="trend-controls">
          <div class="field inline">
            <label for={`${id}-interval`}>Points by</label>
            <select
              id={`${id}-interval`}
              value={interval}
              onChange={(e) => set("interval", e.currentTarget.value === initial ? null : e.currentTarget.value)}
            >
              <option value="day">Day</option>
              <option value="week">Week</option>
            </select>
          </div>
          {!filter.engine && (
            <label class="check">
              <input type="checkbox" checked={perEngine} onChange={(e) => set("lines", e.currentTarget.checked ? "engines" : null)} /> Lines
              per engine
            </label>
          )}
        </div>
      </div>
      {trend.error && <LoadFailed error={trend.error} failure={trend.failure} retry={trend.reload} />}
      {engines.error && <Notice kind="error">{errorMessage(engines.failure)}</Notice>}
      {trend.data && (
        <figure class="trend-figure" aria-labelledby={`${id}-cap`}>
          <TrendChart dates={dates} series={series} />
          <figcaption id={`${id}-cap`}>
            Visibility and share of voice by {interval}, with their 95% intervals as bands. {summary(points)}
          </figcaption>
          <details>
            <summary>Show the figures as a table</summary>
            <ScrollTable label="Trend figures, scrollable">
              <table>
                <caption>Visibility and share of voice by {interval}</caption>
                <thead>
                  <tr>
                    <th scope="col">{interval === "week" ? "Week of" : "Day"}</th>
                    <th scope="col">Valid answers</th>
                    <th scope="col">Visibility</th>
                    <th scope="col">95% interval</th>
                    <th scope="col">Share of voice</th>
                    {perEngineData.map((e) => (
                      <th scope="col" key={e.label}>
                        Visibility on {e.label}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {points.map((p, i) => (
                    <tr key={p.date}>
                      <th scope="row">{p.date}</th>
                      <td>{count(p.answers.valid)}</td>
                      <td>{percent(p.visibility.rate)}</td>
                      <td>{p.visibility.low === null ? "" : `${percent(p.visibility.low)}–${percent(p.visibility.high)}`}</td>
                      <td>{percent(p.share_of_voice.rate)}</td>
                      {perEngineData.map((e) => (
                        <td key={e.label}>{percent(e.trend.points[i]?.visibility.rate ?? null)}</td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollTable>
          </details>
        </figure>
      )}
      {!trend.data && !trend.error && (
        <p class="loading" role="status">
          Loading the trend…
        </p>
      )}
    </section>
  );
}
