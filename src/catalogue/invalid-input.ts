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

function describeIssue(issue: z.core.$ZodIssue): string {
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
      return `unknown field${issue.keys.length === 1 ? "" : "s"} ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
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

/** One sentence naming each problem's field (one problem per field), the first few in full and the others' fields. */
export function invalidInputMessage(toolName: string, error: z.ZodError): string {
  const byField = new Map<string, z.core.$ZodIssue>();
  for (const issue of error.issues) {
    const field = fieldOf(issue.path);
    const seen = byField.get(field);
    if (!seen || (isImplicitBound(seen) && !isImplicitBound(issue))) byField.set(field, issue);
  }
  const problems = [...byField].map(([field, issue]) => {
    const what = describeIssue(issue);
    return { field, text: field ? `${field} ${what}` : what.charAt(0).toUpperCase() + what.slice(1) };
  });
  const rest = problems.slice(SHOWN);
  const more = rest.length ? ` (and ${rest.length} more: ${rest.map((p) => p.field || "the input").join(", ")})` : "";
  return `Invalid input for ${toolName}: ${problems
    .slice(0, SHOWN)
    .map((p) => p.text)
    .join("; ")}${more}.`;
}
