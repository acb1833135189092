// The resources on the per-request server: the brand's articles and the MCP Apps views, listed and
// read through the catalogue (src/catalogue/resources.ts) for the principal's brand and plan only.
import { type Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { VIEWS } from "../apps/views";
import { type Principal, type ToolContext } from "../catalogue/registry";
import { buildResourceCatalog } from "../catalogue/resources";
import { type AppContext } from "../context";
import { asProtocolErrors, type Completer } from "./prompts";

const resources = buildResourceCatalog(VIEWS);

/** Registers resources/list, resources/templates/list and resources/read; returns the template completer. */
export function serveResources(server: Server, app: AppContext, principal: Principal, requestId: string): Completer {
  const ctx: ToolContext = { ...principal, app, requestId };
  server.setRequestHandler(ListResourcesRequestSchema, (request) =>
    asProtocolErrors(requestId, "resources/list", () => resources.list(ctx, request.params?.cursor)),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => resources.templatesFor(principal.plan));
  server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    asProtocolErrors(requestId, "resources/read", () => resources.read(ctx, request.params.uri)),
  );
  return async (ref, _argument, typed) => (ref.type === "ref/resource" && ref.uri ? resources.complete(ctx, ref.uri, typed) : null);
}
