// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, MCP authorization
// 2025-11-25): the client id is an https URL and the document at it describes the client. Fetching
// a URL that anyone can name is a server-side request, so: https only, the host's every address
// must be public (no loopback, private, link-local, unique-local, CGNAT or reserved address), no
// redirects, 5 seconds and 64 KiB at most. The addresses are checked before the request and again
// by the connection's own lookup, so a DNS answer that changes in between (rebinding) is refused
// too. In the test mode (config.oauthLoopbackClients, env SPYGLASS_OAUTH_TEST_LOOPBACK_CLIENTS=1)
// loopback addresses are allowed and their self-signed certificates accepted, so that a test can
// serve a document on 127.0.0.1; nothing else changes.
import { type LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import { type LookupFunction } from "node:net";
import { OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import ipaddr from "ipaddr.js";
import { clientDisplayName } from "./format";

export const DOCUMENT_MAX_BYTES = 64 * 1024;
export const DOCUMENT_TIMEOUT_MS = 5_000;

export class ClientDocumentError extends Error {}

export interface ClientDocument {
  name: string;
  clientUri: string | null;
  redirectUris: string[];
}

/** A client id that names a metadata document: an https URL with a path, no dot segments, no fragment, no credentials. */
export function isClientDocumentUrl(clientId: string): boolean {
  if (!clientId.startsWith("https://")) return false;
  // Parsing would resolve "." and ".." away; the draft forbids them in the identifier as written.
  if (/\/\.{1,2}(\/|$|\?)/.test(clientId.replace(/[?#].*$/, ""))) return false;
  try {
    const url = new URL(clientId);
    return url.pathname !== "/" && !url.hash && !url.username && !url.password;
  } catch {
    return false;
  }
}

/** "loopback" for 127.0.0.0/8 and ::1 (also IPv4-mapped), "public" for unicast addresses, else "private". */
export function addressKind(address: string): "public" | "loopback" | "private" {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return "private";
  }
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  if (range === "loopback") return "loopback";
  return range === "unicast" ? "public" : "private";
}

async function checkHost(hostname: string, allowLoopback: boolean): Promise<void> {
  const bare = hostname.startsWith("[") ? hostname.slice(1, -1) : hostname;
  let addresses: string[];
  if (ipaddr.isValid(bare)) {
    addresses = [bare];
  } else {
    try {
      addresses = (await lookup(bare, { all: true, verbatim: true })).map((a) => a.address);
    } catch {
      throw new ClientDocumentError(`the host ${bare} could not be resolved`);
    }
  }
  for (const address of addresses) {
    const kind = addressKind(address);
    if (kind === "public" || (kind === "loopback" && allowLoopback)) continue;
    throw new ClientDocumentError(`the host ${bare} has a private or loopback address (${address}), which Spyglass does not fetch`);
  }
}

/** A DNS lookup for the connection itself that refuses any address that is not public (loopback too, in the test mode). */
export function publicOnlyLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { all: true, verbatim: true }).then(
      (addresses) => {
        const refused = addresses.find((a) => {
          const kind = addressKind(a.address);
          return !(kind === "public" || (kind === "loopback" && allowLoopback));
        });
        if (refused || addresses.length === 0) {
          callback(
            new ClientDocumentError(
              `the host ${hostname} has a private or loopback address (${refused?.address ?? "none"}), which Spyglass does not fetch`,
            ),
            "",
            4,
          );
        } else if (options.all) {
          (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
        } else {
          callback(null, addresses[0]!.address, addresses[0]!.family);
        }
      },
      () => callback(new ClientDocumentError(`the host ${hostname} could not be resolved`), "", 4),
    );
  };
}

/**
 * GET over https with node:https, whose `lookup` option lets the address be checked when the
 * connection is made (a host that resolves to a public address for the check and a private one for
 * the connection is refused), never following a redirect, within the time and size limits.
 */
async function getDocument(url: URL, allowLoopback: boolean): Promise<{ status: number; body: string }> {
  const literal = url.hostname.replace(/^\[|\]$/g, "");
  // Loaded on the first client document: node:https (and node:http under it) cost every start ~5 ms.
  const https = await import("node:https");
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      {
        method: "GET",
        headers: { accept: "application/json" },
        lookup: publicOnlyLookup(allowLoopback),
        // The test mode's loopback document host has a self-signed certificate; nothing else is exempt.
        rejectUnauthorized: !(allowLoopback && addressKind(literal) === "loopback"),
      },
      (response) => {
        const status = response.statusCode ?? 0;
        if (status !== 200) {
          response.resume();
          resolve({ status, body: "" });
          return;
        }
        const declared = Number(response.headers["content-length"] ?? "0");
        const tooLarge = () => new ClientDocumentError(`the document is over ${DOCUMENT_MAX_BYTES} bytes`);
        if (declared > DOCUMENT_MAX_BYTES) {
          request.destroy(tooLarge());
          return;
        }
        const chunks: Buffer[] = [];
        let received = 0;
        response.on("data", (chunk: Buffer) => {
          received += chunk.byteLength;
          if (received > DOCUMENT_MAX_BYTES) request.destroy(tooLarge());
          else chunks.push(chunk);
        });
        response.on("end", () => resolve({ status, body: Buffer.concat(chunks).toString("utf8") }));
        response.on("error", reject);
      },
    );
    const timer = setTimeout(
      () => request.destroy(new ClientDocumentError(`no answer within ${DOCUMENT_TIMEOUT_MS / 1000} seconds`)),
      DOCUMENT_TIMEOUT_MS,
    );
    request.on("error", (error) =>
      reject(error instanceof ClientDocumentError ? error : new ClientDocumentError("the host could not be reached")),
    );
    request.on("close", () => clearTimeout(timer));
    request.end();
  });
}

/** Fetches and validates the document; throws ClientDocumentError with a reason a person can act on. */
export async function fetchClientDocument(clientId: string, options: { allowLoopback: boolean }): Promise<ClientDocument> {
  if (!isClientDocumentUrl(clientId)) throw new ClientDocumentError("a client id document must be an https URL with a path");
  const url = new URL(clientId);
  await checkHost(url.hostname, options.allowLoopback);
  const response = await getDocument(url, options.allowLoopback);
  if (response.status !== 200) {
    throw new ClientDocumentError(
      `the host answered HTTP ${response.status}${response.status >= 300 && response.status < 400 ? " (redirects are not followed)" : ""}`,
    );
  }
  let raw: unknown;
  try {
    raw = JSON.parse(response.body);
  } catch {
    throw new ClientDocumentError("the document is not JSON");
  }
  if (typeof raw !== "object" || raw === null || (raw as { client_id?: unknown }).client_id !== clientId) {
    throw new ClientDocumentError("the document's client_id is not its own URL");
  }
  if ("client_secret" in raw || "client_secret_expires_at" in raw) {
    throw new ClientDocumentError("the document holds a client_secret, which a public document must never hold");
  }
  const parsed = OAuthClientMetadataSchema.safeParse(raw);
  if (!parsed.success)
    throw new ClientDocumentError(`the document is not valid client metadata (${parsed.error.issues[0]?.path.join(".") ?? "?"})`);
  const method = parsed.data.token_endpoint_auth_method ?? "none";
  if (method !== "none") throw new ClientDocumentError(`token_endpoint_auth_method "${method}" is not supported; use "none"`);
  return {
    name: clientDisplayName(parsed.data.client_name, url.hostname),
    clientUri: parsed.data.client_uri ?? null,
    redirectUris: parsed.data.redirect_uris.map(String),
  };
}
