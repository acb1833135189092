// Dates and moments as people read them, in the dashboard and in the MCP Apps views.

const DAY_FORMAT = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", year: "numeric", month: "short", day: "numeric" });
const DAY_IN_YEAR_FORMAT = new Intl.DateTimeFormat("en-US", { timeZone: "UTC", month: "short", day: "numeric" });

/** An analytics day (a UTC day, "2026-10-30") as people read it: "Oct 30, 2026". */
export function formatDay(day: string): string {
  const at = Date.parse(`${day}T00:00:00Z`);
  return Number.isNaN(at) ? day : DAY_FORMAT.format(at);
}

/** A range of days: "Oct 30 – Nov 28, 2026", the year written once when both days share it. */
export function formatDays(start: string, end: string): string {
  const from = Date.parse(`${start}T00:00:00Z`);
  const to = Date.parse(`${end}T00:00:00Z`);
  if (Number.isNaN(from) || Number.isNaN(to)) return `${start} – ${end}`;
  if (start === end) return DAY_FORMAT.format(from);
  const sameYear = start.slice(0, 4) === end.slice(0, 4);
  return `${(sameYear ? DAY_IN_YEAR_FORMAT : DAY_FORMAT).format(from)} – ${DAY_FORMAT.format(to)}`;
}

/**
 * A moment as people read it, with its zone: "Nov 28, 2026, 6:20 AM UTC". `short`: without the year
 * when it is this year ("Nov 28, 6:20 AM UTC"), for a list of dates that are mostly recent (the
 * answers), where the year took a column's width from the text beside it.
 */
export function formatDate(iso: string | null, short = false): string {
  if (!iso) return "never";
  const date = new Date(iso);
  const thisYear = date.getFullYear() === new Date().getFullYear();
  // With its time zone: the analytics' days are UTC days, and a time without a zone misleads across them.
  const text = date.toLocaleString(undefined, {
    year: short && thisYear ? undefined : "numeric",
    month: "short",
    day: "numeric",
    hour: "numeric",
    minute: "2-digit",
    timeZoneName: "short",
  });
  // The time and its zone never split across lines ("9:00" at a line's end, "PM UTC" on the next):
  // no-break spaces inside the time, after the last comma.
  const at = text.lastIndexOf(", ");
  return at < 0 ? text : text.slice(0, at + 2) + text.slice(at + 2).replace(/ /g, "\u00a0");
}
