import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { changePp, comparePeriods, wilson, withinNoise } from "../../src/analytics/stats";

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
