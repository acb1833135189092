// The tool server's credential: an API key (svc_live_…) or, when OAuth is on, an OAuth access token
// (sgo_at_…). Either becomes the same Principal: one brand, frozen when the credential was made, and
// the account's plan as it is now. A refusal is a 401 whose sentence says what to do in both modes,
// with RFC 9728's resource_metadata when OAuth is on, so that a client can discover the sign-in.
import { type Principal } from "../catalogue/registry";
import { type AppContext } from "../context";
import { bearerCredential } from "../keys/format";
import { authenticateBearerKey, type BearerFailure, type BearerResult, rememberedBearerKey, type VerifiedKey } from "../keys/service";
import { type AccessTokenResult, OAuthService } from "../oauth/service";

type Failure = BearerFailure | "token";

export type ToolAuthentication =
  | { ok: true; principal: Principal }
  | { ok: false; status: 401; body: { error: string; code: string }; headers: Record<string, string> };

// OAuth is off (no public_url, or one that is neither https nor loopback http).
const WITHOUT_OAUTH: Record<Failure, string> = {
  missing:
    "No API key was sent: send one as the header Authorization: Bearer svc_live_… (spyglass key list --email E shows the account's keys, spyglass key create makes one). OAuth sign-in is off on this server (it needs public_url set to the address clients reach it at: https, or http on localhost): a client that reports an OAuth or client registration error here had no valid API key; set the header in its configuration, or set public_url to turn sign-in on.",
  malformed:
    "The Authorization header does not carry a Spyglass API key (Bearer svc_live_ followed by 43 characters). OAuth sign-in is off on this server (it needs public_url set to the address clients reach it at: https, or http on localhost): a client that reports an OAuth or client registration error here had no valid API key; check the header in its configuration (spyglass key list --email E shows the active keys' prefixes).",
  unknown:
    "This API key is not valid: it is unknown or was revoked. OAuth sign-in is off on this server (it needs public_url set to the address clients reach it at: https, or http on localhost): a client that reports an OAuth or client registration error here had no valid API key; put a valid one in its configuration (spyglass key list --email E shows the active keys' prefixes, spyglass key create makes one).",
  revoked:
    "This API key is not valid: it is unknown or was revoked. OAuth sign-in is off on this server (it needs public_url set to the address clients reach it at: https, or http on localhost): a client that reports an OAuth or client registration error here had no valid API key; put a valid one in its configuration (spyglass key list --email E shows the active keys' prefixes, spyglass key create makes one).",
  token:
    "This Authorization header carries an OAuth access token, but OAuth sign-in is off on this server (it needs public_url set to the address clients reach it at: https, or http on localhost): send an API key instead (spyglass key list --email E shows the active keys' prefixes, spyglass key create makes one).",
};

const WITH_OAUTH: Record<Failure, string> = {
  missing:
    "No credential was sent: add this server by its URL in a client that signs in with OAuth (Claude.ai, Claude Desktop, ChatGPT), which sends you to Spyglass to choose a brand and approve, or send an API key as the header Authorization: Bearer svc_live_… (spyglass key list --email E shows the account's keys, spyglass key create makes one).",
  malformed:
    "The Authorization header carries neither a Spyglass API key (Bearer svc_live_ followed by 43 characters) nor a Spyglass access token: check the header in the client's configuration (spyglass key list --email E shows the active keys' prefixes), or remove it and let the client sign in with OAuth.",
  unknown:
    "This API key is not valid: it is unknown or was revoked. Put a valid one in the client's configuration (spyglass key list --email E shows the active keys' prefixes, spyglass key create makes one), or remove the header and let the client sign in with OAuth.",
  revoked:
    "This API key is not valid: it is unknown or was revoked. Put a valid one in the client's configuration (spyglass key list --email E shows the active keys' prefixes, spyglass key create makes one), or remove the header and let the client sign in with OAuth.",
  token:
    "This access token is not valid: it expired, its connection was revoked in the dashboard, or it was issued for another server. The client should refresh it or sign in again; if it keeps failing, remove this server from the client and add it again by its URL.",
};

function refuse(app: AppContext, failure: Failure): ToolAuthentication {
  const settings = app.oauth.settings;
  const challenge = settings
    ? `Bearer realm="spyglass", error="invalid_token", resource_metadata="${settings.resourceMetadataUrl}"`
    : 'Bearer realm="spyglass", error="invalid_token"';
  return {
    ok: false,
    status: 401,
    body: { error: (settings ? WITH_OAUTH : WITHOUT_OAUTH)[failure], code: "unauthorized" },
    headers: { "www-authenticate": challenge },
  };
}

/**
 * The principal of a tool request's Authorization header, or the 401 to answer: at once (no promise)
 * for an API key verified since the database last changed, which is nearly every request of a
 * client that has a key (authenticateBearerKey's cache).
 */
export function authenticateToolRequest(app: AppContext, header: string | null): ToolAuthentication | Promise<ToolAuthentication> {
  const bearer = header ? bearerCredential(header) : undefined;
  if (bearer && OAuthService.looksLikeAccessToken(bearer)) {
    const remembered = app.oauth.rememberedAccessToken(bearer);
    if (remembered) return tokenAuthentication(app, remembered);
    return app.oauth.verifyAccessToken(bearer).then((verified) => tokenAuthentication(app, verified));
  }
  const remembered = rememberedBearerKey(app, header);
  if (remembered) return keyAuthentication(app, remembered);
  return authenticateBearerKey(app, header).then((verified) => keyAuthentication(app, verified));
}

// A credential's authentication, made once per verification: the caches (rememberedAccessToken,
// rememberedBearerKey) hand back the same verified object until the database changes.
const authentications = new WeakMap<object, ToolAuthentication>();

function authenticated(verified: object, principal: () => Principal): ToolAuthentication {
  let authentication = authentications.get(verified);
  if (!authentication) {
    authentication = { ok: true, principal: principal() };
    authentications.set(verified, authentication);
  }
  return authentication;
}

function tokenAuthentication(app: AppContext, verified: AccessTokenResult): ToolAuthentication {
  if (!verified.ok) return refuse(app, "token");
  const { account, brand, plan } = verified.value;
  return authenticated(verified, () => ({ account, brand, plan }));
}

function keyAuthentication(app: AppContext, verified: BearerResult<VerifiedKey>): ToolAuthentication {
  if (!verified.ok) return refuse(app, verified.reason);
  const key = verified.value;
  return authenticated(key, () => ({
    account: { id: key.account.id },
    brand: { id: key.brand.id, name: key.brand.name, domain: key.brand.domain },
    plan: key.plan,
  }));
}
