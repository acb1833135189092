/** One tracked AI assistant, as the config loader produces it (CONTRACT §6 `[[engines]]`). */
export interface EngineConfig {
  id: string;
  label: string;
  api: "openai" | "anthropic";
  base_url: string;
  model: string;
  /** Name of the environment variable holding the key; the value is read per request, never stored. */
  api_key_env?: string;
  timeout_ms?: number;
  max_retries?: number;
  concurrency?: number;
  temperature?: number;
  max_tokens?: number;
}

/** The writer model uses the same fields minus the tracking-only ones. */
export type ModelConfig = Omit<EngineConfig, "id" | "label" | "concurrency"> & Partial<Pick<EngineConfig, "id" | "label">>;

export type AnswerStatus = "ok" | "empty" | "refusal" | "error";

export interface EngineAnswer {
  status: AnswerStatus;
  text: string;
  /** Raw URLs from the provider's citation fields, in provider order, deduplicated verbatim. */
  citations: string[];
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
}

/** What a provider adapter extracts from a 2xx body, before classification. */
export interface ParsedReply {
  text: string;
  citations: string[];
  /** Set when the provider itself flagged a refusal (OpenAI `message.refusal`, Anthropic `stop_reason`). */
  refusal: string | null;
  model: string | null;
  tokens_in: number | null;
  tokens_out: number | null;
}
