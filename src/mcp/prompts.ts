// The prompt templates and argument completion on the per-request server: prompts/list answers with
// the catalogue's precomputed listing, prompts/get and completion/complete hand over to it. Its
// errors (unknown prompt, plan, a missing argument, another brand's id) are JSON-RPC invalid-params
// errors with the catalogue's sentence; anything unexpected is logged and answered generically.
import { type Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CompleteRequestSchema, ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { PROMPTS } from "../catalogue/prompts";
import { buildPromptCatalog, type PromptCatalog } from "../catalogue/prompts/registry";
import { type Principal, type ToolCatalog } from "../catalogue/registry";
import { ResourceNotFound } from "../catalogue/resources";
import { type AppContext } from "../context";
import { AppError } from "../errors";
import { log } from "../log";
import { ProtocolError } from "./results";

const RESOURCE_NOT_FOUND = -32002;

// One prompt catalogue per tool catalogue (tests build their own tool catalogues).
const catalogues = new WeakMap<ToolCatalog, PromptCatalog>();

export function promptCatalogOf(tools: ToolCatalog): PromptCatalog {
  let prompts = catalogues.get(tools);
  if (!prompts) {
    prompts = buildPromptCatalog(PROMPTS, tools);
    catalogues.set(tools, prompts);
  }
  return prompts;
}

/**
 * Runs `work`; an AppError becomes -32602 with its sentence (a missing resource -32002, as the MCP
 * specification answers resources/read), anything else -32603 with the request id.
 */
export async function asProtocolErrors<T>(requestId: string, what: string, work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    // The uri in the error's data, as SEP-2164 asks (the code stays 2025-11-25's -32002).
    if (error instanceof ResourceNotFound) throw new ProtocolError(RESOURCE_NOT_FOUND, error.message, { uri: error.uri.slice(0, 2000) });
    if (error instanceof AppError) throw new ProtocolError(ErrorCode.InvalidParams, error.message);
    const err = error as Error | undefined;
    log.error("mcp request failed", { request_id: requestId, what, error: err?.name, message: err?.message, stack: err?.stack });
    throw new ProtocolError(
      ErrorCode.InternalError,
      `Something went wrong on our side while answering ${what} (request ${requestId}); try again, and quote the request id if it persists.`,
    );
  }
}

export type Completer = (ref: { type: string; name?: string; uri?: string }, argument: string, typed: string) => Promise<string[]> | null;

export function servePrompts(
  server: Server,
  tools: ToolCatalog,
  app: AppContext,
  principal: Principal,
  requestId: string,
  completeResource: Completer,
): void {
  const prompts = promptCatalogOf(tools);
  const listing = prompts.listFor(principal.plan);
  server.setRequestHandler(ListPromptsRequestSchema, () => listing);
  server.setRequestHandler(GetPromptRequestSchema, (request) =>
    asProtocolErrors(requestId, `prompts/get ${request.params.name}`, () =>
      prompts.get(app, principal, requestId, request.params.name, request.params.arguments),
    ),
  );
  server.setRequestHandler(CompleteRequestSchema, (request) =>
    asProtocolErrors(requestId, "completion/complete", async () => {
      const { ref, argument } = request.params;
      if (ref.type === "ref/prompt")
        return { completion: await prompts.complete(app, principal, requestId, ref.name, argument.name, argument.value) };
      const values = (await completeResource(ref, argument.name, argument.value)) ?? [];
      return { completion: { values: values.slice(0, 100), total: values.length, hasMore: values.length > 100 } };
    }),
  );
}
