// OAuth clients: registered by RFC 7591 (POST /oauth/register) or described by a Client ID
// Metadata Document (cached in the same table for CACHE_MS). Queries on oauth_clients live here only.

import { timingSafeEqual } from "node:crypto";
import { OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import { type Queries } from "../db/queries";
import { type oauthClients } from "../db/schema";
import { ClientDocumentError, fetchClientDocument, isClientDocumentUrl } from "./client-metadata";
import { CLIENT_ID_PREFIX, CLIENT_SECRET_PREFIX, clientDisplayName, generateSecret, hashSecret } from "./format";

/** How long a fetched metadata document is used before it is fetched again. */
export const CLIENT_DOCUMENT_CACHE_MS = 60 * 60 * 1000;
const MAX_REDIRECT_URIS = 10;
/** A redirect URI longer than this is refused (browsers and proxies cut URLs not much longer). */
export const MAX_REDIRECT_URI_LENGTH = 2048;
/**
 * A registration's redirect URIs together, and its client_uri: registration needs no credential, so
 * what one may store is bounded (real clients register one to four short addresses).
 */
export const MAX_REDIRECT_URIS_TOTAL = 4096;
export const MAX_CLIENT_URI_LENGTH = 2048;
/** A registered client that no sign-in has used (no code, no grant) is deleted this long after registering. */
export const UNUSED_CLIENT_MS = 7 * 24 * 60 * 60 * 1000;
/** Fetched metadata documents kept in memory, not stored, until a grant is approved (see resolveClient). */
const MAX_CACHED_DOCUMENTS = 500;

export type ClientAuthMethod = "none" | "client_secret_basic" | "client_secret_post";

export interface OAuthClient {
  id: string;
  kind: "dcr" | "cimd";
  authMethod: ClientAuthMethod;
  name: string;
  clientUri: string | null;
  redirectUris: string[];
}

/** Why a client cannot be used; the sentence is shown on the authorization error page or in a DCR error. */
export class ClientProblem extends Error {}

/** A refused redirect URI: RFC 7591 §3.2.2's invalid_redirect_uri in a registration's answer. */
export class RedirectUriProblem extends ClientProblem {}

const BLOCKED_SCHEMES = new Set(["javascript:", "data:", "file:", "vbscript:", "blob:", "about:", "ws:", "wss:", "ftp:"]);
const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * A redirect URI a client may register: https, http on a loopback host, or a native app's private
 * scheme; never a fragment, a user name or password, or characters a URI cannot hold (the consent
 * page shows the address: "https://claude.ai@evil.example/" and "https://evil.example\@claude.ai/"
 * read as claude.ai and lead elsewhere).
 */
export function redirectUriProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${JSON.stringify(value)} is not a URL`;
  }
  if (url.hash || value.includes("#")) return `${value} has a fragment, which redirect URIs may not have`;
  if (/[\\\s\p{Cc}]/u.test(value))
    return `${JSON.stringify(value)} has a backslash, a space or a control character, which a URI cannot hold`;
  if (url.username || url.password) return `${value} has a user name or password before its host, which redirect URIs may not have`;
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:") return LOOPBACK.has(url.hostname) ? null : `${value} uses http on a host that is not loopback; use https`;
  if (BLOCKED_SCHEMES.has(url.protocol)) return `${value} uses a scheme that cannot be a redirect URI`;
  return null;
}

/**
 * Whether a redirect leads back to an app on the visitor's own device: http on a loopback host (a
 * native app listening for its sign-in, RFC 8252 §7.3). An authorization error is sent there at
 * once: it leads to no web site (RFC 9700 §4.11.2's concern with a redirect anyone may register),
 * and the app is waiting for it. A private scheme is not: a browser's own
 * (microsoft-edge:https://…, firefox://open-url?url=…) opens any site (a review registered them).
 */
export function returnsToThisDevice(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  return url.protocol === "http:" && LOOPBACK.has(url.hostname);
}

const LOOPBACK_REDIRECT = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::\d{1,5})?([/?].*)?$/;

/**
 * Whether an authorization request's redirect_uri is one the client registered: the same string, or,
 * for http on a loopback host, the same but for the port (RFC 8252 §7.3: a native app listens on
 * whatever port is free when it signs in, not the one it registered with).
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const a = LOOPBACK_REDIRECT.exec(registered);
  const b = LOOPBACK_REDIRECT.exec(requested);
  return a !== null && b !== null && a[1] === b[1] && (a[2] ?? "") === (b[2] ?? "") && redirectUriProblem(requested) === null;
}

/** The redirect URIs a stored client registered (or its metadata document named), or null for an unknown client. */
export async function registeredRedirectUris(db: Queries, clientId: string): Promise<string[] | null> {
  const row = await db.get<{ redirectUris: string }>(`SELECT redirect_uris AS "redirectUris" FROM oauth_clients WHERE id = ?`, [clientId]);
  return row ? (JSON.parse(row.redirectUris) as string[]) : null;
}

type ClientRow = typeof oauthClients.$inferSelect;

function rowToClient(row: ClientRow): OAuthClient {
  return {
    id: row.id,
    kind: row.kind,
    authMethod: row.authMethod,
    name: clientDisplayName(row.name, "Unnamed client"),
    clientUri: row.clientUri,
    redirectUris: JSON.parse(row.redirectUris) as string[],
  };
}

function checkRedirectUris(uris: string[]): void {
  if (uris.length === 0) throw new RedirectUriProblem("redirect_uris must name at least one redirect URI.");
  if (uris.length > MAX_REDIRECT_URIS) throw new RedirectUriProblem(`redirect_uris may name at most ${MAX_REDIRECT_URIS} URIs.`);
  if (uris.reduce((sum, uri) => sum + uri.length, 0) > MAX_REDIRECT_URIS_TOTAL) {
    throw new RedirectUriProblem(`redirect_uris may be at most ${MAX_REDIRECT_URIS_TOTAL} characters long together.`);
  }
  for (const uri of uris) {
    if (uri.length > MAX_REDIRECT_URI_LENGTH) {
      throw new RedirectUriProblem(`redirect_uris: a redirect URI may be at most ${MAX_REDIRECT_URI_LENGTH} characters long.`);
    }
    const problem = redirectUriProblem(uri);
    if (problem) throw new RedirectUriProblem(`redirect_uris: ${problem}.`);
  }
}

const JSON_TYPES: Record<string, string> = {
  array: "a list (a JSON array)",
  string: "a string",
  number: "a number",
  boolean: "true or false",
  object: "a JSON object",
};

/** A registration refused by the metadata schema, in a sentence that names the field and what it must be. */
function metadataProblem(body: unknown, issue: { path: PropertyKey[]; code: string; expected?: unknown } | undefined): string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return "The registration must be a JSON object of client metadata (RFC 7591), with at least redirect_uris.";
  }
  if (!issue) return "The client metadata is not valid.";
  const field = issue.path.map((part, i) => (typeof part === "number" ? `[${part}]` : `${i ? "." : ""}${String(part)}`)).join("");
  let value: unknown = body;
  for (const part of issue.path) value = (value as Record<PropertyKey, unknown> | undefined)?.[part];
  if (value === undefined) {
    return field === "redirect_uris"
      ? "redirect_uris is required: the list of addresses the client receives its authorization code at."
      : `${field} is required.`;
  }
  if (issue.code === "invalid_type" && typeof issue.expected === "string") {
    return `${field} must be ${JSON_TYPES[issue.expected] ?? issue.expected}.`;
  }
  if (issue.path[0] === "redirect_uris" || /_uri$/.test(field)) return `${field}: ${JSON.stringify(value)} is not a URL.`;
  return `${field}: ${JSON.stringify(value)} is not a valid value.`;
}

/**
 * RFC 7591 registration; returns the registration response. A client that asks for "none" (or names
 * no method) is public and proves itself with PKCE alone; one that asks for client_secret_basic or
 * client_secret_post gets a secret, shown only here and stored only as its SHA-256.
 */
export async function registerClient(db: Queries, body: unknown, now: number): Promise<Record<string, unknown>> {
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const Problem = issue?.path[0] === "redirect_uris" ? RedirectUriProblem : ClientProblem;
    throw new Problem(metadataProblem(body, issue));
  }
  const meta = parsed.data;
  const redirectUris = meta.redirect_uris.map(String);
  // As sent, too: the schema reads each as a URL, which drops a tab and escapes a space.
  checkRedirectUris((body as { redirect_uris: string[] }).redirect_uris);
  checkRedirectUris(redirectUris);
  const grantTypes = meta.grant_types ?? ["authorization_code", "refresh_token"];
  const unsupportedGrant = grantTypes.find((g) => g !== "authorization_code" && g !== "refresh_token");
  if (unsupportedGrant)
    throw new ClientProblem(`grant_types: "${unsupportedGrant}" is not supported; use authorization_code and refresh_token.`);
  const responseTypes = meta.response_types ?? ["code"];
  if (responseTypes.some((r) => r !== "code")) throw new ClientProblem('response_types: only "code" is supported.');
  const authMethod = meta.token_endpoint_auth_method ?? "none";
  if (authMethod !== "none" && authMethod !== "client_secret_basic" && authMethod !== "client_secret_post") {
    throw new ClientProblem(
      `token_endpoint_auth_method "${authMethod}" is not supported; use "none" (with PKCE), "client_secret_basic" or "client_secret_post".`,
    );
  }
  if (meta.client_uri && meta.client_uri.length > MAX_CLIENT_URI_LENGTH) {
    throw new ClientProblem(`client_uri may be at most ${MAX_CLIENT_URI_LENGTH} characters long.`);
  }
  const name = clientDisplayName(meta.client_name, "Unnamed client");
  const id = `${CLIENT_ID_PREFIX}${generateSecret("").plaintext.slice(0, 22)}`;
  const secret = authMethod === "none" ? null : generateSecret(CLIENT_SECRET_PREFIX);
  await db.run(
    `INSERT INTO oauth_clients (id, kind, auth_method, secret_hash, name, client_uri, redirect_uris, created_at)
     VALUES (?, 'dcr', ?, ?, ?, ?, ?, ?)`,
    [id, authMethod, secret?.hash ?? null, name, meta.client_uri ?? null, JSON.stringify(redirectUris), now],
  );
  return {
    client_id: id,
    client_id_issued_at: Math.floor(now / 1000),
    client_name: name,
    ...(meta.client_uri ? { client_uri: meta.client_uri } : {}),
    redirect_uris: redirectUris,
    grant_types: grantTypes,
    response_types: ["code"],
    token_endpoint_auth_method: authMethod,
    ...(secret ? { client_secret: secret.plaintext, client_secret_expires_at: 0 } : {}),
  };
}

/**
 * Deletes registered clients that nobody has ever signed in with (never approved, no code, no
 * grant) within UNUSED_CLIENT_MS of registering: anyone may register, and unused registrations would
 * otherwise stay for ever. Returns how many went.
 */
export async function deleteUnusedClients(db: Queries, now: number): Promise<number> {
  return await db.run(
    `DELETE FROM oauth_clients WHERE kind = 'dcr' AND created_at < ? AND used_at IS NULL
       AND id NOT IN (SELECT client_id FROM oauth_codes) AND id NOT IN (SELECT client_id FROM oauth_grants)`,
    [now - UNUSED_CLIENT_MS],
  );
}

/** Marks the client as used: an account approved a sign-in with it (see deleteUnusedClients). */
export async function markClientUsed(db: Queries, clientId: string, now: number): Promise<void> {
  await db.run("UPDATE oauth_clients SET used_at = ? WHERE id = ? AND used_at IS NULL", [now, clientId]);
}

/**
 * Metadata documents fetched for authorization requests, by client id, oldest first (one per
 * OAuthService). Anyone may send an authorization request naming any document URL, so a document is
 * stored in oauth_clients only when an account approves a grant for it (the token endpoint needs it
 * then): before, each new URL was a stored row, and a few hundred requests grew the database by tens
 * of megabytes.
 */
export class FetchedDocuments {
  private readonly documents = new Map<string, { client: OAuthClient; fetchedAt: number }>();

  get(clientId: string): { client: OAuthClient; fetchedAt: number } | undefined {
    return this.documents.get(clientId);
  }

  remember(client: OAuthClient, fetchedAt: number): void {
    this.documents.delete(client.id);
    this.documents.set(client.id, { client, fetchedAt });
    if (this.documents.size > MAX_CACHED_DOCUMENTS) this.documents.delete(this.documents.keys().next().value as string);
  }
}

/**
 * The client with this id: a registered one, or one whose metadata document is fetched (or taken from
 * the cache: the stored row of an approved client, or the documents fetched lately). `persist`: store
 * a document's client (an account is approving a grant for it).
 */
export async function resolveClient(
  db: Queries,
  clientId: string,
  options: { allowLoopback: boolean; now: number; documents: FetchedDocuments; persist?: boolean },
): Promise<OAuthClient> {
  const row = await db.get<ClientRow>(
    `SELECT id, kind, name, client_uri AS "clientUri", auth_method AS "authMethod", secret_hash AS "secretHash", redirect_uris AS "redirectUris",
       created_at AS "createdAt", fetched_at AS "fetchedAt"
     FROM oauth_clients WHERE id = ?`,
    [clientId],
  );
  if (!isClientDocumentUrl(clientId)) {
    if (row?.kind !== "dcr") throw new ClientProblem("This client is not registered with Spyglass (unknown client_id).");
    return rowToClient(row);
  }
  if (row && row.fetchedAt !== null && options.now - row.fetchedAt < CLIENT_DOCUMENT_CACHE_MS) return rowToClient(row);
  const cached = options.documents.get(clientId);
  let client: OAuthClient;
  let fetchedAt: number;
  if (cached && options.now - cached.fetchedAt < CLIENT_DOCUMENT_CACHE_MS) {
    ({ client, fetchedAt } = cached);
  } else {
    client = await fetchClient(clientId, options);
    fetchedAt = options.now;
    options.documents.remember(client, fetchedAt);
  }
  if (options.persist) {
    await db.run(
      `INSERT INTO oauth_clients (id, created_at, kind, name, client_uri, redirect_uris, fetched_at) VALUES (?, ?, 'cimd', ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, name = excluded.name, client_uri = excluded.client_uri,
         redirect_uris = excluded.redirect_uris, fetched_at = excluded.fetched_at`,
      [clientId, options.now, client.name, client.clientUri, JSON.stringify(client.redirectUris), fetchedAt],
    );
  }
  return client;
}

async function fetchClient(clientId: string, options: { allowLoopback: boolean }): Promise<OAuthClient> {
  let document: Awaited<ReturnType<typeof fetchClientDocument>>;
  try {
    document = await fetchClientDocument(clientId, options);
    checkRedirectUris(document.redirectUris);
  } catch (error) {
    if (error instanceof ClientDocumentError || error instanceof ClientProblem) {
      throw new ClientProblem(`The client's metadata document at ${clientId} cannot be used: ${error.message.replace(/\.$/, "")}.`);
    }
    throw error;
  }
  return {
    id: clientId,
    kind: "cimd",
    authMethod: "none",
    name: document.name,
    clientUri: document.clientUri,
    redirectUris: document.redirectUris,
  };
}

/** The name shown for a client (its registration's or its document's). */
export async function clientName(db: Queries, clientId: string): Promise<string> {
  return clientDisplayName((await db.get<{ name: string }>("SELECT name FROM oauth_clients WHERE id = ?", [clientId]))?.name, clientId);
}

/**
 * Client authentication at the token and revocation endpoints: a confidential client must present
 * its secret (as it registered: Basic or in the body); a public client presents none. Returns the
 * authenticated client id, or null when the client is unknown or its secret is missing or wrong.
 */
export async function authenticateClient(db: Queries, clientId: string, secret: string | null): Promise<string | null> {
  const row = await db.get<{ secretHash: string | null }>(`SELECT secret_hash AS "secretHash" FROM oauth_clients WHERE id = ?`, [clientId]);
  if (!row) return null;
  if (row.secretHash === null) return clientId;
  if (secret === null) return null;
  const presented = Buffer.from(hashSecret(secret));
  const stored = Buffer.from(row.secretHash);
  return presented.length === stored.length && timingSafeEqual(presented, stored) ? clientId : null;
}
