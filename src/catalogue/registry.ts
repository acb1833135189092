// Tools as data (STYLE.md): each tool is one declaration; the registry turns the list into the MCP
// server, the plan filter, the snapshot and the docs. The JSON the clients see (tools/list) is built
// once, at start, by buildCatalog: a request only binds handlers to its brand.
import { z } from "zod";
import { type AppContext } from "../context";
import { type Plan } from "../db/schema";
import { type PaidPlan } from "../errors";
import { type VerifiedKey } from "../keys/service";

export interface ToolContext {
  app: AppContext;
  /** From the verified key only: no tool input ever carries a brand id. */
  brand: VerifiedKey["brand"];
  account: VerifiedKey["account"];
  plan: Plan;
  requestId: string;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** Says when to use the tool and what it returns. */
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  plan: PaidPlan;
  handler: (input: z.output<I>, ctx: ToolContext) => z.input<O> | Promise<z.input<O>>;
}

/** Identity with inference: keeps each declaration's input and output types tied to its handler. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}

export type AnyTool = ToolDef<z.ZodObject, z.ZodObject>;

const PLAN_RANK: Record<Plan, number> = { none: 0, visibility: 1, autopilot: 2 };

/** Whether an account on `plan` may use a tool that needs `required`. */
export function planCovers(plan: Plan, required: PaidPlan): boolean {
  return PLAN_RANK[plan] >= PLAN_RANK[required];
}

/** A tool as tools/list shows it. */
export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  outputSchema: { type: "object"; [key: string]: unknown };
  annotations: ToolAnnotations & { title: string };
}

export interface ToolCatalog {
  byName: ReadonlyMap<string, AnyTool>;
  /** The tools/list result for an account on `plan`, computed once per plan. */
  listFor(plan: Plan): { tools: ToolListing[] };
}

/** CONTRACT §4: snake_case, at most 64 characters (also within the MCP SEP-986 name rules). */
export const TOOL_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

/**
 * `{"type": ["string", "null"]}` → `{"anyOf": [{"type": "string", …}, {"type": "null"}]}`: clients
 * that map schemas onto a single-`type` dialect (Gemini's OpenAPI subset) reject type arrays, and
 * the MCP Inspector's --strict check flags them.
 */
function splitNullableTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(splitNullableTypes);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = key === "enum" || key === "const" ? value : splitNullableTypes(value);
  const type = out.type;
  if (Array.isArray(type) && type.length === 2 && type.includes("null")) {
    const { type: _type, description, title, default: fallback, ...constraints } = out;
    return {
      ...(title !== undefined ? { title } : {}),
      ...(description !== undefined ? { description } : {}),
      anyOf: [{ type: type.find((t) => t !== "null"), ...constraints }, { type: "null" }],
      ...(fallback !== undefined ? { default: fallback } : {}),
    };
  }
  return out;
}

/**
 * zod writes `minimum: -(2^53 - 1), maximum: 2^53 - 1` on every integer: bounds no client needs
 * (JSON numbers past them are not integers a client would send), repeated on every count of every
 * output schema, about a tenth of tools/list, which clients hold in their model's context.
 */
function dropSafeIntegerBounds(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(dropSafeIntegerBounds);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "enum" || key === "const" || key === "default") out[key] = value;
    else if (!(key === "minimum" && value === Number.MIN_SAFE_INTEGER) && !(key === "maximum" && value === Number.MAX_SAFE_INTEGER))
      out[key] = dropSafeIntegerBounds(value);
  }
  return out;
}

function jsonSchema(schema: z.ZodObject, io: "input" | "output"): { type: "object"; [key: string]: unknown } {
  // The dialect the SDK's own McpServer emits (draft-07): what every SDK client validates against.
  const json = splitNullableTypes(dropSafeIntegerBounds(z.toJSONSchema(schema, { target: "draft-7", io }))) as {
    type?: unknown;
    [key: string]: unknown;
  };
  if (json.type !== "object") throw new Error(`a tool's ${io} schema must be an object`);
  return json as { type: "object"; [key: string]: unknown };
}

/** Checks every declaration and renders the tools/list JSON of each plan. Throws on a bad declaration. */
export function buildCatalog(tools: readonly AnyTool[]): ToolCatalog {
  const byName = new Map<string, AnyTool>();
  const listings: Array<{ tool: AnyTool; listing: ToolListing }> = [];
  for (const tool of tools) {
    if (!TOOL_NAME.test(tool.name) || tool.name.length > 64)
      throw new Error(`tool name "${tool.name}" is not snake_case of at most 64 characters`);
    if (byName.has(tool.name)) throw new Error(`tool "${tool.name}" is declared twice`);
    if (!tool.title.trim() || tool.description.trim().length < 20) throw new Error(`tool "${tool.name}" needs a title and a description`);
    byName.set(tool.name, tool);
    listings.push({
      tool,
      listing: {
        name: tool.name,
        title: tool.title,
        description: tool.description,
        inputSchema: jsonSchema(tool.input, "input"),
        outputSchema: jsonSchema(tool.output, "output"),
        annotations: { title: tool.title, ...tool.annotations },
      },
    });
  }
  const perPlan = new Map<Plan, { tools: ToolListing[] }>();
  for (const plan of Object.keys(PLAN_RANK) as Plan[]) {
    perPlan.set(plan, { tools: listings.filter((l) => planCovers(plan, l.tool.plan)).map((l) => l.listing) });
  }
  return {
    byName,
    listFor: (plan) => perPlan.get(plan) ?? { tools: [] },
  };
}
