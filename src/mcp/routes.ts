// The remote tool server: POST|GET|DELETE /api/mcp/mcp (CONTRACT §4), stateless Streamable HTTP with
// JSON responses. A browser's CORS preflight from an allowed origin is answered first (it carries no
// credential); answers to such a page carry its origin. Checks run in this order, each before any
// JSON-RPC work: API key or OAuth access
// token (401, credential.ts), Origin (403), plan (403), body size (413), JSON syntax (400), JSON-RPC
// conventions the SDK leaves to zod (jsonrpc.ts: -32602 with a sentence, -32600 for an empty batch;
// skipped for a tools/list without params, which has nothing to refuse); then a single tools/list or
// tools/call is answered directly (direct.ts: the SDK server's bytes, without its per-request cost),
// and anything else by a fresh SDK server bound to the credential's brand and plan, closed with the
// response (server.ts, loaded on first use: see loadSdkServer).
import { Elysia } from "elysia";
import { noToolsFor, type ToolCatalog } from "../catalogue/registry";
import { type AppContext } from "../context";
import { errorBody } from "../errors";
import { decodeUtf8, jsonShapeProblem, NOT_UTF8 } from "../http/json-body";
import { elapsedMs, existingRequestId, requestId } from "../http/observability";
import { log } from "../log";
import { authenticateToolRequest } from "./credential";
import { answerDirectly, answerPlainListing } from "./direct";
import { isAllowedOrigin, ownOrigins } from "./origin";

type SdkServer = typeof import("./server");

// The SDK's side of the door, imported on first use or when the server warms up (server.ts), not at
// start: importing the SDK defines some hundreds of zod schemas, about a third of a start's CPU
// (measured: a compiled binary importing only the SDK's modules). The JSON-RPC checks use the SDK's
// schemas too (jsonrpc.ts, exported through server.ts).
let sdkServer: SdkServer | null = null;
let sdkServerLoading: Promise<SdkServer> | null = null;

export function loadSdkServer(): Promise<SdkServer> {
  sdkServerLoading ??= import("./server").then((module) => (sdkServer = module));
  return sdkServerLoading;
}

export const MCP_PATH = "/api/mcp/mcp";
export const MAX_BODY_BYTES = 1024 * 1024;

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers },
  });
}

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return json(status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}

/** A body whose bytes are not UTF-8 (request.text() would have put U+FFFD in their place). */
const NOT_UTF8_BODY = Symbol("not UTF-8");

/** The body as text, or null when it is over `max` bytes (declared or actually sent). */
function readBody(request: Request, max: number): Promise<string | null | typeof NOT_UTF8_BODY> | null {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > max) return null;
  // A declared length within the limit is all the server reads (Bun ends the body there): read at
  // once, without a stream reader's promise per chunk (a fifth of a tools/list's CPU, profiled), and
  // without an async function's own promise around it.
  if (declared !== null && /^\d+$/.test(declared)) return request.bytes().then(utf8OrNot);
  return readStream(request, max);
}

const utf8OrNot = (bytes: Uint8Array) => decodeUtf8(bytes) ?? NOT_UTF8_BODY;

async function readStream(request: Request, max: number): Promise<string | null | typeof NOT_UTF8_BODY> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let received = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      received += value.byteLength;
      if (received <= max) chunks.push(value);
    }
  } catch (error) {
    // The socket's own cap (server.ts) ended an even longer body.
    if (received > max) return null;
    throw error;
  }
  // An over-long body is read to its end (the socket caps it at 8 MiB) and discarded: answering while
  // the client is still sending leaves its remaining bytes on a keep-alive connection, where they
  // would be parsed as the next request.
  // Decoded as a body of declared length is (a leading byte order mark dropped).
  return received > max ? null : utf8OrNot(Buffer.concat(chunks));
}

// A client in a web page (the MCP Inspector's direct connection) on an origin the Origin check lets
// through (loopback, or this server's own) may read the answers: without CORS its browser hid every
// answer, the 401 and its WWW-Authenticate (the way to the sign-in) included. Credentials are bearer
// headers, never cookies, so this gives a page nothing its script does not already hold. Any other
// origin gets no CORS header (and its request the 403 below).
const CORS_METHODS = "POST, GET, DELETE";
const CORS_HEADERS = "authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id";
const CORS_EXPOSED = "www-authenticate, mcp-session-id, mcp-protocol-version, x-request-id";
/** A header list as a preflight may ask for it (token characters, commas and spaces only). */
const HEADER_LIST = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*,[ \t]*[!#$%&'*+.^_`|~0-9A-Za-z-]+)*$/;

/**
 * The answer to a browser's CORS preflight from an allowed origin, before any credential (a browser
 * sends none with it); null for any other request, which takes the usual way (an OPTIONS without the
 * preflight's headers, or from another origin, is refused as any method but POST is).
 */
function corsPreflight(request: Request, origin: string | null, allowedOrigins: ReadonlySet<string>): Response | null {
  if (request.method !== "OPTIONS" || origin === null || !isAllowedOrigin(origin, allowedOrigins)) return null;
  const method = request.headers.get("access-control-request-method");
  if (method === null) return null;
  const asked = request.headers.get("access-control-request-headers");
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": CORS_METHODS,
      // What the page's client asks for (an allowed origin is trusted), or the protocol's own headers.
      "access-control-allow-headers": asked !== null && HEADER_LIST.test(asked.trim()) ? asked.trim() : CORS_HEADERS,
      "access-control-max-age": "7200",
      vary: "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
    },
  });
}

export async function handleMcpRequest(
  app: AppContext,
  catalog: ToolCatalog,
  allowedOrigins: ReadonlySet<string>,
  request: Request,
  /** The request's id; by default the one the app's observability gave it. */
  id: string = requestId(request),
): Promise<Response> {
  const origin = request.headers.get("origin");
  // Nearly every client is no browser and sends no Origin: nothing more to do for it.
  if (origin === null) return answerMcpRequest(app, catalog, allowedOrigins, request, id, null);
  const preflight = corsPreflight(request, origin, allowedOrigins);
  if (preflight) return preflight;
  return withCors(await answerMcpRequest(app, catalog, allowedOrigins, request, id, origin), origin, allowedOrigins);
}

/** The response, readable by a page of `origin` when that origin is allowed (see CORS_METHODS). */
function withCors(response: Response, origin: string | null, allowedOrigins: ReadonlySet<string>): Response {
  if (origin === null || !isAllowedOrigin(origin, allowedOrigins) || response.headers.has("access-control-allow-origin")) return response;
  response.headers.set("access-control-allow-origin", origin);
  response.headers.set("access-control-expose-headers", CORS_EXPOSED);
  response.headers.append("vary", "Origin");
  return response;
}

async function answerMcpRequest(
  app: AppContext,
  catalog: ToolCatalog,
  allowedOrigins: ReadonlySet<string>,
  request: Request,
  id: string,
  origin: string | null,
): Promise<Response> {
  // Authentication before anything else (CONTRACT §4): a request without a valid credential gets the
  // 401 that lets a client find the sign-in, whatever its Origin.
  const authentication = authenticateToolRequest(app, request.headers.get("authorization"));
  const authenticated = authentication instanceof Promise ? await authentication : authentication;
  if (!authenticated.ok) return json(authenticated.status, authenticated.body, authenticated.headers);
  if (!isAllowedOrigin(origin, allowedOrigins)) {
    return json(403, { error: "Requests from this web origin are not allowed.", code: "forbidden_origin" });
  }
  const principal = authenticated.principal;
  const noTools = noToolsFor(principal.plan);
  if (noTools) return json(noTools.status, errorBody(noTools));
  if (request.method !== "POST") {
    // Stateless: no session to stream server messages on or to terminate (as the SDK's stateless example answers).
    return jsonRpcError(405, -32000, "Method not allowed: this server is stateless; send JSON-RPC messages with POST.", {
      allow: "POST",
    });
  }
  const reading = readBody(request, MAX_BODY_BYTES);
  const text = reading === null ? null : await reading;
  if (text === null) {
    return jsonRpcError(413, -32000, `The request body is over the limit of ${MAX_BODY_BYTES} bytes.`);
  }
  if (text === NOT_UTF8_BODY) return jsonRpcError(400, -32700, `Parse error: the ${NOT_UTF8}`);
  // Before parsing: see http/json-body.ts (a message nested 40,000 deep overflowed the SDK's stack after 5 s).
  const shape = jsonShapeProblem(text);
  if (shape) return jsonRpcError(400, -32600, `Invalid Request: the message is refused: ${shape}.`);
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return jsonRpcError(400, -32700, "Parse error: the request body is not valid JSON.");
  }
  // A tools/list with nothing in its params, without a look by checkJsonRpc (direct.ts).
  if (sdkServer && catalog.isReady) {
    const listing = answerPlainListing(catalog, principal, request, message, sdkServer.SUPPORTED_PROTOCOL_VERSIONS);
    if (listing) return listing;
  }
  // Both loaded on first use (or while the server warms up): see loadSdkServer and lazyCatalog.
  const sdk = sdkServer ?? (await loadSdkServer());
  await catalog.ready();
  const refusal = sdk.checkJsonRpc(message);
  if (refusal) return json(refusal.status, refusal.body);

  const direct = await answerDirectly(app, catalog, principal, id, request, message, sdk.SUPPORTED_PROTOCOL_VERSIONS);
  if (direct) return direct;
  return sdk.answerWithSdk(catalog, app, principal, id, request, message);
}

/**
 * Bun router entries for the server (`serve.routes`): the tool server's requests never enter the
 * main app, whose dispatch and hooks cost about as much CPU as a tools/list answer itself (measured
 * in process: ~45 µs of the ~135 µs a tools/list took). This entry does what the main app's
 * observability does for them: a request id (x-request-id), the access-log line, and a 500 with the
 * request id for anything unexpected. Every method but POST is answered 405 by handleMcpRequest.
 */
export function mcpApiRoutes(app: AppContext, catalog: ToolCatalog) {
  const origins = ownOrigins(app.config);
  const answer = async (request: Request): Promise<Response> => {
    const started = performance.now();
    // Straight from the server's router, these requests have no id from an outer app (a test may
    // mount the routes behind one): the id is made here, without the app's per-request record.
    const outerId = existingRequestId(request);
    const id = outerId ?? crypto.randomUUID();
    let response: Response;
    try {
      response = await handleMcpRequest(app, catalog, origins, request, id);
    } catch (error) {
      const refusal = app.db.storage.refusalFor(error, { request_id: id });
      if (refusal) {
        response = json(refusal.status, errorBody(refusal), { "retry-after": String(refusal.retryAfterSeconds) });
      } else {
        const err = error as Error | undefined;
        log.error("unhandled error", { request_id: id, error: err?.name, message: err?.message, stack: err?.stack });
        response = json(500, { error: `Something went wrong on our side (request ${id}).`, code: "internal" });
      }
      // A page of an allowed origin reads these too ("the database does not answer").
      response = withCors(response, request.headers.get("origin"), origins);
    }
    response.headers.set("x-request-id", id);
    if (outerId === undefined) {
      log.request({ request_id: id, method: request.method, path: MCP_PATH, status: response.status, ms: elapsedMs(started) });
    }
    return response;
  };
  // A client configured with a near miss of the tool server's URL (/mcp, /api/mcp) is told the right one, where any other unknown path gets a plain "Not found".
  const elsewhere = (request: Request) =>
    json(404, {
      error: `The tool server's URL ends in ${MCP_PATH}: ${app.config.publicUrl ?? new URL(request.url).origin}${MCP_PATH}`,
      code: "not_found",
    });
  // Every method: those other than POST are answered 405 (after the credential's check), not 404.
  return {
    [MCP_PATH]: { POST: answer, GET: answer, DELETE: answer, PUT: answer, PATCH: answer, OPTIONS: answer },
    // No entries with a trailing slash: Bun's router keys a path with and without one alike (an
    // entry for MCP_PATH with a slash took MCP_PATH's own requests).
    "/mcp": elsewhere,
    "/api/mcp": elsewhere,
  };
}

/** Mounts the tool server's door onto the catalogue. */
export function mcpRoutes(app: AppContext, catalog: ToolCatalog) {
  const origins = ownOrigins(app.config);
  const handle = ({ request }: { request: Request }) => handleMcpRequest(app, catalog, origins, request);
  return new Elysia({ name: "mcp" })
    .post(MCP_PATH, handle, { parse: "none" })
    .get(MCP_PATH, handle)
    .delete(MCP_PATH, handle, { parse: "none" })
    .put(MCP_PATH, handle, { parse: "none" })
    .patch(MCP_PATH, handle, { parse: "none" })
    .options(MCP_PATH, handle);
}
