// CSV for the export route (./export.ts), derived from a tool's zod schemas so that no tool needs a
// line of its own: which field of a result is the list, the columns of its items, how a query
// string's values become the tool's input, and the text of each row (RFC 4180, CSV-injection safe).
import { z } from "zod";
import { slugify } from "../content/slug";
import { Invalid } from "../errors";

/** The schema under optional, nullable, default and readonly wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  let inner = schema;
  while (
    inner instanceof z.ZodOptional ||
    inner instanceof z.ZodNullable ||
    inner instanceof z.ZodDefault ||
    inner instanceof z.ZodReadonly
  ) {
    inner = inner.unwrap() as z.ZodType;
  }
  return inner;
}

/** The one top-level array field of an output schema (the list a table shows), or null if there are none or several. */
export function listFieldOf(output: z.ZodObject): { field: string; item: z.ZodType } | null {
  const arrays = Object.entries(output.shape).flatMap(([field, schema]) => {
    const inner = unwrap(schema as z.ZodType);
    return inner instanceof z.ZodArray ? [{ field, item: inner.element as z.ZodType }] : [];
  });
  return arrays.length === 1 ? arrays[0]! : null;
}

/**
 * The columns of a list's items: nested objects flattened into dotted names, in the schema's order,
 * which is the order of every item's keys (results are parsed through the schema), so a list with
 * no item still gets its header.
 */
export function columnsOf(item: z.ZodType, prefix = ""): string[] {
  const inner = unwrap(item);
  if (!(inner instanceof z.ZodObject)) return [prefix || "value"];
  return Object.entries(inner.shape).flatMap(([key, schema]) => {
    const name = prefix ? `${prefix}.${key}` : key;
    return unwrap(schema as z.ZodType) instanceof z.ZodObject ? columnsOf(schema as z.ZodType, name) : [name];
  });
}

/** The largest page a tool's `limit` accepts, or null when the tool is not paged. */
export function maxLimitOf(input: z.ZodObject): number | null {
  const limit = input.shape.limit as z.ZodType | undefined;
  if (!limit) return null;
  const inner = unwrap(limit);
  return inner instanceof z.ZodNumber && inner.maxValue !== null && Number.isFinite(inner.maxValue) ? inner.maxValue : null;
}

// A number as a person writes one in an address: "12", "-3", "0.5" (not "0x10", "1e2" or " 7").
const DECIMAL = /^-?\d+(?:\.\d+)?$/;

/**
 * A query string's values as the tool's input: "12" for a number field becomes 12, "true"/"false"
 * for a boolean field become booleans; anything else stays a string, so that the tool's own
 * validation refuses it with its own sentence (a misspelt field included). A field given twice,
 * and "__proto__" (which an object would drop without a word), are refused here, as the doors
 * refuse them.
 */
export function coerceQuery(input: z.ZodObject, query: URLSearchParams): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of query) {
    if (key === "__proto__") throw new Invalid('Unknown field "__proto__".', "invalid_input");
    if (Object.hasOwn(out, key)) throw new Invalid(`${key}: given twice in the address; give it once.`, "invalid_input");
    const schema = input.shape[key] as z.ZodType | undefined;
    const inner = schema ? unwrap(schema) : null;
    if (inner instanceof z.ZodNumber && DECIMAL.test(value)) out[key] = Number(value);
    else if (inner instanceof z.ZodBoolean && (value === "true" || value === "false")) out[key] = value === "true";
    else out[key] = value;
  }
  return out;
}

/**
 * An object of a list in one cell: by its name (or text, or id); one without either (a cited domain, a URL)
 * by that, with its counts, flags and owner in brackets: "hubspot.com (14 citations, Contoso CRM)".
 */
function entryText(named: Record<string, unknown>): string {
  // A prompt ({id, text}: a search query's) by its text, not its id.
  const label = named.name ?? (typeof named.text === "string" ? named.text : named.id);
  if (label !== undefined && label !== null) return String(label);
  const key = ["domain", "url"].find((k) => typeof named[k] === "string");
  if (key === undefined) return JSON.stringify(named);
  const details: string[] = [];
  for (const [field, value] of Object.entries(named)) {
    if (field === key) continue;
    if (typeof value === "number") details.push(`${value} ${field.replaceAll("_", " ")}`);
    else if (value === true) details.push(field.replaceAll("_", " "));
    else if (value !== null && typeof value === "object" && typeof (value as { name?: unknown }).name === "string")
      details.push((value as { name: string }).name);
  }
  return details.length ? `${named[key]} (${details.join(", ")})` : String(named[key]);
}

/** The value a column shows: arrays of scalars joined with "; ", arrays of objects by their names (or ids, or what they are). */
function cellValue(item: unknown, column: string): unknown {
  let value: unknown = item;
  if (item !== null && typeof item === "object") {
    for (const key of column.split(".")) {
      if (value === null || typeof value !== "object") return null;
      value = (value as Record<string, unknown>)[key];
    }
  }
  if (!Array.isArray(value)) return value;
  return value
    .map((entry: unknown) => {
      if (entry === null || typeof entry !== "object") return entry === null ? "" : String(entry);
      return entryText(entry as Record<string, unknown>);
    })
    .join("; ");
}

/** OWASP's CSV-injection characters: a spreadsheet reads a cell starting with one as a formula. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One field of RFC 4180: quoted when it holds a comma, a quote, CR or LF, quotes doubled. Text (the
 * untrusted part: answers, names, titles) that a spreadsheet would run as a formula gets a leading
 * apostrophe; numbers are our own figures, and a negative change must stay a number.
 */
export function csvField(value: unknown): string {
  if (value === null || value === undefined) return "";
  let text: string;
  if (typeof value === "string") text = FORMULA_START.test(value) ? `'${value}` : value;
  else if (typeof value === "number" || typeof value === "boolean") text = String(value);
  else text = JSON.stringify(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(fields: readonly unknown[]): string {
  return `${fields.map(csvField).join(",")}\r\n`;
}

export function csvRowOf(item: unknown, columns: readonly string[]): string {
  return csvRow(columns.map((column) => cellValue(item, column)));
}

/**
 * `<brand>-<tool>-<filter values>.csv`, in the input schema's order (a true flag by its name, a
 * false one left out), within [a-z0-9-_.].
 */
export function exportFileName(brandName: string, tool: string, input: z.ZodObject, filter: Record<string, unknown>): string {
  const values = Object.keys(input.shape).flatMap((key) => {
    const value = filter[key];
    if (value === undefined || value === false || value === "") return [];
    return [value === true ? key : slugify(String(value))];
  });
  const name = [slugify(brandName), tool, ...values].join("-").replace(/[^a-z0-9\-_.]/g, "-");
  return `${name.slice(0, 180)}.csv`;
}
