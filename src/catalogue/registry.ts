// The catalogue: the application's command layer (STYLE.md "One catalogue, many doors"). Each tool is
// one declaration; buildCatalog checks them, renders tools/list once per plan, and runs a call for a
// principal: plan gate, input validation, output parsing and error mapping happen here, for every door.
import { z } from "zod";
import { describePlan, type PaidPlan, planChangeHint, planCovers, planLabel } from "../accounts/plans";
import { getBrand } from "../brands/service";
import { type AppContext } from "../context";
import { isForeignKeyFailure } from "../db/storage-health";
import { PLANS, type Plan } from "../db/values";
import { AppError, Conflict, Invalid, NotFound, PlanRequired } from "../errors";
import { log } from "../log";
import { conformingOutput } from "./conformance";
import { SPYGLASS_ICONS } from "./icon";
import { invalidInputMessage } from "./invalid-input";
import { type Icon, type ResourceLink } from "./resources";

/** Who a call acts for. A door builds it from its credential (an API key, a session and a brand it owns). */
export interface Principal {
  account: { id: string };
  /** From the credential only: no tool input ever carries a brand id. */
  brand: { id: string; name: string; domain: string | null };
  plan: Plan;
}

/** What a handler is given: the principal, the request id, and the application's services. */
export interface ToolContext extends Principal {
  app: AppContext;
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
  /** The MCP Apps view (a ui:// address of catalogue/view-uris.ts, served by src/apps/views.ts) that draws this tool's result. */
  view?: string;
  /** Links to the resources a result mentions (articles) that the principal may read, sent beside its JSON. */
  links?: (output: z.output<O>, ctx: ToolContext) => ResourceLink[];
}

/** Identity with inference: keeps each declaration's name, input and output types tied to its handler. */
export function defineTool<const N extends string, I extends z.ZodObject, O extends z.ZodObject>(
  def: ToolDef<I, O> & { name: N },
): ToolDef<I, O> & { name: N } {
  return def;
}

export type AnyTool = ToolDef<z.ZodObject, z.ZodObject>;

/** How a call ended: the tool's output, or an error with its code and sentence. */
export type ToolOutcome = { ok: true; value: Record<string, unknown>; links?: ResourceLink[] } | { ok: false; error: AppError };

/** No tool of that name; doors answer it as a protocol error (MCP) or a 404 (dashboard). */
export class UnknownTool extends NotFound {
  constructor(name: string) {
    super(`Unknown tool "${name.slice(0, 64)}"; tools/list shows the tools this credential can use.`, "unknown_tool");
  }
}

/** Anything unexpected: the client gets this sentence, the log gets the details. */
export class ToolFailed extends AppError {
  constructor(tool: string, requestId: string) {
    super(
      500,
      "internal",
      `Something went wrong on our side while running ${tool} (request ${requestId}); try again, and quote the request id if it persists.`,
    );
  }
}

/** A principal on plan none may use no tool at all; each door answers this before anything else. */
export function noToolsFor(plan: Plan): PlanRequired | null {
  return plan === "none"
    ? new PlanRequired(
        "visibility",
        `This account has no paid plan; Spyglass tools need the Visibility or Autopilot plan: ${planChangeHint("visibility")}.`,
      )
    : null;
}

function toolPlanRequired(tool: AnyTool, plan: Plan): PlanRequired {
  return new PlanRequired(
    tool.plan,
    `${tool.name} requires the ${planLabel(tool.plan)} plan; this account is on ${describePlan(plan)}. To upgrade: ${planChangeHint(tool.plan)}.`,
  );
}

/** A tool as tools/list shows it. */
export interface ToolListing {
  name: string;
  title: string;
  description: string;
  inputSchema: { type: "object"; [key: string]: unknown };
  outputSchema: { type: "object"; [key: string]: unknown };
  annotations: ToolAnnotations & { title: string };
  icons: Icon[];
  /** MCP Apps: `ui.resourceUri` (and the extension's older flat key) name the view of the result. */
  _meta?: { ui: { resourceUri: string }; "ui/resourceUri": string };
}

export interface ToolCatalog {
  /**
   * Resolves once the members below may be used: at once for a built catalogue, after the tools are
   * imported for the server's (lazyCatalog). `call` waits for it itself.
   */
  ready(): Promise<void>;
  /** Whether ready() has resolved (the MCP door then need not await it). */
  readonly isReady: boolean;
  byName: ReadonlyMap<string, AnyTool>;
  /** The tools/list result for an account on `plan`, computed once per plan. */
  listFor(plan: Plan): { tools: ToolListing[] };
  /** Runs one tool for `principal`; never throws. */
  call(app: AppContext, principal: Principal, requestId: string, name: string, args: unknown): Promise<ToolOutcome>;
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

/** The path of the first object in an input schema that accepts fields it does not declare, or null. */
function openObjectIn(node: unknown, path = "input"): string | null {
  if (node === null || typeof node !== "object") return null;
  const schema = node as Record<string, unknown>;
  if (schema.type === "object" && schema.additionalProperties !== false) return path;
  for (const [key, value] of Object.entries(schema)) {
    const found = Array.isArray(value)
      ? value.map((item, i) => openObjectIn(item, `${path}.${key}[${i}]`)).find((p) => p !== null)
      : openObjectIn(value, `${path}.${key}`);
    if (found) return found;
  }
  return null;
}

const BUILT = Promise.resolve();

/** Checks every declaration and renders the tools/list JSON of each plan. Throws on a bad declaration. */
export function buildCatalog(tools: readonly AnyTool[]): ToolCatalog {
  const byName = new Map<string, AnyTool>();
  const listings: Array<{ tool: AnyTool; listing: ToolListing }> = [];
  for (const tool of tools) listings.push({ tool, listing: listingOf(tool, byName) });
  return catalogOf(byName, listings);
}

/**
 * buildCatalog in slices of `sliceMs`, the event loop yielded between them: rendering every tool's
 * schemas took 40–100 ms in one task of the server's start (measured in the binary), a stall for the
 * requests of that moment. The catalogue is the same. It yields before the first slice too: called
 * when the tools' modules have just been imported (10–17 ms of the same task), its first slice
 * (the first schemas rendered, 8–10 ms) made that task 21–27 ms.
 */
export async function buildCatalogInSlices(tools: readonly AnyTool[], sliceMs = 5): Promise<ToolCatalog> {
  const byName = new Map<string, AnyTool>();
  const listings: Array<{ tool: AnyTool; listing: ToolListing }> = [];
  let sliceStarted = Number.NEGATIVE_INFINITY;
  for (const tool of tools) {
    if (performance.now() - sliceStarted >= sliceMs) {
      await new Promise((resolve) => setImmediate(resolve));
      sliceStarted = performance.now();
    }
    listings.push({ tool, listing: listingOf(tool, byName) });
  }
  return catalogOf(byName, listings);
}

/** A tool's tools/list entry, its declaration checked; the tool is added to `byName`. */
function listingOf(tool: AnyTool, byName: Map<string, AnyTool>): ToolListing {
  if (!TOOL_NAME.test(tool.name) || tool.name.length > 64)
    throw new Error(`tool name "${tool.name}" is not snake_case of at most 64 characters`);
  if (byName.has(tool.name)) throw new Error(`tool "${tool.name}" is declared twice`);
  if (!tool.title.trim() || tool.description.trim().length < 20) throw new Error(`tool "${tool.name}" needs a title and a description`);
  const inputSchema = jsonSchema(tool.input, "input");
  // A misspelt optional field (start_dat) must be an error, not a silently ignored filter.
  const open = openObjectIn(inputSchema);
  if (open) throw new Error(`tool "${tool.name}": ${open} must be a strict object (z.strictObject)`);
  byName.set(tool.name, tool);
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema,
    outputSchema: jsonSchema(tool.output, "output"),
    annotations: { title: tool.title, ...tool.annotations },
    icons: SPYGLASS_ICONS,
    ...(tool.view ? { _meta: { ui: { resourceUri: tool.view }, "ui/resourceUri": tool.view } } : {}),
  };
}

function catalogOf(byName: Map<string, AnyTool>, listings: Array<{ tool: AnyTool; listing: ToolListing }>): ToolCatalog {
  const perPlan = new Map<Plan, { tools: ToolListing[] }>();
  for (const plan of PLANS) {
    perPlan.set(plan, { tools: listings.filter((l) => planCovers(plan, l.tool.plan)).map((l) => l.listing) });
  }
  return {
    ready: () => BUILT,
    isReady: true,
    byName,
    listFor: (plan) => perPlan.get(plan) ?? { tools: [] },
    call: (app, principal, requestId, name, args) => callTool(byName.get(name), name, args, { ...principal, app, requestId }),
  };
}

/**
 * The arguments without the nulls sent for optional fields that take no null: many model clients
 * send null for every optional field they leave unset (OpenAI's strict function calling does), and
 * null there can only mean "not given". A field whose schema takes null (update_brand's domain:
 * null removes it) keeps it.
 */
function withoutNullOptionals(input: z.ZodType, args: unknown): unknown {
  if (typeof args !== "object" || args === null || Array.isArray(args)) return args;
  const shape = (input as Partial<z.ZodObject>).shape;
  if (!shape) return args;
  let out: Record<string, unknown> | null = null;
  for (const [key, value] of Object.entries(args)) {
    // Own fields only: "constructor" or "toString" would find Object.prototype's.
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (value !== null || !field || !field.safeParse(undefined).success || field.safeParse(null).success) continue;
    out ??= { ...(args as Record<string, unknown>) };
    delete out[key];
  }
  return out ?? args;
}

/**
 * What a write refused for a row gone meanwhile is told: the brand's 404 when the brand itself went
 * (deleted by another instance or process between the request's check of it and the write; it was
 * a 500), else a 409 saying what happened. Nothing was stored either way.
 */
async function referenceGone(ctx: ToolContext): Promise<AppError> {
  const present = await getBrand(ctx.app.db, ctx.brand.id).then(
    () => true,
    () => false,
  );
  if (!present) return new NotFound("Brand not found: it was deleted meanwhile. Nothing was stored.", "brand_not_found");
  return new Conflict(
    "Something this change refers to was deleted meanwhile (in another tab, by an AI client or another process), so nothing was stored: read it again and retry.",
    "deleted_meanwhile",
  );
}

/** The analytics filter's fields, which a tool that echoes its filter gives back resolved. */
const FILTER_FIELDS = ["start_date", "end_date", "engine", "tag", "prompt_id"] as const;

/**
 * A paged call's cursors, tied to the tool and the rest of its input: a next_cursor passed to another
 * tool, or with another filter or order (an offset into a different list), silently skipped or
 * repeated rows; it is refused instead. The handlers' own cursors travel inside, after a digest of
 * the call (`digest.inner`); a cursor carries no authority either way (every query is keyed by the
 * credential's brand), so a fast non-cryptographic hash does. Computed only for a call that pages.
 *
 * A tool that echoes its filter (`filter` in its result: the period's dates, the tag's name) is tied
 * to that filter as resolved, not as written: the next page asked with the echoed dates in place of
 * the default, or the tag spelled otherwise, is the same list (the AI-client walk: a model copying
 * the echoed filter into its next call was refused). Such a call is checked once its result is in;
 * it reads, so the page read for a cursor then refused changes nothing.
 */
class CursorScope {
  private raw: string | null = null;
  /** The scope the given cursor carried, while it awaits the resolved filter. */
  private given: string | null = null;

  constructor(
    private readonly tool: string,
    private readonly input: unknown,
    private readonly resolvesFilter: boolean,
  ) {}

  private digest(filter?: unknown): string {
    // Page size and include_text change no row's place in the list: a next page may ask them otherwise.
    const { cursor: _cursor, limit: _limit, include_text: _text, ...rest } = this.input as Record<string, unknown>;
    if (filter === undefined) return Bun.hash(JSON.stringify([this.tool, rest])).toString(36);
    for (const field of FILTER_FIELDS) delete rest[field];
    return Bun.hash(JSON.stringify([this.tool, rest, filter])).toString(36);
  }

  private scope(): string {
    this.raw ??= this.digest();
    return this.raw;
  }

  private otherList(): Invalid {
    return new Invalid(
      `cursor: this next_cursor is of another list (another tool, or other filters or order, or a period that has moved on: the default one ends today); call ${this.tool} with the arguments that gave it, or without a cursor for the first page.`,
      "invalid_cursor",
    );
  }

  /** The input with the handler's own cursor in place of the one given. */
  unbind<T>(input: T): T {
    const cursor = (input as { cursor?: unknown }).cursor;
    if (typeof cursor !== "string" || cursor === "") return input;
    const dot = cursor.indexOf(".");
    if (dot === -1) throw new Invalid("cursor: pass back the next_cursor of a previous result unchanged.", "invalid_cursor");
    if (this.resolvesFilter) this.given = cursor.slice(0, dot);
    else if (cursor.slice(0, dot) !== this.scope()) throw this.otherList();
    return { ...input, cursor: cursor.slice(dot + 1) };
  }

  /** The result with its next_cursor tied to this call (and, for a filter resolved, the given cursor checked). */
  bind<T>(result: T): T {
    const echoed = this.resolvesFilter ? (result as { filter?: unknown } | null)?.filter : undefined;
    const scope = echoed === undefined ? null : this.digest(echoed);
    if (this.given !== null && this.given !== scope) throw this.otherList();
    const next = (result as { next_cursor?: unknown } | null)?.next_cursor;
    if (typeof next !== "string") return result;
    return { ...result, next_cursor: `${scope ?? this.scope()}.${next}` };
  }
}

/** Whether a tool's result echoes its filter as resolved (CursorScope ties its cursors to that). */
function echoesFilter(tool: AnyTool): boolean {
  const shape = (tool.output as Partial<z.ZodObject>).shape;
  return shape !== undefined && Object.hasOwn(shape, "filter") && Object.hasOwn(shape, "next_cursor");
}

async function callTool(tool: AnyTool | undefined, name: string, args: unknown, ctx: ToolContext): Promise<ToolOutcome> {
  if (!tool) return { ok: false, error: new UnknownTool(name) };
  if (!planCovers(ctx.plan, tool.plan)) return { ok: false, error: toolPlanRequired(tool, ctx.plan) };
  const started = performance.now();
  // Everything inside: a call answers with an outcome, never an exception (the tool server would
  // answer an HTTP 500 without the request's id).
  try {
    const parsed = tool.input.safeParse(withoutNullOptionals(tool.input, args ?? {}), { reportInput: true });
    if (!parsed.success) return { ok: false, error: new Invalid(invalidInputMessage(tool.name, parsed.error, tool.input)) };
    const cursors = new CursorScope(tool.name, parsed.data, echoesFilter(tool));
    // The result as its output schema parses it, which drops anything a handler returned by mistake
    // (without the parse's copy when it already is exactly that: conformance.ts).
    const output = conformingOutput(tool.output, cursors.bind(await tool.handler(cursors.unbind(parsed.data), ctx)));
    log.debug("tool call", { request_id: ctx.requestId, tool: tool.name, ms: Math.round(performance.now() - started) });
    const links = tool.links?.(output, ctx);
    return { ok: true, value: output as Record<string, unknown>, ...(links?.length ? { links } : {}) };
  } catch (error) {
    if (error instanceof AppError) return { ok: false, error };
    if (isForeignKeyFailure(error)) return { ok: false, error: await referenceGone(ctx) };
    const refusal = ctx.app.db.storage.refusalFor(error, { request_id: ctx.requestId, tool: tool.name });
    if (refusal) return { ok: false, error: refusal };
    const err = error as Error | undefined;
    log.error("tool failed", { request_id: ctx.requestId, tool: tool.name, error: err?.name, message: err?.message, stack: err?.stack });
    return { ok: false, error: new ToolFailed(tool.name, ctx.requestId) };
  }
}

/**
 * The server's catalogue: its tools imported (`load`) and their JSON schemas rendered on first use
 * rather than at start. The tool modules define their zod schemas when imported and rendering every
 * tool's schemas takes tens of milliseconds, neither of which `serve` should spend before answering
 * its first request. `ready` starts it and waits for it (the server calls it once it is up); the
 * schemas are rendered in slices (buildCatalogInSlices).
 * Bad declarations are still caught: the tests build the catalogue of TOOLS eagerly
 * (test/mcp/tools-list.test.ts).
 */
export function lazyCatalog(load: () => Promise<readonly AnyTool[]>): ToolCatalog {
  let built: ToolCatalog | null = null;
  let loading: Promise<void> | null = null;
  const ready = () =>
    (loading ??= load().then(async (tools) => {
      built = await buildCatalogInSlices(tools);
    }));
  const catalogue = (): ToolCatalog => {
    if (!built) throw new Error("the tool catalogue was used before ready() resolved");
    return built;
  };
  return {
    ready,
    get isReady() {
      return built !== null;
    },
    get byName() {
      return catalogue().byName;
    },
    listFor: (plan) => catalogue().listFor(plan),
    call: async (app, principal, requestId, name, args) => {
      await ready();
      return catalogue().call(app, principal, requestId, name, args);
    },
  };
}
