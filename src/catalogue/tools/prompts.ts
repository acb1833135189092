// Prompt tools (CONTRACT §4): the questions whose AI answers Spyglass tracks for the brand.
import { z } from "zod";
import { TAG_NAME_MAX, TAGS_PER_PROMPT } from "../../prompts/limits";
import {
  archivePrompt,
  createPrompts,
  listPrompts,
  PROMPT_TEXT_MAX,
  PROMPT_TEXT_MIN,
  PROMPTS_PER_CALL,
  updatePrompt,
} from "../../prompts/service";
import { defineTool } from "../registry";
import {
  CREATES,
  cursor,
  DELETES,
  idOf,
  LANGUAGE_CODE,
  LANGUAGE_CODE_RULE,
  limit,
  nextCursor,
  READ_ONLY,
  timestamp,
  UPDATES,
} from "./common";

const prompt = z.object({
  id: z.string(),
  text: z.string(),
  tags: z.array(z.string()).describe("tag names"),
  country: z.string().nullable().describe("ISO 3166-1 alpha-2 code, or null"),
  language: z.string().nullable().describe("language code such as en or pt-BR, or null"),
  archived: z.boolean(),
  created_at: timestamp,
});

const text = z
  .string()
  .min(PROMPT_TEXT_MIN)
  .max(PROMPT_TEXT_MAX)
  .describe(`The question as a user would ask an AI assistant, ${PROMPT_TEXT_MIN}-${PROMPT_TEXT_MAX} characters.`);
const tags = z
  .array(z.string().min(1).max(TAG_NAME_MAX))
  .max(TAGS_PER_PROMPT)
  .describe("Tag names; tags that do not exist yet are created.");
// "" removes it too, as it does the brand's domain (the AI-client walk found one refused, the other taken).
const country = z
  .string()
  .regex(/^(?:[A-Za-z]{2})?$/, "must be a two-letter country code such as US or DE")
  .nullable()
  .optional()
  .describe('Market the prompt is about, as an ISO 3166-1 alpha-2 code; null (or "") removes it.');
const language = z
  .string()
  .regex(new RegExp(`^(?:${LANGUAGE_CODE.source.slice(1, -1)})?$`), LANGUAGE_CODE_RULE)
  .nullable()
  .optional()
  .describe('Language of the prompt, such as en or pt-BR; null (or "") removes it.');
const promptId = idOf("prompt", "list_prompts");

const listPromptsTool = defineTool({
  name: "list_prompts",
  title: "List tracked prompts",
  description:
    "Use to see which questions are tracked for the brand, in the order they were added. Filter by tag (name or id), by text (query, ignoring case) or to one prompt (prompt_id); archived prompts are left out unless include_archived is true. Returns each prompt with its tags, country, language and archived flag, paged with cursor.",
  input: z.strictObject({
    tag: z.string().min(1).max(100).optional().describe("Only prompts with this tag (name or id)."),
    query: z.string().min(1).max(PROMPT_TEXT_MAX).optional().describe("Only prompts whose text contains this, ignoring case."),
    prompt_id: promptId.optional().describe("Only this prompt (its text and tags); an id that is not the brand's prompt is not found."),
    include_archived: z.boolean().default(false).describe("Also list archived prompts (default false)."),
    limit,
    cursor,
  }),
  output: z.object({ prompts: z.array(prompt), next_cursor: nextCursor }),
  annotations: READ_ONLY,
  plan: "visibility",
  handler: (input, ctx) =>
    listPrompts(ctx.app.db, ctx.brand.id, {
      tag: input.tag,
      query: input.query,
      promptId: input.prompt_id,
      includeArchived: input.include_archived,
      limit: input.limit,
      cursor: input.cursor,
    }),
});

const createPromptsTool = defineTool({
  name: "create_prompts",
  title: "Add prompts to track",
  description: `Use to start tracking questions people ask AI assistants about the brand's market (for example "best CRM for small agencies"). Takes 1-${PROMPTS_PER_CALL} prompts; a text the brand already tracks, or repeated in the call (ignoring case and spaces), is listed in duplicates and not created, and an archived prompt with that text is restored instead. Tags named that do not exist are created. Returns the created prompts; they are asked at the next tracking run (or run_tracking).`,
  input: z.strictObject({
    prompts: z
      .array(z.strictObject({ text, tags: tags.optional(), country, language }))
      .min(1)
      .max(PROMPTS_PER_CALL)
      .describe(`1-${PROMPTS_PER_CALL} prompts to add.`),
  }),
  output: z.object({
    created: z.array(prompt),
    duplicates: z.array(z.string()).describe("texts given that the brand already tracks or that repeat in the call"),
    duplicate_ids: z
      .array(z.string())
      .describe(
        "the id of the prompt each duplicate is, in the same order (tags given with a duplicate are not applied: update_prompt sets them)",
      ),
    restored_ids: z
      .array(z.string())
      .describe("the ids, among created, of archived prompts tracked again (their stored answers and history kept), not new ones"),
  }),
  annotations: CREATES,
  plan: "visibility",
  handler: (input, ctx) => createPrompts(ctx.app.db, ctx.brand.id, input.prompts),
});

const updatePromptTool = defineTool({
  name: "update_prompt",
  title: "Edit a prompt",
  description:
    "Use to reword a tracked prompt or change its tags (the list given replaces the current tags), country or language. Answers already stored stay with the prompt. Returns the prompt as it now stands.",
  input: z.strictObject({ prompt_id: promptId, text: text.optional(), tags: tags.optional(), country, language }),
  output: z.object({ prompt }),
  annotations: UPDATES,
  plan: "visibility",
  handler: async (input, ctx) => ({ prompt: await updatePrompt(ctx.app.db, ctx.brand.id, input.prompt_id, input) }),
});

const deletePromptTool = defineTool({
  name: "delete_prompt",
  title: "Archive a prompt",
  description:
    "Use to stop tracking a prompt. The prompt is archived, not erased: its stored answers and history stay in the analytics, and create_prompts with the same text restores it. Returns the archived prompt.",
  input: z.strictObject({ prompt_id: promptId }),
  output: z.object({ prompt }),
  annotations: DELETES,
  plan: "visibility",
  handler: async (input, ctx) => ({ prompt: await archivePrompt(ctx.app.db, ctx.brand.id, input.prompt_id) }),
});

export const promptTools = [listPromptsTool, createPromptsTool, updatePromptTool, deletePromptTool] as const;
