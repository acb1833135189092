// The per-request tool server: a low-level SDK Server bound to one principal. Nothing here converts
// schemas or checks input: tools/list answers with the catalogue's precomputed JSON, and tools/call
// hands the call to the catalogue and turns its outcome into an MCP result.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import pkg from "../../package.json";
import { SPYGLASS_ICONS } from "../catalogue/icon";
import { type Principal, type ToolCatalog } from "../catalogue/registry";
import { type AppContext } from "../context";
import { log } from "../log";
import { servePrompts } from "./prompts";
import { serveResources } from "./resources";
import { toCallToolResult } from "./results";

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
  server.setRequestHandler(CallToolRequestSchema, async (request) =>
    toCallToolResult(await catalog.call(app, principal, requestId, request.params.name, request.params.arguments)),
  );
  servePrompts(server, catalog, app, principal, requestId, serveResources(server, app, principal, requestId));
  server.onerror = (error) => log.debug("mcp transport", { request_id: requestId, message: error.message });
  return server;
}
