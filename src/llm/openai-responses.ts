// OpenAI Responses API (`POST {base_url}/responses`) with the hosted `web_search` tool.
// Wire format: https://platform.openai.com/docs/guides/tools-web-search (output items
// `web_search_call` with `action.query`/`action.queries` and, when asked for through
// `include: ["web_search_call.action.sources"]`, `action.sources`; `message` items whose
// `output_text` parts carry `url_citation` annotations with `start_index`/`end_index`), and
// https://platform.openai.com/docs/api-reference/responses/object (`usage.input_tokens`/`output_tokens`).
import { asArray, asCount, asObject, asString } from "./json";
import { trimSlash } from "./openai";
import { countableUrls, source, uniqueByUrl } from "./sources";
import { type AskContext, type ChatMessage, type ModelConfig, type ParsedReply, type SourceRef } from "./types";

export function buildResponsesRequest(
  config: ModelConfig,
  messages: ChatMessage[],
  apiKey: string | null,
  context: AskContext = {},
): { url: string; init: RequestInit } {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  const instructions = messages
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n\n");
  const body: Record<string, unknown> = {
    model: config.model,
    input: messages.filter((m) => m.role !== "system").map((m) => ({ role: m.role, content: m.content })),
    store: false,
  };
  if (instructions !== "") body.instructions = instructions;
  if (config.web_search) {
    // The prompt's country as the search's approximate location.
    body.tools = [{ type: "web_search", ...(context.country ? { user_location: { type: "approximate", country: context.country } } : {}) }];
    // Without this the search call carries no sources: the retrieved-but-not-cited list.
    body.include = ["web_search_call.action.sources"];
  }
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.max_tokens !== undefined) body.max_output_tokens = config.max_tokens;
  return { url: `${trimSlash(config.base_url)}/responses`, init: { method: "POST", headers, body: JSON.stringify(body) } };
}

export function parseResponsesReply(body: unknown): ParsedReply {
  const root = asObject(body);
  let text = "";
  let refusal: string | null = null;
  const cited: SourceRef[] = [];
  const retrieved: SourceRef[] = [];
  const queries: string[] = [];

  for (const entry of asArray(root?.output)) {
    const item = asObject(entry);
    if (item?.type === "web_search_call") {
      const action = asObject(item.action);
      if (action?.type !== undefined && action.type !== "search") continue; // open_page / find_in_page are not searches
      const query = asString(action?.query);
      if (query) queries.push(query);
      for (const q of asArray(action?.queries)) {
        const s = asString(q);
        if (s) queries.push(s);
      }
      for (const src of asArray(action?.sources)) {
        const s = asObject(src);
        const url = asString(s?.url);
        if (url) retrieved.push(source(url, asString(s?.title)));
      }
      continue;
    }
    if (item?.type !== "message") continue;
    for (const partEntry of asArray(item.content)) {
      const part = asObject(partEntry);
      if (part?.type === "refusal") {
        refusal = asString(part.refusal) ?? "refusal";
        continue;
      }
      if (part?.type !== "output_text") continue;
      // Offsets are within this part; the answer is the parts joined, so they shift by what precedes.
      const offset = text.length;
      text += asString(part.text) ?? "";
      for (const annotationEntry of asArray(part.annotations)) {
        const a = asObject(annotationEntry);
        if (a?.type !== "url_citation") continue;
        const url = asString(a.url);
        if (!url) continue;
        const start = asCount(a.start_index);
        const end = asCount(a.end_index);
        cited.push(source(url, asString(a.title), start === null ? null : start + offset, end === null ? null : end + offset));
      }
    }
  }
  const usage = asObject(root?.usage);
  return {
    text,
    citations: countableUrls(cited),
    cited,
    retrieved: uniqueByUrl(retrieved),
    queries,
    refusal,
    stopped: root?.status === "incomplete" && asObject(root.incomplete_details)?.reason === "max_output_tokens" ? "max_tokens" : null,
    model: asString(root?.model),
    tokens_in: asCount(usage?.input_tokens),
    tokens_out: asCount(usage?.output_tokens),
  };
}
