// The shared analytics filter: a period of inclusive UTC days (default: the last 30 days ending
// today), its previous period of equal length, an engine, a tag and a prompt, turned into SQL conditions on
// the columns (brand_id, created_at, engine, prompt_id) that answers, mentions and citations all
// carry, or on the daily rollups (brand_id, day, engine) when no tag or prompt narrows it. A tag, a
// prompt and the prompts they cover come from the prompts service; the SQL sees them as a JSON list
// of prompt ids (the scope).
import { type AppContext } from "../context";
import { type SqlText } from "../db/queries";
import { Invalid, NotFound } from "../errors";
import { getPrompt, listPromptIds } from "../prompts/service";
import { findTag } from "../prompts/tags";
import { checkEngine } from "../tracking/engines";
import { WINDOW_DAYS } from "../tracking/prompt-windows";

export const DAY_MS = 86_400_000;
/** The default period: the one whose per-prompt sums tracking keeps ready (prompt_windows). */
export const DEFAULT_DAYS = WINDOW_DAYS;
/** Longest period one call may cover (about three years): bounded work per call. */
export const MAX_DAYS = 1_100;

export interface FilterInput {
  start_date?: string;
  end_date?: string;
  engine?: string;
  tag?: string;
  prompt_id?: string;
}

export interface Period {
  /** Inclusive start, ms since epoch (00:00 UTC). */
  start: number;
  /** Exclusive end, ms since epoch (00:00 UTC of the day after end_date). */
  end: number;
  days: number;
  start_date: string;
  end_date: string;
}

export interface Filter {
  brandId: string;
  period: Period;
  previous: Period;
  engine: string | null;
  tag: { id: string; name: string } | null;
  prompt: { id: string } | null;
  /** The JSON list of the ids of the prompts a tag or a prompt narrows the figures to; null for all. */
  scope: string | null;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const FIRST_DAY_MS = 0;

export function parseDay(value: string, field: string): number {
  if (!DATE.test(value)) throw new Invalid(`${field}: give a date as YYYY-MM-DD (UTC), such as 2025-01-31.`, "invalid_date");
  const ms = Date.parse(`${value}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== value) {
    throw new Invalid(`${field}: "${value}" is not a calendar date.`, "invalid_date");
  }
  // No answer is older; and a period before the year 0 came back with dates such as "-000001-12".
  if (ms < FIRST_DAY_MS) throw new Invalid(`${field}: give a date from 1970-01-01 on.`, "invalid_date");
  return ms;
}

export function dayString(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

export function period(start: number, days: number): Period {
  return { start, end: start + days * DAY_MS, days, start_date: dayString(start), end_date: dayString(start + (days - 1) * DAY_MS) };
}

/** Validates the input, checks the engine (configured or present in the brand's answers) and resolves the tag (by name, case-insensitively, or by id) among the brand's tags. */
export async function resolveFilter(app: AppContext, brandId: string, input: FilterInput, now = Date.now()): Promise<Filter> {
  const today = startOfUtcDay(now);
  const endDay = input.end_date !== undefined ? parseDay(input.end_date, "end_date") : today;
  const startDay = input.start_date !== undefined ? parseDay(input.start_date, "start_date") : endDay - (DEFAULT_DAYS - 1) * DAY_MS;
  if (startDay > endDay) {
    // Without an end_date the period ends today: a start_date in the future was refused as if an end_date had been given.
    const given = input.end_date !== undefined ? "" : ` (end_date, not given, is today: ${dayString(today)})`;
    throw new Invalid(`start_date must be on or before end_date${given}.`, "invalid_date_range");
  }
  const days = Math.round((endDay - startDay) / DAY_MS) + 1;
  if (days > MAX_DAYS)
    throw new Invalid(`The period may cover at most ${MAX_DAYS} days; narrow start_date and end_date.`, "invalid_date_range");
  const current = period(startDay, days);
  const tag = input.tag !== undefined ? await resolveTag(app, brandId, input.tag) : null;
  // getPrompt answers "Prompt not found." for another brand's prompt as for one that does not exist.
  const prompt = input.prompt_id !== undefined ? { id: (await getPrompt(app.db, brandId, input.prompt_id)).id } : null;
  let scope: string[] | null = tag ? await listPromptIds(app.db, brandId, tag.id) : null;
  if (prompt) scope = scope === null || scope.includes(prompt.id) ? [prompt.id] : [];
  return {
    brandId,
    period: current,
    previous: period(startDay - days * DAY_MS, days),
    engine: input.engine !== undefined ? await checkEngine(app, brandId, input.engine) : null,
    tag,
    prompt,
    scope: scope === null ? null : JSON.stringify(scope),
  };
}

export async function resolveTag(app: AppContext, brandId: string, tag: string): Promise<NonNullable<Filter["tag"]>> {
  const found = await findTag(app.db, brandId, tag);
  if (!found) throw new NotFound(`Tag "${tag}" not found; list_tags shows the brand's tags.`, "tag_not_found");
  return { id: found.id, name: found.name };
}

export type SqlParam = string | number;

/**
 * `WHERE` conditions for a table aliased `alias` with brand_id, created_at, engine and prompt_id,
 * covering [from, to). The brand comes from the verified credential only.
 */
export function where(alias: string, filter: Filter, from: number, to: number): { sql: string; params: SqlParam[] } {
  const parts = [`${alias}.brand_id = ?`, `${alias}.created_at >= ?`, `${alias}.created_at < ?`];
  const params: SqlParam[] = [filter.brandId, from, to];
  if (filter.engine !== null) {
    parts.push(`${alias}.engine = ?`);
    params.push(filter.engine);
  }
  if (filter.scope !== null) {
    parts.push(`${alias}.prompt_id IN (SELECT value FROM json_each(?))`);
    params.push(filter.scope);
  }
  return { sql: parts.join(" AND "), params };
}

/**
 * `WHERE` conditions on a daily rollup table aliased `alias` (brand_id, day, engine) covering the
 * whole UTC days of [from, to). Rollups carry no prompt: only a filter without a tag or prompt may use them.
 */
export function dayWhere(alias: string, filter: Filter, from: number, to: number): { sql: string; params: SqlParam[] } {
  if (filter.scope !== null) throw new Error("daily rollups cannot answer a tag or prompt filter");
  const parts = [`${alias}.brand_id = ?`, `${alias}.day >= ?`, `${alias}.day < ?`];
  const params: SqlParam[] = [filter.brandId, from / DAY_MS, to / DAY_MS];
  if (filter.engine !== null) {
    parts.push(`${alias}.engine = ?`);
    params.push(filter.engine);
  }
  return { sql: parts.join(" AND "), params };
}

/** The filter as echoed in results, so a reader knows what the figures cover. */
export function describeFilter(filter: Filter) {
  return {
    start_date: filter.period.start_date,
    end_date: filter.period.end_date,
    days: filter.period.days,
    previous_start_date: filter.previous.start_date,
    previous_end_date: filter.previous.end_date,
    engine: filter.engine,
    tag: filter.tag?.name ?? null,
    prompt_id: filter.prompt?.id ?? null,
  };
}

/** Opaque offset cursors for aggregate lists (stable for a given filter and unchanged data). */
export function encodeOffset(offset: number): string {
  return Buffer.from(`o:${offset}`).toString("base64url");
}

export function decodeOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const text = Buffer.from(cursor, "base64url").toString();
  const match = /^o:(\d{1,9})$/.exec(text);
  if (!match) throw new Invalid("cursor: pass back the next_cursor of a previous result unchanged.", "invalid_cursor");
  return Number(match[1]);
}

/**
 * A statement and how its rows become a figure: reads that one call makes together go to the
 * database as one batch (Queries.scanTogether), so that a rate's numerator and denominator are read
 * in one snapshot.
 */
export interface Read<T> {
  /** null: nothing to read (the figure is from([])). */
  text: SqlText | null;
  params: SqlParam[];
  from(rows: unknown[]): T;
}

/**
 * The reads' figures: from the daily rollups (no tag or prompt; a few rows per day, read where they
 * are: on SQLite in one task, so no other request's commit comes between them), or, with a tag or
 * prompt, from the answers themselves, in one snapshot by the reader process.
 */
export async function readTogether<T extends unknown[]>(
  app: AppContext,
  filter: Filter,
  reads: { [K in keyof T]: Read<T[K]> },
): Promise<T> {
  const list = reads as unknown as Array<Read<unknown>>;
  const statements = list.filter((read) => read.text !== null).map((read) => ({ text: read.text!, params: read.params }));
  const rows =
    filter.scope === null
      ? await Promise.all(statements.map(({ text, params }) => app.db.all(text, params)))
      : await app.db.scanTogether(statements);
  let next = 0;
  return list.map((read) => read.from(read.text === null ? [] : rows[next++]!)) as T;
}

/** A Read's figure from a one-row `n` (a count or a sum; 0 when null or absent). */
export const countOf = (rows: unknown[]): number => Number((rows[0] as { n: number | null } | undefined)?.n ?? 0);
