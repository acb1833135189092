// Every prompt template of the catalogue, in the order prompts/list shows them. Adding one: declare
// it with definePrompt in the file of its plan, export it in that file's array, update the
// prompts/list snapshots (`bun run snapshots`) and give it its row in the isolation matrix
// (test/support/prompt-resource-isolation.ts), which fails until it has one.
import { contentPrompts } from "./content";
import { type PromptDef } from "./registry";
import { visibilityPrompts } from "./visibility";

export const PROMPTS: readonly PromptDef[] = [...visibilityPrompts, ...contentPrompts];
