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
    const u = new URL(url);
    return u.hostname.toLowerCase() === "vertexaisearch.cloud.google.com" && u.pathname.startsWith("/grounding-api-redirect/");
  } catch {
    return false;
  }
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
export function resolveSourceUrl(url: string, hints: Array<string | null | undefined>): string | null {
  if (!isGroundingRedirect(url)) return url;
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
