// Request ids, JSON access logs and the one place where errors become HTTP answers.
// Logs carry method, path (never the query string), status, duration and request id: never a key,
// cookie, password or body.
import { Elysia } from "elysia";
import { type StorageHealth } from "../db/storage-health";
import { AppError, errorBody, MethodNotAllowed, TooManyRequests, Unavailable } from "../errors";
import { log } from "../log";

interface RequestMeta {
  id: string;
  start: number;
  /** The app whose hooks began this request: it alone logs it (an app it forwards to does not). */
  owner: string;
  errorStatus?: number;
}

const metas = new WeakMap<Request, RequestMeta>();

export function requestId(request: Request): string {
  return existingRequestId(request) ?? "unknown";
}

/** The id an outer app already gave this request, if any. */
export function existingRequestId(request: Request): string | undefined {
  return metas.get(request)?.id;
}

/** Milliseconds since `start` (a performance.now()), to a tenth, as the access log shows them. */
export function elapsedMs(start: number): number {
  return Math.round((performance.now() - start) * 10) / 10;
}

/** Gives the request its id and start time; returns the id, or null if an outer app already did. */
export function beginRequest(request: Request, owner: string): string | null {
  if (metas.has(request)) return null;
  const id = crypto.randomUUID();
  metas.set(request, { id, start: performance.now(), owner });
  return id;
}

/** The path of an absolute request URL, without its query (which may carry a site key). */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  const query = url.indexOf("?", start);
  return query < 0 ? url.slice(start) : url.slice(start, query);
}

/** The access-log line of a request, written by the app that began it. */
export function logRequest(request: Request, owner: string, status: number | string): void {
  const meta = metas.get(request);
  if (meta && meta.owner !== owner) return;
  const fields = {
    request_id: meta?.id,
    method: request.method,
    path: pathOf(request.url),
    status: meta?.errorStatus ?? status,
    ms: meta ? elapsedMs(meta.start) : undefined,
  };
  // A health probe's every few seconds (a container's, a load balancer's) filled the log at info with
  // "ok": at debug while it is ok; a degraded or failing answer is logged as any request is.
  if (fields.status === 200 && healthyProbes.has(request)) log.debug("request", fields);
  else log.request(fields);
}

/** The /healthz requests answered "ok" (markHealthyProbe): their access-log line is at debug. */
const healthyProbes = new WeakSet<Request>();

/** Marks a /healthz request answered "ok": its line in the access log is at debug, not info. */
export function markHealthyProbe(request: Request): void {
  healthyProbes.add(request);
}

/** The status Elysia answered with, as its onAfterResponse hook sees it. */
export function answeredStatus(set: { status?: number | string }, responseValue: unknown): number | string {
  return responseValue instanceof Response ? responseValue.status : (set.status ?? 200);
}

/** Records the status of an error answer for the access log. */
function errored(request: Request | undefined, status: number): void {
  const meta = request && metas.get(request);
  if (meta) meta.errorStatus = status;
}

function json(status: number, body: unknown, headers?: Record<string, string>, request?: Request): Response {
  errored(request, status);
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", "x-content-type-options": "nosniff", ...headers },
  });
}

const APP = "app";

/**
 * What the app answers instead of its JSON 404: the dashboard's page for a browser that navigated to
 * an address the server does not know (pages.ts), or null to answer JSON.
 */
export type NotFoundPage = (request: Request, headers: Record<string, string>) => Response | null;

/**
 * `storage`: the database's (storage-health.ts); a write its storage refused is answered 503 with a
 * sentence saying so, instead of as an unexpected error.
 */
export function observability(notFoundPage?: NotFoundPage, storage?: StorageHealth) {
  return new Elysia({ name: "observability" })
    .onRequest(({ request, set }) => {
      const id = beginRequest(request, APP);
      if (id) set.headers["x-request-id"] = id;
      // No answer of the app is to be read as another type than it says (a JSON answer as HTML or script).
      set.headers["x-content-type-options"] = "nosniff";
    })
    .onAfterResponse({ as: "global" }, ({ request, set, responseValue }) => logRequest(request, APP, answeredStatus(set, responseValue)))
    .onError({ as: "global" }, ({ code, error: thrown, request }) => {
      const id = requestId(request);
      const headers = { "x-request-id": id };
      // Elysia wraps whatever a parse hook throws in its ParseError: a body refused by
      // http/json-body.ts (413, 400 naming the problem) is answered as itself.
      const cause = code === "PARSE" ? (thrown as { cause?: unknown }).cause : undefined;
      const error = cause instanceof AppError ? cause : thrown;
      if (error instanceof AppError) {
        const retryAfter = error instanceof TooManyRequests || error instanceof Unavailable ? error.retryAfterSeconds : undefined;
        const extra: Record<string, string> =
          retryAfter !== undefined
            ? { "retry-after": String(retryAfter) }
            : error instanceof MethodNotAllowed
              ? { allow: error.allow }
              : {};
        return json(error.status, errorBody(error), { ...headers, ...extra }, request);
      }
      switch (code) {
        case "NOT_FOUND": {
          if (!notFoundPage) return json(404, { error: "Not found", code: "not_found" }, headers, request);
          // The page or the JSON, by the request's headers: a cache must keep them apart.
          const varying = { ...headers, vary: "Sec-Fetch-Dest, Accept", "cache-control": "no-store" };
          const page = notFoundPage(request, varying);
          if (page) {
            errored(request, 404);
            return page;
          }
          return json(404, { error: "Not found", code: "not_found" }, varying, request);
        }
        case "PARSE":
          return json(400, { error: "The request body is not valid JSON.", code: "invalid_json" }, headers, request);
        case "VALIDATION":
          return json(400, { error: validationSentence(error), code: "invalid_input" }, headers, request);
        case "INVALID_COOKIE_SIGNATURE":
          return json(401, { error: "Unauthorized", code: "unauthorized" }, headers, request);
        default: {
          const refusal = storage?.refusalFor(error, { request_id: id });
          if (refusal) {
            return json(refusal.status, errorBody(refusal), { ...headers, "retry-after": String(refusal.retryAfterSeconds) }, request);
          }
          const err = error as Error;
          log.error("unhandled error", { request_id: id, error: err?.name, message: err?.message, stack: err?.stack });
          return json(500, { error: `Something went wrong on our side (request ${id}).`, code: "internal" }, headers, request);
        }
      }
    });
}

function validationSentence(error: unknown): string {
  const all = (error as { all?: Array<{ path?: string; summary?: string; message?: string }> }).all;
  const first = all?.[0];
  if (!first) return "The request is not valid.";
  const field = (first.path ?? "").replace(/^\//, "").replace(/\//g, ".");
  const what = first.summary ?? first.message ?? "is not valid";
  return field ? `${field}: ${what}` : what;
}
