// How figures are reported: a rate always carries its count, n and Wilson 95% interval; a period
// figure carries the previous period, the change and within_noise (METRICS.md).
import { comparePeriods, type MeanInterval, type MeanScale, tInterval, wilson, withinNoise } from "./stats";

export interface Rate {
  /** successes ÷ n; null when n is 0. */
  rate: number | null;
  successes: number;
  n: number;
  /** Wilson 95% interval; null when n is 0. */
  low: number | null;
  high: number | null;
}

export interface PeriodRate extends Rate {
  previous: Rate;
  /** Change from the previous period in percentage points. */
  change_pp: number | null;
  /** True when the two 95% intervals overlap: the change may be noise. */
  within_noise: boolean | null;
}

export interface Mean {
  value: number | null;
  n: number;
}

/** A mean with its Student t 95% interval (stats.ts tInterval); null bounds below two values. */
export interface MeanWithInterval extends Mean {
  low: number | null;
  high: number | null;
}

export interface PeriodMean extends MeanWithInterval {
  previous: MeanWithInterval;
  /** Change from the previous period, in the mean's own unit (positions, sentiment). */
  change: number | null;
  /** True when the two 95% intervals overlap: the change may be noise. */
  within_noise: boolean | null;
}

/** A mean's pooled sums: the values' sum, the sum of their squares, and their count. */
export type MeanSums = readonly [sum: number, sumSquares: number, n: number];

/**
 * What a mean's values can be, and their step: a position is 1 or more, in whole places; a
 * sentiment is within [−1, 1], and one AFINN point from neutral is tanh(1/5) ≈ 0.2 of it.
 */
export const POSITION: MeanScale = { range: [1, Number.POSITIVE_INFINITY], step: 1 };
export const SENTIMENT: MeanScale = { range: [-1, 1], step: 0.2 };

/** Four decimals: enough for a rate in points to two decimals, short in a client's context. */
export function round4(value: number | null): number | null {
  return value === null ? null : Math.round(value * 10_000) / 10_000;
}

export function rate(successes: number, n: number): Rate {
  const w = wilson(successes, n);
  return { rate: round4(w.rate), successes, n, low: round4(w.low), high: round4(w.high) };
}

export function periodRate(current: [number, number], previous: [number, number]): PeriodRate {
  const cur = wilson(current[0], current[1]);
  const prev = wilson(previous[0], previous[1]);
  return { ...rate(current[0], current[1]), previous: rate(previous[0], previous[1]), ...comparePeriods(cur, prev) };
}

export function mean(sum: number, n: number): Mean {
  return { value: n === 0 ? null : round4(sum / n), n };
}

function rounded(m: MeanInterval): MeanWithInterval {
  return { value: round4(m.value), n: m.n, low: round4(m.low), high: round4(m.high) };
}

export function periodMean(current: MeanSums, previous: MeanSums, scale: MeanScale): PeriodMean {
  const cur = tInterval(current[0], current[1], current[2], scale);
  const prev = tInterval(previous[0], previous[1], previous[2], scale);
  const change = cur.value === null || prev.value === null ? null : round4(round4(cur.value)! - round4(prev.value)!);
  return { ...rounded(cur), previous: rounded(prev), change, within_noise: withinNoise(cur, prev) };
}
