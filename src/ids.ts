// Random identifiers: a short type prefix and 16 characters of base32 (80 bits) from the CSPRNG.
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";

export function newId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let out = `${prefix}_`;
  for (const byte of bytes) out += ALPHABET[byte & 31];
  return out;
}

const RECORD_OF_PREFIX: Record<string, string> = {
  prm: "a prompt's id",
  ans: "an answer's id",
  art: "an article's id",
  cmp: "a competitor's id",
  tag: "a tag's id",
  brd: "a brand's id",
};

/**
 * What record an id given where another kind goes belongs to ("a prompt's id" for prm_…), for the
 * sentence that refuses it, or null; `except` is the prefix of the kind expected.
 */
export function otherRecordOf(id: string, except: string): { prefix: string; what: string } | null {
  const prefix = /^([a-z]{3})_/.exec(id)?.[1];
  if (prefix === undefined || prefix === except || !Object.hasOwn(RECORD_OF_PREFIX, prefix)) return null;
  return { prefix, what: RECORD_OF_PREFIX[prefix]! };
}

/** SHA-256 of the UTF-8 of `value`, in hex. Bun's one-shot hash: no hasher object (a third of the cost per key check). */
export function sha256Hex(value: string): string {
  return Bun.SHA256.hash(value, "hex");
}

export function isoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : iso(ms);
}

// The texts of the instants formatted lately: a read formats the same creation times again and again
// (a page of 50 prompts: 50 Dates and ~6 µs of list_prompts' CPU on every call, Bun 1.4.5). At most
// ISO_TEXTS_KEPT, forgotten all at once when full.
const ISO_TEXTS_KEPT = 8_192;
const isoTexts = new Map<number, string>();

/** The instant `ms` (milliseconds since the epoch) as an ISO 8601 text in UTC, as Date's toISOString writes it. */
export function iso(ms: number): string {
  let text = isoTexts.get(ms);
  if (text === undefined) {
    text = new Date(ms).toISOString();
    if (isoTexts.size >= ISO_TEXTS_KEPT) isoTexts.clear();
    isoTexts.set(ms, text);
  }
  return text;
}
