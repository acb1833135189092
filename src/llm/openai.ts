import { asArray, asCount, asObject, asString } from "./json";
import { countableUrls, source, uniqueByUrl } from "./sources";
import { type AskContext, type ChatMessage, type ModelConfig, type ParsedReply, type SourceRef } from "./types";

/** OpenAI-compatible chat completions: OpenAI, Perplexity, Gemini's compat endpoint, Ollama, vLLM… */
export function buildOpenAIRequest(
  config: ModelConfig,
  messages: ChatMessage[],
  apiKey: string | null,
  context: AskContext = {},
): { url: string; init: RequestInit } {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const body: Record<string, unknown> = { model: config.model, messages };
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.max_tokens !== undefined) body.max_tokens = config.max_tokens;
  // OpenAI's search models (and Perplexity, which always searches) take `web_search_options`.
  // The prompt's country as the search's location, in each API's shape: Perplexity's
  // `user_location: {country}`, OpenAI's `user_location: {type: "approximate", approximate: {country}}`.
  if (config.web_search)
    body.web_search_options = context.country ? { user_location: searchLocation(config.base_url, context.country) } : {};
  return {
    url: `${trimSlash(config.base_url)}/chat/completions`,
    init: { method: "POST", headers, body: JSON.stringify(body) },
  };
}

function searchLocation(baseUrl: string, country: string): Record<string, unknown> {
  let host = "";
  try {
    host = new URL(baseUrl).hostname;
  } catch {}
  if (host === "perplexity.ai" || host.endsWith(".perplexity.ai")) return { country };
  return { type: "approximate", approximate: { country } };
}

export function parseOpenAIReply(body: unknown): ParsedReply {
  const root = asObject(body);
  const choice = asObject(asArray(root?.choices)[0]);
  const message = asObject(choice?.message);
  const cited: SourceRef[] = [];
  const retrieved: SourceRef[] = [];

  // Perplexity: `search_results: [{title, url, date}]` lists the sources its search used, and the
  // older top-level `citations: string[]` the same URLs in the order of the [n] markers.
  for (const result of asArray(root?.search_results)) {
    const r = asObject(result);
    const url = asString(r?.url);
    if (url) retrieved.push(source(url, asString(r?.title)));
  }
  const perplexityCitations = asArray(root?.citations)
    .map(asString)
    .filter((u): u is string => u !== null);
  if (perplexityCitations.length > 0) for (const url of perplexityCitations) cited.push(source(url, titleOf(retrieved, url)));
  else for (const r of retrieved) cited.push(source(r.url, r.title));

  // OpenAI search models: `message.annotations[{type: "url_citation", url_citation: {url, title, start_index, end_index}}]`.
  for (const annotation of asArray(message?.annotations)) {
    const a = asObject(annotation);
    if (a?.type !== "url_citation") continue;
    const c = asObject(a.url_citation) ?? a;
    const url = asString(c.url);
    if (url) cited.push(source(url, asString(c.title), asCount(c.start_index), asCount(c.end_index)));
  }

  const refusal = asString(message?.refusal);
  const usage = asObject(root?.usage);
  return {
    text: messageText(message?.content),
    citations: countableUrls(cited),
    cited,
    retrieved: uniqueByUrl(retrieved),
    queries: [],
    refusal: refusal && refusal.trim() !== "" ? refusal : null,
    stopped: choice?.finish_reason === "length" ? "max_tokens" : null,
    model: asString(root?.model),
    tokens_in: asCount(usage?.prompt_tokens),
    tokens_out: asCount(usage?.completion_tokens),
  };
}

function titleOf(sources: SourceRef[], url: string): string | null {
  return sources.find((s) => s.url === url)?.title ?? null;
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
