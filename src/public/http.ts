// The HTTP details of the public content API that the spec fixes byte for byte: the three headers
// every response carries, the bodies of its errors, and ETag matching.

/** Spec "Public content API": on every response of this surface, errors, 304s and OPTIONS included. */
export const PUBLIC_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, OPTIONS",
  "cache-control": "public, s-maxage=60, stale-while-revalidate=300",
});

/** Preflight extras: a site's script may revalidate with If-None-Match itself. */
export const PREFLIGHT_ALLOW_HEADERS = "If-None-Match";
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

export const JSON_TYPE = "application/json; charset=utf-8";
export const NOT_FOUND_BODY = '{"error":"Not found"}';
export const METHOD_NOT_ALLOWED_BODY = '{"error":"Method not allowed"}';
export const INTERNAL_ERROR_BODY = '{"error":"Internal error"}';

export interface CachedBody {
  body: string;
  etag: string;
  /** UTF-8 length, for the cache's memory budget. */
  length: number;
}

export function cachedBody(body: string): CachedBody {
  return { body, etag: `"${Bun.hash(body).toString(36)}-${body.length.toString(36)}"`, length: Buffer.byteLength(body) };
}

const ENTITY_TAG = /(?:W\/)?"[^"]*"|\*/g;

/**
 * RFC 9110 §13.1.2: If-None-Match uses the weak comparison (W/ prefixes ignored), `*` matches any
 * current representation, and the value may be a comma-separated list.
 */
export function ifNoneMatchHits(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const opaque = etag.startsWith("W/") ? etag.slice(2) : etag;
  for (const [tag] of header.matchAll(ENTITY_TAG)) {
    if (tag === "*") return true;
    if ((tag.startsWith("W/") ? tag.slice(2) : tag) === opaque) return true;
  }
  return false;
}

/** A 200 with the cached body, or a 304 with the same headers when the client's copy is current. */
export function bodyResponse(request: Request, cached: CachedBody): Response {
  const headers: Record<string, string> = { ...PUBLIC_HEADERS, etag: cached.etag };
  if (ifNoneMatchHits(request.headers.get("if-none-match"), cached.etag)) {
    return new Response(null, { status: 304, headers });
  }
  headers["content-type"] = JSON_TYPE;
  return new Response(cached.body, { status: 200, headers });
}

export function jsonError(status: number, body: string, extra?: Record<string, string>): Response {
  return new Response(body, { status, headers: { ...PUBLIC_HEADERS, "content-type": JSON_TYPE, ...extra } });
}
