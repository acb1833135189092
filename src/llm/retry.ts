/** Backoff base and ceiling: a few quick retries, never more than half a minute between two. */
export const BACKOFF_BASE_MS = 500;
export const BACKOFF_CAP_MS = 30_000;
/** A provider asking for a longer pause than this still gets retried after this long, so one run cannot stall for hours. */
export const RETRY_AFTER_CAP_MS = 60_000;

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
 * Reads how long the provider wants us to wait, in ms, or null when it did not say.
 * Accepts `retry-after-ms` (OpenAI), and `Retry-After` as delta-seconds or an HTTP date.
 */
export function parseRetryAfter(headers: Headers, nowMs: number): number | null {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return capRetryAfter(Number(ms));
  const value = headers.get("retry-after");
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return capRetryAfter(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return capRetryAfter(date - nowMs);
}

function capRetryAfter(ms: number): number {
  return Math.min(RETRY_AFTER_CAP_MS, Math.max(0, Math.ceil(ms)));
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
