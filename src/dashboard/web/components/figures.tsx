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

/** A 95% interval as every page writes it ("95% interval 40.1–44.5%"), or "" without one. */
export function intervalText(low: number | null, high: number | null): string {
  if (low === null || high === null) return "";
  return `95% interval ${(low * 100).toFixed(1)}–${(high * 100).toFixed(1)}%`;
}

export function Rate({ value }: { value: RateFigure }) {
  return (
    <span class="rate">
      <span class="rate-value">{percent(value.rate)}</span>{" "}
      <small class="rate-detail">
        n = {value.n}
        {value.low !== null && value.high !== null ? `, ${intervalText(value.low, value.high)}` : ""}
      </small>
    </span>
  );
}
