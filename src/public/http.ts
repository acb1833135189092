// The HTTP details of the public content API that the spec fixes byte for byte: the three headers
// every response carries, the bodies of its errors, and ETag matching.

/** Spec "Public content API": on every response of this surface, errors, 304s and OPTIONS included. */
export const PUBLIC_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, OPTIONS",
  "cache-control": "public, s-maxage=60, stale-while-revalidate=300",
  // As every other answer of the server's: JSON is never to be read as another type.
  "x-content-type-options": "nosniff",
});

/**
 * Preflight extras: a site's script may revalidate with If-None-Match itself, and send the headers
 * fetch habits add (Cache-Control or Pragma to skip the browser's cache, a Content-Type,
 * X-Requested-With): each of those had failed its preflight, so the script never got the list.
 */
export const PREFLIGHT_ALLOW_HEADERS = "If-None-Match, Cache-Control, Pragma, Content-Type, X-Requested-With";
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

export const JSON_TYPE = "application/json; charset=utf-8";
export const NOT_FOUND_BODY = '{"error":"Not found"}';
export const METHOD_NOT_ALLOWED_BODY = '{"error":"Method not allowed"}';
export const INTERNAL_ERROR_BODY = '{"error":"Internal error"}';

/** Bodies from this size on are also kept gzipped, for clients that accept it (an article; not an empty list). */
export const MIN_COMPRESSED_BYTES = 1024;
const VARY = "Accept-Encoding";

export interface CachedBody {
  etag: string;
  /**
   * The body gzipped, made with it when it is at least MIN_COMPRESSED_BYTES (a long article is a
   * fifth of its size on the wire), with its own ETag (a strong validator names one encoding): both
   * forms of the body then carry Vary: Accept-Encoding.
   */
  gzip?: { body: Blob; etag: string };
  /**
   * The body, as UTF-8 in a Blob only (keeping the JSON string as well would double what the cache
   * really holds). A Response made from a Blob shares its bytes; one made from a Uint8Array copies
   * them: for a 12 KB article that copy was about 2 µs and 12 KB of garbage per answer.
   */
  body: Blob;
  /** Every header of its 200 and of its 304 but the request id, built on its first answer. */
  headers?: CachedHeaders;
}

export interface CachedHeaders {
  ok: ResponseHeaders;
  notModified: ResponseHeaders;
  /** The same for the gzipped body (when there is one). */
  gzip?: { ok: ResponseHeaders; notModified: ResponseHeaders; okHeaders: Headers; notModifiedHeaders: Headers };
  /**
   * The same, as Headers objects: a hit's Response copies one (a native copy) and adds its request
   * id to that copy, which costs less than building headers from a plain object.
   */
  okHeaders: Headers;
  notModifiedHeaders: Headers;
}

export type ResponseHeaders = Readonly<Record<string, string>>;

export function cachedBody(body: string): CachedBody {
  const etag = `"${Bun.hash(body).toString(36)}-${body.length.toString(36)}"`;
  const bytes = Buffer.from(body);
  if (bytes.length < MIN_COMPRESSED_BYTES) return { etag, body: new Blob([bytes]) };
  return { etag, body: new Blob([bytes]), gzip: { body: new Blob([Bun.gzipSync(bytes)]), etag: `${etag.slice(0, -1)}-gz"` } };
}

/**
 * Whether an Accept-Encoding header accepts gzip (RFC 9110 §12.5.3): `gzip`, `x-gzip` or `*` with a
 * weight above 0. No header means any coding is acceptable, but clients that send none (curl, old
 * scripts) are given the plain body: they may not decode it.
 */
export function acceptsGzip(header: string | null): boolean {
  if (header === null) return false;
  // A client sends the same value on every request: its answer is kept (a few values, not every
  // one ever seen). Its parsing had a fifth of a cached article's JavaScript samples in the server
  // (bun --cpu-prof); a sampled profile overstates it: with two other cuts, the answer's CPU fell by
  // under a microsecond (commit 4fc04c8).
  let accepts = gzipAnswers.get(header);
  if (accepts === undefined) {
    // A coding named outright decides, "gzip;q=0" included; `*` speaks only for codings not named.
    const named = weight(header, "gzip") ?? weight(header, "x-gzip");
    accepts = (named ?? weight(header, "*") ?? 0) > 0;
    if (header.length <= MAX_KEPT_ENCODING_LENGTH) {
      if (gzipAnswers.size >= MAX_KEPT_ENCODINGS) gzipAnswers.clear();
      gzipAnswers.set(header, accepts);
    }
  }
  return accepts;
}

/** The Accept-Encoding values seen lately and whether each takes gzip. */
const gzipAnswers = new Map<string, boolean>();

/** Whether acceptsGzip keeps its answer for this value, and how many it keeps (tests read them). */
export function keptEncodings(): { size: number; has(value: string): boolean } {
  return { size: gzipAnswers.size, has: (value) => gzipAnswers.has(value) };
}
const MAX_KEPT_ENCODINGS = 64;
const MAX_KEPT_ENCODING_LENGTH = 256;

/** The weight the header gives a coding (1 without q=), or null when it does not name it. */
function weight(header: string, coding: string): number | null {
  for (const part of header.split(",")) {
    const [name, ...params] = part.split(";");
    if (name?.trim().toLowerCase() !== coding) continue;
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith("q="));
    const value = q === undefined ? 1 : Number(q.slice(2));
    return Number.isFinite(value) ? value : 0;
  }
  return null;
}

/** The body and headers to answer a request with: the gzipped form when the body has one and the client takes it. */
export function variantFor(cached: CachedBody, request: Request): { body: Blob; etag: string; gzip: boolean } {
  if (cached.gzip && acceptsGzip(request.headers.get("accept-encoding")))
    return { body: cached.gzip.body, etag: cached.gzip.etag, gzip: true };
  return { body: cached.body, etag: cached.etag, gzip: false };
}

/**
 * Whether the client's If-None-Match names the form it would be sent (RFC 9110 §13.1.2 compares the
 * selected representation's tag): a 304 carries that form's ETag, which a cache must hold to use it.
 */
export function notModifiedFor(variant: { etag: string }, request: Request): boolean {
  return ifNoneMatchHits(request.headers.get("if-none-match"), variant.etag);
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

/** The mutable response state a route fills in (Elysia's `set`). */
export interface ResponseState {
  status?: number | string;
  headers: Record<string, string | number>;
}

/**
 * The headers every answer of the surface starts with: those the CORS plugin set for this request
 * (without its `Vary: *`, which would make the answers uncacheable), then the spec's three.
 */
export function surfaceHeaders(pluginHeaders: Record<string, string | number>): ResponseHeaders {
  const headers: Record<string, string> = {};
  for (const name in pluginHeaders) if (name !== "vary") headers[name] = String(pluginHeaders[name]);
  return Object.freeze(Object.assign(headers, PUBLIC_HEADERS));
}

/**
 * Answers with the cached body, or with a 304 carrying the same headers when the client's copy is
 * current. The full header set is built once per cached body, so a hit only adds the request id;
 * headers go into `set` and the body is returned as a string: Elysia then builds one Response around
 * the string, where a prebuilt Response would be re-wrapped as a stream. Reading the cached Blob back
 * here costs little: this path answers a body's first request and unusual query spellings; repeated
 * hits skip it (public/routes.ts).
 */
export function sendCached(
  set: ResponseState,
  request: Request,
  id: string,
  base: ResponseHeaders,
  cached: CachedBody,
): string | Promise<string | Uint8Array> {
  cached.headers ??= cachedHeaders(base, cached);
  const variant = variantFor(cached, request);
  const headers = variant.gzip ? cached.headers.gzip! : cached.headers;
  if (notModifiedFor(variant, request)) {
    set.headers = { ...headers.notModified, "x-request-id": id };
    set.status = 304;
    return "";
  }
  set.headers = { ...headers.ok, "x-request-id": id };
  // Bytes, not the Blob: Elysia answers a Blob as a file (Range requests, Accept-Ranges), which the
  // cached hits do not.
  return variant.gzip ? variant.body.bytes() : cached.body.text();
}

function cachedHeaders(base: ResponseHeaders, cached: CachedBody): CachedHeaders {
  const forms = (etag: string, extra: Record<string, string>) => {
    const ok = Object.freeze({ ...base, etag, "content-type": JSON_TYPE, ...extra });
    const notModified = Object.freeze({ ...base, etag, ...extra });
    return { ok, notModified, okHeaders: new Headers(ok), notModifiedHeaders: new Headers(notModified) };
  };
  if (!cached.gzip) return forms(cached.etag, {});
  return { ...forms(cached.etag, { vary: VARY }), gzip: forms(cached.gzip.etag, { vary: VARY, "content-encoding": "gzip" }) };
}

export function sendError(
  set: ResponseState,
  id: string,
  base: ResponseHeaders,
  status: number,
  body: string,
  extra?: Record<string, string>,
): string {
  set.headers = { ...base, "content-type": JSON_TYPE, ...extra, "x-request-id": id };
  set.status = status;
  return body;
}

export function jsonError(status: number, body: string): Response {
  return new Response(body, { status, headers: { ...PUBLIC_HEADERS, "content-type": JSON_TYPE } });
}

/** The database does not answer and nothing was cached to serve instead: 503, kept by no cache. */
export function unavailable(retryAfterSeconds: number): Response {
  return new Response('{"error":"Service unavailable: the database does not answer; try again shortly."}', {
    status: 503,
    headers: { ...PUBLIC_HEADERS, "cache-control": "no-store", "retry-after": String(retryAfterSeconds), "content-type": JSON_TYPE },
  });
}
