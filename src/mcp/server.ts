// The per-request tool server: a low-level SDK Server bound to one verified key (brand and plan).
// Nothing here converts schemas: tools/list answers with the catalogue's precomputed JSON, and
// tools/call validates with the declaration's zod schemas, runs the handler, and maps the outcome.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import pkg from "../../package.json";
import { planCovers, type ToolCatalog, type ToolContext } from "../catalogue/registry";
import { invalidInputMessage, planRequiredResult, toolErrorFrom, toolSuccess } from "../catalogue/results";
import { log } from "../log";

export const SERVER_NAME = "spyglass";

// The SDK builds a new Ajv instance (~6 ms) for every Server unless given one; this server never
// validates against client schemas (no elicitation), so one shared instance serves every request.
const jsonSchemaValidator = new AjvJsonSchemaValidator();

function instructionsFor(ctx: ToolContext): string {
  const domain = ctx.brand.domain ? ` (${ctx.brand.domain})` : "";
  return (
    `Spyglass tracks how AI assistants answer the prompts that matter to the brand "${ctx.brand.name}"${domain}: ` +
    "whether it is mentioned, in what position and sentiment, which sources are cited, and how competitors fare. " +
    "Every tool works on this one brand (the API key decides which); no tool takes a brand id. " +
    "Start with get_brand to see the brand, its competitors and the tracked engines."
  );
}

export async function callTool(
  catalog: ToolCatalog,
  ctx: ToolContext,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<CallToolResult> {
  const tool = catalog.byName.get(name);
  if (!tool) {
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name.slice(0, 64)}"; tools/list shows the tools this key can use.`);
  }
  if (!planCovers(ctx.plan, tool.plan)) return planRequiredResult(tool.name, tool.plan, ctx.plan);
  const parsed = tool.input.safeParse(args ?? {}, { reportInput: true });
  if (!parsed.success) return { content: [{ type: "text", text: invalidInputMessage(tool.name, parsed.error) }], isError: true };
  const started = performance.now();
  try {
    // Parsing the result through the output schema drops anything a handler returned by mistake.
    const value = tool.output.parse(await tool.handler(parsed.data, ctx)) as Record<string, unknown>;
    log.debug("tool call", { request_id: ctx.requestId, tool: tool.name, ms: Math.round(performance.now() - started) });
    return toolSuccess(value);
  } catch (error) {
    return toolErrorFrom(error, { tool: tool.name, requestId: ctx.requestId });
  }
}

/** A fresh server for one HTTP request; the caller connects it to a transport and closes it after. */
export function createToolServer(catalog: ToolCatalog, ctx: ToolContext): Server {
  const server = new Server(
    { name: SERVER_NAME, title: "Spyglass", version: pkg.version },
    { capabilities: { tools: { listChanged: false } }, instructions: instructionsFor(ctx), jsonSchemaValidator },
  );
  const listing = catalog.listFor(ctx.plan);
  server.setRequestHandler(ListToolsRequestSchema, () => listing);
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(catalog, ctx, request.params.name, request.params.arguments));
  server.onerror = (error) => log.debug("mcp transport", { request_id: ctx.requestId, message: error.message });
  return server;
}
