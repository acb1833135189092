// How figures are reported: a rate always carries its count, n and Wilson 95% interval; a period
// figure carries the previous period, the change and within_noise (METRICS.md).
import { comparePeriods, wilson } from "./stats";

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

export interface PeriodMean extends Mean {
  previous: Mean;
  change: number | null;
}

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

export function periodMean(current: [number, number], previous: [number, number]): PeriodMean {
  const cur = mean(current[0], current[1]);
  const prev = mean(previous[0], previous[1]);
  return { ...cur, previous: prev, change: cur.value === null || prev.value === null ? null : round4(cur.value - prev.value) };
}
