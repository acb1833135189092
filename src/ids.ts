// Random identifiers: a short type prefix and 16 characters of base32 (80 bits) from the CSPRNG.
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let out = `${prefix}_`;
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return out;
}

/** SHA-256 of the UTF-8 of `value`, in hex. Bun's one-shot hash: no hasher object (a third of the cost per key check). */
export function sha256Hex(value: string): string {
  return Bun.SHA256.hash(value, "hex");
}

export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : new Date(ms).toISOString();
}

export function iso(ms: number): string {
  return new Date(ms).toISOString();
}
