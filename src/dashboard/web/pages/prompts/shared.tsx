// What the Prompts page's parts share: the types from the catalogue, the tag list's parsing, the
// short form of a prompt for names and confirmations, and how a failure is shown.
import { type ToolOutput } from "../../../../catalogue/types";
import { PROMPTS_PER_CALL, TAG_NAME_MAX, TAGS_PER_PROMPT } from "../../../../prompts/limits";
import { errorMessage } from "../../api";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { short } from "../../components/prompts";
import { Notice } from "../../components/ui";

export type Prompt = ToolOutput<"list_prompts">["prompts"][number];
export type Tag = ToolOutput<"list_tags">["tags"][number];

/** Prompts per create_prompts call. */
export const PER_CALL = PROMPTS_PER_CALL;
export const PLAN_WHAT = "Tracking prompts";

export { short };

/** Tag names typed separated by commas: the ideographic and full-width ones too (、，), as a Japanese or Chinese keyboard types them. */
export function parseTags(text: string): string[] {
  return text
    .split(/[,、，]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The hint beside a tags field. */
export const TAGS_HINT = `Separated by commas, up to ${TAG_NAME_MAX} characters each (${TAGS_PER_PROMPT} tags at most)`;

/** Why the tags typed would be refused, in words about what was typed; null when they fit. */
export function tagsProblem(names: string[]): string | null {
  const long = names.filter((name) => [...name].length > TAG_NAME_MAX);
  if (long.length > 0) {
    const named = long.map((name) => `“${short(name)}” (${[...name].length} characters)`).join(", ");
    return `A tag has at most ${TAG_NAME_MAX} characters; shorten ${named}.`;
  }
  if (names.length > TAGS_PER_PROMPT) return `A prompt has at most ${TAGS_PER_PROMPT} tags; ${names.length} were given.`;
  return null;
}

export function Failure({ failure }: { failure: unknown }) {
  return isPlanRequired(failure) ? (
    <PlanNeeded required="visibility" what={PLAN_WHAT} />
  ) : (
    <Notice kind="error">{errorMessage(failure)}</Notice>
  );
}
