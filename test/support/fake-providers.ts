/**
 * Stand-in LLM providers: real HTTP servers on loopback that speak the OpenAI chat-completions and
 * Anthropic Messages wire formats, scripted per prompt. Used by unit tests of the engine clients and
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
}

export type FakeBehaviour =
  | {
      kind: "answer";
      text: string;
      citations?: FakeCitation[];
      /** Anthropic only: results the model read but did not cite (a `web_search_tool_result` block). */
      searchResults?: FakeCitation[];
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
  opts: { citations?: CitationInput[]; searchResults?: CitationInput[]; model?: string; latencyMs?: number } = {},
): FakeBehaviour {
  return {
    kind: "answer",
    text,
    citations: opts.citations?.map(toCitation),
    searchResults: opts.searchResults?.map(toCitation),
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
  model?: string;
}

export interface FakeProvider {
  /** The value to put in an engine's `base_url`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  readonly inFlight: number;
  /** The highest number of requests the server was handling at once. */
  readonly maxInFlight: number;
  stop(): Promise<void>;
}

type Wire = "openai" | "anthropic";

export function startFakeOpenAI(options: FakeProviderOptions = {}): FakeProvider {
  return startFake("openai", options);
}

export function startFakeAnthropic(options: FakeProviderOptions = {}): FakeProvider {
  return startFake("anthropic", options);
}

function startFake(wire: Wire, options: FakeProviderOptions): FakeProvider {
  const requests: RecordedRequest[] = [];
  const attemptsByPrompt = new Map<string, number>();
  const hanging = new Set<() => void>();
  let inFlight = 0;
  let maxInFlight = 0;
  const endpoint = wire === "openai" ? "/v1/chat/completions" : "/v1/messages";

  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 0,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (req.method !== "POST" || path !== endpoint) return Response.json({ error: { message: "not found" } }, { status: 404 });
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
        return render(wire, behaviour, prompt, options);
      } finally {
        inFlight--;
      }
    },
  });

  return {
    url: wire === "openai" ? `http://127.0.0.1:${server.port}/v1` : `http://127.0.0.1:${server.port}`,
    requests,
    get inFlight() {
      return inFlight;
    },
    get maxInFlight() {
      return maxInFlight;
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
  if (wire === "openai") {
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

function render(wire: Wire, behaviour: Exclude<FakeBehaviour, { kind: "hang" }>, prompt: string, options: FakeProviderOptions): Response {
  const model = (behaviour.kind === "answer" ? behaviour.model : undefined) ?? options.model ?? "fake-model";
  switch (behaviour.kind) {
    case "raw":
      // A string body goes out verbatim, to script bodies that are not JSON at all.
      return typeof behaviour.body === "string"
        ? new Response(behaviour.body, { status: behaviour.status ?? 200, headers: behaviour.headers })
        : Response.json(behaviour.body, { status: behaviour.status ?? 200, headers: behaviour.headers });
    case "error": {
      const headers: Record<string, string> = {};
      if (behaviour.retryAfter !== undefined) headers["retry-after"] = behaviour.retryAfter;
      const message = behaviour.message ?? `fake error ${behaviour.status}`;
      const body =
        wire === "openai"
          ? { error: { message, type: "server_error", code: null } }
          : { type: "error", error: { type: behaviour.status === 429 ? "rate_limit_error" : "api_error", message } };
      return Response.json(body, { status: behaviour.status, headers });
    }
    case "answer":
      return Response.json(wire === "openai" ? openAIAnswer(behaviour, model, prompt, options) : anthropicAnswer(behaviour, model, prompt));
    case "empty":
      return Response.json(
        wire === "openai"
          ? openAIEnvelope(model, prompt, { role: "assistant", content: "", refusal: null }, "")
          : anthropicEnvelope(model, prompt, [], "end_turn", ""),
      );
    case "refusal": {
      const text = behaviour.text ?? "";
      return Response.json(
        wire === "openai"
          ? openAIEnvelope(model, prompt, { role: "assistant", content: null, refusal: text }, text)
          : anthropicEnvelope(model, prompt, text ? [{ type: "text", text }] : [], "refusal", text),
      );
    }
  }
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
    message.annotations = citations.map((c) => ({
      type: "url_citation",
      url_citation: { url: c.url, title: c.title ?? c.url, start_index: 0, end_index: behaviour.text.length },
    }));
  }
  const envelope = openAIEnvelope(model, prompt, message, behaviour.text);
  if (style === "perplexity" && citations.length > 0) {
    envelope.citations = citations.map((c) => c.url);
    envelope.search_results = citations.map((c) => ({ url: c.url, title: c.title ?? c.url }));
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
  if (behaviour.searchResults && behaviour.searchResults.length > 0) {
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
  const citations = (behaviour.citations ?? []).map((c) => ({
    type: "web_search_result_location",
    url: c.url,
    title: c.title ?? c.url,
    encrypted_index: "x",
    cited_text: behaviour.text.slice(0, 50),
  }));
  content.push(citations.length > 0 ? { type: "text", text: behaviour.text, citations } : { type: "text", text: behaviour.text });
  return anthropicEnvelope(model, prompt, content, "end_turn", behaviour.text);
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
  const messages = (body as { messages?: unknown }).messages;
  if (!Array.isArray(messages)) return "";
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i] as { role?: unknown; content?: unknown } | null;
    if (m?.role !== "user") continue;
    if (typeof m.content === "string") return m.content;
    if (Array.isArray(m.content)) {
      return m.content
        .map((part: unknown) => (part as { text?: unknown } | null)?.text)
        .filter((t): t is string => typeof t === "string")
        .join("");
    }
  }
  return "";
}

function toCitation(input: CitationInput): FakeCitation {
  return typeof input === "string" ? { url: input } : input;
}

function countWords(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
