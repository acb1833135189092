import { jStat } from "jstat";

/** z for a two-sided 95% interval. */
export const Z_95 = 1.959963984540054;

export interface RateInterval {
  /** successes ÷ n, or null when there is nothing to divide by. */
  rate: number | null;
  n: number;
  low: number | null;
  high: number | null;
}

/**
 * Wilson score interval (95%). Chosen over the normal approximation because it stays inside [0, 1]
 * and is still honest at 0/n and n/n, which small samples of AI answers hit all the time.
 */
export function wilson(successes: number, n: number): RateInterval {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`);
  if (!Number.isInteger(successes) || successes < 0 || successes > n) {
    throw new RangeError(`successes must be an integer in [0, ${n}], got ${successes}`);
  }
  if (n === 0) return { rate: null, n, low: null, high: null };
  const p = successes / n;
  const z2 = Z_95 * Z_95;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (Z_95 * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  // The bounds are exact at the extremes; pin them so float noise cannot put 0/n's low at 1e-17.
  return {
    rate: p,
    n,
    low: successes === 0 ? 0 : Math.max(0, centre - half),
    high: successes === n ? 1 : Math.min(1, centre + half),
  };
}

/** Change from `previous` to `current` in percentage points; null when either rate is missing. */
export function changePp(current: number | null, previous: number | null): number | null {
  if (current === null || previous === null) return null;
  // Rounded to 0.01 pp: finer digits are float noise (0.3 − 0.1 ≠ 0.2), not information.
  return Math.round((current - previous) * 10_000) / 100;
}

/** A 95% interval; null bounds when there is none. */
export interface Interval {
  low: number | null;
  high: number | null;
}

/** True when the two intervals overlap (the change may be noise); null when either has no data. */
export function withinNoise(current: Interval, previous: Interval): boolean | null {
  if (current.low === null || current.high === null || previous.low === null || previous.high === null) return null;
  return current.low <= previous.high && previous.low <= current.high;
}

export interface PeriodComparison {
  change_pp: number | null;
  within_noise: boolean | null;
}

/** The METRICS.md period comparison: the change in points, marked within_noise when the intervals overlap. */
export function comparePeriods(current: RateInterval, previous: RateInterval): PeriodComparison {
  return { change_pp: changePp(current.rate, previous.rate), within_noise: withinNoise(current, previous) };
}

export interface MeanInterval extends Interval {
  /** sum ÷ n, or null when n is 0. */
  value: number | null;
  n: number;
}

/** What a mean's values can be, and the smallest step between two of them (see tInterval). */
export interface MeanScale {
  range: readonly [number, number];
  step: number;
}

/**
 * A mean with its Student t 95% interval, from the values' sum, sum of squares and count:
 * mean ± t(0.975, n − 1) · s ÷ √n, s the sample standard deviation, clamped to the values' range
 * (the interval an analyst computes by hand for a mean of a small sample). There is no interval for
 * fewer than two values. The variance is at least that of the values with one more a step away
 * (step² ÷ (n + 1)): two answers that both put the brand first have shown no spread, not that there
 * is none, and a zero-width interval made any other period's figure "beyond noise".
 */
export function tInterval(sum: number, sumSquares: number, n: number, scale: MeanScale): MeanInterval {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`n must be a non-negative integer, got ${n}`);
  if (n === 0) return { value: null, n, low: null, high: null };
  const value = sum / n;
  if (n < 2) return { value, n, low: null, high: null };
  // The rollups add and subtract squares as answers are re-analysed: float noise can leave a
  // variance of a hair below 0 where every value is equal; the floor covers it.
  const variance = Math.max((sumSquares - (sum * sum) / n) / (n - 1), (scale.step * scale.step) / (n + 1));
  const half = jStat.studentt.inv(0.975, n - 1) * Math.sqrt(variance / n);
  return { value, n, low: Math.max(scale.range[0], value - half), high: Math.min(scale.range[1], value + half) };
}
