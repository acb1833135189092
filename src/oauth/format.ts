// OAuth credential formats (CONTRACT §8). Every secret is 32 random bytes in base64url behind a
// prefix that names what it is and can never be mistaken for an API key (`svc_live_`); only its
// SHA-256 is stored, as for keys.
import { sha256Hex } from "../ids";

export const ACCESS_TOKEN_PREFIX = "sgo_at_";
export const REFRESH_TOKEN_PREFIX = "sgo_rt_";
export const CODE_PREFIX = "sgo_ac_";
export const CLIENT_ID_PREFIX = "sgo_client_";
export const CLIENT_SECRET_PREFIX = "sgo_cs_";

const BODY = /^[A-Za-z0-9_-]{43}$/;

export interface GeneratedSecret {
  plaintext: string;
  hash: string;
}

export function generateSecret(prefix: string): GeneratedSecret {
  const plaintext = `${prefix}${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url")}`;
  return { plaintext, hash: hashSecret(plaintext) };
}

/** Cheap syntactic check done before any database work. */
export function isWellFormedSecret(value: string, prefix: string): boolean {
  return value.length === prefix.length + 43 && value.startsWith(prefix) && BODY.test(value.slice(prefix.length));
}

export function hashSecret(plaintext: string): string {
  return sha256Hex(plaintext);
}

/** RFC 7636 S256: BASE64URL(SHA256(ASCII(code_verifier))). */
export function s256(verifier: string): string {
  return new Bun.CryptoHasher("sha256").update(verifier).digest("base64url");
}

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
export function isWellFormedVerifier(value: string): boolean {
  return /^[A-Za-z0-9._~-]{43,128}$/.test(value);
}

/** A S256 challenge is the base64url of 32 bytes: 43 characters. */
export function isWellFormedChallenge(value: string): boolean {
  return BODY.test(value);
}

/** The longest client name kept (in characters). */
export const MAX_CLIENT_NAME = 200;

// Control and format characters (Unicode Cc and Cf: right-to-left overrides and isolates, zero-width
// characters, soft hyphens) and line or paragraph separators. In a name shown on the consent page,
// an override reverses what follows it: the page's own "(unverified)" read "(deifirevnu)".
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu;

/**
 * A client's self-chosen name as Spyglass shows it: without control or format characters, its
 * spaces collapsed, at most MAX_CLIENT_NAME characters; `fallback` when nothing is left. Applied when a name
 * is stored and again when one is read, for names stored before.
 */
export function clientDisplayName(raw: string | null | undefined, fallback: string): string {
  const name = (raw ?? "").replace(INVISIBLE, " ").replace(/\s+/g, " ").trim();
  return [...name].slice(0, MAX_CLIENT_NAME).join("").trim() || fallback;
}
