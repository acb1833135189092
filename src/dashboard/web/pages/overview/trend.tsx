// The overview's trend: visibility and share of voice by day or week with their 95% intervals as
// bands, and on demand one visibility line per engine (get_visibility_trend with the engine filter).
// The chart has a caption summarising it and the same figures as a table.
import { useId, useMemo } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, errorMessage } from "../../api";
import { type AnalyticsFilter } from "../../components/filters";
import { chartPercent, LINE_DASHES, TrendChart, type TrendSeries, visibilityAndShareSeries } from "../../components/trend-chart";
import { chartDates, chartStart, TrendTable, trendSummary } from "../../components/trend-figures";
import { LoadFailed, Notice, useLoad } from "../../components/ui";
import { percent } from "./format";

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
    // From the first point with answers (chartStart); the engines' points are the same days.
    const start = chartStart(points);
    const s: TrendSeries[] = visibilityAndShareSeries(points.slice(start));
    perEngineData.forEach((e, i) => {
      s.push({
        label: `Visibility on ${e.label}`,
        color: `--chart-${3 + (i % 4)}`,
        dash: LINE_DASHES[i % LINE_DASHES.length],
        values: e.trend.points.slice(start).map((p) => chartPercent(p.visibility.rate)),
      });
    });
    return { dates: chartDates(points), series: s };
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
            Visibility and share of voice by {interval}, with their 95% intervals as bands. {trendSummary(points, interval)}
          </figcaption>
          <details>
            <summary>Show the figures as a table</summary>
            <TrendTable
              points={points}
              interval={interval}
              more={perEngineData.map((e) => ({
                label: `Visibility on ${e.label}`,
                values: points.map((_, i) => percent(e.trend.points[i]?.visibility.rate ?? null)),
              }))}
            />
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
