// Figures in prompt messages read as the dashboard shows them (METRICS.md): a rate with its n and
// 95% interval, a change in points with the verdict of the tool's own within_noise.
interface Rate {
  rate: number | null;
  n: number;
  low: number | null;
  high: number | null;
}

export function pct(value: number | null): string {
  return value === null ? "n/a" : `${(value * 100).toFixed(1)}%`;
}

export function rateText(r: Rate): string {
  if (r.rate === null) return "no data (n = 0)";
  const interval = r.low !== null && r.high !== null ? `, 95% interval ${pct(r.low)}–${pct(r.high)}` : "";
  return `${pct(r.rate)} (n = ${r.n}${interval})`;
}

export function changeText(r: { change_pp: number | null; within_noise: boolean | null }): string {
  if (r.change_pp === null) return "no previous figure";
  const signed = `${r.change_pp > 0 ? "+" : ""}${r.change_pp.toFixed(1)} pp`;
  return r.within_noise ? `${signed}, within noise` : `${signed}, ${r.change_pp > 0 ? "up" : "down"} beyond noise`;
}

export function meanText(m: { value: number | null; n: number; low?: number | null; high?: number | null }, digits: number): string {
  if (m.value === null) return "no data";
  // "to", not a dash, between the bounds: "−0.30–0.10" reads as a subtraction.
  const interval = m.low != null && m.high != null ? `, 95% interval ${m.low.toFixed(digits)} to ${m.high.toFixed(digits)}` : "";
  return `${m.value.toFixed(digits)} (n = ${m.n}${interval})`;
}

/** A mean's change from the previous period with the tool's verdict; a position's "up" is a worse place. */
export function meanChangeText(
  m: { change: number | null; within_noise: boolean | null },
  digits: number,
  what: "position" | "sentiment",
): string {
  if (m.change === null) return "no previous figure";
  const signed = `${m.change > 0 ? "+" : ""}${m.change.toFixed(digits)}`;
  if (m.within_noise === null) return `${signed}, no noise verdict (fewer than 2 answers in a period)`;
  if (m.within_noise || m.change === 0) return `${signed}, within noise`;
  const better = what === "position" ? m.change < 0 : m.change > 0;
  return `${signed}, ${better ? "better" : "worse"} beyond noise`;
}

/** The engine/tag scope of a filter, in words. */
export function scopeText(filter: { start_date: string; end_date: string; engine: string | null; tag: string | null }): string {
  const parts = [`${filter.start_date} to ${filter.end_date} (UTC)`];
  if (filter.engine) parts.push(`engine ${filter.engine}`);
  if (filter.tag) parts.push(`tag "${filter.tag}"`);
  return parts.join(", ");
}

export function userMessage(text: string) {
  return { role: "user" as const, content: { type: "text" as const, text } };
}

/** YYYY-MM-DD of the UTC day `daysAgo` days before today. */
export function utcDay(daysAgo: number, now = Date.now()): string {
  return new Date(now - daysAgo * 86_400_000).toISOString().slice(0, 10);
}
