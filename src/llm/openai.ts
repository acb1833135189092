import { asArray, asCount, asObject, asString } from "./json";
import { type ChatMessage, type ModelConfig, type ParsedReply } from "./types";

/** OpenAI-compatible chat completions: OpenAI, Perplexity, Gemini's compat endpoint, Ollama, vLLM… */
export function buildOpenAIRequest(
  config: ModelConfig,
  messages: ChatMessage[],
  apiKey: string | null,
): { url: string; init: RequestInit } {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const body: Record<string, unknown> = { model: config.model, messages };
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.max_tokens !== undefined) body.max_tokens = config.max_tokens;
  return {
    url: `${trimSlash(config.base_url)}/chat/completions`,
    init: { method: "POST", headers, body: JSON.stringify(body) },
  };
}

export function parseOpenAIReply(body: unknown): ParsedReply {
  const root = asObject(body);
  const choice = asObject(asArray(root?.choices)[0]);
  const message = asObject(choice?.message);
  const citations: string[] = [];

  // Perplexity: top-level `citations: string[]`, and the newer `search_results: [{url, title}]`.
  for (const url of asArray(root?.citations)) {
    const s = asString(url);
    if (s) citations.push(s);
  }
  for (const result of asArray(root?.search_results)) {
    const s = asString(asObject(result)?.url);
    if (s) citations.push(s);
  }
  // OpenAI search models: `message.annotations[{type: "url_citation", url_citation: {url}}]`.
  for (const annotation of asArray(message?.annotations)) {
    const a = asObject(annotation);
    if (a?.type !== "url_citation") continue;
    const s = asString(asObject(a.url_citation)?.url) ?? asString(a.url);
    if (s) citations.push(s);
  }

  const refusal = asString(message?.refusal);
  const usage = asObject(root?.usage);
  return {
    text: messageText(message?.content),
    citations,
    refusal: refusal && refusal.trim() !== "" ? refusal : null,
    model: asString(root?.model),
    tokens_in: asCount(usage?.prompt_tokens),
    tokens_out: asCount(usage?.completion_tokens),
  };
}

/** `content` is a string for most servers, but some compat servers send an array of `{type: "text", text}` parts. */
function messageText(content: unknown): string {
  if (typeof content === "string") return content;
  return asArray(content)
    .map((part) => asString(asObject(part)?.text) ?? "")
    .join("");
}

export function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}
