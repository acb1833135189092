// Names people type (brands, competitors, aliases, tags) and prompts, made comparable and countable
// the same way everywhere. Text pasted from a Mac is often decomposed ("u" + a combining diaeresis
// for "ü"): it is composed (NFC), so that one name typed two ways is one name. Invisible direction
// and zero-width characters are taken out: a name holding U+202E showed reversed ("KüchenCBA") in
// every table, and "Zero\u200bWidth" looked like "ZeroWidth" while being another tag. The joiners
// (U+200C, U+200D) stay: Persian words and emoji need them.

const INVISIBLE = /[\u200b\u200e\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

/**
 * Nothing a reader sees: spaces, format and control characters, the default-ignorable ones (zero-width
 * joiners, variation selectors, the Hangul fillers) and the blank braille pattern (an article's title
 * of only these is no title).
 */
export function hasNothingVisible(value: string): boolean {
  return /^[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cc}\p{Z}\s\u2800]*$/u.test(value);
}

/** Composed, without invisible direction and zero-width characters, trimmed, inner spaces collapsed. */
export function cleanLabel(value: string): string {
  return value.normalize("NFC").replace(INVISIBLE, "").trim().replace(/\s+/g, " ");
}

/**
 * The key two labels are the same by, case aside: the stored keys of prompts (text_key) and tags
 * (name_key) are made with it. It is the key earlier builds stored (trimmed, spaces collapsed, lower
 * case) for any text already composed and without invisible characters, which is nearly all: keys
 * stored before still match. Compatibility forms (full-width "ＳＯＮＹ", "™", "²") are not folded
 * here, for that reason; competitors' names, compared in JS, are (competitors/service.ts).
 */
export function labelKey(value: string): string {
  return cleanLabel(value).toLowerCase();
}

/**
 * labelKey with compatibility forms folded too (full-width "Ａcme" is "acme", "Acme™" is "acmetm"),
 * for names compared in JS from their stored text (brands, competitors), which no stored key holds.
 */
export function compatibilityKey(value: string): string {
  return labelKey(value).normalize("NFKC").toLowerCase();
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

/**
 * A stored name as a terminal should show it: control characters (an escape sequence, a line break
 * set through the API or an AI client) as U+FFFD, not obeyed. Names are text everywhere they are
 * shown; on a terminal, ESC would clear the screen or rewrite what the table says.
 */
export function printable(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "\uFFFD");
}
