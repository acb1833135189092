import { asArray, asCount, asObject, asString } from "./json";
import { trimSlash } from "./openai";
import { countableUrls, source, uniqueByUrl } from "./sources";
import { type AskContext, type ChatMessage, type ModelConfig, type ParsedReply, type SourceRef } from "./types";

export const ANTHROPIC_VERSION = "2023-06-01";
/** The Messages API requires max_tokens; this is room for a thorough answer. */
const DEFAULT_MAX_TOKENS = 2048;
/** The web search server tool (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/web-search-tool). */
export const ANTHROPIC_WEB_SEARCH_TOOL = { type: "web_search_20250305", name: "web_search", max_uses: 5 } as const;

export function buildAnthropicRequest(
  config: ModelConfig,
  messages: ChatMessage[],
  apiKey: string | null,
  context: AskContext = {},
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
  // The prompt's country as the search's approximate location.
  if (config.web_search) {
    body.tools = [
      { ...ANTHROPIC_WEB_SEARCH_TOOL, ...(context.country ? { user_location: { type: "approximate", country: context.country } } : {}) },
    ];
  }
  return { url: anthropicMessagesUrl(config.base_url), init: { method: "POST", headers, body: JSON.stringify(body) } };
}

/** `{base_url}/v1/messages`; a base_url already ending in /v1 is accepted rather than doubled. */
export function anthropicMessagesUrl(baseUrl: string): string {
  const base = trimSlash(baseUrl);
  return base.endsWith("/v1") ? `${base}/messages` : `${base}/v1/messages`;
}

/**
 * Messages API reply, with the web search tool's blocks: `server_tool_use` (name "web_search",
 * `input.query`), `web_search_tool_result` (`content: [{type: "web_search_result", url, title}]`,
 * or an error object), and `text` blocks whose `citations` are `web_search_result_location`s
 * ({url, title, cited_text}). A citation has no offset of its own: the text block it sits on is the
 * passage it supports, so that block's span in the joined answer is its position.
 */
export function parseAnthropicReply(body: unknown): ParsedReply {
  const root = asObject(body);
  let text = "";
  const cited: SourceRef[] = [];
  const retrieved: SourceRef[] = [];
  const queries: string[] = [];
  for (const item of asArray(root?.content)) {
    const block = asObject(item);
    if (block?.type === "server_tool_use") {
      if (block.name !== "web_search") continue;
      const query = asString(asObject(block.input)?.query);
      if (query) queries.push(query);
      continue;
    }
    if (block?.type === "web_search_tool_result") {
      for (const r of asArray(block.content)) {
        const result = asObject(r);
        if (result?.type !== "web_search_result") continue;
        const url = asString(result.url);
        if (url) retrieved.push(source(url, asString(result.title)));
      }
      continue;
    }
    if (block?.type !== "text") continue;
    const start = text.length;
    text += asString(block.text) ?? "";
    // Only locations the model actually cited count as citations (METRICS.md).
    for (const c of asArray(block.citations)) {
      const citation = asObject(c);
      const url = asString(citation?.url);
      if (url) cited.push(source(url, asString(citation?.title), start, text.length));
    }
  }
  const usage = asObject(root?.usage);
  return {
    text,
    citations: countableUrls(cited),
    cited,
    retrieved: uniqueByUrl(retrieved),
    queries,
    // A refusal without a word keeps no text: "refusal" was stored as the answer's text.
    refusal: root?.stop_reason === "refusal" ? text : null,
    stopped: root?.stop_reason === "max_tokens" ? "max_tokens" : root?.stop_reason === "pause_turn" ? "paused" : null,
    model: asString(root?.model),
    tokens_in: asCount(usage?.input_tokens),
    tokens_out: asCount(usage?.output_tokens),
  };
}
