// Request ids, JSON access logs and the one place where errors become HTTP answers.
// Logs carry method, path (never the query string), status, duration and request id: never a key,
// cookie, password or body.
import { Elysia } from "elysia";
import { AppError, errorBody, TooManyRequests } from "../errors";
import { log } from "../log";

interface RequestMeta {
  id: string;
  start: number;
  errorStatus?: number;
}

const metas = new WeakMap<Request, RequestMeta>();

export function requestId(request: Request): string {
  return metas.get(request)?.id ?? "unknown";
}

function json(status: number, body: unknown, headers?: Record<string, string>, request?: Request): Response {
  const meta = request && metas.get(request);
  if (meta) meta.errorStatus = status;
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

export function observability() {
  return new Elysia({ name: "observability" })
    .onRequest(({ request, set }) => {
      const id = crypto.randomUUID();
      metas.set(request, { id, start: performance.now() });
      set.headers["x-request-id"] = id;
    })
    .onAfterResponse({ as: "global" }, ({ request, set, responseValue }) => {
      const meta = metas.get(request);
      const status =
        meta?.errorStatus ?? (responseValue instanceof Response ? responseValue.status : (set.status ?? 200));
      log.info("request", {
        request_id: meta?.id,
        method: request.method,
        path: new URL(request.url).pathname,
        status,
        ms: meta ? Math.round((performance.now() - meta.start) * 10) / 10 : undefined,
      });
    })
    .onError({ as: "global" }, ({ code, error, request }) => {
      const id = requestId(request);
      const headers = { "x-request-id": id };
      if (error instanceof AppError) {
        const extra: Record<string, string> =
          error instanceof TooManyRequests ? { "retry-after": String(error.retryAfterSeconds) } : {};
        return json(error.status, errorBody(error), { ...headers, ...extra }, request);
      }
      switch (code) {
        case "NOT_FOUND":
          return json(404, { error: "Not found", code: "not_found" }, headers, request);
        case "PARSE":
          return json(400, { error: "The request body is not valid JSON.", code: "invalid_json" }, headers, request);
        case "VALIDATION":
          return json(400, { error: validationSentence(error), code: "invalid_input" }, headers, request);
        case "INVALID_COOKIE_SIGNATURE":
          return json(401, { error: "Unauthorized", code: "unauthorized" }, headers, request);
        default: {
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
