// How a rate from a tool is shown: its value and its 95% interval, exactly as the tool computed them
// (METRICS.md), never recomputed here.

export function percent(value: number | null): string {
  return value === null ? "—" : `${(value * 100).toFixed(1)}%`;
}

/** A 95% interval's range alone ("40.1–44.5%"), for a column whose header names it; "" without one. */
export function rangeText({ low, high }: { low: number | null; high: number | null }): string {
  if (low === null || high === null) return "";
  return `${(low * 100).toFixed(1)}–${(high * 100).toFixed(1)}%`;
}

/**
 * A 95% interval as every page writes it ("95% interval 40.1–44.5%"), or nothing without one. Its
 * range is never broken at the dash: "48.8–" at a line's end and "52.1%" on the next read as two.
 */
export function Interval({ low, high }: { low: number | null; high: number | null }) {
  if (low === null || high === null) return null;
  return (
    <>
      95% interval <span class="nowrap">{rangeText({ low, high })}</span>
    </>
  );
}
