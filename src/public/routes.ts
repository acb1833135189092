// The public content API (spec "Public content API", CONTRACT §5): a brand's published articles for
// its own site, read with nothing but the public site key.
//
// CORS comes from @elysiajs/cors, but that plugin's hook applies to every request of the app it is
// used in (and it answers every OPTIONS): so it lives in an app of its own that only ever sees
// /api/public requests, and the main app forwards them there. What the plugin does not do as the
// spec requires is finished in one place, `withSurfaceHeaders`: it emits `Vary: *` (which would make
// these responses uncacheable), sends no Allow-Methods on a preflight without
// Access-Control-Request-Method, and knows nothing of Cache-Control.
import { cors } from "@elysiajs/cors";
import { Elysia } from "elysia";
import type { AppContext } from "../app";
import { requestId } from "../http/observability";
import { log } from "../log";
import { publicContentCache } from "./cache";
import {
  INTERNAL_ERROR_BODY,
  METHOD_NOT_ALLOWED_BODY,
  NOT_FOUND_BODY,
  PREFLIGHT_ALLOW_HEADERS,
  PREFLIGHT_MAX_AGE_SECONDS,
  PUBLIC_HEADERS,
  jsonError,
  sendCached,
  sendError,
} from "./http";

const ALLOW = { allow: "GET, HEAD, OPTIONS" };

function surface(ctx: AppContext) {
  const cache = publicContentCache(ctx.db);
  return new Elysia({ name: "public-content-surface" })
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
      const err = error as Error;
      log.error("unhandled error", { request_id: requestId(request), error: err?.name, message: err?.message, stack: err?.stack });
      return jsonError(500, INTERNAL_ERROR_BODY);
    })
    .get("/api/public/articles", ({ request, query, set }) => sendCached(set, request, cache.list(query.key)))
    .get("/api/public/articles/:slug", ({ request, query, params, set }) => {
      const found = cache.article(query.key, params.slug);
      return found ? sendCached(set, request, found) : sendError(set, 404, NOT_FOUND_BODY);
    })
    .all("/api/public/articles", ({ set }) => sendError(set, 405, METHOD_NOT_ALLOWED_BODY, ALLOW))
    .all("/api/public/articles/:slug", ({ set }) => sendError(set, 405, METHOD_NOT_ALLOWED_BODY, ALLOW))
    .all("/*", ({ set }) => sendError(set, 404, NOT_FOUND_BODY));
}

/** The spec's three headers on every response of the surface, whatever produced it. */
function withSurfaceHeaders(request: Request, response: Response): Response {
  const headers = response.headers;
  for (const name in PUBLIC_HEADERS) {
    if (headers.get(name) !== PUBLIC_HEADERS[name]) headers.set(name, PUBLIC_HEADERS[name]!);
  }
  if (headers.has("vary")) headers.delete("vary");
  if (request.method === "OPTIONS") {
    headers.set("access-control-allow-headers", PREFLIGHT_ALLOW_HEADERS);
    headers.set("access-control-max-age", String(PREFLIGHT_MAX_AGE_SECONDS));
  }
  // HEAD is answered as a GET: Bun's server sends its headers and Content-Length without the body.
  return response;
}

export function publicRoutes(ctx: AppContext) {
  const app = surface(ctx);
  const forward = async ({ request, set }: { request: Request; set: { headers: Record<string, string | number> } }) => {
    const response = withSurfaceHeaders(request, await app.handle(request));
    // Headers the main app set for this request (the request id) go onto the response itself:
    // with `set` left empty Elysia passes the Response through instead of re-wrapping its body.
    for (const name in set.headers) {
      response.headers.set(name, String(set.headers[name]));
      delete set.headers[name];
    }
    return response;
  };
  return new Elysia({ name: "public-content" }).all("/api/public", forward).all("/api/public/*", forward);
}
