// API key format (spec "Plaintext API key", CONTRACT §3): `svc_live_` + 43 base64url characters
// encoding 32 random bytes. Only the SHA-256 of the plaintext and its display prefix are stored.
import { sha256Hex } from "../ids";

export const KEY_PREFIX = "svc_live_";
const KEY_PATTERN = /^svc_live_[A-Za-z0-9_-]{43}$/;

export interface GeneratedKey {
  plaintext: string;
  hash: string;
  prefix: string;
}

export function generateApiKey(): GeneratedKey {
  const body = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
  const plaintext = `${KEY_PREFIX}${body}`;
  return { plaintext, hash: hashApiKey(plaintext), prefix: `${KEY_PREFIX}${body.slice(0, 4)}` };
}

/** Cheap syntactic check done before any database work. */
export function isWellFormedApiKey(value: string): boolean {
  return value.length === KEY_PREFIX.length + 43 && KEY_PATTERN.test(value);
}

/** RFC 6750's header: the scheme in any case, spaces, the credential, optional trailing white space. */
const BEARER = /^Bearer[ ]+(\S+)\s*$/i;
const API_KEY_BEARER = `Bearer ${KEY_PREFIX}`;

/**
 * The credential of an `Authorization: Bearer <credential>` header, or undefined. An API key sent as
 * its creation response spells it ("Bearer svc_live_…" and nothing after) is taken without the
 * regular expression: the tool server reads this header on every request.
 */
export function bearerCredential(header: string): string | undefined {
  if (header.startsWith(API_KEY_BEARER)) {
    const key = header.slice(API_KEY_BEARER.length - KEY_PREFIX.length);
    if (isWellFormedApiKey(key)) return key;
  }
  return BEARER.exec(header)?.[1];
}

export function hashApiKey(plaintext: string): string {
  return sha256Hex(plaintext);
}
