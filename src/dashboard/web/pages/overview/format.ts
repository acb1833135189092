// How the overview shows the tools' figures: rounded for reading, never recomputed.
import { type ToolOutput } from "../../../../catalogue/types";

export type Overview = ToolOutput<"get_visibility_overview">;
export type PeriodRate = Overview["visibility"];
export interface Rate {
  rate: number | null;
  n: number;
  low: number | null;
  high: number | null;
}

/** A rate in percent with one decimal ("42.3%"), or "no answers" when n is 0. */
export function percent(rate: number | null): string {
  return rate === null ? "no answers" : `${(rate * 100).toFixed(1)}%`;
}

export function count(n: number): string {
  return n.toLocaleString("en-US");
}

/** A mean (average position, sentiment) with its decimals, or "no answers". */
export function meanText(value: number | null, digits: number): string {
  return value === null ? "no answers" : value.toFixed(digits).replace("-", "−");
}

export type Verdict = "up" | "down" | "within noise" | "no previous figure" | "too few answers to judge";
export type PeriodMean = Overview["sentiment"];

/** The tool's own verdict on a rate's change: within_noise and the sign of change_pp. */
export function verdict(r: Pick<PeriodRate, "within_noise" | "change_pp">): Verdict {
  if (r.within_noise === null || r.change_pp === null) return "no previous figure";
  if (r.within_noise) return "within noise";
  return r.change_pp > 0 ? "up" : r.change_pp < 0 ? "down" : "within noise";
}

/** The tool's verdict on a mean's change: a change with fewer than two answers in either period has none. */
export function meanVerdict(m: Pick<PeriodMean, "within_noise" | "change">): Verdict {
  if (m.change === null) return "no previous figure";
  if (m.within_noise === null) return "too few answers to judge";
  if (m.within_noise) return "within noise";
  return m.change > 0 ? "up" : m.change < 0 ? "down" : "within noise";
}

/** A mean's 95% interval alone ("1.0 to 2.8": a dash would read as a minus beside "−0.3"), or "" without one. */
export function meanRange(m: { low: number | null; high: number | null }, digits: number): string {
  if (m.low === null || m.high === null) return "";
  return `${meanText(m.low, digits)} to ${meanText(m.high, digits)}`;
}

/** "+3.2 points" / "−1.0 points" / "±0.0 points". */
export function points(pp: number | null): string {
  return pp === null ? "" : `${signed(pp, 1)} points`;
}

/** The value to `digits` decimals with its sign; the sign is the shown figure's, so −0.02 reads ±0.0, not −0.0. */
export function signed(value: number | null, digits: number): string {
  if (value === null) return "";
  const text = Math.abs(value).toFixed(digits);
  const shown = Number(text) === 0 ? 0 : value;
  return `${shown > 0 ? "+" : shown < 0 ? "−" : "±"}${text}`;
}
