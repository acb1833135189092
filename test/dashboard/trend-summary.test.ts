// The sentence under a trend (src/dashboard/web/components/trend-figures.tsx): each end of the
// comparison with the answers it stands on, and whole weeks compared when there are two.
import { expect, test } from "bun:test";
import { type TrendPoint, trendSummary } from "../../src/dashboard/web/components/trend-figures";

function point(date: string, days: number, hits: number, n: number): TrendPoint {
  const rate = n === 0 ? null : hits / n;
  return {
    date,
    days,
    visibility: { rate, n, low: rate, high: rate },
    share_of_voice: { rate, n, low: rate, high: rate },
  } as unknown as TrendPoint;
}

test("days: from the first day with answers to the last, each with its answers", () => {
  const points = [point("2026-11-01", 1, 0, 0), point("2026-11-02", 1, 1, 4), point("2026-11-03", 1, 3, 4)];
  expect(trendSummary(points, "day")).toBe(
    "Visibility went from 25.0% (Nov 2, 2026: 4 answers) to 75.0% (Nov 3, 2026: 4 answers); share of voice from 25.0% to 75.0%. No answer before Nov 2, 2026: the chart starts there.",
  );
});

test("weeks: the part weeks at the edges are not the ends of the comparison when two whole weeks have answers", () => {
  const points = [
    point("2026-11-01", 1, 0, 3), // a Sunday: one day of its week
    point("2026-11-02", 7, 10, 20),
    point("2026-11-09", 7, 12, 20),
    point("2026-11-16", 2, 3, 3),
  ];
  expect(trendSummary(points, "week")).toBe(
    "Visibility went from 50.0% (Nov 2 – Nov 8, 2026: 20 answers) to 60.0% (Nov 9 – Nov 15, 2026: 20 answers); share of voice from 50.0% to 60.0%. Nov 1, 2026 (1 day) and Nov 16 – Nov 17, 2026 (2 days) are part weeks, at the period's edge.",
  );
});

test("weeks: with fewer than two whole weeks, the part weeks are the ends, and one answer is said so", () => {
  const points = [point("2026-11-01", 1, 0, 1), point("2026-11-02", 7, 10, 20), point("2026-11-09", 3, 2, 2)];
  expect(trendSummary(points, "week")).toStartWith(
    "Visibility went from 0.0% (Nov 1, 2026: 1 answer) to 100.0% (Nov 9 – Nov 11, 2026: 2 answers);",
  );
});
