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

export function Rate({ value }: { value: RateFigure }) {
  return (
    <span class="rate">
      <span class="rate-value">{percent(value.rate)}</span>{" "}
      <small class="rate-detail">
        n = {value.n}
        {value.low !== null && value.high !== null ? `, 95% ${percent(value.low)}–${percent(value.high)}` : ""}
      </small>
    </span>
  );
}
