// Names people type (brands, competitors, aliases, tags) and prompts, made comparable and countable
// the same way everywhere. Text pasted from a Mac is often decomposed ("u" + a combining diaeresis
// for "ü"): it is composed (NFC), so that one name typed two ways is one name. Invisible direction
// and zero-width characters are taken out: a name holding U+202E showed reversed ("KüchenCBA") in
// every table, and "Zero\u200bWidth" looked like "ZeroWidth" while being another tag. The joiners
// (U+200C, U+200D) stay: Persian words and emoji need them.

const INVISIBLE = /[\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

/** Composed, without invisible direction and zero-width characters, trimmed, inner spaces collapsed. */
export function cleanLabel(value: string): string {
  return value.normalize("NFC").replace(INVISIBLE, "").trim().replace(/\s+/g, " ");
}

/** The key two labels are the same by: also compatibility forms (full-width "ＳＯＮＹ") and case. */
export function labelKey(value: string): string {
  return cleanLabel(value).normalize("NFKC").toLowerCase();
}

/** Characters as people count them (code points): an emoji is one, not two UTF-16 units. */
export function labelLength(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

const WIDE = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}]/u;

/**
 * The length a name's minimum is checked against: a Chinese character, kana or hangul syllable
 * counts twice, as it holds a syllable or a word (東芝, 日立, 楽天 are whole company names, as
 * specific as "Toshiba"); other characters once.
 */
export function nameWeight(value: string): number {
  let n = 0;
  for (const char of value) n += WIDE.test(char) ? 2 : 1;
  return n;
}
