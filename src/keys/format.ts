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

export function hashApiKey(plaintext: string): string {
  return sha256Hex(plaintext);
}
