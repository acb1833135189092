/** The provider wire formats an engine can speak (CONTRACT §6). */
export type EngineApi = "openai" | "openai-responses" | "anthropic" | "gemini";
export const ENGINE_APIS: readonly EngineApi[] = ["openai", "openai-responses", "anthropic", "gemini"];

/** One tracked AI assistant, as the config loader produces it (CONTRACT §6 `[[engines]]`). */
export interface EngineConfig {
  id: string;
  label: string;
  api: EngineApi;
  base_url: string;
  model: string;
  /** Name of the environment variable holding the key; the value is read per request, never stored. */
  api_key_env?: string;
  timeout_ms?: number;
  max_retries?: number;
  concurrency?: number;
  temperature?: number;
  max_tokens?: number;
  /**
   * Let the assistant search the web before it answers (the provider's hosted search tool).
   * The config loader defaults it per API (see `defaultWebSearch`); absent here means off.
   */
  web_search?: boolean;
  /**
   * Gemini only: follow each grounding redirect once (a GET without following it further) to learn
   * the exact page it points to, instead of the site its title names. Off by default: it sends one
   * request per cited source to the redirect's host.
   */
  follow_redirects?: boolean;
}

/**
 * One web source an answer refers to. `start`/`end` are UTF-16 offsets in the answer text of the
 * passage that cites it, when the provider gives (or implies) one; null otherwise.
 */
export interface SourceRef {
  url: string;
  title: string | null;
  start: number | null;
  end: number | null;
}

/** The writer model uses the same fields minus the tracking-only ones. */
export type ModelConfig = Omit<EngineConfig, "id" | "label" | "concurrency"> & Partial<Pick<EngineConfig, "id" | "label">>;

export type AnswerStatus = "ok" | "empty" | "refusal" | "error";

export interface EngineAnswer {
  status: AnswerStatus;
  text: string;
  /**
   * Raw URLs from the provider's citation fields, in provider order, deduplicated verbatim: the
   * input of citation analysis. Redirect-wrapped URLs appear resolved, or not at all when they
   * could not be resolved (they stay in `cited` with their title).
   */
  citations: string[];
  /** Every cited passage with its source (a URL may appear once per passage). */
  cited: SourceRef[];
  /** Sources the search returned, cited or not, as the provider lists them (deduplicated by URL). */
  retrieved: SourceRef[];
  /** The web search queries the assistant ran, in order, deduplicated verbatim. */
  queries: string[];
  model: string;
  /** Latency of the final attempt, from sending the request to having parsed the body. */
  latency_ms: number;
  tokens_in: number | null;
  tokens_out: number | null;
  /** Why an `error` happened (HTTP status and a short provider message); null otherwise. */
  error: string | null;
  /** HTTP requests actually sent (0 when nothing could be sent, e.g. a missing key). */
  attempts: number;
}

/** Where a question is asked from, for engines whose web search takes a location. */
export interface AskContext {
  /** The prompt's country (ISO 3166-1 alpha-2), as the web search's approximate location; none: the provider's default. */
  country?: string | null;
}

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface ClientOptions {
  fetch?: FetchLike;
  /** Waits between retries; injectable so tests record delays instead of waiting. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
  /** Source of randomness for backoff jitter, in [0, 1). */
  random?: () => number;
  /** Environment to read the API key from; defaults to process.env. */
  env?: Record<string, string | undefined>;
  /**
   * Hears an engine's pause when it starts or grows (a 429 or an overload held the engine's
   * requests until `until`, ms), with the provider's answer that asked for it.
   */
  onEnginePause?: (engine: string, until: number, reason: string) => void;
}

/** What a provider adapter extracts from a 2xx body, before classification. */
export interface ParsedReply {
  text: string;
  citations: string[];
  cited: SourceRef[];
  retrieved: SourceRef[];
  queries: string[];
  /** Set when the provider itself flagged a refusal (OpenAI `message.refusal`, Anthropic `stop_reason`). */
  refusal: string | null;
  /**
   * Why the answer ended before the model finished it, as the provider says: its output limit
   * (max_tokens), or Anthropic's pause during a long web search (pause_turn); null when it finished.
   */
  stopped?: "max_tokens" | "paused" | null;
  model: string | null;
  tokens_in: number | null;
  tokens_out: number | null;
}
