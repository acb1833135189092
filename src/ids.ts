// Random identifiers: a short type prefix and 16 characters of base32 (80 bits) from the CSPRNG.
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let out = `${prefix}_`;
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return out;
}

export function sha256Hex(value: string): string {
  return new Bun.CryptoHasher("sha256").update(value).digest("hex");
}

export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
