// The analytics filter shared by every analytics page: period, engine and tag, kept in the URL
// (?start=YYYY-MM-DD&end=YYYY-MM-DD&engine=…&tag=…) so a reload or a shared link shows the same
// figures. The server resolves the defaults (the last 30 days) and names a bad value in its sentence.

import { type ComponentChildren, Fragment } from "preact";
import { useEffect, useId, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api } from "../api";
import { formatDays } from "./dates";
import { useLoad } from "./ui";

export interface AnalyticsFilter {
  start_date?: string;
  end_date?: string;
  engine?: string;
  tag?: string;
  /** Set by a prompt's page, not by the bar: every figure narrowed to that prompt. */
  prompt_id?: string;
}

const FILTER_PARAMS = { start: "start_date", end: "end_date", engine: "engine", tag: "tag" } as const;
type Param = keyof typeof FILTER_PARAMS;

const PRESETS = [
  { days: 7, label: "Last 7 days" },
  { days: 30, label: "Last 30 days" },
  { days: 90, label: "Last 90 days" },
] as const;

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** The analytics' period when none is chosen (the server's default): the last 30 days. */
const DEFAULT_DAYS = 30;

/** The first day of a period of `days` days ending on the day of `endMs` (today by default). */
function firstDay(days: number, endMs = Date.now()): string {
  return day(endMs - (days - 1) * 86_400_000);
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Whether the URL's From is a date after its To (then a page shows the period between them). */
export function reversed(query: Record<string, string>): boolean {
  return DATE.test(query.start ?? "") && DATE.test(query.end ?? "") && query.start! > query.end!;
}

/** The filter in the URL, as tool input, and a way to change part of it (other query parameters are kept). */
export function useAnalyticsFilter(): {
  filter: AnalyticsFilter;
  query: Record<string, string>;
  set(patch: Partial<Record<Param, string | null>>): void;
} {
  const { query, path, route } = useLocation();
  const filter: AnalyticsFilter = {};
  for (const [param, field] of Object.entries(FILTER_PARAMS) as Array<[Param, keyof AnalyticsFilter]>) {
    if (query[param]) filter[field] = query[param];
  }
  // Two dates in reverse order (a link typed by hand, a From chosen before its To is moved) are the
  // period between them for the figures: every section of the page said "start_date is after
  // end_date" on its own. The fields keep what was chosen (FilterBar says so).
  if (reversed(query)) [filter.start_date, filter.end_date] = [filter.end_date, filter.start_date];
  const set = (patch: Partial<Record<Param, string | null>>) => {
    const next = new URLSearchParams(query);
    for (const [key, value] of Object.entries(patch)) {
      if (value) next.set(key, value);
      else next.delete(key);
    }
    next.delete("cursor");
    const search = next.toString();
    route(search ? `${path}?${search}` : path);
  };
  return { filter, query, set };
}

/** The query string of the current filter, to carry it onto a link (`?start=…&engine=…`), or "". */
export function filterQuery(query: Record<string, string>): string {
  const kept = new URLSearchParams();
  for (const param of Object.keys(FILTER_PARAMS)) if (query[param]) kept.set(param, query[param]);
  const text = kept.toString();
  return text ? `?${text}` : "";
}

/**
 * The Answers page's query for the answers behind a figure of `filter`: its period (the default one,
 * the last 30 days, written out: Answers lists every stored answer without dates) and engine, with
 * `extra` (?prompt=, ?cites=). A tag is left out: Answers filters by one prompt or source at a time.
 */
export function answersQuery(filter: AnalyticsFilter, extra: Record<string, string>): string {
  const query = new URLSearchParams(extra);
  const period = answersPeriod(filter);
  query.set("start", period.start_date);
  if (period.end_date) query.set("end", period.end_date);
  if (filter.engine) query.set("engine", filter.engine);
  return `?${query.toString()}`;
}

/**
 * The filter's period as list_answers takes it, the analytics' default written out (30 days ending
 * on end_date, or today, as the server resolves it): list_answers without dates lists all time, so an
 * analytics page's answers (a prompt's, a source's) and its link to the Answers page use this.
 */
export function answersPeriod(filter: AnalyticsFilter): { start_date: string; end_date?: string } {
  const end = filter.end_date ? Date.parse(`${filter.end_date}T00:00:00Z`) : Date.now();
  return { start_date: filter.start_date ?? firstDay(DEFAULT_DAYS, end), ...(filter.end_date ? { end_date: filter.end_date } : {}) };
}

/**
 * A filter bar's fields, folded on a phone under one button that says what they are set to ("Last 30
 * days · All engines · All tags"): unfolded they took 200–270 px of the screen before any figure. On
 * a wider screen the button is hidden and the fields are the bar's own (display: contents).
 */
export function FilterFold({ summary, children }: { summary: string[]; children: ComponentChildren }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  return (
    <>
      <button type="button" class="filter-toggle" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
        <span class="filter-toggle-name">Filters</span>
        <span class="filter-summary">
          {/* Each setting on one line ("By / domain" broke across two); the line breaks between them. */}
          {summary.map((part, i) => (
            <Fragment key={i}>
              {i > 0 && " · "}
              <span class="nowrap">{part}</span>
            </Fragment>
          ))}
        </span>
      </button>
      <div id={id} class="filter-fields" data-open={open ? "" : undefined}>
        {children}
      </div>
    </>
  );
}

/**
 * Period presets, a custom range, engine and tag. Engines and tags come from the brand's own tools.
 * `children`: a page's own further choices (Sources' grouping), folded with the rest on a phone and
 * summed up there by `also`.
 */
export function FilterBar({ brandId, children, also }: { brandId: string; children?: ComponentChildren; also?: string }) {
  const { query, set } = useAnalyticsFilter();
  const id = useId();
  const options = useLoad(async () => {
    const [brand, tags] = await Promise.all([api.tool(brandId, "get_brand", {}), api.tool(brandId, "list_tags", { limit: 200 })]);
    return { engines: brand.engines, tags: tags.tags };
  }, [brandId]);
  // A preset is a start date N-1 days before today with no end; anything else is a custom range.
  const presetOf = (): string => {
    if (!query.start && !query.end) return "30";
    const preset = PRESETS.find((p) => !query.end && query.start === firstDay(p.days));
    return preset ? String(preset.days) : "custom";
  };
  const period = presetOf();
  // Choosing "Custom range" brings its From field, and the focus goes there: the dates are what
  // comes next (the select itself may be drawn anew by the page's new URL).
  const from = useRef<HTMLInputElement>(null);
  const focusFrom = useRef(false);
  useEffect(() => {
    if (period === "custom" && focusFrom.current) from.current?.focus();
    focusFrom.current = false;
  }, [period]);
  const choosePreset = (value: string) => {
    focusFrom.current = value === "custom";
    if (value === "custom") return set({ start: query.start ?? firstDay(DEFAULT_DAYS), end: query.end ?? day(Date.now()) });
    const days = Number(value);
    set({ start: days === DEFAULT_DAYS ? null : firstDay(days), end: null });
  };
  const summary = [
    period === "custom"
      ? reversed(query)
        ? formatDays(query.end!, query.start!)
        : formatDays(query.start ?? firstDay(DEFAULT_DAYS), query.end ?? day(Date.now()))
      : (PRESETS.find((p) => String(p.days) === period)?.label ?? ""),
    query.engine ? (options.data?.engines.find((e) => e.id === query.engine)?.label ?? query.engine) : "All engines",
    query.tag ?? "All tags",
    ...(also ? [also] : []),
  ];
  return (
    <form class="filter-bar" aria-label="Filter the figures" onSubmit={(e) => e.preventDefault()}>
      <FilterFold summary={summary}>
        <div class="field">
          <label for={`${id}-period`}>Period</label>
          <select id={`${id}-period`} value={period} onChange={(e) => choosePreset(e.currentTarget.value)}>
            {PRESETS.map((p) => (
              <option key={p.days} value={String(p.days)}>
                {p.label}
              </option>
            ))}
            <option value="custom">Custom range</option>
          </select>
        </div>
        {period === "custom" && (
          <>
            <div class="field">
              <label for={`${id}-start`}>From</label>
              <input
                ref={from}
                id={`${id}-start`}
                type="date"
                value={query.start ?? ""}
                onChange={(e) => set({ start: e.currentTarget.value || null })}
              />
            </div>
            <div class="field">
              <label for={`${id}-end`}>To</label>
              <input id={`${id}-end`} type="date" value={query.end ?? ""} onChange={(e) => set({ end: e.currentTarget.value || null })} />
            </div>
          </>
        )}
        {period === "custom" && reversed(query) && (
          <p class="hint filter-note" role="status">
            From is after To: the figures are of {formatDays(query.end!, query.start!)}.
          </p>
        )}
        <div class="field">
          <label for={`${id}-engine`}>Engine</label>
          <select id={`${id}-engine`} value={query.engine ?? ""} onChange={(e) => set({ engine: e.currentTarget.value || null })}>
            <option value="">All engines</option>
            {options.data?.engines.map((engine) => (
              <option key={engine.id} value={engine.id}>
                {engine.label}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for={`${id}-tag`}>Tag</label>
          <select id={`${id}-tag`} value={query.tag ?? ""} onChange={(e) => set({ tag: e.currentTarget.value || null })}>
            <option value="">All tags</option>
            {options.data?.tags.map((tag) => (
              <option key={tag.id} value={tag.name}>
                {tag.name}
              </option>
            ))}
          </select>
        </div>
        {children}
      </FilterFold>
    </form>
  );
}
