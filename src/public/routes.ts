// The public content API (spec "Public content API", CONTRACT §5): a brand's published articles for
// its own site, read with nothing but the public site key.
//
// CORS comes from @elysiajs/cors, but that plugin's hook applies to every request of the app it is
// used in (and it answers every OPTIONS): so it lives in an app of its own, the surface, that only
// ever sees /api/public requests. The server hands those to the surface straight from Bun's router
// (`publicApiRoutes`), so a request goes through one Elysia app, which gives it its request id and
// access-log line; the main app forwards the same paths there too (for `app.handle`, and should Bun's
// router ever miss one). The plugin's headers are taken as it sets them, without its `Vary: *`
// (which would make these answers uncacheable), and each cached body's full header set is built
// once. Answers the routes do not build (the plugin's OPTIONS, an error) are finished by
// `withSurfaceHeaders`: the plugin sends no Allow-Methods on a preflight without
// Access-Control-Request-Method, and knows nothing of Cache-Control.
import { cors } from "@elysiajs/cors";
import { Elysia } from "elysia";
import { type AppContext } from "../context";
import { type Db } from "../db/client";
import { answeredStatus, beginRequest, elapsedMs, existingRequestId, logRequest, requestId } from "../http/observability";
import { log } from "../log";
import { PublicContentCache } from "./cache";
import {
  type CachedBody,
  INTERNAL_ERROR_BODY,
  jsonError,
  METHOD_NOT_ALLOWED_BODY,
  NOT_FOUND_BODY,
  notModifiedFor,
  PREFLIGHT_ALLOW_HEADERS,
  PREFLIGHT_MAX_AGE_SECONDS,
  PUBLIC_HEADERS,
  type ResponseHeaders,
  sendCached,
  sendError,
  surfaceHeaders,
  unavailable,
  variantFor,
} from "./http";

const ALLOW = { allow: "GET, HEAD, OPTIONS" };
/** The owner of the request ids and log lines of requests that reach the surface directly. */
const SURFACE = "public-content";

type Answer = (request: Request) => Response | Promise<Response>;

function surface(cache: PublicContentCache, db: Db) {
  // With this configuration the plugin sets the same headers on every request but OPTIONS.
  let base: ResponseHeaders | null = null;
  const start = (set: { headers: Record<string, string | number> }) => (base ??= surfaceHeaders(set.headers));
  return new Elysia({ name: "public-content-surface" })
    .onRequest(({ request }) => void beginRequest(request, SURFACE))
    .onAfterResponse(({ request, set, responseValue }) => logRequest(request, SURFACE, answeredStatus(set, responseValue)))
    .use(
      cors({
        origin: "*",
        methods: "GET, OPTIONS",
        allowedHeaders: PREFLIGHT_ALLOW_HEADERS,
        exposeHeaders: "ETag",
        credentials: false,
        maxAge: PREFLIGHT_MAX_AGE_SECONDS,
        preflight: true,
      }),
    )
    .onError(({ code, error, request }) => {
      if (code === "NOT_FOUND") return jsonError(404, NOT_FOUND_BODY);
      const refusal = db.storage.refusalFor(error, { request_id: requestId(request) });
      if (refusal) return unavailable(refusal.retryAfterSeconds ?? 5);
      const err = error as Error;
      log.error("unhandled error", { request_id: requestId(request), error: err?.name, message: err?.message, stack: err?.stack });
      return jsonError(500, INTERNAL_ERROR_BODY);
    })
    .get("/api/public/articles", async ({ request, query, set }) =>
      sendCached(set, request, requestId(request), start(set), await cache.list(query.key)),
    )
    .get("/api/public/articles/:slug", async ({ request, query, params, set }) => {
      // A slug whose percent-escapes do not decode reaches here as null: an unknown slug, not a fault.
      const slug: unknown = params.slug;
      const found = typeof slug === "string" ? await cache.article(query.key, slug) : null;
      const id = requestId(request);
      return found ? sendCached(set, request, id, start(set), found) : sendError(set, id, start(set), 404, NOT_FOUND_BODY);
    })
    .all("/api/public/articles", ({ request, set }) => sendError(set, requestId(request), start(set), 405, METHOD_NOT_ALLOWED_BODY, ALLOW))
    .all("/api/public/articles/:slug", ({ request, set }) =>
      sendError(set, requestId(request), start(set), 405, METHOD_NOT_ALLOWED_BODY, ALLOW),
    )
    .all("/*", ({ request, set }) => sendError(set, requestId(request), start(set), 404, NOT_FOUND_BODY));
}

/** The spec's three headers and the request id on an answer the routes did not build. */
function withSurfaceHeaders(request: Request, response: Response): Response {
  const headers = response.headers;
  for (const name in PUBLIC_HEADERS) {
    if (headers.get(name) !== PUBLIC_HEADERS[name]) headers.set(name, PUBLIC_HEADERS[name]!);
  }
  // The database's absence is kept by no cache (an edge would serve it for a minute after it ended).
  if (response.status === 503) headers.set("cache-control", "no-store");
  if (headers.has("vary")) headers.delete("vary");
  if (request.method === "OPTIONS") {
    headers.set("access-control-allow-headers", PREFLIGHT_ALLOW_HEADERS);
    headers.set("access-control-max-age", String(PREFLIGHT_MAX_AGE_SECONDS));
  }
  headers.set("x-request-id", requestId(request));
  // HEAD is answered as a GET: Bun's server sends its headers and Content-Length without the body.
  return response;
}

/** The public content API of one AppContext (`ctx.publicContent`): its cache and the one surface that answers. */
export class PublicContent {
  readonly cache: PublicContentCache;
  private answerRequest: Answer | null = null;

  constructor(private readonly db: Db) {
    this.cache = new PublicContentCache(db);
  }

  /** What answers every request under /api/public; built when the routes are first mounted. */
  handler(): Answer {
    this.answerRequest ??= publicAnswer(this.cache, this.db);
    return this.answerRequest;
  }
}

function publicAnswer(cache: PublicContentCache, db: Db): Answer {
  const app = surface(cache, db);
  const throughSurface = async (request: Request): Promise<Response> => {
    const response = await app.handle(request);
    if (response.headers.has("x-request-id")) return response;
    withSurfaceHeaders(request, response);
    // The plugin answers OPTIONS from its onRequest hook, after which Elysia runs no onAfterResponse.
    if (request.method === "OPTIONS") logRequest(request, SURFACE, response.status);
    return response;
  };
  // A hit is answered synchronously: no promise for Bun to wait on.
  return (request) => answerCachedHit(cache, request) ?? throughSurface(request);
}

const ARTICLES_PATH = "/api/public/articles";
const ARTICLE_PREFIX = `${ARTICLES_PATH}/`;

/**
 * A GET or HEAD whose body is cached and has already been answered once through the surface (so its
 * header set, the CORS plugin's headers included, is built): answered here without an Elysia
 * dispatch, which was most of the cost of a hit. Anything else (OPTIONS, misses, an unknown site key,
 * a query that needs decoding, a body answered for the first time, a request when the check for
 * other processes' writes is due) returns null and goes through the surface.
 */
function answerCachedHit(cache: PublicContentCache, request: Request): Response | null {
  const started = performance.now();
  const method = request.method;
  if (method !== "GET" && method !== "HEAD") return null;
  const url = request.url;
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  const queryStart = pathStart < 0 ? -1 : url.indexOf("?", pathStart);
  if (queryStart < 0) return null;
  const key = plainSiteKey(url, queryStart + 1);
  if (key === null) return null;
  const path = url.slice(pathStart, queryStart);
  let cached: CachedBody | null;
  if (path === ARTICLES_PATH) cached = cache.cachedList(key);
  else if (path.startsWith(ARTICLE_PREFIX)) cached = cache.cachedArticle(key, path.slice(ARTICLE_PREFIX.length));
  else return null;
  const prebuilt = cached?.headers;
  if (!cached || !prebuilt) return null;
  // A request the main app forwarded (app.handle) already has its id, and the main app logs it.
  const outerId = existingRequestId(request);
  const id = outerId ?? crypto.randomUUID();
  const variant = variantFor(cached, request);
  const notModified = notModifiedFor(variant, request);
  const status = notModified ? 304 : 200;
  const headers = variant.gzip ? prebuilt.gzip! : prebuilt;
  // The Response copies the prebuilt headers; the id goes onto its own copy.
  const response = new Response(notModified ? null : variant.body, {
    status,
    headers: notModified ? headers.notModifiedHeaders : headers.okHeaders,
  });
  response.headers.set("x-request-id", id);
  if (outerId === undefined) log.request({ request_id: id, method, path, status, ms: elapsedMs(started) });
  return response;
}

/**
 * The value of the query's one `key` parameter when the query needs no decoding (no `%` or `+`,
 * as a real site key never does); null when there is none, several, or decoding would be needed,
 * which the surface's own parser then handles.
 */
function plainSiteKey(url: string, from: number): string | null {
  if (url.indexOf("%", from) >= 0 || url.indexOf("+", from) >= 0) return null;
  let key: string | null = null;
  let start = from;
  while (start <= url.length) {
    let end = url.indexOf("&", start);
    if (end < 0) end = url.length;
    if (url.startsWith("key", start) && (end === start + 3 || url.charCodeAt(start + 3) === 61) /* = */) {
      if (key !== null || end === start + 3) return null;
      key = url.slice(start + 4, end);
    }
    start = end + 1;
  }
  return key;
}

/** Bun router entries for the server (`serve.routes`): /api/public never enters the main app. */
export function publicApiRoutes(ctx: AppContext): Record<string, Answer> {
  const answer = ctx.publicContent.handler();
  return { "/api/public": answer, "/api/public/*": answer };
}

export function publicRoutes(ctx: AppContext) {
  const answer = ctx.publicContent.handler();
  const forward = async ({ request, set }: { request: Request; set: { headers: Record<string, string | number> } }) => {
    const response = await answer(request);
    // The main app's request id is already on the response (the surface reused it): with `set`
    // left empty Elysia passes the Response through instead of re-wrapping its body.
    for (const name in set.headers) delete set.headers[name];
    return response;
  };
  return new Elysia({ name: "public-content" }).all("/api/public", forward).all("/api/public/*", forward);
}
