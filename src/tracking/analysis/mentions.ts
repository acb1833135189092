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
const WORD_CHAR = "[\\p{L}\\p{N}\\p{M}]";

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
  const searchable = maskUrls(text);
  const candidates: Array<MentionSpan<Id> & { order: number }> = [];
  roster.forEach((member, order) => {
    for (const pattern of memberPatterns(member)) {
      for (const match of searchable.matchAll(pattern)) {
        candidates.push({ member_id: member.id, start: match.index, end: match.index + match[0].length, order });
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

/** The name always counts (it is the member); aliases only from MIN_ALIAS_LENGTH characters. */
export function usableNames(member: RosterMember<unknown>): string[] {
  const names = [member.name, ...member.aliases.filter((a) => [...a.trim()].length >= MIN_ALIAS_LENGTH)]
    .map((n) => n.trim().replace(/\s+/g, " "))
    .filter((n) => n !== "");
  return [...new Set(names.map((n) => n.toLowerCase()))].map((lower) => names.find((n) => n.toLowerCase() === lower)!);
}

function memberPatterns(member: RosterMember<unknown>): RegExp[] {
  return usableNames(member).map((name) => {
    // A boundary only matters at an edge that is itself a word character: "C++" may be followed by
    // anything, ".NET" may follow "ASP" — the same rule as \b, but Unicode-aware.
    const head = new RegExp(`^${WORD_CHAR}`, "u").test(name) ? `(?<!${WORD_CHAR})` : "";
    const tail = new RegExp(`${WORD_CHAR}$`, "u").test(name) ? `(?!${WORD_CHAR})` : "";
    const body = name.split(" ").map(escapeRegExp).join("\\s+");
    return new RegExp(`${head}${body}${tail}`, "giu");
  });
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\\/]/g, "\\$&");
}
