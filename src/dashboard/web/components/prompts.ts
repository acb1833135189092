// Prompts as pages name them.
import { type ToolOutput } from "../../../catalogue/types";

export type BrandPrompt = ToolOutput<"list_prompts">["prompts"][number];

/** A short form of a prompt's text (at most 60 characters) for buttons' and links' names and confirmations. */
export function short(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
