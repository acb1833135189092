// The per-request tool server: a low-level SDK Server bound to one principal. Nothing here converts
// schemas or checks input: tools/list answers with the catalogue's precomputed JSON, and tools/call
// hands the call to the catalogue and turns its outcome into an MCP result.
//
// Loaded by the door on first use (mcp/routes.ts `loadSdkServer`), not at start: the SDK defines some
// hundreds of zod schemas when it is imported.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import pkg from "../../package.json";
import { SPYGLASS_ICONS } from "../catalogue/icon";
import { type Principal, type ToolCatalog, UnknownTool } from "../catalogue/registry";
import { type AppContext } from "../context";
import { log } from "../log";
import { servePrompts } from "./prompts";
import { serveResources } from "./resources";
import { ProtocolError, toCallToolResult } from "./results";

export { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
export { checkJsonRpc } from "./jsonrpc";

export const SERVER_NAME = "spyglass";

const CAPABILITIES = {
  tools: { listChanged: false },
  prompts: { listChanged: false },
  resources: { listChanged: false, subscribe: false },
  completions: {},
};

// The SDK builds a new Ajv instance (~6 ms) for every Server unless given one; this server never
// validates against client schemas (no elicitation), so one shared instance serves every request.
// Made by the first SDK server, not at start: a single tools/list or tools/call needs none (direct.ts).
let jsonSchemaValidator: AjvJsonSchemaValidator | null = null;

function instructionsFor(principal: Principal): string {
  const domain = principal.brand.domain ? ` (${principal.brand.domain})` : "";
  return (
    `Spyglass tracks how AI assistants answer the prompts that matter to the brand "${principal.brand.name}"${domain}: ` +
    "whether it is mentioned, in what position and sentiment, which sources are cited, and how competitors fare. " +
    "Every tool works on this one brand (the API key decides which); no tool takes a brand id. " +
    "Start with get_brand to see the brand, its competitors and the tracked engines."
  );
}

/** A fresh server for one HTTP request; the caller connects it to a transport and closes it after. */
export function createToolServer(catalog: ToolCatalog, app: AppContext, principal: Principal, requestId: string): Server {
  const server = new Server(
    { name: SERVER_NAME, title: "Spyglass", version: pkg.version, icons: SPYGLASS_ICONS },
    {
      capabilities: CAPABILITIES,
      instructions: instructionsFor(principal),
      jsonSchemaValidator: (jsonSchemaValidator ??= new AjvJsonSchemaValidator()),
    },
  );
  const listing = catalog.listFor(principal.plan);
  server.setRequestHandler(ListToolsRequestSchema, () => listing);
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const outcome = await catalog.call(app, principal, requestId, request.params.name, request.params.arguments);
    // An unknown tool is a protocol error (-32602), as the MCP specification answers it.
    if (!outcome.ok && outcome.error instanceof UnknownTool) throw new ProtocolError(ErrorCode.InvalidParams, outcome.error.message);
    return toCallToolResult(outcome);
  });
  servePrompts(server, catalog, app, principal, requestId, serveResources(server, app, principal, requestId));
  server.onerror = (error) => log.debug("mcp transport", { request_id: requestId, message: error.message });
  return server;
}

/** The answer of a fresh SDK server, bound to the principal, to a message already read and parsed. */
export async function answerWithSdk(
  catalog: ToolCatalog,
  app: AppContext,
  principal: Principal,
  requestId: string,
  request: Request,
  message: unknown,
): Promise<Response> {
  const server = createToolServer(catalog, app, principal, requestId);
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: message });
    return Array.isArray(message) ? batchAnswer(response) : response;
  } finally {
    await server.close();
  }
}

/**
 * A batch's answer as an array, whatever its length: JSON-RPC 2.0 (§6) answers a batch with an array,
 * and the SDK's transport sends a batch of one request its single response bare.
 */
async function batchAnswer(response: Response): Promise<Response> {
  if (response.status !== 200 || !response.headers.get("content-type")?.startsWith("application/json")) return response;
  const text = await response.text();
  return new Response(text.trimStart().startsWith("[") ? text : `[${text}]`, { status: 200, headers: response.headers });
}
