// Tag tools (CONTRACT §4): list, create, rename/recolour and delete the brand's prompt tags.
import { z } from "zod";
import { createTag, deleteTag, listTags, TAG_NAME_MAX, updateTag } from "../../prompts/tags";
import { defineTool } from "../registry";
import { CREATES, cursor, DELETES, idOf, limit, nextCursor, READ_ONLY, timestamp, UPDATES } from "./common";

const tag = z.object({
  id: z.string(),
  name: z.string(),
  color: z.string().nullable().describe("#rrggbb or null"),
  prompt_count: z.number().int().describe("prompts carrying the tag, archived ones included"),
  created_at: timestamp,
});

const name = z.string().min(1).max(TAG_NAME_MAX).describe(`The tag's name, 1-${TAG_NAME_MAX} characters, unique per brand ignoring case.`);
const color = z
  .string()
  .regex(/^#[0-9a-fA-F]{6}$/, "must be a colour as #rrggbb, such as #3b82f6")
  .nullable()
  .optional()
  .describe("Colour as #rrggbb; null removes it.");
const tagId = idOf("tag", "list_tags").describe("The tag's id, from list_tags, or its name (names are unique per brand).");

const listTagsTool = defineTool({
  name: "list_tags",
  title: "List tags",
  description:
    "Use to see how the brand's tracked prompts are grouped. Returns the tags by name, each with its colour and number of prompts; a tag name can filter list_prompts and the analytics tools.",
  input: z.strictObject({ limit, cursor }),
  output: z.object({ tags: z.array(tag), next_cursor: nextCursor }),
  annotations: READ_ONLY,
  plan: "visibility",
  handler: (input, ctx) => listTags(ctx.app.db, ctx.brand.id, input),
});

const createTagTool = defineTool({
  name: "create_tag",
  title: "Create a tag",
  description:
    "Use to add a tag for grouping prompts (by product, topic, funnel stage or market). Tag names are unique per brand ignoring case; returns the new tag. create_prompts and update_prompt also create tags they name.",
  input: z.strictObject({ name, color }),
  output: z.object({ tag }),
  annotations: CREATES,
  plan: "visibility",
  handler: async (input, ctx) => ({ tag: await createTag(ctx.app.db, ctx.brand.id, input) }),
});

const updateTagTool = defineTool({
  name: "update_tag",
  title: "Rename or recolour a tag",
  description: "Use to rename a tag or change its colour; its prompts keep it. Returns the tag as it now stands.",
  input: z.strictObject({ tag_id: tagId, name: name.optional(), color }),
  output: z.object({ tag }),
  annotations: UPDATES,
  plan: "visibility",
  handler: async (input, ctx) => ({ tag: await updateTag(ctx.app.db, ctx.brand.id, input.tag_id, input) }),
});

const deleteTagTool = defineTool({
  name: "delete_tag",
  title: "Delete a tag",
  description: "Use to remove a tag: it is taken off its prompts, which stay tracked. Returns the tag as it was.",
  input: z.strictObject({ tag_id: tagId }),
  output: z.object({ tag }),
  annotations: DELETES,
  plan: "visibility",
  handler: async (input, ctx) => ({ tag: await deleteTag(ctx.app.db, ctx.brand.id, input.tag_id) }),
});

export const tagTools = [listTagsTool, createTagTool, updateTagTool, deleteTagTool] as const;
