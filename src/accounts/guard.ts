// The session cookie and the guard every cookie-authenticated route stands behind.
//
// A state change (POST, PUT, PATCH, DELETE) must be same-origin (CONTRACT §3): `Sec-Fetch-Site`
// same-origin or none, else an `Origin` equal to our own origin (config.publicOrigin, or the
// request's own origin when no public_url is set); a request with neither header (curl, scripts)
// is allowed. It must also be `Content-Type: application/json`, except a POST or DELETE without a
// body (logout and key revocation take none): forms can neither send JSON nor DELETE cross-site,
// and a bodiless cross-site POST still carries Origin or Sec-Fetch-Site, so both rules together
// close the CSRF door that SameSite=Lax leaves ajar. Without public_url, a browser's state change must
// also be addressed to an address or a local name (isLocalHostName: DNS rebinding).
// The `Authorization` header is never read here: a bearer API key is not a dashboard credential.

import { type Server } from "bun";
import { Elysia } from "elysia";
import ipaddr from "ipaddr.js";
import { type Config } from "../config";
import { type AppContext } from "../context";
import { AppError, Forbidden, Unauthorized } from "../errors";
import { log } from "../log";
import { type AccountView } from "./service";
import { resolveSession } from "./sessions";

const STATE_CHANGING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function isHttpsInstance(config: Config): boolean {
  return config.publicUrl?.startsWith("https://") ?? false;
}

/** `__Host-` requires Secure, so it is used only when the instance is served over https. */
export function sessionCookieName(config: Config): string {
  return isHttpsInstance(config) ? "__Host-spyglass_session" : "spyglass_session";
}

export function sessionCookie(config: Config, token: string, expiresAt: number, now = Date.now()): string {
  const maxAge = Math.max(0, Math.floor((expiresAt - now) / 1000));
  return cookieHeader(config, token, maxAge);
}

export function clearedSessionCookie(config: Config): string {
  return cookieHeader(config, "", 0);
}

function cookieHeader(config: Config, value: string, maxAge: number): string {
  const secure = isHttpsInstance(config) ? "; Secure" : "";
  return `${sessionCookieName(config)}=${value}; Path=/; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure}`;
}

export function readSessionToken(config: Config, request: Request): string | null {
  const header = request.headers.get("cookie");
  if (!header) return null;
  const name = sessionCookieName(config);
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

class UnsupportedMediaType extends AppError {
  constructor() {
    super(415, "unsupported_media_type", "Send the request body as JSON with Content-Type: application/json.");
  }
}

/** A POST or DELETE that declares no content type and no body length carries no body. */
function isBodiless(request: Request): boolean {
  if ((request.method !== "DELETE" && request.method !== "POST") || request.headers.has("content-type")) return false;
  const length = request.headers.get("content-length");
  return (length === null || length.trim() === "0") && !request.headers.has("transfer-encoding");
}

/**
 * Host names a server without public_url answers state changes for: addresses, and names that only
 * this machine or its network resolve (localhost, a single label, .localdomain, .local, .internal,
 * .lan, .home, .home.arpa, Kubernetes' .svc, and .test, which public DNS never answers: RFC 6761).
 * Any other name could be a stranger's domain pointed at this machine by DNS rebinding:
 * a page there is "same-origin" with itself, and could create the first account (the owner) of a
 * fresh server on a laptop or a LAN. The tool server refuses such origins for the same reason
 * (mcp/origin.ts). With public_url set, the origin is compared with it instead.
 */
export function isLocalHostName(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[") || ipaddr.isValid(host)) return true;
  if (!host.includes(".")) return true;
  return /(?:^|\.)(?:localhost|localdomain|local|internal|lan|home|home\.arpa|svc|test)$/.test(host);
}

class UnknownHost extends AppError {
  constructor(host: string) {
    super(
      403,
      "unknown_host",
      `This server is reached as ${host}, a name it does not know: set public_url = "https://${host}" (or http://${host} behind no TLS) in spyglass.toml, or use its address. Without public_url it takes changes only for addresses and local names, so that another site's page cannot act on it.`,
    );
  }
}

/** Throws Forbidden (cross-site or unknown host) or 415 (not JSON) for a state change that may not proceed. */
export function assertSameOriginJson(config: Config, request: Request): void {
  if (!STATE_CHANGING.has(request.method)) return;
  const site = request.headers.get("sec-fetch-site");
  // Only a browser can be led by DNS rebinding, and a browser sends Origin (or Sec-Fetch-Site) with
  // every state change: curl and scripts, which send neither, are allowed (CONTRACT §3).
  if (config.publicOrigin === null && (site !== null || request.headers.has("origin"))) {
    const url = new URL(request.url);
    if (!isLocalHostName(url.hostname)) throw new UnknownHost(url.host);
  }
  if (site !== null) {
    if (site !== "same-origin" && site !== "none") throw crossSite();
  } else {
    const origin = request.headers.get("origin");
    const own = config.publicOrigin ?? new URL(request.url).origin;
    if (origin !== null && origin !== own) {
      // A dashboard opened at another address than public_url meets only "Forbidden": the log says why.
      log.warn("a change was refused: its Origin is not this server's", { origin, expected: own, path: new URL(request.url).pathname });
      throw crossSite();
    }
  }
  if (isBodiless(request)) return;
  const type = request.headers.get("content-type")?.split(";", 1)[0]?.trim().toLowerCase();
  if (type !== "application/json") throw new UnsupportedMediaType();
}

function crossSite(): Forbidden {
  return new Forbidden("Forbidden", "cross_site");
}

const LOOPBACK = ["127.0.0.0/8", "::1/128"].map((range) => ipaddr.parseCIDR(range));

/** Whether an address is loopback or within `trusted` (config.trustedProxies), the proxies whose X-Forwarded-For is believed. */
export function proxyMatcher(trusted: readonly string[]): (address: string) => boolean {
  const ranges = [
    ...LOOPBACK,
    ...trusted.map((entry) =>
      entry.includes("/") ? ipaddr.parseCIDR(entry) : ipaddr.parseCIDR(`${entry}/${ipaddr.parse(entry).kind() === "ipv4" ? 32 : 128}`),
    ),
  ];
  return (address) => {
    if (!ipaddr.isValid(address)) return false;
    const parsed = ipaddr.process(address); // ::ffff:10.0.0.5 is 10.0.0.5
    return ranges.some(([range, bits]) => parsed.kind() === range.kind() && parsed.match(range, bits));
  };
}

const loopbackOnly = proxyMatcher([]);

/**
 * The client's address for throttling: the socket's peer; when that is a trusted proxy (loopback, or
 * one of config.trustedProxies), the address X-Forwarded-For names before it, walking back over
 * every trusted hop (a chain of proxies each appends the address it got the request from). A client
 * cannot pick its own address: what it wrote into the header comes before the trusted hops.
 */
export function clientAddress(
  request: Request,
  server: Server<unknown> | null,
  trusted: (address: string) => boolean = loopbackOnly,
): string {
  // No socket (a request handed to the app in process, as tests do) counts as a trusted hop.
  const peer = server?.requestIP(request)?.address;
  let address = peer ?? "unknown";
  let fromTrusted = peer === undefined || trusted(address);
  const hops =
    request.headers
      .get("x-forwarded-for")
      ?.split(",")
      .map((hop) => hop.trim()) ?? [];
  while (fromTrusted) {
    const previous = hops.pop();
    if (!previous) break;
    address = previous;
    fromTrusted = trusted(address);
  }
  return address;
}

/**
 * Mount with `.use(sessionGuard(ctx))` in a feature's routes: every route after it gets `account`
 * (or answers 401), and its state changes pass the same-origin and JSON checks (or answer 403/415).
 */
export function sessionGuard(ctx: AppContext) {
  return new Elysia()
    .onBeforeHandle({ as: "scoped" }, ({ request }) => {
      assertSameOriginJson(ctx.config, request);
    })
    .resolve({ as: "scoped" }, async ({ request, set }): Promise<{ account: AccountView }> => {
      const token = readSessionToken(ctx.config, request);
      const found = await resolveSession(ctx.db, token);
      if (!token || !found) throw new Unauthorized("Unauthorized", "unauthorized");
      if (found.refreshedUntil !== null) set.headers["set-cookie"] = sessionCookie(ctx.config, token, found.refreshedUntil);
      // An account's own data (emails, brands, figures) is never kept by a shared cache in between,
      // such as a CDN set to cache everything for the public API on the same host; a route may say more.
      set.headers["cache-control"] ??= "private, no-store";
      return { account: found.account };
    });
}
