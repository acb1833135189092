// Gemini generateContent (`POST {base_url}/v1beta/models/{model}:generateContent`) with the
// `google_search` tool. Wire format: https://ai.google.dev/gemini-api/docs/google-search
// (`candidates[].groundingMetadata`: `webSearchQueries`, `groundingChunks[].web {uri, title}`,
// `groundingSupports[] {segment {partIndex, startIndex, endIndex, text}, groundingChunkIndices}`)
// and https://ai.google.dev/api/generate-content (`usageMetadata`, `promptFeedback.blockReason`,
// `finishReason`). Segment indices are byte offsets into the part's UTF-8 text.
import { asArray, asCount, asObject, asString } from "./json";
import { trimSlash } from "./openai";
import { countableUrls, resolveSourceUrl, source, uniqueByUrl } from "./sources";
import { type ChatMessage, type ModelConfig, type ParsedReply, type SourceRef } from "./types";

/** Finish reasons under which the model declined to answer (the text, if any, is a stub). */
const BLOCKED = new Set(["SAFETY", "PROHIBITED_CONTENT", "BLOCKLIST", "SPII", "RECITATION"]);

export function buildGeminiRequest(
  config: ModelConfig,
  messages: ChatMessage[],
  apiKey: string | null,
): { url: string; init: RequestInit } {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  // The key goes in a header, never in the URL (a URL ends up in logs and error texts).
  if (apiKey) headers["x-goog-api-key"] = apiKey;
  const system = messages
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n\n");
  const body: Record<string, unknown> = {
    contents: messages
      .filter((m) => m.role !== "system")
      .map((m) => ({ role: m.role === "assistant" ? "model" : "user", parts: [{ text: m.content }] })),
  };
  if (system !== "") body.systemInstruction = { parts: [{ text: system }] };
  // Google Search grounding takes no location: a prompt's country does not reach it.
  if (config.web_search) body.tools = [{ google_search: {} }];
  const generationConfig: Record<string, unknown> = {};
  if (config.temperature !== undefined) generationConfig.temperature = config.temperature;
  if (config.max_tokens !== undefined) generationConfig.maxOutputTokens = config.max_tokens;
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  return { url: geminiUrl(config.base_url, config.model), init: { method: "POST", headers, body: JSON.stringify(body) } };
}

/** `{base_url}/v1beta/models/{model}:generateContent`; a base_url already ending in a version is kept. */
export function geminiUrl(baseUrl: string, model: string): string {
  const base = trimSlash(baseUrl);
  const versioned = /\/v1(beta|alpha)?\d*$/.test(base) ? base : `${base}/v1beta`;
  const name = model.startsWith("models/") ? model.slice("models/".length) : model;
  return `${versioned}/models/${encodeURIComponent(name)}:generateContent`;
}

/** The grounding chunks' URIs (to follow before parsing, when the engine asks for it). */
export function geminiSourceUris(body: unknown): string[] {
  const candidate = asObject(asArray(asObject(body)?.candidates)[0]);
  return asArray(asObject(candidate?.groundingMetadata)?.groundingChunks)
    .map((c) => asString(asObject(asObject(c)?.web)?.uri))
    .filter((u): u is string => u !== null);
}

/** `followed`: redirect → the page it points to, from `followRedirects`; the others resolve by the site the chunk names. */
export function parseGeminiReply(body: unknown, followed?: ReadonlyMap<string, string>): ParsedReply {
  const root = asObject(body);
  const candidate = asObject(asArray(root?.candidates)[0]);
  // Text parts only; "thought" parts are the model's reasoning, not its answer.
  const parts = asArray(asObject(candidate?.content)?.parts).map((p) => {
    const part = asObject(p);
    return part?.thought === true ? "" : (asString(part?.text) ?? "");
  });
  const partStarts: number[] = [];
  let text = "";
  for (const part of parts) {
    partStarts.push(text.length);
    text += part;
  }

  const grounding = asObject(candidate?.groundingMetadata);
  const queries = asArray(grounding?.webSearchQueries)
    .map(asString)
    .filter((q): q is string => q !== null && q.trim() !== "");
  const chunks: Array<SourceRef | null> = asArray(grounding?.groundingChunks).map((c) => {
    const web = asObject(asObject(c)?.web);
    const uri = asString(web?.uri);
    if (!uri) return null;
    const title = asString(web?.title);
    // A grounding redirect is replaced by the site it names; unresolvable ones are kept as they are,
    // with their title, and stay out of citation analysis (countableUrls).
    return source(resolveSourceUrl(uri, [asString(web?.domain), title], followed) ?? uri, title);
  });
  const retrieved = chunks.filter((c): c is SourceRef => c !== null);
  const cited: SourceRef[] = [];
  for (const s of asArray(grounding?.groundingSupports)) {
    const support = asObject(s);
    const segment = asObject(support?.segment);
    const partIndex = asCount(segment?.partIndex) ?? 0;
    const partText = parts[partIndex] ?? "";
    const base = partStarts[partIndex] ?? 0;
    const start = byteToIndex(partText, asCount(segment?.startIndex) ?? 0);
    const endByte = asCount(segment?.endIndex);
    const end = endByte === null ? null : byteToIndex(partText, endByte);
    for (const i of asArray(support?.groundingChunkIndices)) {
      const chunk = typeof i === "number" ? chunks[i] : undefined;
      if (chunk) cited.push(source(chunk.url, chunk.title, base + start, end === null ? null : base + end));
    }
  }

  const blockReason = asString(asObject(root?.promptFeedback)?.blockReason);
  const finish = asString(candidate?.finishReason);
  const refused = blockReason !== null || (finish !== null && BLOCKED.has(finish));
  const usage = asObject(root?.usageMetadata);
  const promptTokens = asCount(usage?.promptTokenCount);
  const toolTokens = asCount(usage?.toolUsePromptTokenCount) ?? 0;
  const answerTokens = asCount(usage?.candidatesTokenCount);
  const thoughtTokens = asCount(usage?.thoughtsTokenCount) ?? 0;
  return {
    text,
    citations: countableUrls(cited),
    cited,
    retrieved: uniqueByUrl(retrieved),
    queries,
    refusal: refused ? text || `blocked: ${blockReason ?? finish}` : null,
    stopped: finish === "MAX_TOKENS" ? "max_tokens" : null,
    model: asString(root?.modelVersion),
    tokens_in: promptTokens === null ? null : promptTokens + toolTokens,
    tokens_out: answerTokens === null ? null : answerTokens + thoughtTokens,
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The UTF-16 index in `text` of a UTF-8 byte offset (clamped to the text). */
function byteToIndex(text: string, byteOffset: number): number {
  const bytes = encoder.encode(text);
  if (byteOffset >= bytes.length) return text.length;
  return decoder.decode(bytes.subarray(0, byteOffset)).replace(/\uFFFD$/, "").length;
}
