import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { POSITION, periodMean, SENTIMENT } from "../../src/analytics/rates";
import { changePp, comparePeriods, tInterval, wilson, withinNoise } from "../../src/analytics/stats";

describe("wilson", () => {
  // Worked out by hand with z = 1.96: z² = 3.8415, n + z² = 13.8415.
  test("0/10 is [0, 0.2775]", () => {
    const r = wilson(0, 10);
    expect(r.rate).toBe(0);
    expect(r.n).toBe(10);
    expect(r.low).toBe(0);
    expect(r.high!).toBeCloseTo(3.8415 / 13.8415, 4);
    expect(r.high!).toBeCloseTo(0.2775, 4);
  });

  test("5/10 is [0.2366, 0.7634]", () => {
    const r = wilson(5, 10);
    expect(r.rate).toBe(0.5);
    expect(r.low!).toBeCloseTo(0.2366, 4);
    expect(r.high!).toBeCloseTo(0.7634, 4);
  });

  test("10/10 is [0.7225, 1]", () => {
    const r = wilson(10, 10);
    expect(r.rate).toBe(1);
    expect(r.low!).toBeCloseTo(10 / 13.8415, 4);
    expect(r.high).toBe(1);
  });

  test("1/3 matches the textbook value [0.0615, 0.7923]", () => {
    const r = wilson(1, 3);
    expect(r.low!).toBeCloseTo(0.0615, 4);
    expect(r.high!).toBeCloseTo(0.7923, 4);
  });

  test("n = 0 gives a null rate and no interval", () => {
    expect(wilson(0, 0)).toEqual({ rate: null, n: 0, low: null, high: null });
  });

  test("impossible counts are refused", () => {
    expect(() => wilson(3, 2)).toThrow(RangeError);
    expect(() => wilson(-1, 2)).toThrow(RangeError);
    expect(() => wilson(0.5, 2)).toThrow(RangeError);
  });

  test("the interval always holds the rate, stays in [0, 1], and narrows as n grows", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5000 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, fraction) => {
        const k = Math.floor(fraction * n);
        const r = wilson(k, n);
        const bigger = wilson(k * 4, n * 4);
        expect(r.low!).toBeGreaterThanOrEqual(0);
        expect(r.high!).toBeLessThanOrEqual(1);
        expect(r.low!).toBeLessThanOrEqual(r.rate! + 1e-12);
        expect(r.high!).toBeGreaterThanOrEqual(r.rate! - 1e-12);
        expect(bigger.high! - bigger.low!).toBeLessThan(r.high! - r.low!);
      }),
    );
  });
});

describe("period comparison", () => {
  test("the change is in percentage points, without float noise", () => {
    expect(changePp(0.3, 0.1)).toBe(20);
    expect(changePp(0.25, 0.5)).toBe(-25);
    expect(changePp(null, 0.5)).toBeNull();
  });

  test("5/10 against 6/10 is within noise; 0/100 against 50/100 is not", () => {
    expect(withinNoise(wilson(5, 10), wilson(6, 10))).toBe(true);
    expect(withinNoise(wilson(0, 100), wilson(50, 100))).toBe(false);
    expect(comparePeriods(wilson(50, 100), wilson(0, 100))).toEqual({ change_pp: 50, within_noise: false });
  });

  test("a period without data cannot be compared", () => {
    expect(comparePeriods(wilson(3, 10), wilson(0, 0))).toEqual({ change_pp: null, within_noise: null });
  });
});

describe("a mean's Student t interval", () => {
  // By hand: mean ± t(0.975, n − 1) · s ÷ √n, with the textbook t(0.975, 4) = 2.7764 and t(0.975, 7) = 2.3646.
  test("positions 1 to 5 are 3 within [1.0368, 4.9632]", () => {
    // s² = (4 + 1 + 0 + 1 + 4) / 4 = 2.5; s ÷ √5 = 0.7071; half-width 2.7764 · 0.7071 = 1.9632
    const m = tInterval(15, 55, 5, POSITION);
    expect(m.value).toBe(3);
    expect(m.n).toBe(5);
    expect(m.low!).toBeCloseTo(1.0368, 4);
    expect(m.high!).toBeCloseTo(4.9632, 4);
  });

  test("one value has no interval, none has no mean; equal values are read as if one more were a step away", () => {
    expect(tInterval(2, 4, 1, POSITION)).toEqual({ value: 2, n: 1, low: null, high: null });
    expect(tInterval(0, 0, 0, POSITION)).toEqual({ value: null, n: 0, low: null, high: null });
    // Positions 2, 2, 2: s² = 1 / (3 + 1) = 0.25 (of 2, 2, 2, 3), so 2 ± 4.3027 · √(0.25 / 3) = 2 ± 1.2421.
    const equal = tInterval(6, 12, 3, POSITION);
    expect(equal).toMatchObject({ value: 2, n: 3, low: 1 });
    expect(equal.high!).toBeCloseTo(3.2421, 4);
    // Forty answers all first: s² = 1/41, 1 ± 2.0227 · √(1/41 / 40) = [1, 1.0500].
    expect(tInterval(40, 40, 40, POSITION).high!).toBeCloseTo(1.05, 3);
  });

  test("the interval stays within what the values can be", () => {
    // Sentiments +1 and −1: s ÷ √2 = 1, t(0.975, 1) = 12.71, so ±12.71 around 0 before clamping.
    expect(tInterval(0, 2, 2, SENTIMENT)).toEqual({ value: 0, n: 2, low: -1, high: 1 });
    // Positions 1, 2, 1: 1.3333 ± 4.3027 · 0.3333 = [−0.10, 2.7676], a position is at least 1.
    const m = tInterval(4, 6, 3, POSITION);
    expect(m.low).toBe(1);
    expect(m.high!).toBeCloseTo(2.7676, 4);
  });

  test("float noise in the sums never gives a negative variance", () => {
    const third = 1 / 3;
    const m = tInterval(third * 3, third * third * 3 - 1e-17, 3, SENTIMENT);
    // The floor's width: 4.3027 · √(0.04 / 4 / 3) = 0.2484 either side.
    expect(m.high! - m.low!).toBeCloseTo(2 * 0.2484, 3);
  });

  test("a period's mean is compared with the previous period's by their intervals", () => {
    // Positions 1,1,1,1,2,1,1,1 (1.125, [1, 1.4206]) against 3,4,3,4,3,4,3,4 (3.5, [3.0531, 3.9469]): beyond noise.
    const better = periodMean([9, 11, 8], [28, 100, 8], POSITION);
    expect(better).toMatchObject({ value: 1.125, n: 8, low: 1, change: -2.375, within_noise: false });
    expect(better.high!).toBeCloseTo(1.4206, 4);
    expect(better.previous.low!).toBeCloseTo(3.0531, 4);
    expect(better.previous.high!).toBeCloseTo(3.9469, 4);
    // Positions 1 to 5 against 2, 3, 4 ([1, 5.4841]): the intervals overlap.
    expect(periodMean([15, 55, 5], [9, 29, 3], POSITION)).toMatchObject({ change: 0, within_noise: true });
    // Two answers each, every one alike (positions 2, 2 against 1, 1): no spread seen is not no spread.
    expect(periodMean([4, 8, 2], [2, 2, 2], POSITION)).toMatchObject({ change: 1, within_noise: true });
    expect(periodMean([1, 0.5, 2], [0, 0, 2], SENTIMENT)).toMatchObject({ within_noise: true });
    // One answer in the previous period: a change, but no verdict.
    expect(periodMean([15, 55, 5], [2, 4, 1], POSITION)).toMatchObject({ change: 1, within_noise: null });
  });
});
