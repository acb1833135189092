import { maskUrls } from "./urls";

export interface RosterMember<Id = string> {
  id: Id;
  name: string;
  aliases: readonly string[];
}

export interface Mention<Id = string> {
  member_id: Id;
  /** UTF-16 offset of the member's first mention in the original text. */
  offset: number;
  /** 1-based order of first mention among the members mentioned. */
  rank: number;
}

/** One accepted occurrence of a member's name or alias. */
export interface MentionSpan<Id = string> {
  member_id: Id;
  start: number;
  end: number;
}

/** METRICS.md: aliases shorter than this are refused (they match too much). */
export const MIN_ALIAS_LENGTH = 3;
/** Letters and digits are word characters (METRICS.md); combining marks too, so "Acme" misses a decomposed "Acmé". */
const WORD_CHAR_AT_START = /^[\p{L}\p{N}\p{M}]/u;
const WORD_CHAR_AT_END = /[\p{L}\p{N}\p{M}]$/u;
const WORD_CHAR = /^[\p{L}\p{N}\p{M}]$/u;
// Scripts written without spaces between words, whose every letter may begin or end one: Chinese
// characters, hiragana (Japanese particles follow a name directly: "ソニーの", "任天堂が"), hangul
// (Korean particles: "삼성은"), Thai, Lao, Khmer, Burmese. Katakana is apart: a run of it is one word
// (Unicode's word boundaries, UAX #29, join katakana to katakana), so "ソニック" is not found in
// "パナソニック", while "ソニー" is found before "の" or "、".
const UNSPACED = /^[\p{sc=Han}\p{sc=Hiragana}\p{sc=Hangul}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]$/u;
const KATAKANA = /^[\u30A0-\u30FF\u31F0-\u31FF\uFF66-\uFF9F]$/u;
const COMBINING = /^\p{M}$/u;
const HANGUL = /^\p{sc=Hangul}$/u;

/**
 * Whether two adjacent characters are in one word, so that no mention may begin or end between them:
 * both word characters, neither of a script written without spaces, and both katakana or neither.
 */
function sameWord(before: string | undefined, after: string | undefined, edge: "start" | "end"): boolean {
  if (before === undefined || after === undefined || !WORD_CHAR.test(before) || !WORD_CHAR.test(after)) return false;
  // A combining mark belongs to the letter before it, in any script (ト and U+3099 are ド).
  if (COMBINING.test(after)) return true;
  // Korean is written with spaces, its particles after the word: a name may be followed by hangul
  // ("삼성은") but not preceded by it ("신한" is not in "당신한테").
  if (HANGUL.test(before) && HANGUL.test(after)) return edge === "start";
  if (UNSPACED.test(before) || UNSPACED.test(after)) return false;
  return KATAKANA.test(before) === KATAKANA.test(after);
}

/** The character (code point) that ends before `index`, or undefined at the start. */
function charBefore(text: string, index: number): string | undefined {
  if (index <= 0) return undefined;
  const low = text.charCodeAt(index - 1);
  const width = low >= 0xdc00 && low <= 0xdfff && index >= 2 ? 2 : 1;
  return text.slice(index - width, index);
}

/** The character (code point) that starts at `index`, or undefined at the end. */
function charAt(text: string, index: number): string | undefined {
  const point = text.codePointAt(index);
  return point === undefined ? undefined : String.fromCodePoint(point);
}

/**
 * First mention of each roster member, ranked by offset (ties, i.e. members sharing an identical name,
 * go by roster order). URLs are taken out first, so a brand that is only cited is not mentioned.
 */
export function findMentions<Id>(text: string, roster: readonly RosterMember<Id>[]): Mention<Id>[] {
  return rankFirstMentions(findMentionSpans(text, roster), roster);
}

/** Reduces occurrences (from findMentionSpans) to each member's first mention and its rank. */
export function rankFirstMentions<Id>(spans: readonly MentionSpan<Id>[], roster: readonly RosterMember<Id>[]): Mention<Id>[] {
  const first = new Map<number, number>();
  for (const span of spans) {
    const index = roster.findIndex((m) => m.id === span.member_id);
    if (!first.has(index)) first.set(index, span.start);
  }
  return [...first.entries()]
    .sort(([ia, a], [ib, b]) => a - b || ia - ib)
    .map(([index, offset], i) => ({ member_id: roster[index]!.id, offset, rank: i + 1 }));
}

/**
 * Every occurrence of every member, after URL removal, resolved leftmost-longest: when names overlap
 * ("Acme" and "Acme Cloud" as different members), the longer match wins and the shorter member is
 * not mentioned there — "Acme Cloud is fast" mentions Acme Cloud only. Identical spans (two members
 * sharing a name) count for both.
 */
export function findMentionSpans<Id>(text: string, roster: readonly RosterMember<Id>[]): MentionSpan<Id>[] {
  // Folded first: a full-width address (ｗｗｗ．ａｃｍｅ．ｃｏｍ) is an address, taken out like any other.
  const searchable = maskUrls(foldWidths(text));
  const candidates: Array<MentionSpan<Id> & { order: number }> = [];
  roster.forEach((member, order) => {
    for (const { pattern, checkStart, checkEnd } of namePatterns(member)) {
      pattern.lastIndex = 0;
      for (let match = pattern.exec(searchable); match !== null; match = pattern.exec(searchable)) {
        const start = match.index;
        const end = start + match[0].length;
        // Step one character, not past the match: a rejected or shadowed occurrence may overlap a good one.
        pattern.lastIndex = start + 1;
        if (checkStart && sameWord(charBefore(searchable, start), charAt(searchable, start), "start")) continue;
        if (checkEnd && sameWord(charBefore(searchable, end), charAt(searchable, end), "end")) continue;
        candidates.push({ member_id: member.id, start, end, order });
      }
    }
  });
  candidates.sort((a, b) => a.start - b.start || b.end - a.end || a.order - b.order);

  const accepted: MentionSpan<Id>[] = [];
  let last: MentionSpan<Id> | undefined;
  for (const c of candidates) {
    const sameSpan = last !== undefined && c.start === last.start && c.end === last.end;
    if (sameSpan && accepted.some((a) => a.start === c.start && a.member_id === c.member_id)) continue;
    if (last !== undefined && !sameSpan && c.start < last.end) continue;
    last = { member_id: c.member_id, start: c.start, end: c.end };
    accepted.push(last);
  }
  return accepted;
}

// Full-width Latin letters, digits and punctuation (ＳＯＮＹ, common in Japanese and Chinese text) and
// half-width katakana (ｿﾆｰ): the Halfwidth and Fullwidth Forms block, each folded to its ordinary
// form (NFKC) where that is one UTF-16 unit, which all its letters, digits and kana are. The text
// keeps its length, so offsets into it are offsets into the answer. A half-width voiced kana (ﾄﾞ)
// folds to a letter and a combining mark, the decomposed spelling namePatterns also looks for.
const WIDTH_FORMS = /[\uFF01-\uFFEE]/g;

function foldWidth(char: string): string {
  const folded = char.normalize("NFKC");
  return folded.length === 1 ? folded : char;
}

/** The text with its full-width and half-width forms as their ordinary ones, the same length. */
function foldWidths(text: string): string {
  return text.replace(WIDTH_FORMS, foldWidth);
}

/** The name always counts (it is the member); aliases only from MIN_ALIAS_LENGTH characters. */
export function usableNames(member: RosterMember<unknown>): string[] {
  const names = [member.name, ...member.aliases.filter((a) => [...a.trim()].length >= MIN_ALIAS_LENGTH)]
    .map((n) => foldWidths(n.trim().replace(/\s+/g, " ")))
    .filter((n) => n !== "");
  return [...new Set(names.map((n) => n.toLowerCase()))].map((lower) => names.find((n) => n.toLowerCase() === lower)!);
}

/**
 * Word boundaries are checked in code rather than with Unicode lookarounds, which made matching
 * several times slower; a boundary only matters at an edge that is itself a word character ("C++"
 * may be followed by anything, ".NET" may follow "ASP"), the rule of \b but Unicode-aware, and with
 * the scripts written without spaces open at every letter (sameWord).
 * Without the `u` flag, `i` still folds case for accented letters (É/é); only astral letters miss it.
 */
function namePatterns(member: RosterMember<unknown>): Array<{ pattern: RegExp; checkStart: boolean; checkEnd: boolean }> {
  // Each name composed and decomposed: an answer may spell "Müller" either way (and a name stored
  // by an older build may be decomposed itself).
  const spellings = usableNames(member).flatMap((name) => [...new Set([name.normalize("NFC"), name.normalize("NFD")])]);
  return spellings.map((name) => ({
    pattern: new RegExp(name.split(" ").map(escapeRegExp).join("\\s+"), "gi"),
    checkStart: WORD_CHAR_AT_START.test(name),
    checkEnd: WORD_CHAR_AT_END.test(name),
  }));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}
