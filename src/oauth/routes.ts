// OAuth 2.1 over HTTP (CONTRACT §8). Served only when OAuth is on (oauthSettings: public_url over
// https, or http on a loopback host); otherwise every route here is the JSON 404 of any unknown path.
//   GET  /.well-known/oauth-protected-resource[/api/mcp/mcp]   RFC 9728, the tool server's metadata
//   GET  /.well-known/oauth-authorization-server               RFC 8414
//   POST /oauth/register    RFC 7591 (public clients)          GET /oauth/authorize → the consent page
//   POST /oauth/token       authorization_code, refresh_token  POST /oauth/revoke    RFC 7009
// and, for the dashboard's session (same-origin JSON, like every dashboard state change):
//   GET|POST /api/oauth/authorization   describe a request / approve or deny it
//   GET /api/oauth/grants, DELETE /api/oauth/grants/:id   "Connected apps"
import { InvalidRequestError, OAuthError, ServerError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { type Server } from "bun";
import { Elysia } from "elysia";
import { clientAddress, proxyMatcher, sessionGuard } from "../accounts/guard";
import { FailureWindow, throttleAddress } from "../accounts/throttle";
import { type AppContext } from "../context";
import { errorBody, Invalid, MethodNotAllowed, methodNotAllowed, NotFound, TooManyRequests } from "../errors";
import { decodeUtf8, jsonShapeProblem, NOT_UTF8 } from "../http/json-body";
import { findUnsafeText, unsafeTextSentence } from "../http/text";
import { log } from "../log";
import { isClientDocumentUrl } from "./client-metadata";
import { ClientProblem, deleteUnusedClients, RedirectUriProblem, registerClient, returnsToThisDevice } from "./clients";
import { redirectDestination } from "./destination";
import { AuthorizationPageError, type OAuthService, type OAuthSettings, RedirectableError } from "./service";

const MAX_FORM_BYTES = 64 * 1024;
// Registration needs no credential. Web connectors register from their provider's few addresses, one
// client per person connecting: enough for a team's morning, not for filling the table.
export const REGISTRATIONS_PER_HOUR = 100;
const REGISTRATION_RULE = { maxFailures: REGISTRATIONS_PER_HOUR, windowMs: 60 * 60 * 1000 };
/**
 * Registrations per hour from every address together: one address's limit does not bound an
 * attacker with many (each IPv6 /64 is one), and what registrations store is kept until unused ones
 * are deleted (clients.ts deleteUnusedClients, checked at most once an hour).
 */
export const ALL_REGISTRATIONS_PER_HOUR = 500;
const ALL_REGISTRATIONS_RULE = { maxFailures: ALL_REGISTRATIONS_PER_HOUR, windowMs: 60 * 60 * 1000 };
const UNUSED_CLIENTS_CHECK_MS = 60 * 60 * 1000;
/**
 * Authorization requests naming a client metadata document (an https client_id) per address and
 * hour: each may fetch a document from a host the request names, so they are counted like
 * registrations. A person connecting a client sends one or two.
 */
export const DOCUMENT_CLIENT_REQUESTS_PER_HOUR = 60;
const DOCUMENT_CLIENT_RULE = { maxFailures: DOCUMENT_CLIENT_REQUESTS_PER_HOUR, windowMs: 60 * 60 * 1000 };
export const CONSENT_PAGE = "/oauth/consent";

// Clients running in a browser (the MCP Inspector) read the metadata and call the token endpoints
// cross-origin; nothing here relies on cookies, so any origin may.
const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "authorization, content-type, mcp-protocol-version",
  "access-control-max-age": "86400",
};

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...CORS, ...headers },
  });
}

/** A body over MAX_FORM_BYTES: invalid_request, with HTTP's own status for it. */
class BodyTooLarge extends InvalidRequestError {}

function oauthError(error: OAuthError): Response {
  if (error instanceof BodyTooLarge) return json(413, error.toResponseObject(), { "cache-control": "no-store" });
  if (error.errorCode === "invalid_client") {
    return json(401, error.toResponseObject(), { "cache-control": "no-store", "www-authenticate": 'Basic realm="spyglass"' });
  }
  return json(400, error.toResponseObject(), { "cache-control": "no-store" });
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

// The error page's only style, allowed by its hash: no other style or script may run there.
const ERROR_PAGE_STYLE =
  ":root{color-scheme:light dark;font-family:system-ui,sans-serif;line-height:1.5}body{margin:0}main{max-width:34rem;margin:0 auto;padding:3rem 1rem}h1{font-size:1.5rem;line-height:1.25}";
const ERROR_PAGE_CSP = `default-src 'none'; style-src 'sha256-${new Bun.CryptoHasher("sha256").update(ERROR_PAGE_STYLE).digest("base64")}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;

/**
 * The authorization endpoint's answer to a request it refuses: a page that says why. When the client
 * and its redirect URI are established, a link takes the visitor back to the client with the error
 * (`back`), on the visitor's click only (see RedirectableError).
 */
function errorPage(message: string, back?: string, status = 400, headers: Record<string, string> = {}): Response {
  const backLink = back
    ? `<p><a href="${escapeHtml(back)}">Return to ${escapeHtml(redirectDestination(back))}</a>, the app that sent you here, and tell it why.</p>`
    : "";
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign-in request refused · Spyglass</title><style>${ERROR_PAGE_STYLE}</style></head><body><main><p><strong>Spyglass</strong></p><h1>This sign-in request cannot be completed</h1><p>${escapeHtml(message)}</p>${backLink}<p><a href="/">Go to the Spyglass dashboard</a></p></main></body></html>`;
  return new Response(html, {
    status,
    headers: {
      ...headers,
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": ERROR_PAGE_CSP,
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
    },
  });
}

/** The endpoints below that read their bodies themselves (parse: "none"): app.ts's JSON limits leave them be. */
export const OAUTH_PATHS_READING_THEIR_BODIES = ["/oauth/register", "/oauth/token", "/oauth/revoke"];

/** A form or JSON body as text, or an OAuth invalid_request when it is over the limit or not UTF-8. */
async function readText(request: Request): Promise<string> {
  const bytes = await request.bytes();
  if (bytes.byteLength > MAX_FORM_BYTES) throw new BodyTooLarge(`The request body is over ${MAX_FORM_BYTES} bytes.`);
  const text = decodeUtf8(bytes);
  if (text === null) throw new InvalidRequestError(`The ${NOT_UTF8}`);
  return text;
}

async function readForm(request: Request): Promise<URLSearchParams> {
  const type = request.headers.get("content-type")?.split(";", 1)[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new InvalidRequestError("Send the parameters as application/x-www-form-urlencoded.");
  }
  return new URLSearchParams(await readText(request));
}

export function protectedResourceMetadata(settings: OAuthSettings) {
  return {
    resource: settings.resource,
    authorization_servers: [settings.issuer],
    bearer_methods_supported: ["header"],
    resource_name: "Spyglass",
  };
}

export function authorizationServerMetadata(settings: OAuthSettings) {
  return {
    issuer: settings.issuer,
    authorization_endpoint: `${settings.issuer}/oauth/authorize`,
    token_endpoint: `${settings.issuer}/oauth/token`,
    registration_endpoint: `${settings.issuer}/oauth/register`,
    revocation_endpoint: `${settings.issuer}/oauth/revoke`,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
    revocation_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/** Runs an OAuth endpoint: OAuthErrors become their JSON answer, anything unexpected a logged server_error. */
async function oauthEndpoint(request: Request, run: () => Promise<Response> | Response): Promise<Response> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof OAuthError) return oauthError(error);
    if (error instanceof NotFound) throw error;
    log.error("oauth endpoint failed", {
      path: new URL(request.url).pathname,
      error: error instanceof Error ? error.message : String(error),
    });
    return oauthError(new ServerError("The server could not complete the request."));
  }
}

export function oauthRoutes(ctx: AppContext) {
  const oauth: OAuthService = ctx.oauth;
  const registrations = new FailureWindow(REGISTRATION_RULE);
  const allRegistrations = new FailureWindow(ALL_REGISTRATIONS_RULE);
  let unusedClientsCheckedAt = Number.NEGATIVE_INFINITY;
  const documentClients = new FailureWindow(DOCUMENT_CLIENT_RULE);
  /**
   * Seconds to wait before another request naming a client metadata document from this address (0:
   * go on, and it is counted): each may fetch a document from a host the request names. The
   * authorization endpoint and the consent page's route share the count.
   */
  const documentLookupWait = (request: Request, server: Server<unknown> | null, params: URLSearchParams): number => {
    const clientId = params.get("client_id");
    if (clientId === null || !isClientDocumentUrl(clientId)) return 0;
    const address = throttleAddress(clientAddress(request, server, proxies));
    const wait = documentClients.retryAfter(address);
    if (wait === 0) documentClients.fail(address);
    return wait;
  };
  const proxies = proxyMatcher(ctx.config.trustedProxies);
  const on = (): OAuthSettings => {
    const settings = oauth.settings;
    if (!settings) throw new NotFound();
    return settings;
  };
  const preflight = () => {
    on();
    return new Response(null, { status: 204, headers: CORS });
  };
  const resourceMetadata = () => json(200, protectedResourceMetadata(on()), { "cache-control": "public, max-age=3600" });

  // Another method on an endpoint: 405 with Allow, as every dashboard route answers (it was a 404),
  // and the 404 of the endpoint while OAuth is off.
  // With the endpoints' CORS headers, so that a browser client reads the refusal rather than a
  // network error; so are the discovery addresses clients try that this server does not serve.
  const wrongMethod = (allow: string) => () => {
    on();
    return json(405, errorBody(new MethodNotAllowed(allow)), { allow });
  };
  const notServed = () => {
    on();
    return json(404, errorBody(new NotFound()));
  };

  const open = new Elysia()
    .all("/.well-known/oauth-protected-resource", wrongMethod("GET, OPTIONS"))
    .all("/.well-known/oauth-protected-resource/api/mcp/mcp", wrongMethod("GET, OPTIONS"))
    .all("/.well-known/oauth-authorization-server", wrongMethod("GET, OPTIONS"))
    .all("/oauth/register", wrongMethod("POST, OPTIONS"))
    .all("/oauth/token", wrongMethod("POST, OPTIONS"))
    .all("/oauth/revoke", wrongMethod("POST, OPTIONS"))
    .all("/oauth/authorize", wrongMethod("GET"))
    // OpenID discovery and a path-suffixed authorization server's, which clients try in turn (RFC 8414
    // §3.1): this issuer has no path, and no OpenID Connect.
    .all("/.well-known/openid-configuration", notServed)
    .all("/.well-known/openid-configuration/*", notServed)
    .all("/.well-known/oauth-authorization-server/*", notServed)
    .get("/.well-known/oauth-protected-resource", resourceMetadata)
    .get("/.well-known/oauth-protected-resource/api/mcp/mcp", resourceMetadata)
    .get("/.well-known/oauth-authorization-server", () =>
      json(200, authorizationServerMetadata(on()), { "cache-control": "public, max-age=3600" }),
    )
    .options("/.well-known/oauth-protected-resource", preflight)
    .options("/.well-known/oauth-protected-resource/api/mcp/mcp", preflight)
    .options("/.well-known/oauth-authorization-server", preflight)
    .options("/oauth/register", preflight)
    .options("/oauth/token", preflight)
    .options("/oauth/revoke", preflight)
    .post(
      "/oauth/register",
      ({ request, server }) => {
        on();
        return oauthEndpoint(request, async () => {
          const address = throttleAddress(clientAddress(request, server, proxies));
          const tooMany = (wait: number, from: string) =>
            json(
              429,
              { error: "invalid_request", error_description: `Too many client registrations ${from}; try again in ${wait} seconds.` },
              { "retry-after": String(wait) },
            );
          const wait = registrations.retryAfter(address);
          if (wait > 0) return tooMany(wait, "from this address");
          const waitAll = allRegistrations.retryAfter("*");
          if (waitAll > 0) return tooMany(waitAll, "on this server in the last hour");
          // Counted at once, so that a burst cannot pass the check before any of it is counted; a
          // registration refused below is forgiven: junk must not use up the hour of everyone (a
          // client connecting for the first time), nor that of its address (a developer trying
          // metadata until it is accepted was locked out for most of an hour). The limits bound what
          // is stored, and a refusal stores nothing.
          const counted = Date.now();
          registrations.fail(address, counted);
          allRegistrations.fail("*", counted);
          let stored = false;
          try {
            const now = oauth.now();
            if (now - unusedClientsCheckedAt >= UNUSED_CLIENTS_CHECK_MS) {
              unusedClientsCheckedAt = now;
              const deleted = await deleteUnusedClients(ctx.db, now);
              if (deleted > 0) log.info("unused OAuth client registrations deleted", { clients: deleted });
            }
            let body: unknown;
            const refused = (description: string) => json(400, { error: "invalid_client_metadata", error_description: description });
            try {
              const text = await readText(request);
              const shape = jsonShapeProblem(text);
              if (shape) return refused(`The body is refused: ${shape}.`);
              body = JSON.parse(text);
            } catch (error) {
              if (error instanceof OAuthError) throw error;
              return refused("The body is not JSON client metadata.");
            }
            // The rule of every other door (http/text.ts): text that could not be stored as sent.
            const unsafe = findUnsafeText(body);
            if (unsafe) return refused(unsafeTextSentence(unsafe));
            try {
              const registered = await registerClient(ctx.db, body, oauth.now());
              stored = true;
              return json(201, registered, { "cache-control": "no-store" });
            } catch (error) {
              if (error instanceof ClientProblem) {
                // RFC 7591 §3.2.2 has a code of its own for a refused redirect URI.
                const code = error instanceof RedirectUriProblem ? "invalid_redirect_uri" : "invalid_client_metadata";
                return json(400, { error: code, error_description: error.message });
              }
              throw error;
            }
          } finally {
            if (!stored) {
              allRegistrations.forgive("*", counted);
              registrations.forgive(address, counted);
            }
          }
        });
      },
      { parse: "none" },
    )
    .get("/oauth/authorize", async ({ request, server }) => {
      on();
      const url = new URL(request.url);
      const wait = documentLookupWait(request, server, url.searchParams);
      if (wait > 0) {
        return errorPage(`Too many sign-in requests from this address; try again in ${wait} seconds.`, undefined, 429, {
          "retry-after": String(wait),
        });
      }
      try {
        await oauth.checkAuthorizationRequest(url.searchParams);
      } catch (error) {
        if (error instanceof AuthorizationPageError) return errorPage(error.message);
        if (error instanceof RedirectableError) {
          // An app on this device (a loopback listener) is told at once; it was left
          // waiting for a page's link to be clicked. A web site's redirect stays a link (see RedirectableError).
          if (returnsToThisDevice(error.redirect)) {
            return new Response(null, { status: 302, headers: { location: error.redirect, "cache-control": "no-store" } });
          }
          return errorPage(error.description, error.redirect);
        }
        throw error;
      }
      // The dashboard's consent page signs the visitor in if needed, then asks.
      return new Response(null, { status: 302, headers: { location: `${CONSENT_PAGE}${url.search}`, "cache-control": "no-store" } });
    })
    .post(
      "/oauth/token",
      ({ request }) => {
        on();
        return oauthEndpoint(request, async () =>
          json(200, await oauth.token(await readForm(request), request.headers.get("authorization")), {
            "cache-control": "no-store",
            pragma: "no-cache",
          }),
        );
      },
      { parse: "none" },
    )
    .post(
      "/oauth/revoke",
      ({ request }) => {
        on();
        return oauthEndpoint(request, async () => {
          await oauth.revoke(await readForm(request), request.headers.get("authorization"));
          return json(200, {}, { "cache-control": "no-store" });
        });
      },
      { parse: "none" },
    );

  const session = new Elysia({ prefix: "/api/oauth" })
    .all("/authorization", methodNotAllowed("GET, POST"))
    .all("/grants", methodNotAllowed("GET"))
    .all("/grants/:id", methodNotAllowed("DELETE"))
    .use(sessionGuard(ctx))
    .get("/authorization", async ({ request, server }) => {
      on();
      const params = new URL(request.url).searchParams;
      const wait = documentLookupWait(request, server, params);
      if (wait > 0) throw new TooManyRequests(`Too many sign-in requests from this address; try again in ${wait} seconds.`, wait);
      try {
        const found = await oauth.checkAuthorizationRequest(params);
        return {
          client: { id: found.client.id, name: found.client.name, uri: found.client.clientUri, kind: found.client.kind, verified: false },
          redirect_uri: found.redirectUri,
        };
      } catch (error) {
        if (error instanceof AuthorizationPageError) throw new Invalid(error.message, "invalid_authorization_request");
        if (error instanceof RedirectableError) {
          return { error_redirect: error.redirect, error: error.description, return_now: returnsToThisDevice(error.redirect) };
        }
        throw error;
      }
    })
    .post("/authorization", async ({ account, body, set, request, server }) => {
      on();
      const input = (typeof body === "object" && body !== null ? body : {}) as {
        request?: unknown;
        decision?: unknown;
        brand_id?: unknown;
      };
      if (typeof input.request !== "string" || (input.decision !== "approve" && input.decision !== "deny")) {
        throw new Invalid('Send {request: the authorization query, decision: "approve" or "deny", brand_id}.', "invalid_input");
      }
      // The decision resolves the client again: a metadata document is fetched here as on the authorization page.
      const params = new URLSearchParams(input.request);
      const wait = documentLookupWait(request, server, params);
      if (wait > 0) throw new TooManyRequests(`Too many sign-in requests from this address; try again in ${wait} seconds.`, wait);
      try {
        const redirect = await oauth.decide(account.id, params, {
          approve: input.decision === "approve",
          brandId: typeof input.brand_id === "string" ? input.brand_id : null,
        });
        // The redirect carries the authorization code (CONTRACT §7: a secret is never cached).
        set.headers["cache-control"] = "no-store";
        return { redirect };
      } catch (error) {
        if (error instanceof AuthorizationPageError) throw new Invalid(error.message, "invalid_authorization_request");
        throw error;
      }
    })
    .get("/grants", async ({ account }) => ({ enabled: oauth.settings !== null, grants: await oauth.listGrants(account.id) }))
    .delete("/grants/:id", async ({ account, params, set }) => {
      await oauth.revokeGrant(account.id, params.id);
      set.status = 204;
      return null;
    });

  return new Elysia({ name: "oauth" }).use(open).use(session);
}
