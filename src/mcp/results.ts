// The catalogue's outcomes as MCP results. A success carries its JSON object both as
// structuredContent and as text; a failure is a tool error (isError) whose text is the catalogue's
// sentence. (An unknown tool is a protocol error instead: server.ts sends it; direct.ts never calls one.)
// Only the SDK's types here: its values would load the SDK's schemas at start (mcp/routes.ts).
import { type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type ToolOutcome } from "../catalogue/registry";
import { PlanRequired } from "../errors";

/**
 * A JSON-RPC error the SDK sends as it is. (An McpError would put "MCP error -32602:" in its message,
 * and the client's McpError puts it there again.)
 */
export class ProtocolError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** A tool error with its sentence only (no structuredContent: clients validate it against the output schema). */
export function toolFailure(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

export function toCallToolResult(outcome: ToolOutcome): CallToolResult {
  if (outcome.ok) {
    return {
      content: [{ type: "text", text: JSON.stringify(outcome.value) }, ...(outcome.links ?? [])],
      structuredContent: outcome.value,
    };
  }
  const { error } = outcome;
  // CONTRACT §4: a plan error names the plan in its text and in structuredContent. Other errors carry
  // no structuredContent: SDK clients validate any they receive against the tool's output schema.
  if (error instanceof PlanRequired) {
    return {
      content: [{ type: "text", text: error.message }],
      structuredContent: { error: { code: error.code, required_plan: error.requiredPlan } },
      isError: true,
    };
  }
  return toolFailure(error.message);
}
