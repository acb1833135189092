import { type Citation, extractCitations } from "./citations";
import { findMentionSpans, type RosterMember, rankFirstMentions } from "./mentions";
import { sentimentByMember } from "./sentiment";

export interface AnalyzedMention<Id = string> {
  member_id: Id;
  offset: number;
  rank: number;
  /** In [−1, 1]; see SENTIMENT_SCALE for the mapping (0 for an answer not in English: readsAsEnglish). */
  sentiment: number;
}

export interface AnswerAnalysis<Id = string> {
  mentions: AnalyzedMention<Id>[];
  citations: Citation[];
}

/**
 * Everything the metrics need from one answer, computed once when it is stored so that analytics
 * are plain queries. Meant for `ok` answers; other statuses are outside every denominator.
 */
export function analyzeAnswer<Id>(input: {
  text: string;
  providerCitations: readonly string[];
  roster: readonly RosterMember<Id>[];
  /** The prompt's language, when set (BCP 47): English ("en", "en-GB") or not decides the sentiment's scoring. */
  language?: string | null;
}): AnswerAnalysis<Id> {
  const spans = findMentionSpans(input.text, input.roster);
  const sentiment = sentimentByMember(input.text, spans, input.language ?? null);
  return {
    mentions: rankFirstMentions(spans, input.roster).map((m) => ({ ...m, sentiment: sentiment.get(m.member_id) ?? 0 })),
    citations: extractCitations(input.text, input.providerCitations),
  };
}
