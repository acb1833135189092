import { registrableDomain, stripWww } from "../../public-suffixes";
import { findUrls } from "./urls";

export interface Citation {
  url: string;
  /** Registrable domain (public-suffix aware), or the host itself for IPs and single-label hosts. */
  domain: string;
}

const TRACKING_PARAMS = new Set(["gclid", "fbclid"]);

/**
 * The answer's citations, normalised and counted once: provider citation fields first (in provider
 * order), then markdown links and bare URLs in text order. Non-http(s) and unparsable URLs are ignored.
 */
export function extractCitations(text: string, providerUrls: readonly string[] = []): Citation[] {
  return citedAddresses(text, providerUrls).map(({ url }) => ({ url, domain: registrableDomain(new URL(url).hostname) }));
}

/**
 * extractCitations' URLs, each with `link`: the address as the answer or its provider first gave it,
 * without credentials, to open. The normalised URL drops `www.`, which a site served only at www
 * does not answer.
 */
export function citedAddresses(text: string, providerUrls: readonly string[] = []): Array<{ url: string; link: string }> {
  const seen = new Set<string>();
  const out: Array<{ url: string; link: string }> = [];
  for (const raw of [...providerUrls, ...findUrls(text).map((span) => span.url)]) {
    const parsed = parseCitedUrl(raw);
    const url = parsed && normalizeParsed(parsed);
    if (!parsed || url === null || seen.has(url)) continue;
    seen.add(url);
    // As given, but without credentials.
    parsed.username = "";
    parsed.password = "";
    out.push({ url, link: parsed.href });
  }
  return out;
}

/** A cited address as a URL ("www.…" without a scheme taken as https), or null when it is none. */
function parseCitedUrl(raw: string): URL | null {
  const input = raw.trim();
  try {
    return new URL(/^www\./i.test(input) ? `https://${input}` : input);
  } catch {
    return null;
  }
}

/**
 * METRICS.md normalisation: scheme and host lowercased, `www.` dropped, fragment dropped, `utm_*`,
 * `gclid` and `fbclid` removed, trailing slash dropped, default port dropped; percent-escapes in upper
 * case. Credentials in a URL are
 * dropped as well: they are never worth storing. Returns null for anything but http(s). Idempotent.
 */
export function normalizeUrl(raw: string): string | null {
  const url = parseCitedUrl(raw);
  return url && normalizeParsed(url);
}

function normalizeParsed(url: URL): string | null {
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  const host = stripWww(url.hostname.replace(/\.+$/, ""));
  if (host === "") return null;
  const port = url.port === "" ? "" : `:${url.port}`;
  const path = upperEscapes(url.pathname.replace(/\/+$/, ""));
  const query = upperEscapes(
    url.search
      .slice(1)
      .split("&")
      .filter((pair) => pair !== "" && !isTrackingParam(pair))
      .join("&"),
  );
  return `${url.protocol}//${host}${port}${path}${query === "" ? "" : `?${query}`}`;
}

/** "%c3%ba" and "%C3%BA" are one byte each (RFC 3986 §6.2.2.1): one page cited both ways is one citation. */
function upperEscapes(text: string): string {
  return text.replace(/%[0-9a-f]{2}/gi, (percent) => percent.toUpperCase());
}

function isTrackingParam(pair: string): boolean {
  const rawKey = pair.split("=", 1)[0] ?? "";
  let key: string;
  try {
    key = decodeURIComponent(rawKey.replace(/\+/g, " "));
  } catch {
    key = rawKey;
  }
  key = key.toLowerCase();
  return key.startsWith("utm_") || TRACKING_PARAMS.has(key);
}
