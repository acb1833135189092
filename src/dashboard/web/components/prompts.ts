// The brand's prompts for pages that must name or offer any of them: every page of list_prompts,
// archived prompts included (an answer or an article may belong to a prompt no longer tracked).
import { type ToolOutput } from "../../../catalogue/types";
import { api } from "../api";

export type BrandPrompt = ToolOutput<"list_prompts">["prompts"][number];

/** Every prompt of the brand, archived ones too, in list_prompts' order. */
export async function allPrompts(brandId: string): Promise<BrandPrompt[]> {
  const prompts: BrandPrompt[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.tool(brandId, "list_prompts", { include_archived: true, limit: 200, cursor });
    prompts.push(...page.prompts);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return prompts;
}

/** A short form of a prompt's text (at most 60 characters) for buttons' and links' names and confirmations. */
export function short(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}
