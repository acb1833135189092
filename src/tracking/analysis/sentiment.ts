import type SentimentAnalyzer from "sentiment";
import { type MentionSpan } from "./mentions";
import { maskSpans, maskUrls } from "./urls";

let analyzer: SentimentAnalyzer | null = null;

/**
 * The AFINN analyser, loaded on first use, not at module scope: evaluating `sentiment` (its word
 * lists) was ~5 ms of every start-up, before any answer is analysed (a CPU profile of spawn → first
 * /healthz), as jsdom is loaded where it is first needed (content/sanitize.ts).
 */
function sentimentAnalyzer(): SentimentAnalyzer {
  if (analyzer === null) {
    const Sentiment = require("sentiment") as typeof SentimentAnalyzer;
    analyzer = new Sentiment();
  }
  return analyzer;
}

/**
 * AFINN word scores are integers in [−5, 5]. The sum over the sentences that mention a member is
 * mapped to [−1, 1] with tanh(sum / 5): one strongest word ("outstanding") gives ±0.76, one
 * everyday word ("good", "bad", ±3) gives ±0.54, and more evidence approaches ±1 without a cliff.
 * The sum, not the library's per-token `comparative`, is used so neutral filler in a long sentence
 * does not dilute a clear judgement.
 */
export const SENTIMENT_SCALE = 5;

// Words common in English prose, and words common in the other languages answers come in (German,
// Dutch, French, Spanish, Portuguese, Italian) that are no English words ("die", "was", "also",
// "will", "plus", "per", "com" of acme.com and "e" of e.g. are left out: English has them too).
const ENGLISH_MARKERS = new Set(
  "the and of to is are for that with this it its be by or you your from have has which can their they but than what when how if into these those there been were would should could not on at".split(
    " ",
  ),
);
const OTHER_MARKERS = new Set(
  [
    "der das den dem ein eine einen und ist sind nicht mit für von auch oder wie sehr",
    "het een en van niet voor met zijn ook",
    "le la les et est pour avec une des du dans sur qui pas très",
    "el los las es una del que por más pero muy sin mejor",
    "os não uma mais são também muito é melhor",
    "il gli della che sono anche più è ha hanno",
  ]
    .join(" ")
    .split(" "),
);
const WORD = /[\p{L}\p{M}']+/gu;
const LATIN_LETTER = /\p{sc=Latin}/u;
const LETTER = /\p{L}/u;

/**
 * Whether the text reads as English, which AFINN's word list is. Scored with it, an answer in another
 * language comes out absurd ("Die Küche ist hell, das Bad war perfekt" was −0.99: die, hell, Bad and
 * war are English words). Text mostly in another script (Japanese, Chinese, Cyrillic, Arabic) is not
 * English; Latin text is, unless it holds more of the other languages' common words than of
 * English's. Text with neither (a list of names, a table) counts as English, as before.
 */
export function readsAsEnglish(text: string): boolean {
  let letters = 0;
  let latin = 0;
  for (const char of text) {
    if (!LETTER.test(char)) continue;
    letters++;
    if (LATIN_LETTER.test(char)) latin++;
  }
  if (letters > 0 && latin < letters / 2) return false;
  let english = 0;
  let other = 0;
  for (const [word] of text.matchAll(WORD)) {
    const lower = word.toLowerCase();
    if (ENGLISH_MARKERS.has(lower)) english++;
    else if (OTHER_MARKERS.has(lower)) other++;
  }
  return english >= other;
}

/**
 * Sentiment toward each member, from the sentences that mention it; 0 (neutral: the word list finds
 * no English words of opinion) for every member when the answer is not in English (the prompt's
 * language when set, else readsAsEnglish),
 * so that METRICS.md's mean stays over every answer that mentions the member. Roster names are blanked before
 * scoring so a brand called "Happy Cow" is not positive by name. Negation is the library's own: a
 * negator ("not", "don't", "isn't"…) immediately before a word flips its score. A sentence praising
 * one member and criticising another scores the same for both: AFINN cannot tell the targets apart.
 */
export function sentimentByMember<Id>(text: string, spans: readonly MentionSpan<Id>[], language: string | null = null): Map<Id, number> {
  const withoutUrls = maskUrls(text);
  const prose = maskSpans(withoutUrls, spans);
  // The prompt's language when it is set; otherwise the text's words, without the roster's names
  // (a competitor called "La Marzocco" does not make an answer Spanish).
  const english = language !== null ? /^en(-|$)/i.test(language) : readsAsEnglish(prose);
  if (!english) return new Map(spans.map((span) => [span.member_id, 0]));
  const sentences = boundsOfMasked(withoutUrls);
  const sums = new Map<Id, number>();
  const scored = new Map<Id, Set<number>>();
  for (const span of spans) {
    const index = sentenceAt(sentences, span.start);
    const seen = scored.get(span.member_id) ?? new Set<number>();
    scored.set(span.member_id, seen);
    if (!sums.has(span.member_id)) sums.set(span.member_id, 0);
    if (index < 0 || seen.has(index)) continue;
    seen.add(index);
    const [start, end] = sentences[index]!;
    sums.set(span.member_id, sums.get(span.member_id)! + sentimentAnalyzer().analyze(prose.slice(start, end)).score);
  }
  return new Map([...sums].map(([id, sum]) => [id, toUnitScore(sum)]));
}

/**
 * The index of the sentence holding `offset`, or -1 (between sentences): a binary search over the
 * bounds, which are in order. A scan per mention made a long answer quadratic (an 8 MB answer with
 * 144,000 mentions took ~23 s).
 */
function sentenceAt(sentences: ReadonlyArray<readonly [number, number]>, offset: number): number {
  let low = 0;
  let high = sentences.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const [start, end] = sentences[middle]!;
    if (offset < start) high = middle - 1;
    else if (offset >= end) low = middle + 1;
    else return middle;
  }
  return -1;
}

export function toUnitScore(afinnSum: number): number {
  // Rounded so stored values do not carry float noise; 1e-4 is far below any meaningful difference.
  return Math.round(Math.tanh(afinnSum / SENTIMENT_SCALE) * 10_000) / 10_000;
}

/**
 * Sentence spans [start, end): a sentence ends at a line break (list items, headings, table rows) or
 * at . ! ? followed by whitespace. "acme.com" and "3.5" do not end a sentence; "Inc. " does, which
 * only narrows the scored text.
 */
export function sentenceBounds(text: string): Array<[number, number]> {
  return boundsOfMasked(maskUrls(text));
}

function boundsOfMasked(text: string): Array<[number, number]> {
  const bounds: Array<[number, number]> = [];
  let start = 0;
  for (const match of text.matchAll(/[.!?…]+(?=\s)|\n/g)) {
    const end = match.index + match[0].length;
    if (text.slice(start, end).trim() !== "") bounds.push([start, end]);
    start = end;
  }
  if (text.slice(start).trim() !== "") bounds.push([start, text.length]);
  return bounds;
}
