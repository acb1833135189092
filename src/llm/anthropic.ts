import { asArray, asCount, asObject, asString } from "./json";
import { trimSlash } from "./openai";
import { type ChatMessage, type ModelConfig, type ParsedReply } from "./types";

export const ANTHROPIC_VERSION = "2023-06-01";
/** The Messages API requires max_tokens; this is room for a thorough answer. */
const DEFAULT_MAX_TOKENS = 2048;

export function buildAnthropicRequest(
  config: ModelConfig,
  messages: ChatMessage[],
  apiKey: string | null,
): { url: string; init: RequestInit } {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
    "anthropic-version": ANTHROPIC_VERSION,
  };
  if (apiKey) headers["x-api-key"] = apiKey;
  // Anthropic takes the system prompt as a top-level field, not as a message.
  const system = messages
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n\n");
  const body: Record<string, unknown> = {
    model: config.model,
    max_tokens: config.max_tokens ?? DEFAULT_MAX_TOKENS,
    messages: messages.filter((m) => m.role !== "system").map((m) => ({ role: m.role, content: m.content })),
  };
  if (system !== "") body.system = system;
  if (config.temperature !== undefined) body.temperature = config.temperature;
  return { url: anthropicMessagesUrl(config.base_url), init: { method: "POST", headers, body: JSON.stringify(body) } };
}

/** `{base_url}/v1/messages`; a base_url already ending in /v1 is accepted rather than doubled. */
export function anthropicMessagesUrl(baseUrl: string): string {
  const base = trimSlash(baseUrl);
  return base.endsWith("/v1") ? `${base}/messages` : `${base}/v1/messages`;
}

export function parseAnthropicReply(body: unknown): ParsedReply {
  const root = asObject(body);
  const texts: string[] = [];
  const citations: string[] = [];
  for (const item of asArray(root?.content)) {
    const block = asObject(item);
    if (block?.type !== "text") continue;
    texts.push(asString(block.text) ?? "");
    // Only locations the model actually cited count; `web_search_tool_result` blocks list what it
    // read, which METRICS does not count as cited.
    for (const c of asArray(block.citations)) {
      const url = asString(asObject(c)?.url);
      if (url) citations.push(url);
    }
  }
  const usage = asObject(root?.usage);
  const text = texts.join("");
  return {
    text,
    citations,
    refusal: root?.stop_reason === "refusal" ? text || "refusal" : null,
    model: asString(root?.model),
    tokens_in: asCount(usage?.input_tokens),
    tokens_out: asCount(usage?.output_tokens),
  };
}
