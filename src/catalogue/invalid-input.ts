// Invalid tool input as one sentence that names each problem's field, the same for every door.
import { type z } from "zod";

/** "prompts[0].text" from a zod issue path. */
function fieldOf(path: readonly PropertyKey[]): string {
  let out = "";
  for (const part of path) out += typeof part === "number" ? `[${part}]` : out ? `.${String(part)}` : String(part);
  return out;
}

function bound(origin: string | undefined, side: "least" | "most", n: number | bigint): string {
  const plural = Number(n) === 1 ? "" : "s";
  if (origin === "string") return `must be at ${side} ${n} character${plural}`;
  if (origin === "array" || origin === "set") return `must have at ${side} ${n} item${plural}`;
  return `must be at ${side} ${n}`;
}

const EXPECTED: Record<string, string> = { array: "a list", int: "a whole number", object: "an object" };

/** Unknown keys longer than this get no "did you mean" (no field is nearly as long). */
const MAX_HINTED_KEY = 64;

/** The edits (insert, delete, substitute) between two short strings. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    row = next;
  }
  return row[b.length]!;
}

/**
 * The field a client most likely meant by an unknown one: the same in snake_case (startDate), the
 * plural or the id of it (engine → engines, prompt → prompt_id), or one or two letters away.
 */
export function closestField(unknown: string, known: readonly string[]): string | null {
  const snake = unknown
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/[-\s]/g, "_")
    .toLowerCase();
  const exact = known.find((k) => k === snake);
  if (exact) return exact;
  const related = known.filter((k) => k === `${snake}s` || k === `${snake}_id` || k === `${snake}_ids` || `${k}s` === snake);
  if (related.length === 1) return related[0]!;
  let best: string | null = null;
  let bestDistance = 3;
  for (const k of known) {
    const d = distance(snake, k);
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

function unknownFields(keys: readonly string[], known: readonly string[] | undefined): string {
  const shown = keys.slice(0, SHOWN).map((k) => `"${k.length > MAX_HINTED_KEY ? `${k.slice(0, MAX_HINTED_KEY)}…` : k}"`);
  const list = `${shown.join(", ")}${keys.length > SHOWN ? ` and ${keys.length - SHOWN} more` : ""}`;
  const head = `unknown field${keys.length === 1 ? "" : "s"} ${list}`;
  // The brand is the credential's: said as such, not as a field to look for.
  if (keys.length === 1 && keys[0] === "brand_id") return `${head} (each key or sign-in acts for one brand: no tool takes a brand id)`;
  if (!known) return head;
  if (known.length === 0) return `${head}: it takes no arguments; call it with {}`;
  // Hints for the first few keys of a field name's length: the comparison costs their lengths' product.
  const hints = keys.slice(0, SHOWN).flatMap((k) => {
    if (k.length > MAX_HINTED_KEY) return [];
    const meant = closestField(k, known);
    return meant ? [keys.length === 1 ? `"${meant}"` : `"${meant}" for "${k}"`] : [];
  });
  return `${head}${hints.length ? ` (did you mean ${hints.join(", ")}?)` : ""}; the fields are ${known.join(", ")}`;
}

/**
 * The fields of the object at `path` in `schema` (through optional, nullable, default and list
 * wrappers), or undefined when it is no object: an unknown field of a list's entry ("prompts[0]
 * unknown field "tag"") gets the entry's fields and a hint, as a top-level one does.
 */
export function fieldsAt(schema: z.ZodType, path: readonly PropertyKey[]): readonly string[] | undefined {
  let at: unknown = schema;
  let i = 0;
  for (let guard = 0; guard < 64; guard++) {
    const def = (at as { _zod?: { def?: Record<string, unknown> } } | undefined)?._zod?.def;
    if (!def) return undefined;
    const type = def.type as string;
    if (type === "optional" || type === "nullable" || type === "default" || type === "readonly" || type === "nonoptional") {
      at = def.innerType;
    } else if (type === "pipe") {
      at = def.in;
    } else if (type === "array" && typeof path[i] === "number") {
      at = def.element;
      i++;
    } else if (type === "object") {
      const shape = def.shape as Record<string, unknown>;
      if (i === path.length) return Object.keys(shape);
      const key = path[i];
      if (typeof key !== "string" || !Object.hasOwn(shape, key)) return undefined;
      at = shape[key];
      i++;
    } else {
      return undefined;
    }
  }
  return undefined;
}

function describeIssue(issue: z.core.$ZodIssue, known?: readonly string[]): string {
  switch (issue.code) {
    case "invalid_type":
      return issue.input === undefined ? "is required" : `must be ${EXPECTED[issue.expected] ?? `a ${issue.expected}`}`;
    case "too_small":
      return bound(issue.origin, "least", issue.minimum);
    case "too_big":
      return bound(issue.origin, "most", issue.maximum);
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    case "unrecognized_keys":
      return unknownFields(issue.keys, known);
    case "invalid_format":
    case "custom":
      return issue.message;
    default:
      return issue.message;
  }
}

const SAFE_BOUNDS = new Set<unknown>([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

/** zod's implicit bound of a whole number, beside the field's own (`limit: 1e308` broke both). */
const isImplicitBound = (issue: z.core.$ZodIssue) =>
  (issue.code === "too_big" && SAFE_BOUNDS.has(Number(issue.maximum))) ||
  (issue.code === "too_small" && SAFE_BOUNDS.has(Number(issue.minimum)));

const SHOWN = 5;

/**
 * One sentence naming each problem's field (one problem per field), the first few in full and the
 * others' fields. `input`: the tool's input schema, whose fields at the place of an unknown one are
 * named (with the likeliest one).
 */
export function invalidInputMessage(toolName: string, error: z.ZodError, input?: z.ZodType): string {
  const byField = new Map<string, z.core.$ZodIssue>();
  for (const issue of error.issues) {
    const field = fieldOf(issue.path);
    const seen = byField.get(field);
    if (!seen || (isImplicitBound(seen) && !isImplicitBound(issue))) byField.set(field, issue);
  }
  const problems = [...byField].map(([field, issue]) => {
    const what = describeIssue(issue, input && issue.code === "unrecognized_keys" ? fieldsAt(input, issue.path) : undefined);
    return { field, text: field ? `${field} ${what}` : what.charAt(0).toUpperCase() + what.slice(1) };
  });
  const rest = problems.slice(SHOWN);
  const more = rest.length ? ` (and ${rest.length} more: ${rest.map((p) => p.field || "the input").join(", ")})` : "";
  return `Invalid input for ${toolName}: ${problems
    .slice(0, SHOWN)
    .map((p) => p.text)
    .join("; ")}${more}.`;
}
