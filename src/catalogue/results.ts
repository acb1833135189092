// The one place where tool outcomes become MCP results. A success carries its JSON object both as
// structuredContent and as text. A failure is a tool error (isError) whose text is a sentence the
// user can act on: AppError subclasses give their own sentence, invalid input names the field and
// the problem, and anything unexpected becomes a generic sentence with the request id (details go
// to the log only, never to the client).
import { type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type z } from "zod";
import { type Plan } from "../db/schema";
import { AppError, type PaidPlan, planChangeHint, planLabel } from "../errors";
import { log } from "../log";

export function toolSuccess(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * A tool error with its sentence only. No structuredContent: SDK clients validate any
 * structuredContent they receive against the tool's output schema, errors included.
 */
export function toolFailure(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** CONTRACT §4: the text names the plan; structuredContent is {error:{code, required_plan}}. */
export function planRequiredResult(toolName: string, required: PaidPlan, current: Plan): CallToolResult {
  const now = current === "none" ? "no paid plan" : `the ${planLabel(current)} plan`;
  return {
    content: [
      {
        type: "text",
        text: `${toolName} requires the ${planLabel(required)} plan; this key's account is on ${now}. Upgrade the account's plan to use it: ${planChangeHint(required)}.`,
      },
    ],
    structuredContent: { error: { code: "plan_required", required_plan: required } },
    isError: true,
  };
}

export function toolErrorFrom(error: unknown, context: { tool: string; requestId: string }): CallToolResult {
  if (error instanceof AppError) return toolFailure(error.message);
  const err = error as Error | undefined;
  log.error("tool failed", {
    request_id: context.requestId,
    tool: context.tool,
    error: err?.name,
    message: err?.message,
    stack: err?.stack,
  });
  return toolFailure(
    `Something went wrong on our side while running ${context.tool} (request ${context.requestId}); try again, and quote the request id if it persists.`,
  );
}

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

/** One sentence naming each problem's field, for the first few problems. */
export function invalidInputMessage(toolName: string, error: z.ZodError): string {
  const parts = error.issues.slice(0, 3).map((issue) => {
    const field = fieldOf(issue.path);
    const what = describeIssue(issue);
    return field ? `${field} ${what}` : what.charAt(0).toUpperCase() + what.slice(1);
  });
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : "";
  return `Invalid input for ${toolName}: ${parts.join("; ")}${more}.`;
}
