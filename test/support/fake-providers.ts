/**
 * Stand-in LLM providers: real HTTP servers on loopback that speak the OpenAI chat-completions,
 * OpenAI Responses (web_search tool), Anthropic Messages (web search tool) and Gemini
 * generateContent (Google Search grounding) wire formats, scripted per prompt. Used by unit tests of the engine clients and
 * by end-to-end tests of the compiled binary.
 *
 *   const fake = startFakeOpenAI({ script: { "best crm?": answer("Try Acme.", { citations: ["https://acme.com"] }) } });
 *   const engine = { id: "gpt", label: "GPT", api: "openai", base_url: fake.url, model: "gpt-test" };
 *   …
 *   await fake.stop();
 */
import { type Server } from "bun";

export interface FakeCitation {
  url: string;
  title?: string;
  /** The passage of the answer that cites it (a substring of the text); the whole text otherwise. */
  quote?: string;
}

export type FakeBehaviour =
  | {
      kind: "answer";
      text: string;
      citations?: FakeCitation[];
      /** Results the search returned (cited or not): Anthropic `web_search_tool_result`, Responses
       *  `action.sources`, Gemini grounding chunks, Perplexity `search_results`. */
      searchResults?: FakeCitation[];
      /** The web search queries the assistant ran (not for chat completions). */
      queries?: string[];
      model?: string;
      latencyMs?: number;
    }
  | { kind: "error"; status: number; message?: string; retryAfter?: string; latencyMs?: number }
  | { kind: "hang" }
  | { kind: "empty"; latencyMs?: number }
  | { kind: "refusal"; text?: string; latencyMs?: number }
  | { kind: "raw"; status?: number; body: unknown; headers?: Record<string, string>; latencyMs?: number };

type CitationInput = string | FakeCitation;

export function answer(
  text: string,
  opts: { citations?: CitationInput[]; searchResults?: CitationInput[]; queries?: string[]; model?: string; latencyMs?: number } = {},
): FakeBehaviour {
  return {
    kind: "answer",
    text,
    citations: opts.citations?.map(toCitation),
    searchResults: opts.searchResults?.map(toCitation),
    queries: opts.queries,
    model: opts.model,
    latencyMs: opts.latencyMs,
  };
}

export function httpError(status: number, opts: { message?: string; retryAfter?: string; latencyMs?: number } = {}): FakeBehaviour {
  return { kind: "error", status, ...opts };
}

/** A 429 with `Retry-After` (seconds as a string, or an HTTP date). */
export function rateLimited(retryAfter?: string): FakeBehaviour {
  return { kind: "error", status: 429, message: "Rate limit reached", retryAfter };
}

/** Never answers until the client gives up (or the server stops). */
export function hang(): FakeBehaviour {
  return { kind: "hang" };
}

export function empty(): FakeBehaviour {
  return { kind: "empty" };
}

/** A provider-flagged refusal (OpenAI `message.refusal`, Anthropic `stop_reason: "refusal"`). */
export function refusal(text = "I can't help with that request."): FakeBehaviour {
  return { kind: "refusal", text };
}

/** Any body: JSON-encoded, or sent verbatim when it is a string. */
export function raw(body: unknown, opts: { status?: number; headers?: Record<string, string> } = {}): FakeBehaviour {
  return { kind: "raw", body, ...opts };
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: unknown;
  /** The last user message's text. */
  prompt: string;
  /** 1-based count of requests seen so far for this prompt. */
  attempt: number;
  receivedAt: number;
}

export type FakeScript =
  | ((prompt: string, request: RecordedRequest) => FakeBehaviour | Promise<FakeBehaviour>)
  /** prompt → behaviour; an array is played one entry per attempt, its last entry repeating. */
  | Record<string, FakeBehaviour | FakeBehaviour[]>;

export interface FakeProviderOptions {
  script?: FakeScript;
  /** Delay before every reply unless the behaviour sets its own. */
  latencyMs?: number;
  /** When set, requests without this key get the provider's 401. */
  apiKey?: string;
  /** For prompts the script does not know; defaults to a plain answer echoing the prompt. */
  fallback?: FakeBehaviour;
  /** OpenAI format only: how citations are returned. */
  citationStyle?: "annotations" | "perplexity";
  /**
   * Gemini only: wrap each source's URI in a grounding redirect, as Gemini does
   * (`https://vertexaisearch.cloud.google.com/grounding-api-redirect/…`, never fetched), with the
   * title the page's host name unless the citation gives one. Default true. "loopback": the
   * redirects are served by this stand-in (`GET /grounding-api-redirect/…` → 302 to the page), so
   * that an engine with `follow_redirects` can follow them without leaving loopback.
   */
  groundingRedirects?: boolean | "loopback";
  model?: string;
}

export interface FakeProvider {
  /** The value to put in an engine's `base_url`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Gemini with `groundingRedirects: "loopback"`: the redirect paths followed, in order. */
  readonly redirectsFollowed: string[];
  readonly inFlight: number;
  /** The highest number of requests the server was handling at once. */
  readonly maxInFlight: number;
  /** Requests whose client went away before their reply was sent (an abort or a client timeout). */
  readonly abandoned: number;
  stop(): Promise<void>;
}

export type Wire = "openai" | "openai-responses" | "anthropic" | "gemini";

export function startFakeOpenAI(options: FakeProviderOptions = {}): FakeProvider {
  return startFake("openai", options);
}

export function startFakeAnthropic(options: FakeProviderOptions = {}): FakeProvider {
  return startFake("anthropic", options);
}

export function startFakeResponses(options: FakeProviderOptions = {}): FakeProvider {
  return startFake("openai-responses", options);
}

export function startFakeGemini(options: FakeProviderOptions = {}): FakeProvider {
  return startFake("gemini", options);
}

/** The stand-in for an engine `api`. */
export function startFakeProvider(wire: Wire, options: FakeProviderOptions = {}): FakeProvider {
  return startFake(wire, options);
}

const ENDPOINTS: Record<Wire, RegExp> = {
  openai: /^\/v1\/chat\/completions$/,
  "openai-responses": /^\/v1\/responses$/,
  anthropic: /^\/v1\/messages$/,
  gemini: /^\/v1beta\/models\/[^/]+:generateContent$/,
};

function startFake(wire: Wire, options: FakeProviderOptions): FakeProvider {
  const requests: RecordedRequest[] = [];
  const attemptsByPrompt = new Map<string, number>();
  const hanging = new Set<() => void>();
  let inFlight = 0;
  let maxInFlight = 0;
  let abandoned = 0;
  const redirectsFollowed: string[] = [];
  let origin = "";

  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (wire === "gemini" && req.method === "GET" && path.startsWith("/grounding-api-redirect/")) {
        redirectsFollowed.push(path);
        const target = Buffer.from(path.slice("/grounding-api-redirect/".length), "base64url").toString();
        return new Response(null, { status: 302, headers: { location: target } });
      }
      if (req.method !== "POST" || !ENDPOINTS[wire].test(path)) return Response.json({ error: { message: "not found" } }, { status: 404 });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        const body = (await req.json().catch(() => null)) as unknown;
        const prompt = lastUserText(body);
        const attempt = (attemptsByPrompt.get(prompt) ?? 0) + 1;
        attemptsByPrompt.set(prompt, attempt);
        const recorded: RecordedRequest = {
          method: req.method,
          path,
          headers: Object.fromEntries(req.headers.entries()),
          body,
          prompt,
          attempt,
          receivedAt: Date.now(),
        };
        requests.push(recorded);

        const authError = checkAuth(wire, req.headers, options.apiKey);
        if (authError) return authError;

        const behaviour = await pickBehaviour(options, prompt, recorded);
        if (behaviour.kind === "hang") {
          await new Promise<void>((resolve) => {
            const release = (): void => {
              hanging.delete(release);
              resolve();
            };
            hanging.add(release);
            req.signal.addEventListener("abort", release, { once: true });
          });
          return new Response(null, { status: 499 });
        }
        const delay = behaviour.latencyMs ?? options.latencyMs ?? 0;
        if (delay > 0) await Bun.sleep(delay);
        return render(wire, behaviour, prompt, { ...options, origin });
      } finally {
        if (req.signal.aborted) abandoned++;
        inFlight--;
      }
    },
  });

  origin = `http://127.0.0.1:${server.port}`;
  return {
    redirectsFollowed,
    url: wire === "openai" || wire === "openai-responses" ? `http://127.0.0.1:${server.port}/v1` : `http://127.0.0.1:${server.port}`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    get abandoned() {
      return abandoned;
    },
    async stop() {
      for (const release of [...hanging]) release();
      await server.stop(true);
    },
  };
}

async function pickBehaviour(options: FakeProviderOptions, prompt: string, request: RecordedRequest): Promise<FakeBehaviour> {
  const fallback = options.fallback ?? answer(`Fake answer to: ${prompt}`);
  const script = options.script;
  if (!script) return fallback;
  if (typeof script === "function") return script(prompt, request);
  const entry = script[prompt];
  if (entry === undefined) return fallback;
  if (!Array.isArray(entry)) return entry;
  return entry[Math.min(request.attempt, entry.length) - 1] ?? fallback;
}

function checkAuth(wire: Wire, headers: Headers, apiKey: string | undefined): Response | null {
  if (apiKey === undefined) return null;
  if (wire === "gemini") {
    if (headers.get("x-goog-api-key") === apiKey) return null;
    return Response.json(
      { error: { code: 400, message: "API key not valid. Please pass a valid API key.", status: "INVALID_ARGUMENT" } },
      { status: 400 },
    );
  }
  if (wire === "openai" || wire === "openai-responses") {
    const sent = headers.get("authorization") ?? "";
    if (sent === `Bearer ${apiKey}`) return null;
    // OpenAI echoes part of the wrong key; the client must not store it.
    const token = sent.replace(/^Bearer\s+/i, "");
    const shown = token.length > 12 ? `${token.slice(0, 8)}…${token.slice(-4)}` : token;
    return Response.json(
      { error: { message: `Incorrect API key provided: ${shown}.`, type: "invalid_request_error", code: "invalid_api_key" } },
      { status: 401 },
    );
  }
  if (headers.get("x-api-key") === apiKey) return null;
  return Response.json({ type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } }, { status: 401 });
}

type RenderOptions = FakeProviderOptions & { origin: string };

function render(wire: Wire, behaviour: Exclude<FakeBehaviour, { kind: "hang" }>, prompt: string, options: RenderOptions): Response {
  const model = (behaviour.kind === "answer" ? behaviour.model : undefined) ?? options.model ?? "fake-model";
  switch (behaviour.kind) {
    case "raw":
      // A string (or bytes) body goes out verbatim, to script bodies that are not JSON at all, or not UTF-8.
      return typeof behaviour.body === "string" || behaviour.body instanceof Uint8Array
        ? new Response(behaviour.body as BodyInit, { status: behaviour.status ?? 200, headers: behaviour.headers })
        : Response.json(behaviour.body, { status: behaviour.status ?? 200, headers: behaviour.headers });
    case "error": {
      const headers: Record<string, string> = {};
      if (behaviour.retryAfter !== undefined) headers["retry-after"] = behaviour.retryAfter;
      const message = behaviour.message ?? `fake error ${behaviour.status}`;
      return Response.json(errorBody(wire, behaviour.status, message), { status: behaviour.status, headers });
    }
    case "answer":
      switch (wire) {
        case "openai":
          return Response.json(openAIAnswer(behaviour, model, prompt, options));
        case "openai-responses":
          return Response.json(responsesAnswer(behaviour, model, prompt));
        case "anthropic":
          return Response.json(anthropicAnswer(behaviour, model, prompt));
        case "gemini":
          return Response.json(geminiAnswer(behaviour, model, prompt, options));
      }
      break;
    case "empty":
      switch (wire) {
        case "openai":
          return Response.json(openAIEnvelope(model, prompt, { role: "assistant", content: "", refusal: null }, ""));
        case "openai-responses":
          return Response.json(responsesEnvelope(model, prompt, [responsesMessage([])], ""));
        case "anthropic":
          return Response.json(anthropicEnvelope(model, prompt, [], "end_turn", ""));
        case "gemini":
          return Response.json(
            geminiEnvelope(model, prompt, { content: { role: "model", parts: [] }, finishReason: "STOP", index: 0 }, ""),
          );
      }
      break;
    case "refusal": {
      const text = behaviour.text ?? "";
      switch (wire) {
        case "openai":
          return Response.json(openAIEnvelope(model, prompt, { role: "assistant", content: null, refusal: text }, text));
        case "openai-responses":
          return Response.json(responsesEnvelope(model, prompt, [responsesMessage([{ type: "refusal", refusal: text }])], text));
        case "anthropic":
          return Response.json(anthropicEnvelope(model, prompt, text ? [{ type: "text", text }] : [], "refusal", text));
        case "gemini":
          // A blocked prompt: no candidate, `promptFeedback.blockReason` says why.
          return Response.json({
            promptFeedback: { blockReason: "SAFETY" },
            usageMetadata: { promptTokenCount: countWords(prompt), totalTokenCount: countWords(prompt) },
            modelVersion: model,
          });
      }
    }
  }
  throw new Error(`unhandled fake behaviour ${behaviour.kind}`);
}

function errorBody(wire: Wire, status: number, message: string): unknown {
  switch (wire) {
    case "openai":
    case "openai-responses":
      return { error: { message, type: status === 429 ? "rate_limit_exceeded" : "server_error", code: null } };
    case "anthropic":
      return { type: "error", error: { type: status === 429 ? "rate_limit_error" : "api_error", message } };
    case "gemini":
      return { error: { code: status, message, status: status === 429 ? "RESOURCE_EXHAUSTED" : "INTERNAL" } };
  }
}

/** Where a citation's passage sits in the text: its quote's first occurrence, or the whole text. */
function span(text: string, c: FakeCitation): { start: number; end: number } {
  if (c.quote !== undefined) {
    const start = text.indexOf(c.quote);
    if (start >= 0) return { start, end: start + c.quote.length };
  }
  return { start: 0, end: text.length };
}

function responsesAnswer(behaviour: Extract<FakeBehaviour, { kind: "answer" }>, model: string, prompt: string): unknown {
  const output: unknown[] = [];
  const queries = behaviour.queries ?? [];
  const sources = behaviour.searchResults ?? [];
  // One web_search_call per query; the sources come with the first (as `include` asks for them).
  queries.forEach((query, i) => {
    output.push({
      type: "web_search_call",
      id: `ws_${i}`,
      status: "completed",
      action: { type: "search", query, sources: i === 0 ? sources.map((s) => ({ type: "url", url: s.url })) : [] },
    });
  });
  const annotations = (behaviour.citations ?? []).map((c) => {
    const { start, end } = span(behaviour.text, c);
    return { type: "url_citation", start_index: start, end_index: end, url: c.url, title: c.title ?? c.url };
  });
  output.push(responsesMessage([{ type: "output_text", text: behaviour.text, annotations }]));
  return responsesEnvelope(model, prompt, output, behaviour.text);
}

function responsesMessage(content: unknown[]): unknown {
  return { type: "message", id: `msg_${crypto.randomUUID()}`, status: "completed", role: "assistant", content };
}

function responsesEnvelope(model: string, prompt: string, output: unknown[], text: string): unknown {
  const usage = { input_tokens: countWords(prompt), output_tokens: countWords(text) };
  return {
    id: `resp_${crypto.randomUUID()}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    status: "completed",
    model,
    output,
    usage: { ...usage, total_tokens: usage.input_tokens + usage.output_tokens },
  };
}

function geminiAnswer(
  behaviour: Extract<FakeBehaviour, { kind: "answer" }>,
  model: string,
  prompt: string,
  options: RenderOptions,
): unknown {
  const redirects = options.groundingRedirects ?? true;
  const citations = behaviour.citations ?? [];
  // Chunks: the cited sources first, then the other results; supports point at chunk indices.
  const chunks: FakeCitation[] = [...citations];
  for (const r of behaviour.searchResults ?? []) if (!chunks.some((c) => c.url === r.url)) chunks.push(r);
  const chunkIndex = (url: string): number => chunks.findIndex((c) => c.url === url);
  const text = behaviour.text;
  const supports = citations.map((c) => {
    const { start, end } = span(text, c);
    // Segment offsets are UTF-8 byte offsets into the part.
    return {
      segment: {
        partIndex: 0,
        startIndex: Buffer.byteLength(text.slice(0, start)),
        endIndex: Buffer.byteLength(text.slice(0, end)),
        text: text.slice(start, end),
      },
      groundingChunkIndices: [chunkIndex(c.url)],
    };
  });
  const candidate: Record<string, unknown> = {
    content: { role: "model", parts: [{ text }] },
    finishReason: "STOP",
    index: 0,
  };
  if (chunks.length > 0 || (behaviour.queries ?? []).length > 0) {
    candidate.groundingMetadata = {
      webSearchQueries: behaviour.queries ?? [],
      searchEntryPoint: { renderedContent: "<div>search suggestions</div>" },
      groundingChunks: chunks.map((c, i) => ({
        web: {
          uri:
            redirects === "loopback"
              ? `${options.origin}/grounding-api-redirect/${Buffer.from(c.url).toString("base64url")}`
              : redirects
                ? `https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQ${i}fake${Buffer.from(c.url).toString("base64url")}`
                : c.url,
          title: c.title ?? new URL(c.url).hostname.replace(/^www\./, ""),
        },
      })),
      groundingSupports: supports,
    };
  }
  return geminiEnvelope(model, prompt, candidate, text);
}

function geminiEnvelope(model: string, prompt: string, candidate: Record<string, unknown>, text: string): unknown {
  const usage = { promptTokenCount: countWords(prompt), candidatesTokenCount: countWords(text) };
  return {
    candidates: [candidate],
    usageMetadata: { ...usage, totalTokenCount: usage.promptTokenCount + usage.candidatesTokenCount },
    modelVersion: model,
    responseId: crypto.randomUUID(),
  };
}

function openAIAnswer(
  behaviour: Extract<FakeBehaviour, { kind: "answer" }>,
  model: string,
  prompt: string,
  options: FakeProviderOptions,
): unknown {
  const citations = behaviour.citations ?? [];
  const style = options.citationStyle ?? "annotations";
  const message: Record<string, unknown> = { role: "assistant", content: behaviour.text, refusal: null };
  if (style === "annotations" && citations.length > 0) {
    message.annotations = citations.map((c) => {
      const { start, end } = span(behaviour.text, c);
      return { type: "url_citation", url_citation: { url: c.url, title: c.title ?? c.url, start_index: start, end_index: end } };
    });
  }
  const envelope = openAIEnvelope(model, prompt, message, behaviour.text);
  if (style === "perplexity" && citations.length > 0) {
    envelope.citations = citations.map((c) => c.url);
    const results = [...citations];
    for (const r of behaviour.searchResults ?? []) if (!results.some((c) => c.url === r.url)) results.push(r);
    envelope.search_results = results.map((c) => ({ title: c.title ?? c.url, url: c.url, date: null }));
  }
  return envelope;
}

function openAIEnvelope(model: string, prompt: string, message: Record<string, unknown>, text: string): Record<string, unknown> {
  const usage = { prompt_tokens: countWords(prompt), completion_tokens: countWords(text) };
  return {
    id: `chatcmpl-${crypto.randomUUID()}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: "stop" }],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

function anthropicAnswer(behaviour: Extract<FakeBehaviour, { kind: "answer" }>, model: string, prompt: string): unknown {
  const content: unknown[] = [];
  (behaviour.queries ?? []).forEach((query, i) => {
    content.push({ type: "server_tool_use", id: `srvtoolu_${i}`, name: "web_search", input: { query } });
    content.push({
      type: "web_search_tool_result",
      tool_use_id: `srvtoolu_${i}`,
      content:
        i === 0
          ? (behaviour.searchResults ?? []).map((r) => ({
              type: "web_search_result",
              url: r.url,
              title: r.title ?? r.url,
              encrypted_content: "x",
              page_age: null,
            }))
          : [],
    });
  });
  if ((behaviour.queries ?? []).length === 0 && behaviour.searchResults && behaviour.searchResults.length > 0) {
    content.push({
      type: "web_search_tool_result",
      tool_use_id: "srvtoolu_fake",
      content: behaviour.searchResults.map((r) => ({
        type: "web_search_result",
        url: r.url,
        title: r.title ?? r.url,
        encrypted_content: "x",
      })),
    });
  }
  // The text is cut into blocks at the quoted passages; a passage's block carries its citations.
  const text = behaviour.text;
  const cuts = new Set<number>([0, text.length]);
  const cites = (behaviour.citations ?? []).map((c) => ({ c, ...span(text, c) }));
  for (const { start, end } of cites) {
    cuts.add(start);
    cuts.add(end);
  }
  const points = [...cuts].sort((a, b) => a - b);
  for (let i = 0; i + 1 < points.length; i++) {
    const [from, to] = [points[i]!, points[i + 1]!];
    const here = cites.filter((x) => x.start <= from && x.end >= to && x.start < x.end);
    const block: Record<string, unknown> = { type: "text", text: text.slice(from, to) };
    if (here.length > 0) {
      block.citations = here.map(({ c }) => ({
        type: "web_search_result_location",
        url: c.url,
        title: c.title ?? c.url,
        encrypted_index: "x",
        cited_text: text.slice(from, to).slice(0, 150),
      }));
    }
    content.push(block);
  }
  if (text.length === 0) content.push({ type: "text", text: "" });
  const envelope = anthropicEnvelope(model, prompt, content, "end_turn", text) as Record<string, unknown>;
  if ((behaviour.queries ?? []).length > 0) {
    (envelope.usage as Record<string, unknown>).server_tool_use = { web_search_requests: behaviour.queries!.length };
  }
  return envelope;
}

function anthropicEnvelope(model: string, prompt: string, content: unknown[], stopReason: string, text: string): unknown {
  return {
    id: `msg_${crypto.randomUUID()}`,
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: { input_tokens: countWords(prompt), output_tokens: countWords(text) },
  };
}

function lastUserText(body: unknown): string {
  if (typeof body !== "object" || body === null) return "";
  const b = body as { messages?: unknown; input?: unknown; contents?: unknown };
  if (typeof b.input === "string") return b.input;
  // Chat completions and Messages: `messages`; Responses: `input`; Gemini: `contents` with `parts`.
  const messages = Array.isArray(b.messages) ? b.messages : Array.isArray(b.input) ? b.input : Array.isArray(b.contents) ? b.contents : [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown; parts?: unknown } | null;
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    const parts = Array.isArray(m.content) ? m.content : Array.isArray(m.parts) ? m.parts : [];
    return parts
      .map((part: unknown) => (part as { text?: unknown } | null)?.text)
      .filter((t): t is string => typeof t === "string")
      .join("");
  }
  return "";
}

function toCitation(input: CitationInput): FakeCitation {
  return typeof input === "string" ? { url: input } : input;
}

function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
