import { moment } from "../moment";
import { buildAnthropicRequest, parseAnthropicReply } from "./anthropic";
import { buildGeminiRequest, geminiSourceUris, parseGeminiReply } from "./gemini";
import { asObject, providerErrorMessage } from "./json";
import { createLimiter, LimiterAbortedError } from "./limiter";
import { buildOpenAIRequest, parseOpenAIReply } from "./openai";
import { buildResponsesRequest, parseResponsesReply } from "./openai-responses";
import { looksLikeRefusal } from "./refusal";
import { backoffDelayMs, isRetryableStatus, LONGEST_HOLD_MS, parseRetryAfter, RETRY_AFTER_CAP_MS, sleepMs } from "./retry";
import { followRedirects, GOOGLE_REDIRECT_ORIGIN } from "./sources";
import {
  type AskContext,
  type ChatMessage,
  type ClientOptions,
  type EngineAnswer,
  type EngineApi,
  type EngineConfig,
  type ModelConfig,
  type ParsedReply,
  type SourceRef,
} from "./types";

type Adapter = {
  build: (config: ModelConfig, messages: ChatMessage[], apiKey: string | null, context?: AskContext) => { url: string; init: RequestInit };
  parse: (body: unknown) => ParsedReply;
  /** The field a reply of this format carries its answer in: a 200 without it is no answer (another API's reply, a gateway's). */
  answerField: string;
};

/** One adapter per wire format (CONTRACT §6 `api`). */
const ADAPTERS: Record<EngineApi, Adapter> = {
  openai: { build: buildOpenAIRequest, parse: parseOpenAIReply, answerField: "choices" },
  "openai-responses": { build: buildResponsesRequest, parse: parseResponsesReply, answerField: "output" },
  anthropic: { build: buildAnthropicRequest, parse: parseAnthropicReply, answerField: "content" },
  gemini: { build: buildGeminiRequest, parse: parseGeminiReply, answerField: "candidates" },
};

/**
 * The most a reply may be, in bytes: an answer with its sources is tens of kilobytes. A larger one
 * (a misbehaving provider or proxy) is refused unread past this: 80 MB of 8 MB answers went into the
 * database in one run, and analysing a 4 MB one holds the thread for ~1 s.
 */
export const MAX_REPLY_BYTES = 1024 * 1024;

class ReplyTooLarge extends Error {}
/** A reply whose bytes are not UTF-8 and declare no other charset this runtime can read. */
class ReplyNotText extends Error {}

/** The reply's text, or ReplyTooLarge past MAX_REPLY_BYTES (declared or read). */
async function readReply(response: Response): Promise<string> {
  // An error's body is only quoted: read leniently, so that its status still decides a retry.
  const strict = response.ok;
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > MAX_REPLY_BYTES) {
    await response.body?.cancel().catch(() => undefined);
    throw new ReplyTooLarge();
  }
  if (!response.body) return "";
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    received += value.byteLength;
    if (received > MAX_REPLY_BYTES) {
      await reader.cancel().catch(() => undefined);
      throw new ReplyTooLarge();
    }
    chunks.push(value);
  }
  const bytes = Buffer.concat(chunks);
  // JSON is UTF-8 (RFC 8259: a charset parameter has no effect), and a gateway may mislabel it
  // ISO-8859-1: UTF-8 first. Only bytes that are not UTF-8 are read in the charset the reply
  // declares (a gateway's Latin-1: its text was stored garbled, and counted).
  // TextDecoder drops a leading byte-order mark, as response.text() did (some gateways send one).
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    // Below: the declared charset, or an error.
  }
  const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(response.headers.get("content-type") ?? "")?.[1]?.toLowerCase();
  if (charset && charset !== "utf-8" && charset !== "utf8") {
    try {
      return new TextDecoder(charset).decode(bytes);
    } catch {
      // A label TextDecoder does not know.
    }
  }
  if (!strict) return new TextDecoder().decode(bytes);
  throw new ReplyNotText();
}

/** Whether a 200's JSON has the adapter's answer field (a gemini reply may instead say why the prompt was blocked). */
function hasAnswer(adapter: Adapter, body: unknown): boolean {
  const root = asObject(body);
  if (!root) return false;
  if (Array.isArray(root[adapter.answerField])) return true;
  return adapter.answerField === "candidates" && asObject(root.promptFeedback) !== null;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRIES = 3;
/** Matches `[tracking] concurrency` in CONTRACT §6 when the loader does not pass one. */
export const DEFAULT_CONCURRENCY = 8;
/** Provider error messages are kept short: enough to act on, not a stored copy of their body. */
const MAX_REASON_CHARS = 200;

export interface EngineClient {
  readonly config: EngineConfig;
  /**
   * Asks one prompt as a user would type it, from the prompt's country when it has one (the web
   * search's location); never throws, failures come back as `status: "error"`.
   */
  ask(prompt: string, signal?: AbortSignal, context?: AskContext): Promise<EngineAnswer>;
  /** Requests currently holding a slot of this engine's limiter. */
  readonly inFlight: number;
}

/** Consecutive refusals of the key (401, 403) after which the engine's requests fail without being sent. */
export const REFUSALS_BEFORE_HOLD = 3;
/** How long they do: then one request tries again (a key put right, a provider's passing fault). */
export const REFUSAL_HOLD_MS = 5 * 60_000;

/**
 * What one engine's requests share, across its workers and runs: a pause the provider asked for (429
 * or 503, with Retry-After or the backoff's delay) holds every request of the engine, not only the
 * one that met it (eight workers each waiting on their own kept sending: 800 requests in 45 s to a
 * provider answering 429); and after REFUSALS_BEFORE_HOLD refusals of the key in a row, the engine's
 * requests fail at once with that refusal for REFUSAL_HOLD_MS, instead of each asking with a dead key.
 */
export class EngineGate {
  private pausedUntil = 0;
  private refusals = 0;
  private refused: { reason: string; until: number } | null = null;
  /** A long Retry-After: until when the engine's requests fail unsent (defer), and the provider's answer. */
  private deferred: { reason: string; until: number } | null = null;
  /** After a hold, the one request sent to see whether the key works again; the others fail meanwhile. */
  private probing = false;

  constructor(
    private readonly now: () => number,
    private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
    /** Hears a pause that starts or grows, with the provider's answer that asked for it. */
    private readonly onPause?: (until: number, reason: string) => void,
  ) {}

  /** Holds until `until` unless a longer pause is set already, telling onPause when it grows. */
  private extend(until: number, reason: string): number {
    if (until <= this.pausedUntil) return this.pausedUntil;
    this.pausedUntil = until;
    this.onPause?.(until, reason);
    return until;
  }

  /**
   * Waits out a pause (one this request has not already waited out: `covered`, what hold() gave it);
   * the refusal to answer with instead of sending, or null.
   */
  async beforeRequest(
    signal?: AbortSignal,
    covered = 0,
  ): Promise<{ why: "refused" | "deferred"; reason: string; until: number | null } | null> {
    const at = this.now();
    if (this.deferred && at < this.deferred.until) return { why: "deferred", ...this.deferred };
    const until = this.pausedUntil;
    if (until > covered && until > at) await this.sleep(until - at, signal);
    if (!this.refused) return null;
    // Held: until when; past it, while the one request sent to try the key again is under way: null.
    if (this.now() < this.refused.until) return { why: "refused", ...this.refused };
    if (this.probing) return { why: "refused", reason: this.refused.reason, until: null };
    // The hold is over: this request alone tries the key again (record() ends the probe).
    this.probing = true;
    return null;
  }

  /**
   * The provider asked for a longer wait than a request waits (RETRY_AFTER_CAP_MS): the engine's
   * requests fail unsent until `until`, saying so, instead of waiting and asking again and again.
   */
  defer(until: number, reason: string): void {
    if (until > (this.deferred?.until ?? 0)) this.deferred = { until, reason };
  }

  /** Holds the engine's requests for `ms` (or a longer pause already set), without waiting; `reason` is the provider's answer. */
  pause(ms: number, reason: string): void {
    this.extend(this.now() + ms, reason);
  }

  /** Holds the engine's requests for `ms` (or a longer pause already set) and waits it out; the time it waited until. */
  async hold(ms: number, reason: string, signal?: AbortSignal): Promise<number> {
    const at = this.now();
    const until = this.extend(at + ms, reason);
    await this.sleep(until - at, signal);
    return until;
  }

  /** After each answer of the provider: a refusal of the key (401, 403) or anything else. */
  record(status: number, reason: string): void {
    this.probing = false;
    if (status !== 401 && status !== 403) {
      this.refusals = 0;
      this.refused = null;
      return;
    }
    this.refusals++;
    if (this.refusals >= REFUSALS_BEFORE_HOLD) this.refused = { reason, until: this.now() + REFUSAL_HOLD_MS };
  }

  /** A request that got no answer from the provider (a timeout, a reset): a probe under way ends without a verdict. */
  unanswered(): void {
    this.probing = false;
  }
}

/** A provider's wait as people say it: "90 seconds", "2 minutes", "3 hours". */
function waitText(ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (seconds < 120) return `${seconds} seconds`;
  const minutes = Math.round(seconds / 60);
  return minutes < 120 ? `${minutes} minutes` : `${Math.round(minutes / 60)} hours`;
}

export function createEngineClient(config: EngineConfig, opts: ClientOptions = {}): EngineClient {
  const limiter = createLimiter(config.concurrency ?? DEFAULT_CONCURRENCY);
  const onPause = opts.onEnginePause;
  const gate = new EngineGate(
    opts.now ?? Date.now,
    opts.sleep ?? sleepMs,
    onPause && ((until, reason) => onPause(config.id, until, reason)),
  );
  return {
    config,
    async ask(prompt, signal, context) {
      try {
        return await limiter.run(() => complete(config, [{ role: "user", content: prompt }], { ...opts, signal, gate, context }), signal);
      } catch (error) {
        if (error instanceof LimiterAbortedError) return failure(config, "aborted", 0, 0);
        throw error;
      }
    },
    get inFlight() {
      return limiter.inFlight;
    },
  };
}

/**
 * Sends one chat exchange with timeout and retries, and classifies the reply.
 * Shared by tracking (`ask`) and the article writer (system + user messages). Never throws.
 */
export async function complete(
  config: ModelConfig,
  messages: ChatMessage[],
  opts: ClientOptions & { signal?: AbortSignal; gate?: EngineGate; context?: AskContext } = {},
): Promise<EngineAnswer> {
  const doFetch = opts.fetch ?? ((input: string, init: RequestInit) => fetch(input, init));
  const sleep = opts.sleep ?? sleepMs;
  const now = opts.now ?? Date.now;
  const random = opts.random ?? Math.random;
  const env = opts.env ?? process.env;
  const timeoutMs = config.timeout_ms ?? DEFAULT_TIMEOUT_MS;
  const maxAttempts = 1 + Math.max(0, config.max_retries ?? DEFAULT_MAX_RETRIES);

  let apiKey: string | null = null;
  if (config.api_key_env) {
    apiKey = env[config.api_key_env]?.trim() || null;
    if (!apiKey) return failure(config, `environment variable ${config.api_key_env} is not set`, 0, 0);
  }
  const redact = (message: string): string => redactKey(message, apiKey);
  // A key shorter than REDACTED_RUN, or without a digit, is a placeholder (a local server's "ollama",
  // "x", llama.cpp's "sk-no-key-required"), not a secret: hidden in an answer's text by its runs it
  // mangled every word holding its letters ("e[redacted]cellent", every "required"). Providers' keys
  // all hold digits.
  const redactAnswer = (text: string): string =>
    apiKey === null || apiKey.length < REDACTED_RUN ? text : /\d/.test(apiKey) ? redactKey(text, apiKey) : redactWhole(text, apiKey);
  const adapter = ADAPTERS[config.api];
  const request = adapter.build(config, messages, apiKey, opts.context);
  const parse = adapter.parse;
  const tooLarge = `the provider's reply is over ${MAX_REPLY_BYTES / 1024 / 1024} MiB; it was not read`;

  let reason = "no attempt made";
  let latency = 0;
  // The engine's pause this request has waited out already (EngineGate.hold).
  let covered = 0;
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    if (opts.signal?.aborted) return failure(config, "aborted", latency, attempt - 1);
    const refused = await opts.gate?.beforeRequest(opts.signal, covered);
    if (opts.signal?.aborted) return failure(config, "aborted", latency, attempt - 1);
    if (refused?.why === "deferred") {
      // The reason says what the provider asked for; until is when the engine is asked again (an hour at most).
      return failure(config, `not sent before ${moment(refused.until!, now())}: ${refused.reason}`, 0, attempt - 1);
    }
    if (refused) {
      // When the engine asks again, and where its key is read from: the hold said neither.
      const when =
        refused.until === null
          ? "one request is trying the key again"
          : `none is sent before ${moment(refused.until, now())}, when one tries the key again`;
      const where = config.api_key_env ? `; check the key in ${config.api_key_env}` : "";
      return failure(
        config,
        `not sent: the provider refused the key on the last requests (${refused.reason}); ${when}${where}`,
        0,
        attempt - 1,
      );
    }

    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onOuterAbort = (): void => controller.abort();
    opts.signal?.addEventListener("abort", onOuterAbort, { once: true });

    const started = now();
    let retryAfterMs: number | null = null;
    let retryable = false;
    let holdsEngine = false;
    try {
      const response = await doFetch(request.url, { ...request.init, signal: controller.signal });
      const raw = await readReply(response);
      latency = now() - started;
      const body = parseJson(raw);
      // The gate hears every answer: a 2xx ends a run of refusals (a failure records its own below).
      if (response.ok) opts.gate?.record(response.status, "");
      if (!response.ok) {
        const message = providerErrorMessage(body) ?? (response.statusText || raw.slice(0, MAX_REASON_CHARS));
        reason = shorten(redact(`HTTP ${response.status}${message ? `: ${message}` : ""}`));
        retryable = isRetryableStatus(response.status);
        retryAfterMs = parseRetryAfter(response.headers, now());
        opts.gate?.record(response.status, reason);
        holdsEngine = response.status === 429 || response.status === 503 || response.status === 529;
      } else if (body === undefined) {
        const type = response.headers.get("content-type")?.split(";", 1)[0]?.trim() || "none";
        return failure(
          config,
          `provider returned a body that is not JSON (content-type ${type}; a proxy's or gateway's page? check the engine's base_url)`,
          latency,
          attempt,
        );
      } else if (!hasAnswer(adapter, body)) {
        // A 200 that carries an error (some gateways answer "overloaded" so) is tried again; one of
        // another shape is no answer of this API (a wrong api or base_url), said as such.
        const message = providerErrorMessage(body);
        if (message === null) {
          return failure(
            config,
            `the provider's reply has no "${adapter.answerField}": it is not an answer of the ${config.api} API (check the engine's api and base_url)`,
            latency,
            attempt,
          );
        }
        reason = shorten(redact(`HTTP ${response.status} with an error: ${message}`));
        retryable = true;
      } else if (config.api === "gemini" && config.follow_redirects) {
        const origins = new Set([GOOGLE_REDIRECT_ORIGIN, new URL(config.base_url).origin]);
        const followed = await followRedirects(geminiSourceUris(body), doFetch, origins, opts.signal);
        return classify(config, parseGeminiReply(body, followed), now() - started, attempt, redactAnswer);
      } else {
        return classify(config, parse(body), latency, attempt, redactAnswer);
      }
    } catch (error) {
      latency = now() - started;
      opts.gate?.unanswered();
      if (opts.signal?.aborted) return failure(config, "aborted", latency, attempt);
      if (error instanceof ReplyTooLarge) return failure(config, tooLarge, latency, attempt);
      if (error instanceof ReplyNotText) {
        return failure(
          config,
          "the provider's reply is not UTF-8 and names no other charset: its text could not be read",
          latency,
          attempt,
        );
      }
      reason = timedOut ? `timeout after ${timeoutMs} ms` : shorten(redact(networkReason(request.url, error)));
      retryable = true;
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onOuterAbort);
    }

    // Asked to wait longer than a request waits (a quota spent for the hour): not asked again by this
    // request, and the engine's other requests fail unsent until then (at most LONGEST_HOLD_MS).
    if (retryable && retryAfterMs !== null && retryAfterMs > RETRY_AFTER_CAP_MS) {
      const at = now();
      const until = at + Math.min(retryAfterMs, LONGEST_HOLD_MS);
      const asked = `${reason} (the provider asked to wait ${waitText(retryAfterMs)}, until ${moment(at + retryAfterMs, at)})`;
      opts.gate?.defer(until, asked);
      // A tracking engine (with its gate) is asked again from then; the writer's request is simply over.
      const then = opts.gate ? `a run does not wait that long: the engine is asked again from ${moment(until, at)}` : "try again then";
      return failure(config, `${asked}; ${then}`, latency, attempt);
    }
    const delay = retryAfterMs ?? backoffDelayMs(attempt - 1, random);
    if (!retryable || attempt === maxAttempts) {
      // This request is done, but the engine's next ones still wait for the pause asked for.
      if (holdsEngine) opts.gate?.pause(delay, reason);
      return failure(config, reason, latency, attempt);
    }
    // A rate limit or an overload holds every request of the engine, for as long as asked.
    if (holdsEngine && opts.gate) covered = await opts.gate.hold(delay, reason, opts.signal);
    else await sleep(delay, opts.signal);
  }
  return failure(config, reason, latency, maxAttempts);
}

/**
 * The answer as stored: every string of it without the engine's API key (a provider or proxy that
 * echoes the request's key would otherwise have it stored and shown, to the dashboard and to AI
 * clients: in the text, and in a cited or retrieved source's address or title, a search query, the
 * model's name or a refusal), classified.
 */
function classify(
  config: ModelConfig,
  parsed: ParsedReply,
  latency: number,
  attempts: number,
  redact: (text: string) => string,
): EngineAnswer {
  const source = (ref: SourceRef): SourceRef => ({ ...ref, url: redact(ref.url), title: ref.title === null ? null : redact(ref.title) });
  const reply: ParsedReply = {
    ...parsed,
    text: redact(parsed.text),
    citations: parsed.citations.map(redact),
    cited: parsed.cited.map(source),
    retrieved: parsed.retrieved.map(source),
    queries: parsed.queries.map(redact),
    refusal: parsed.refusal === null ? null : redact(parsed.refusal),
    model: parsed.model === null ? null : redact(parsed.model),
  };
  const base = {
    citations: dedupe(reply.citations),
    cited: reply.cited,
    retrieved: reply.retrieved,
    queries: dedupe(reply.queries),
    model: reply.model ?? config.model,
    latency_ms: latency,
    tokens_in: reply.tokens_in,
    tokens_out: reply.tokens_out,
    error: null,
    attempts,
  };
  if (reply.refusal !== null) return { ...base, status: "refusal", text: reply.text || reply.refusal };
  // An answer the model did not finish is not read as one: a brand it would have named further on
  // would count as not mentioned (METRICS.md). Its text is kept, to be seen; the answer is an error.
  if (reply.stopped) return { ...base, status: "error", text: reply.text, error: STOPPED[reply.stopped] };
  if (reply.text.trim() === "") return { ...base, status: "empty", text: "" };
  if (looksLikeRefusal(reply.text)) return { ...base, status: "refusal", text: reply.text };
  return { ...base, status: "ok", text: reply.text };
}

export const STOPPED: Record<"max_tokens" | "paused", string> = {
  max_tokens:
    "the answer was cut off at the model's output limit (max_tokens): it is left out of the figures, as an answer that could not be read whole; raise the engine's max_tokens in spyglass.toml",
  paused:
    "the provider paused the answer during its web search (pause_turn), before it was written: it is left out of the figures, as an answer that could not be read whole",
};

function failure(config: ModelConfig, reason: string, latency: number, attempts: number): EngineAnswer {
  return {
    status: "error",
    text: "",
    citations: [],
    cited: [],
    retrieved: [],
    queries: [],
    model: config.model,
    latency_ms: latency,
    tokens_in: null,
    tokens_out: null,
    error: reason,
    attempts,
  };
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

function dedupe(urls: string[]): string[] {
  return [...new Set(urls)];
}

function shorten(text: string): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > MAX_REASON_CHARS ? `${oneLine.slice(0, MAX_REASON_CHARS - 1)}…` : oneLine;
}

/** The shortest run of a key's characters that is redacted wherever it appears (a shorter one is too common to mean the key). */
const REDACTED_RUN = 8;

/**
 * The text with the key hidden (some providers echo a key, or part of it, in their auth errors, and
 * the stored reason must never carry it): the key itself, and any run of REDACTED_RUN or more characters that
 * appears in the key (providers echo a prefix and a suffix, "sk-abc…wxyz"), each whole run as one
 * "[redacted]", so that no piece of it is left beside the mark.
 */
export function redactKey(text: string, apiKey: string | null): string {
  if (!apiKey) return text;
  // A short key is hidden where it stands alone, not inside words ("x" in "example").
  if (apiKey.length < REDACTED_RUN) return redactWhole(text, apiKey);
  // Nearly every text holds no run of the key: found with the key's own windows (a native search
  // each), before the scan of every position below (a 1 MiB answer).
  let present = false;
  for (let i = 0; i + REDACTED_RUN <= apiKey.length && !present; i++) present = text.includes(apiKey.slice(i, i + REDACTED_RUN));
  if (!present) return text;
  const hidden = new Uint8Array(text.length);
  for (let start = 0; start + REDACTED_RUN <= text.length; start++) {
    let end = start + REDACTED_RUN;
    if (!apiKey.includes(text.slice(start, end))) continue;
    while (end < text.length && apiKey.includes(text.slice(start, end + 1))) end++;
    hidden.fill(1, start, end);
  }
  let out = "";
  for (let i = 0; i < text.length; i++) {
    if (!hidden[i]) out += text[i];
    else if (i === 0 || !hidden[i - 1]) out += "[redacted]";
  }
  return out;
}

/** The key hidden where it stands whole and alone, not inside words. */
function redactWhole(text: string, apiKey: string): string {
  const literal = apiKey.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return text.replace(new RegExp(`(?<![\\p{L}\\p{N}_-])${literal}(?![\\p{L}\\p{N}_-])`, "gu"), "[redacted]");
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

// The runtime's codes for a request that never reached a provider, in words that name what to check.
const NETWORK_CODES: Record<string, string> = {
  ECONNREFUSED: "the connection was refused (nothing listens there)",
  ConnectionRefused: "the connection was refused (nothing listens there)",
  ENOTFOUND: "the host name does not resolve",
  EAI_AGAIN: "the host name could not be resolved (DNS)",
  ECONNRESET: "the connection was reset",
  ConnectionClosed: "the connection was closed before an answer",
  ETIMEDOUT: "the connection timed out",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "its TLS certificate is not trusted",
  CERT_HAS_EXPIRED: "its TLS certificate has expired",
  DEPTH_ZERO_SELF_SIGNED_CERT: "its TLS certificate is self-signed",
};

/**
 * Why a request never got an answer, naming the host it was sent to (the engine's base_url, in spyglass.toml or the file --config names) and
 * the cause in words; Bun's own sentence ("Unable to connect. Is the computer able to access the
 * url?") names neither.
 */
function networkReason(url: string, error: unknown): string {
  const code = (error as { code?: string } | undefined)?.code;
  let host = url;
  try {
    host = new URL(url).host;
  } catch {
    // The URL came from the configuration, which validated it; keep it as it is.
  }
  const cause = (code && NETWORK_CODES[code]) ?? errorText(error);
  return `could not reach ${host} (the engine's base_url in the configuration file): ${cause}`;
}
