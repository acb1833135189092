// Helpers shared by the adapters for the sources an answer refers to: redirect-wrapped URLs
// (Gemini's grounding redirects), and de-duplication.
import { type SourceRef } from "./types";

/**
 * Gemini's Google Search grounding gives each source as
 * `https://vertexaisearch.cloud.google.com/grounding-api-redirect/<token>`: a redirect to the page,
 * valid for a while, whose own host says nothing about the source. Such a URL is never a citation
 * of google.com; it is resolved to its target by the domain the provider names, or kept (with its
 * title) outside citation analysis.
 */
export function isGroundingRedirect(url: string): boolean {
  try {
    // Recognised by its path, whatever the host: the same redirects served through a gateway (or a
    // stand-in on loopback) are no source of their own either.
    return new URL(url).pathname.startsWith("/grounding-api-redirect/");
  } catch {
    return false;
  }
}

/** Redirects followed per answer at most, and how long each may take. */
export const MAX_REDIRECTS_FOLLOWED = 20;
export const REDIRECT_TIMEOUT_MS = 5_000;

/** Where Gemini's grounding redirects are served. */
export const GOOGLE_REDIRECT_ORIGIN = "https://vertexaisearch.cloud.google.com";

/** The URL's origin, or null when it is not a URL. */
function originOf(url: string): string | null {
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * Asks each grounding redirect where it points (one GET, `redirect: "manual"`, the body never
 * read) and returns redirect → target for those answering 3xx with an http(s) `Location`. Only
 * redirects served from `origins` are asked (Google's, and the engine's own base URL for a gateway):
 * the URLs come from the provider's reply, and asking any address it names would let a faulty or
 * hostile provider make the server fetch its internal network (found by a review). Failures are
 * left out: the caller falls back to the site the provider names. Never throws.
 */
export async function followRedirects(
  urls: readonly string[],
  doFetch: (input: string, init: RequestInit) => Promise<Response>,
  origins: ReadonlySet<string>,
  signal?: AbortSignal,
): Promise<Map<string, string>> {
  const targets = new Map<string, string>();
  const askable = (url: string): boolean => isGroundingRedirect(url) && origins.has(originOf(url) ?? "");
  const unique = [...new Set(urls.filter(askable))].slice(0, MAX_REDIRECTS_FOLLOWED);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < unique.length && !signal?.aborted) {
      const url = unique[next++]!;
      const controller = new AbortController();
      const timer = setTimeout(() => controller.abort(), REDIRECT_TIMEOUT_MS);
      const onAbort = (): void => controller.abort();
      signal?.addEventListener("abort", onAbort, { once: true });
      try {
        const response = await doFetch(url, { method: "GET", redirect: "manual", signal: controller.signal });
        await response.body?.cancel();
        const location = response.headers.get("location");
        if (response.status >= 300 && response.status < 400 && location) {
          const target = new URL(location, url);
          if ((target.protocol === "https:" || target.protocol === "http:") && !isGroundingRedirect(target.href))
            targets.set(url, target.href);
        }
      } catch {
        // Unreachable or slow: the provider's own naming of the site stands.
      } finally {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, unique.length) }, worker));
  return targets;
}

const DOMAIN = /^(?=.{4,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;

/** A bare host name such as "acme.com" or "www.acme.co.uk" (what Gemini puts in a web chunk's title or domain). */
export function looksLikeDomain(text: string | null | undefined): text is string {
  return typeof text === "string" && DOMAIN.test(text.trim());
}

/**
 * The URL to count for a source: itself, or for a grounding redirect `https://<domain>` when the
 * provider names the domain (Vertex's `web.domain`, or a title that is a host name); null when a
 * redirect cannot be resolved that way.
 */
export function resolveSourceUrl(
  url: string,
  hints: Array<string | null | undefined>,
  followed?: ReadonlyMap<string, string>,
): string | null {
  if (!isGroundingRedirect(url)) return url;
  const target = followed?.get(url);
  if (target) return target;
  for (const hint of hints) if (looksLikeDomain(hint)) return `https://${hint.trim().toLowerCase()}`;
  return null;
}

/** First occurrence of each URL wins, keeping its title. */
export function uniqueByUrl(sources: SourceRef[]): SourceRef[] {
  const seen = new Set<string>();
  const out: SourceRef[] = [];
  for (const s of sources) {
    if (seen.has(s.url)) continue;
    seen.add(s.url);
    out.push(s);
  }
  return out;
}

/** The URLs that citation analysis may count: resolved ones only. */
export function countableUrls(sources: SourceRef[]): string[] {
  return sources.map((s) => s.url).filter((url) => !isGroundingRedirect(url));
}

export function source(url: string, title: string | null = null, start: number | null = null, end: number | null = null): SourceRef {
  return { url, title, start, end };
}
