/** Backoff base and ceiling: a few quick retries, never more than half a minute between two. */
export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 30_000;
/**
 * The longest pause a request waits for before it is tried again. A provider asking for longer (a
 * quota spent for the hour or the day) is not asked again by that request: it fails saying so, and
 * the engine's requests fail unsent until then (at most LONGEST_HOLD_MS), where waiting a minute and
 * asking again, request after request, kept a run going for hours against a provider that had said no.
 */
export const RETRY_AFTER_CAP_MS = 60_000;
/** The longest a provider's long Retry-After holds an engine's requests; then one tries again. */
export const LONGEST_HOLD_MS = 60 * 60_000;

/** Statuses worth another try: rate limits, timeouts and server-side failures (incl. Anthropic's 529). */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
}

/** "Full jitter" (AWS architecture blog): uniform in [0, min(cap, base·2^retry)] spreads retrying clients apart. */
export function backoffDelayMs(retry: number, random: () => number = Math.random): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/**
 * Reads how long the provider wants us to wait, in ms (as asked: RETRY_AFTER_CAP_MS is the caller's),
 * or null when it did not say. Accepts `retry-after-ms` (OpenAI), and `Retry-After` as delta-seconds
 * or an HTTP date.
 */
export function parseRetryAfter(headers: Headers, nowMs: number): number | null {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return wait(Number(ms));
  const value = headers.get("retry-after");
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return wait(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return wait(date - nowMs);
}

function wait(ms: number): number {
  return Math.max(0, Math.ceil(ms));
}

/** Real sleep that ends early (resolving) when the signal aborts; the caller checks the signal afterwards. */
export function sleepMs(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
