// Origin check of the tool server (MCP transport security; DNS rebinding). Only browsers send
// Origin; desktop and CLI clients do not, and a request without it passes. The server's own origin
// is taken from the configuration, never from the Host header, which a rebinding page controls.
import { type Config } from "../config";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The origins, besides loopback ones, that may call the tool server from a browser. */
export function ownOrigins(config: Config): Set<string> {
  const out = new Set<string>();
  if (config.publicOrigin) out.add(config.publicOrigin);
  const host = config.host;
  if (config.port !== 0 && host !== "0.0.0.0" && host !== "::" && host !== "") {
    const name = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
    out.add(`http://${name}:${config.port}`.toLowerCase());
  }
  return out;
}

/** True when the Origin header is absent, loopback (any port), or one of `allowed`. */
export function isAllowedOrigin(origin: string | null, allowed: ReadonlySet<string>): boolean {
  if (origin === null) return true;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  // An origin is scheme, host and port only.
  if (url.origin === "null" || url.username || url.password || url.pathname !== "/" || url.search || url.hash) return false;
  if ((url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_HOSTS.has(url.hostname)) return true;
  return allowed.has(url.origin);
}
