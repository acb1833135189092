/**
 * Only short answers can be heuristic refusals: a long answer that opens with "I can't recommend
 * one product, but here are…" is an answer, and counting it as a refusal would hide real mentions.
 */
export const REFUSAL_MAX_CHARS = 300;

const APOSTROPHE = "['’]";
const CANNOT = `(?:can${APOSTROPHE}?t|cannot|can not|am unable to|am not able to|won${APOSTROPHE}?t|will not|must decline to)`;
const VERB = "(?:help|assist|provide|comply|answer|respond|fulfil|fulfill|do that|engage)";

/** Each pattern is anchored at the start of the answer: a refusal leads with the refusal. */
const REFUSAL_PATTERNS: RegExp[] = [
  // "I'm sorry, but I can't help with that." / "Sorry, I cannot assist with this request."
  new RegExp(
    `^\\W*(?:i${APOSTROPHE}?m sorry|i am sorry|sorry|i apologi[sz]e|unfortunately)\\b[^.!?\\n]{0,40}?\\bi ${CANNOT} ${VERB}\\b`,
    "iu",
  ),
  // "I can't help with that." / "I cannot assist with this request."
  new RegExp(`^\\W*i ${CANNOT} ${VERB} (?:with )?(?:that|this|your)\\b`, "iu"),
  // "I must decline this request."
  /^\W*i (?:must|have to) (?:decline|refuse)\b/iu,
];

/** True when a short answer reads as a refusal; conservative by design (see REFUSAL_MAX_CHARS). */
export function looksLikeRefusal(text: string): boolean {
  const trimmed = text.trim().replace(/\s+/g, " ");
  if (trimmed === "" || trimmed.length > REFUSAL_MAX_CHARS) return false;
  return REFUSAL_PATTERNS.some((pattern) => pattern.test(trimmed));
}
