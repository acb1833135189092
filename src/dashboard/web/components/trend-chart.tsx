// A time-series chart drawn by uPlot on canvas: lines of percentages with an optional 95% interval
// band each, colours from the page's CSS variables (light and dark), redrawn when the scheme or the
// width changes. The canvas is hidden from assistive technology: the caller gives the figure a
// caption and a table of the same figures (see TrendTable).
import "uplot/dist/uPlot.min.css";
import "./trend-chart.css";
import { useEffect, useRef, useState } from "preact/hooks";
import uPlot from "uplot";
import { type ToolOutput } from "../../../catalogue/types";

export interface TrendSeries {
  label: string;
  /** One value per x, in percent; null leaves a gap (no answers that day). */
  values: Array<number | null>;
  /** The 95% interval, in percent, drawn as a band around the line. */
  low?: Array<number | null>;
  high?: Array<number | null>;
  /** A CSS variable holding the colour, e.g. "--chart-1". */
  color: string;
  /** The line's dashes and gaps in CSS pixels (canvas setLineDash); none draws it solid. */
  dash?: readonly number[];
}

/**
 * Dash patterns that tell lines apart without their colours (WCAG 1.4.1: a reader who does not see
 * the colours, or a grey print, still matches each line to its legend, which draws the same
 * pattern). Five patterns beside four colours: a pair of the two repeats only from the 21st line.
 */
export const LINE_DASHES: ReadonlyArray<readonly number[]> = [
  [8, 4],
  [2, 3],
  [12, 3, 2, 3],
  [4, 4, 1, 4],
  [16, 4],
];

type TrendPoint = ToolOutput<"get_visibility_trend">["points"][number];

/** A rate (0–1) in percent with one decimal, for the chart; null stays a gap. */
export const chartPercent = (r: number | null) => (r === null ? null : Math.round(r * 1000) / 10);

/** get_visibility_trend's points as the chart's two lines with their 95% bands: visibility and share of voice. */
export function visibilityAndShareSeries(points: TrendPoint[]): TrendSeries[] {
  return [
    {
      label: "Visibility",
      color: "--chart-1",
      values: points.map((p) => chartPercent(p.visibility.rate)),
      low: points.map((p) => chartPercent(p.visibility.low)),
      high: points.map((p) => chartPercent(p.visibility.high)),
    },
    {
      label: "Share of voice",
      color: "--chart-2",
      values: points.map((p) => chartPercent(p.share_of_voice.rate)),
      low: points.map((p) => chartPercent(p.share_of_voice.low)),
      high: points.map((p) => chartPercent(p.share_of_voice.high)),
    },
  ];
}

function cssColor(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "#888";
}

/** The colour with an alpha, for bands (accepts #rgb / #rrggbb; anything else is used as is). */
function translucent(color: string, alpha: number): string {
  const hex = color.replace("#", "");
  if (!/^[0-9a-f]{3}([0-9a-f]{3})?$/i.test(hex)) return color;
  const full = hex.length === 3 ? [...hex].map((c) => c + c).join("") : hex;
  const [r, g, b] = [0, 2, 4].map((i) => Number.parseInt(full.slice(i, i + 2), 16));
  return `rgba(${r}, ${g}, ${b}, ${alpha})`;
}

function useScheme(): "light" | "dark" {
  const [dark, setDark] = useState(() => matchMedia("(prefers-color-scheme: dark)").matches);
  useEffect(() => {
    const query = matchMedia("(prefers-color-scheme: dark)");
    const change = () => setDark(query.matches);
    query.addEventListener("change", change);
    return () => query.removeEventListener("change", change);
  }, []);
  return dark ? "dark" : "light";
}

/**
 * How opaque a 95% band is: on the dark ground the light scheme's 0.18 left a band a murky shade
 * barely apart from the ground, the lighter dark-scheme colours needing more of themselves.
 */
const BAND_ALPHA = { light: 0.18, dark: 0.3 } as const;

/** The most points labelled one by one on the time axis. */
const FEW_POINTS = 16;
/** Room for one date label ("Nov 28") on the time axis, in CSS pixels. */
const LABEL_PX = 64;

/** The top of the percent scale: a little above the highest value, on a line of the grid, at most 100. */
function yTop(max: number | null): number {
  const above = (max ?? 0) + 5;
  return Math.min(100, Math.max(10, above <= 40 ? Math.ceil(above / 10) * 10 : Math.ceil(above / 20) * 20));
}

/** The grid's step: 10 points up to 40 %, 20 above. */
function yStep(top: number): number {
  return top <= 40 ? 10 : 20;
}

/**
 * The points whose labels fit `width` (CSS pixels) between `min` and `max`, counted back from the
 * latest, which is always labelled: a point closer than a label's room to the one kept after it is
 * skipped (a period's first week may be a few days long, and its label ran into the next one).
 */
function fittingLabels(xs: number[], min: number, max: number, width: number): number[] {
  const span = max - min || 1;
  const kept: number[] = [];
  let next = Number.POSITIVE_INFINITY;
  for (const x of [...xs].reverse()) {
    const px = ((x - min) / span) * width;
    if (next - px < LABEL_PX) continue;
    kept.unshift(x);
    next = px;
  }
  return kept;
}

/** Draws `series` over `dates` (YYYY-MM-DD, UTC). `height` in CSS pixels. */
export function TrendChart({ dates, series, height = 260 }: { dates: string[]; series: TrendSeries[]; height?: number }) {
  const box = useRef<HTMLDivElement>(null);
  const scheme = useScheme();
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const text = cssColor("--muted");
    const grid = cssColor("--border");
    const xs = dates.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000);
    const data: uPlot.AlignedData = [xs];
    const opts: uPlot.Series[] = [{}];
    const bands: uPlot.Band[] = [];
    for (const s of series) {
      const color = cssColor(s.color);
      const line = data.length;
      data.push(s.values);
      opts.push({ label: s.label, stroke: color, width: 2, dash: s.dash ? [...s.dash] : undefined, points: { show: dates.length < 40 } });
      if (s.low && s.high) {
        data.push(s.high, s.low);
        opts.push({ label: `${s.label} high`, stroke: "transparent", width: 0, points: { show: false } });
        opts.push({ label: `${s.label} low`, stroke: "transparent", width: 0, points: { show: false } });
        bands.push({ series: [line + 1, line + 2], fill: translucent(color, BAND_ALPHA[scheme]) });
      }
    }
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const chart = new uPlot(
      {
        width: Math.max(el.clientWidth, 200),
        height,
        series: opts,
        bands,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: {
          x: { time: true },
          y: { range: (_u, _min, max) => [0, yTop(max)] },
        },
        axes: [
          {
            ...axis,
            // A few points (weeks, or a short period's days) are labelled at the points themselves,
            // as many as fit, counted back from the latest; uPlot's own time ticks fell between them.
            splits:
              xs.length <= FEW_POINTS ? (u, _axis, min, max) => fittingLabels(xs, min, max, u.bbox.width / devicePixelRatio) : undefined,
            values: (_u, ticks) =>
              ticks.map((t) => new Date(t * 1000).toLocaleDateString(undefined, { month: "short", day: "numeric", timeZone: "UTC" })),
          },
          {
            ...axis,
            // Up to the top of the scale, which is always labelled.
            splits: (_u, _axis, _min, max) => Array.from({ length: max / yStep(max) + 1 }, (_, i) => i * yStep(max)),
            values: (_u, ticks) => ticks.map((t) => `${t}%`),
            size: 56,
          },
        ],
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"),
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(el.clientWidth, 200), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [dates, series, height, scheme]);
  return (
    <div class="trend-chart-wrap">
      <div class="trend-chart" ref={box} aria-hidden="true" data-series={series.length} data-from={dates[0]} />
      <ul class="trend-legend" aria-hidden="true">
        {series.map((s) => (
          <li key={s.label}>
            <svg class="swatch" data-color={s.color} width="28" height="8" viewBox="0 0 28 8" aria-hidden="true">
              <line x1="0" y1="4" x2="28" y2="4" stroke-dasharray={s.dash?.join(" ")} />
            </svg>
            {s.label}
            {s.low ? " (band: 95% interval)" : ""}
          </li>
        ))}
      </ul>
    </div>
  );
}
