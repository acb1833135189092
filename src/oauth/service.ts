// The authorization server and its grants (CONTRACT §8, MCP authorization 2025-11-25): authorization
// requests, consent, the token endpoint (authorization_code with PKCE S256, refresh_token with
// rotation and reuse detection), RFC 7009 revocation, and the access-token check of the tool
// server. Queries on oauth_codes, oauth_grants and oauth_tokens live here only. `now` is the clock
// (tests move it instead of waiting an hour).
import {
  AccessDeniedError,
  InvalidClientError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidTargetError,
  OAuthError,
  UnsupportedGrantTypeError,
  UnsupportedResponseTypeError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { planChangeHint, requirePlan } from "../accounts/plans";
import { getAccount } from "../accounts/service";
import { getAccountBrand, getBrand } from "../brands/service";
import { type Config } from "../config";
import { commitStamp } from "../db/change-stamp";
import { type Db } from "../db/client";
import { type Queries } from "../db/queries";
import { type Plan } from "../db/values";
import { Invalid, NotFound } from "../errors";
import { iso, isoOrNull, newId } from "../ids";
import {
  authenticateClient,
  ClientProblem,
  clientName,
  FetchedDocuments,
  markClientUsed,
  type OAuthClient,
  redirectUriMatches,
  registeredRedirectUris,
  resolveClient,
} from "./clients";
import {
  ACCESS_TOKEN_PREFIX,
  CODE_PREFIX,
  clientDisplayName,
  generateSecret,
  hashSecret,
  isWellFormedChallenge,
  isWellFormedSecret,
  isWellFormedVerifier,
  REFRESH_TOKEN_PREFIX,
  s256,
} from "./format";

export const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Token pairs a refresh token's reuses may mint within [oauth] refresh_reuse_grace_seconds (its first use's pair counted). */
const REUSE_PAIRS_MAX = 10;
export const CODE_TTL_MS = 5 * 60 * 1000;
const CODE_RETENTION_MS = 24 * 60 * 60 * 1000;
const MAX_STATE = 2048;
const LAST_USED_RESOLUTION_MS = 60_000;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** Where OAuth lives when it is on: the issuer (public_url) and the one protected resource. */
export interface OAuthSettings {
  issuer: string;
  resource: string;
  resourceMetadataUrl: string;
}

/** OAuth needs a stable issuer: public_url over https, or http on a loopback host (local use). Otherwise it is off. */
export function oauthSettings(config: Config): OAuthSettings | null {
  if (!config.publicUrl) return null;
  const url = new URL(config.publicUrl);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname))) return null;
  const issuer = config.publicUrl.replace(/\/+$/, "");
  return {
    issuer,
    resource: `${issuer}/api/mcp/mcp`,
    resourceMetadataUrl: `${url.origin}/.well-known/oauth-protected-resource${url.pathname.replace(/\/+$/, "")}/api/mcp/mcp`,
  };
}

/** An authorization request that cannot be answered by redirecting to the client (unknown client or redirect URI). */
export class AuthorizationPageError extends Error {}

/** A valid authorization request, ready for consent. */
export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  resource: string;
}

/** The answer to an authorization request that goes back to the client: its redirect URI with code or error, state and iss. */
function clientRedirect(settings: OAuthSettings, redirectUri: string, state: string | null, params: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  if (state !== null) url.searchParams.set("state", state);
  url.searchParams.set("iss", settings.issuer);
  return url.toString();
}

/**
 * A problem with an authorization request whose client and redirect URI are established: the
 * client's redirect carrying the error, and the error's sentence. The doors show the sentence with a
 * link to the redirect rather than sending the browser there at once: anyone may register a client
 * (RFC 7591) with any https redirect URI, and an automatic redirect would make this server's own
 * authorize address a way to any site (RFC 9700 §4.11.2).
 */
export class RedirectableError extends Error {
  constructor(
    readonly redirect: string,
    readonly description: string,
  ) {
    super("redirect to the client with an error");
  }
}

function single(params: URLSearchParams, name: string): string | null {
  const all = params.getAll(name);
  if (all.length > 1) throw new InvalidRequestError(`${name} is sent more than once.`);
  return all[0] ?? null;
}

export interface GrantView {
  id: string;
  client_id: string;
  client_name: string;
  brand_id: string;
  created_at: string;
  last_used_at: string | null;
}

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
}

export type AccessTokenResult = VerifiedAccessToken | { ok: false; reason: "malformed" | "invalid" };

interface VerifiedAccessToken {
  ok: true;
  value: { grantId: string; account: { id: string }; brand: { id: string; name: string; domain: string | null }; plan: Plan };
}

/** An access token verified on an SQLite database, with what says whether that still holds. */
interface RememberedToken {
  /** commitStamp before the token was read: any write since, and it is read again. */
  stamp: string;
  expiresAt: number;
  /** The grant's last use as stored: once it is LAST_USED_RESOLUTION_MS old, the token is read again (and the use written). */
  lastUsedAt: number;
  resource: string;
  result: VerifiedAccessToken;
}

const MAX_REMEMBERED_TOKENS = 1_000;

/** The client id and secret a token or revocation request carries: HTTP Basic (RFC 6749 §2.3.1) or the body. */
export function clientCredentials(
  params: URLSearchParams,
  authorization: string | null,
): { clientId: string | null; secret: string | null } {
  const basic = authorization ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization)?.[1] : undefined;
  if (authorization && !basic) throw new InvalidClientError("The Authorization header is not HTTP Basic client authentication.");
  if (basic) {
    const decoded = Buffer.from(basic, "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    if (colon < 0) throw new InvalidClientError("The Basic credentials are not client_id:client_secret.");
    let clientId: string;
    let secret: string;
    try {
      clientId = decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, " "));
      secret = decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, " "));
    } catch {
      throw new InvalidClientError("The Basic credentials are not form-encoded.");
    }
    const inBody = params.get("client_id");
    if (inBody !== null && inBody !== clientId)
      throw new InvalidRequestError("client_id differs from the one in the Authorization header.");
    if (params.has("client_secret")) throw new InvalidRequestError("Send the client secret in one way only.");
    return { clientId, secret };
  }
  return { clientId: params.get("client_id"), secret: params.get("client_secret") };
}

const CLIENT_AUTH_FAILED = "Client authentication failed: unknown client, or a missing or wrong client secret.";

function settle(outcome: TokenResponse | OAuthError): TokenResponse {
  if (outcome instanceof Error) throw outcome;
  return outcome;
}

export class OAuthService {
  /** The clock; tests replace it. */
  now: () => number = Date.now;
  /** Client metadata documents fetched lately, not yet approved (clients.ts). */
  private readonly documents = new FetchedDocuments();
  /** Access tokens verified since the database last changed, by their hash (rememberedAccessToken). */
  private readonly verifiedTokens = new Map<string, RememberedToken>();
  private settingsOf: { publicUrl: string | null; settings: OAuthSettings | null } | null = null;

  constructor(
    private readonly config: Config,
    private readonly db: Db,
  ) {}

  get settings(): OAuthSettings | null {
    // Worked out again only when public_url changes (every tool request with a token reads it).
    let known = this.settingsOf;
    if (known?.publicUrl !== this.config.publicUrl) {
      known = this.settingsOf = { publicUrl: this.config.publicUrl, settings: oauthSettings(this.config) };
    }
    return known.settings;
  }

  private requireSettings(): OAuthSettings {
    const settings = this.settings;
    if (!settings) throw new NotFound();
    return settings;
  }

  /**
   * Validates an authorization request's query. Throws AuthorizationPageError when the client or the
   * redirect URI is not established (nothing may be sent to an unverified address), RedirectableError
   * with the client's redirect (error, state, iss) for any other problem.
   */
  async checkAuthorizationRequest(params: URLSearchParams, options: { persistClient?: boolean } = {}): Promise<AuthorizationRequest> {
    const settings = this.requireSettings();
    let clientId: string | null;
    let requested: string | null;
    try {
      clientId = single(params, "client_id");
      requested = single(params, "redirect_uri");
    } catch (error) {
      throw new AuthorizationPageError((error as Error).message);
    }
    if (!clientId) throw new AuthorizationPageError("The request names no client (client_id is missing).");
    let client: OAuthClient;
    try {
      client = await resolveClient(this.db, clientId, {
        allowLoopback: this.config.oauthLoopbackClients,
        now: this.now(),
        documents: this.documents,
        persist: options.persistClient,
      });
    } catch (error) {
      if (error instanceof ClientProblem) throw new AuthorizationPageError(error.message);
      throw error;
    }
    let redirectUri: string;
    if (requested === null) {
      if (client.redirectUris.length !== 1)
        throw new AuthorizationPageError("The request names no redirect_uri, and the client has several.");
      redirectUri = client.redirectUris[0]!;
    } else if (client.redirectUris.some((registered) => redirectUriMatches(registered, requested))) {
      redirectUri = requested;
    } else {
      throw new AuthorizationPageError(
        "The redirect_uri is not one that this client registered, so Spyglass will not send you there. Ask the client's maker to fix its registration.",
      );
    }
    let state: string | null = null;
    const fail = (error: OAuthError): never => {
      throw new RedirectableError(
        clientRedirect(settings, redirectUri, state, { error: error.errorCode, error_description: error.message }),
        error.message,
      );
    };
    try {
      state = single(params, "state");
      if (state !== null && state.length > MAX_STATE) {
        state = null;
        fail(new InvalidRequestError(`state is longer than ${MAX_STATE} characters.`));
      }
      const responseType = single(params, "response_type");
      if (responseType !== "code") fail(new UnsupportedResponseTypeError('Only response_type "code" is supported.'));
      const challenge = single(params, "code_challenge");
      const method = single(params, "code_challenge_method");
      if (!challenge) fail(new InvalidRequestError("code_challenge is required: Spyglass needs PKCE with S256."));
      if (method !== "S256") fail(new InvalidRequestError('code_challenge_method must be "S256"; "plain" and no method are refused.'));
      if (!isWellFormedChallenge(challenge!))
        fail(new InvalidRequestError("code_challenge is not an S256 challenge (43 base64url characters)."));
      const resources = params.getAll("resource");
      if (resources.length > 1) fail(new InvalidTargetError("Only one resource may be requested."));
      if (resources.length === 1 && resources[0] !== settings.resource) {
        fail(new InvalidTargetError(`This server issues tokens only for the resource ${settings.resource}.`));
      }
      return { client, redirectUri, state, codeChallenge: challenge!, resource: settings.resource };
    } catch (error) {
      if (error instanceof OAuthError) return fail(error);
      throw error;
    }
  }

  /** The account's decision on a valid request: a code for one of its brands, or access_denied. Returns the client redirect. */
  async decide(accountId: string, params: URLSearchParams, decision: { approve: boolean; brandId: string | null }): Promise<string> {
    const settings = this.requireSettings();
    let request: AuthorizationRequest;
    try {
      // An approved client is stored: the token endpoint and the dashboard's connected apps read it.
      request = await this.checkAuthorizationRequest(params, { persistClient: decision.approve });
    } catch (error) {
      if (error instanceof RedirectableError) return error.redirect;
      throw error;
    }
    if (!decision.approve) {
      const denied = new AccessDeniedError("The user denied the request.");
      return clientRedirect(settings, request.redirectUri, request.state, { error: denied.errorCode, error_description: denied.message });
    }
    if (!decision.brandId) throw new Invalid("brand_id: choose one of your brands for the app.", "invalid_input");
    const brand = await getAccountBrand(this.db, accountId, decision.brandId);
    const account = await getAccount(this.db, accountId);
    requirePlan(
      account.plan,
      "visibility",
      `Connecting an AI client needs a paid plan (Visibility or Autopilot); ${planChangeHint("visibility", account.email)}.`,
    );
    const code = generateSecret(CODE_PREFIX);
    const now = this.now();
    await markClientUsed(this.db, request.client.id, now);
    // Codes a day past their expiry are kept no longer (a reuse within that day still revokes its grant).
    await this.db.run("DELETE FROM oauth_codes WHERE expires_at < ?", [now - CODE_RETENTION_MS]);
    await this.db.run(
      `INSERT INTO oauth_codes (code_hash, client_id, account_id, brand_id, redirect_uri, code_challenge, resource, created_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        code.hash,
        request.client.id,
        accountId,
        brand.id,
        request.redirectUri,
        request.codeChallenge,
        request.resource,
        now,
        now + CODE_TTL_MS,
      ],
    );
    return clientRedirect(settings, request.redirectUri, request.state, { code: code.plaintext });
  }

  /** The token endpoint (form parameters, and the Authorization header of a confidential client). Throws an OAuthError for the client's mistakes. */
  async token(params: URLSearchParams, authorization: string | null = null): Promise<TokenResponse> {
    const settings = this.requireSettings();
    for (const name of new Set(params.keys())) single(params, name);
    const credentials = clientCredentials(params, authorization);
    const grantType = params.get("grant_type");
    const resource = params.get("resource");
    if (resource !== null && resource !== settings.resource) {
      throw new InvalidTargetError(`This server issues tokens only for the resource ${settings.resource}.`);
    }
    if (grantType === "authorization_code") return this.exchangeCode(params, credentials);
    if (grantType === "refresh_token") return this.refresh(params, credentials);
    if (!grantType) throw new InvalidRequestError("grant_type is required.");
    throw new UnsupportedGrantTypeError(`grant_type "${grantType}" is not supported; use authorization_code or refresh_token.`);
  }

  private async exchangeCode(
    params: URLSearchParams,
    credentials: { clientId: string | null; secret: string | null },
  ): Promise<TokenResponse> {
    const code = params.get("code");
    const verifier = params.get("code_verifier");
    const clientId = credentials.clientId;
    const redirectUri = params.get("redirect_uri");
    if (!code) throw new InvalidRequestError("code is required.");
    if (!verifier) throw new InvalidRequestError("code_verifier is required: Spyglass needs PKCE.");
    if (!isWellFormedVerifier(verifier)) throw new InvalidRequestError("code_verifier must be 43 to 128 unreserved characters.");
    if (!clientId) throw new InvalidRequestError("client_id is required.");
    if (!(await authenticateClient(this.db, clientId, credentials.secret))) throw new InvalidClientError(CLIENT_AUTH_FAILED);
    if (!isWellFormedSecret(code, CODE_PREFIX)) throw new InvalidGrantError("The authorization code is not valid.");
    const now = this.now();
    // Refusals are returned, not thrown, from the transaction: what it wrote (the code spent, a grant
    // revoked) must be committed with them.
    return settle(
      await this.db.transaction(async (tx): Promise<TokenResponse | OAuthError> => {
        // Single use needs the read and the spend serialised: PostgreSQL's READ COMMITTED would let two
        // exchanges at once both read the code unused (SQLite's BEGIN IMMEDIATE already serialises them).
        await tx.lock(`oauth-code:${hashSecret(code)}`);
        const row = await tx.get<{
          codeHash: string;
          clientId: string;
          accountId: string;
          brandId: string;
          redirectUri: string;
          codeChallenge: string;
          resource: string;
          expiresAt: number;
          usedAt: number | null;
          grantId: string | null;
        }>(
          `SELECT code_hash AS "codeHash", client_id AS "clientId", account_id AS "accountId", brand_id AS "brandId", redirect_uri AS "redirectUri",
             code_challenge AS "codeChallenge", resource, expires_at AS "expiresAt", used_at AS "usedAt", grant_id AS "grantId"
           FROM oauth_codes WHERE code_hash = ?`,
          [hashSecret(code)],
        );
        if (!row) return new InvalidGrantError("The authorization code is not valid.");
        if (row.usedAt !== null) {
          // A code presented twice may have been stolen: what it granted ends now (OAuth 2.1 §4.1.3).
          if (row.grantId) {
            await revokeGrantRow(tx, row.grantId, now);
            return new InvalidGrantError("The authorization code was already used; the access it granted is revoked.");
          }
          // Spent by an exchange that was refused (a wrong verifier, client or redirect_uri): it granted nothing.
          return new InvalidGrantError(
            "The authorization code was already presented once, in an exchange that was refused; start the sign-in again.",
          );
        }
        // Single use, whatever follows: a wrong verifier also spends the code.
        await tx.run("UPDATE oauth_codes SET used_at = ? WHERE code_hash = ?", [now, row.codeHash]);
        if (row.expiresAt <= now) return new InvalidGrantError("The authorization code has expired; start the sign-in again.");
        if (row.clientId !== clientId) return new InvalidGrantError("The authorization code was issued to another client.");
        // Without redirect_uri, the code must have gone to the client's one registered address: the
        // authorization request may leave it out then, and so may this one (RFC 6749 §4.1.3 asks for
        // it when the authorization request named it; with PKCE bound to the code, its absence
        // cannot send a code anywhere else).
        if (redirectUri === null) {
          const registered = await registeredRedirectUris(tx, row.clientId);
          if (registered?.length !== 1 || registered[0] !== row.redirectUri)
            return new InvalidGrantError(`redirect_uri is required: the code was issued for ${row.redirectUri}.`);
        } else if (redirectUri !== row.redirectUri) {
          return new InvalidGrantError("redirect_uri does not match the one of the authorization request.");
        }
        if (s256(verifier) !== row.codeChallenge) return new InvalidGrantError("The code_verifier does not match the code_challenge.");
        const grantId = newId("grant");
        await tx.run(
          `INSERT INTO oauth_grants (id, account_id, brand_id, client_id, client_name, resource, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?)`,
          [grantId, row.accountId, row.brandId, row.clientId, await clientName(tx, row.clientId), row.resource, now],
        );
        await tx.run("UPDATE oauth_codes SET grant_id = ? WHERE code_hash = ?", [grantId, row.codeHash]);
        return issueTokens(tx, grantId, now);
      }),
    );
  }

  private async refresh(params: URLSearchParams, credentials: { clientId: string | null; secret: string | null }): Promise<TokenResponse> {
    const token = params.get("refresh_token");
    const clientId = credentials.clientId;
    if (!token) throw new InvalidRequestError("refresh_token is required.");
    // A client that names itself is authenticated before its token is looked at (RFC 6749 §5.2: a
    // failed client authentication is invalid_client, whatever the grant).
    if (clientId !== null && !(await authenticateClient(this.db, clientId, credentials.secret)))
      throw new InvalidClientError(CLIENT_AUTH_FAILED);
    if (!isWellFormedSecret(token, REFRESH_TOKEN_PREFIX)) throw new InvalidGrantError("The refresh token is not valid.");
    return settle(
      await this.db.transaction(async (tx): Promise<TokenResponse | OAuthError> => {
        // As for codes: a refresh token rotates once, even when presented twice at once. The lock is
        // the grant's, so that its tokens (siblings of a reuse grace) rotate one at a time, and the
        // clock is read once it is held: pairs are counted by when they were made.
        const owner = await tx.get<{ grantId: string }>(
          `SELECT grant_id AS "grantId" FROM oauth_tokens WHERE token_hash = ? AND kind = 'refresh'`,
          [hashSecret(token)],
        );
        if (!owner) return new InvalidGrantError("The refresh token is not valid.");
        await tx.lock(`oauth-grant:${owner.grantId}`);
        const now = this.now();
        const row = await tx.get<{
          tokenHash: string;
          expiresAt: number;
          usedAt: number | null;
          tokenRevokedAt: number | null;
          grantId: string;
          clientId: string;
          grantRevokedAt: number | null;
        }>(
          `SELECT t.token_hash AS "tokenHash", t.expires_at AS "expiresAt", t.used_at AS "usedAt", t.revoked_at AS "tokenRevokedAt",
             g.id AS "grantId", g.client_id AS "clientId", g.revoked_at AS "grantRevokedAt"
           FROM oauth_tokens t INNER JOIN oauth_grants g ON g.id = t.grant_id
           WHERE t.token_hash = ? AND t.kind = 'refresh'`,
          [hashSecret(token)],
        );
        if (!row) return new InvalidGrantError("The refresh token is not valid.");
        if (row.grantRevokedAt !== null || row.tokenRevokedAt !== null)
          return new InvalidGrantError("This access was revoked; sign in again.");
        if (clientId !== null && clientId !== row.clientId) return new InvalidGrantError("The refresh token was issued to another client.");
        if (!(await authenticateClient(tx, row.clientId, credentials.secret))) return new InvalidClientError(CLIENT_AUTH_FAILED);
        if (row.usedAt !== null) {
          // Within the configured grace, a client that refreshed several times at once (an MCP host's
          // tool calls each finding the access token expired) gets a pair of its own for each, at
          // most REUSE_PAIRS_MAX in the window; the pairs already handed out stay valid.
          const grace = this.config.oauth.refresh_reuse_grace_seconds * 1000;
          if (grace > 0 && now - row.usedAt <= grace && row.expiresAt > now) {
            const minted = await tx.get<{ n: number }>(
              "SELECT COUNT(*) AS n FROM oauth_tokens WHERE grant_id = ? AND kind = 'refresh' AND created_at >= ?",
              [row.grantId, row.usedAt],
            );
            if (Number(minted?.n ?? 0) < REUSE_PAIRS_MAX) return issueTokens(tx, row.grantId, now);
            return new InvalidGrantError("The refresh token was already used too many times at once; try again with the newest one.");
          }
          // Refresh tokens rotate: one presented again was copied, so the whole grant ends (OAuth 2.1 §4.3.1).
          await revokeGrantRow(tx, row.grantId, now);
          return new InvalidGrantError("The refresh token was already used; this access is now revoked. Sign in again.");
        }
        if (row.expiresAt <= now) return new InvalidGrantError("The refresh token has expired; sign in again.");
        // Used, with any other refresh token of the grant still unused: the pairs a reuse grace gave
        // that the client did not keep. Presented later, such a copy is a reuse like any other.
        await tx.run("UPDATE oauth_tokens SET used_at = ? WHERE grant_id = ? AND kind = 'refresh' AND used_at IS NULL", [now, row.grantId]);
        return issueTokens(tx, row.grantId, now);
      }),
    );
  }

  /**
   * RFC 7009: a refresh token ends its grant, an access token ends itself. Unknown tokens, and tokens
   * of another client, are answered the same way (200) and change nothing.
   */
  async revoke(params: URLSearchParams, authorization: string | null = null): Promise<void> {
    this.requireSettings();
    const token = params.get("token");
    if (!token) throw new InvalidRequestError("token is required.");
    const { clientId, secret } = clientCredentials(params, authorization);
    if (clientId !== null && !(await authenticateClient(this.db, clientId, secret))) throw new InvalidClientError(CLIENT_AUTH_FAILED);
    const row = await this.db.get<{ hash: string; kind: "access" | "refresh"; grantId: string; clientId: string }>(
      `SELECT t.token_hash AS hash, t.kind, t.grant_id AS "grantId", g.client_id AS "clientId"
       FROM oauth_tokens t INNER JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = ?`,
      [hashSecret(token)],
    );
    if (!row || (clientId !== null && clientId !== row.clientId)) return;
    // A confidential client's tokens are revoked only by that client, authenticated.
    if (clientId === null && !(await authenticateClient(this.db, row.clientId, null))) throw new InvalidClientError(CLIENT_AUTH_FAILED);
    const now = this.now();
    if (row.kind === "refresh") await revokeGrantRow(this.db, row.grantId, now);
    else await this.db.run("UPDATE oauth_tokens SET revoked_at = ? WHERE token_hash = ?", [now, row.hash]);
  }

  /** Whether a bearer value is shaped like one of our access tokens (the tool server's door picks the check by it). */
  static looksLikeAccessToken(value: string): boolean {
    return value.startsWith(ACCESS_TOKEN_PREFIX);
  }

  /**
   * verifyAccessToken's answer when it needs no read, or null (the caller then awaits
   * verifyAccessToken): a token verified since the database last changed, not expired, whose grant's
   * last use was written less than LAST_USED_RESOLUTION_MS ago. Any committed write at all (a
   * revocation in the dashboard or by the client, a password reset, a plan change, by this process or
   * another) and the next request reads the token again, as the API keys' cache does
   * (keys/service.ts): the token's three reads were half a tools/list's CPU in process (76 against 37
   * µs with a key, bench/oauth-door.ts). Sync, so that it costs the door no promise.
   *
   * SQLite only: on PostgreSQL another instance's revocation reaches this one's change feed a moment
   * after its commit, which a request right behind it could beat, so the token is read every time.
   */
  rememberedAccessToken(token: string): AccessTokenResult | null {
    const db = this.db;
    if (db.dialect === "postgres") return null;
    const settings = this.settings;
    if (!settings || !isWellFormedSecret(token, ACCESS_TOKEN_PREFIX)) return null;
    const entry = this.verifiedTokens.get(hashSecret(token));
    if (!entry || entry.stamp !== commitStamp(db)) return null;
    const now = this.now();
    if (entry.expiresAt <= now || now - entry.lastUsedAt >= LAST_USED_RESOLUTION_MS || entry.resource !== settings.resource) return null;
    return entry.result;
  }

  /**
   * The tool server's check of an access token: one indexed read, so a revocation applies on the very
   * next request (remembered in between on SQLite: rememberedAccessToken). The brand comes from the
   * grant, the plan from the account now.
   */
  async verifyAccessToken(token: string): Promise<AccessTokenResult> {
    const settings = this.settings;
    if (!settings || !isWellFormedSecret(token, ACCESS_TOKEN_PREFIX)) return { ok: false, reason: "malformed" };
    const db = this.db;
    // Read before the token: a write that lands between them leaves the entry stale, not wrong.
    const stamp = db.dialect === "postgres" ? null : commitStamp(db);
    const hash = hashSecret(token);
    const row = await this.db.get<{
      kind: "access" | "refresh";
      expiresAt: number;
      tokenRevokedAt: number | null;
      grantId: string;
      grantRevokedAt: number | null;
      resource: string;
      accountId: string;
      brandId: string;
      lastUsedAt: number | null;
    }>(
      `SELECT t.kind, t.expires_at AS "expiresAt", t.revoked_at AS "tokenRevokedAt", g.id AS "grantId", g.revoked_at AS "grantRevokedAt",
         g.resource, g.account_id AS "accountId", g.brand_id AS "brandId", g.last_used_at AS "lastUsedAt"
       FROM oauth_tokens t INNER JOIN oauth_grants g ON g.id = t.grant_id WHERE t.token_hash = ?`,
      [hash],
    );
    const now = this.now();
    if (
      row?.kind !== "access" ||
      row.tokenRevokedAt !== null ||
      row.grantRevokedAt !== null ||
      row.expiresAt <= now ||
      row.resource !== settings.resource
    ) {
      return { ok: false, reason: "invalid" };
    }
    let lastUsedAt = row.lastUsedAt;
    if (lastUsedAt === null || now - lastUsedAt >= LAST_USED_RESOLUTION_MS) {
      await this.db.run("UPDATE oauth_grants SET last_used_at = ? WHERE id = ?", [now, row.grantId]);
      lastUsedAt = now;
    }
    // At once: on PostgreSQL, one round trip instead of two.
    const [brand, account] = await Promise.all([getBrand(this.db, row.brandId), getAccount(this.db, row.accountId)]);
    const result: VerifiedAccessToken = {
      ok: true,
      value: {
        grantId: row.grantId,
        account: { id: account.id },
        brand: { id: brand.id, name: brand.name, domain: brand.domain },
        plan: account.plan,
      },
    };
    if (stamp !== null) {
      if (this.verifiedTokens.size >= MAX_REMEMBERED_TOKENS) this.verifiedTokens.clear();
      this.verifiedTokens.set(hash, { stamp, expiresAt: row.expiresAt, lastUsedAt, resource: row.resource, result });
    }
    return result;
  }

  /** The account's active grants ("Connected apps"), newest first. */
  async listGrants(accountId: string): Promise<GrantView[]> {
    const rows = await this.db.all<{
      id: string;
      clientId: string;
      clientName: string;
      brandId: string;
      createdAt: number;
      lastUsedAt: number | null;
    }>(
      `SELECT id, client_id AS "clientId", client_name AS "clientName", brand_id AS "brandId", created_at AS "createdAt", last_used_at AS "lastUsedAt"
       FROM oauth_grants WHERE account_id = ? AND revoked_at IS NULL ORDER BY created_at DESC, id DESC`,
      [accountId],
    );
    return rows.map((g) => ({
      id: g.id,
      client_id: g.clientId,
      client_name: clientDisplayName(g.clientName, "Unnamed client"),
      brand_id: g.brandId,
      created_at: iso(g.createdAt),
      last_used_at: isoOrNull(g.lastUsedAt),
    }));
  }

  /** Revokes an active grant of the account: its access and refresh tokens stop on the next request. */
  async revokeGrant(accountId: string, grantId: string): Promise<void> {
    const revoked = await this.db.get<{ id: string }>(
      "UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND account_id = ? AND revoked_at IS NULL RETURNING id",
      [this.now(), grantId, accountId],
    );
    if (!revoked) throw new NotFound("Connected app not found.", "grant_not_found");
  }
}

/** A new access and refresh token for the grant. */
async function issueTokens(db: Queries, grantId: string, now: number): Promise<TokenResponse> {
  // The grant's expired tokens go; a used refresh token stays until it expires, to detect its reuse.
  await db.run("DELETE FROM oauth_tokens WHERE grant_id = ? AND expires_at < ?", [grantId, now]);
  const access = generateSecret(ACCESS_TOKEN_PREFIX);
  const refresh = generateSecret(REFRESH_TOKEN_PREFIX);
  await db.run("INSERT INTO oauth_tokens (token_hash, grant_id, kind, created_at, expires_at) VALUES (?, ?, ?, ?, ?), (?, ?, ?, ?, ?)", [
    access.hash,
    grantId,
    "access",
    now,
    now + ACCESS_TOKEN_TTL_MS,
    refresh.hash,
    grantId,
    "refresh",
    now,
    now + REFRESH_TOKEN_TTL_MS,
  ]);
  return {
    access_token: access.plaintext,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_MS / 1000,
    refresh_token: refresh.plaintext,
  };
}

/**
 * Revokes every active grant of the account (its password was reset: an app connected by whoever
 * knew the old one must not keep access); returns how many. Their tokens stop on the next request.
 */
export async function revokeAccountGrants(db: Queries, accountId: string, now: number): Promise<number> {
  const revoked = await db.all<{ id: string }>(
    "UPDATE oauth_grants SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL RETURNING id",
    [now, accountId],
  );
  return revoked.length;
}

async function revokeGrantRow(db: Queries, grantId: string, now: number): Promise<void> {
  await db.run("UPDATE oauth_grants SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", [now, grantId]);
}
