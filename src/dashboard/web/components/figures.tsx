// How a rate from a tool is shown: its value, and in small type the n it rests on and its 95%
// interval, exactly as the tool computed them (METRICS.md), never recomputed here.

export interface RateFigure {
  rate: number | null;
  successes: number;
  n: number;
  low: number | null;
  high: number | null;
}

export function percent(value: number | null): string {
  return value === null ? "—" : `${(value * 100).toFixed(1)}%`;
}

/**
 * A 95% interval as every page writes it ("95% interval 40.1–44.5%"), or nothing without one. Its
 * range is never broken at the dash: "48.8–" at a line's end and "52.1%" on the next read as two.
 */
export function Interval({ low, high }: { low: number | null; high: number | null }) {
  if (low === null || high === null) return null;
  return (
    <>
      95% interval{" "}
      <span class="nowrap">
        {(low * 100).toFixed(1)}–{(high * 100).toFixed(1)}%
      </span>
    </>
  );
}

export function Rate({ value }: { value: RateFigure }) {
  return (
    <span class="rate">
      <span class="rate-value">{percent(value.rate)}</span>{" "}
      <small class="rate-detail">
        n = {value.n}
        {value.low !== null && value.high !== null && (
          <>
            , <Interval low={value.low} high={value.high} />
          </>
        )}
      </small>
    </span>
  );
}
