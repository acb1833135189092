// Competitor tools (CONTRACT §4): the other brands counted in the same answers.
import { z } from "zod";
import {
  createCompetitor,
  deleteCompetitor,
  listCompetitors,
  MAX_ALIASES,
  MAX_DOMAINS,
  NAME_MAX,
  NAME_MIN,
  updateCompetitor,
} from "../../competitors/service";
import { defineTool } from "../registry";
import { CREATES, cursor, DELETES, idOf, limit, nextCursor, READ_ONLY, timestamp, UPDATES } from "./common";

export const competitor = z.object({
  id: z.string(),
  name: z.string(),
  aliases: z.array(z.string()).describe("other names counted as mentions of the competitor"),
  domains: z.array(z.string()).describe("hosts whose citations count as the competitor's, lowercased, without scheme or www."),
  created_at: timestamp,
});

// The service checks the minimum: 2 Chinese, Japanese or Korean characters are a name (東芝), 2 letters are not.
const name = z
  .string()
  .min(1)
  .max(NAME_MAX * 2)
  // The JSON schema's maxLength counts characters, as the service does (zod counts UTF-16 units).
  .meta({ maxLength: NAME_MAX })
  .describe(`The competitor's name as answers write it, ${NAME_MIN}-${NAME_MAX} characters (2 in Chinese, Japanese or Korean script).`);
const aliases = z
  .array(z.string().min(NAME_MIN).max(NAME_MAX))
  .max(MAX_ALIASES)
  .describe(
    `Other names or spellings (each ${NAME_MIN}+ characters): the whole list to keep, which replaces the current one ([] removes them all); one equal to the name is left out.`,
  );
const domains = z
  .array(z.string().min(1).max(253))
  .max(MAX_DOMAINS)
  .describe("The competitor's sites, such as example.com (a URL is reduced to its host, without www.); replaces the current list.");
const competitorId = idOf("competitor", "list_competitors").describe(
  "The competitor's id, from list_competitors, or its name (names are unique per brand).",
);
const REANALYSIS = "Stored answers are re-analysed with the change in the background.";

const listCompetitorsTool = defineTool({
  name: "list_competitors",
  title: "List competitors",
  description:
    "Use to see which competitors are tracked next to the brand, with the aliases and domains that identify them in answers, in the order they were added, paged.",
  input: z.strictObject({ limit, cursor }),
  output: z.object({ competitors: z.array(competitor), next_cursor: nextCursor }),
  annotations: READ_ONLY,
  plan: "visibility",
  handler: (input, ctx) => listCompetitors(ctx.app.db, ctx.brand.id, input),
});

const createCompetitorTool = defineTool({
  name: "create_competitor",
  title: "Add a competitor",
  description: `Use to track another brand in the same AI answers (share of voice, ranking, content gaps). Give its name, and aliases and domains to count its mentions and citations (none may be the brand's own name, alias or site). ${REANALYSIS} Returns the competitor.`,
  input: z.strictObject({
    name,
    aliases: aliases.optional().describe(`Other names or spellings it goes by (each ${NAME_MIN}+ characters).`),
    domains: domains.optional().describe("The competitor's sites, such as example.com (a URL is reduced to its host, without www.)."),
  }),
  output: z.object({ competitor }),
  annotations: CREATES,
  plan: "visibility",
  handler: async (input, ctx) => ({ competitor: await createCompetitor(ctx.app, ctx.brand.id, input) }),
});

const updateCompetitorTool = defineTool({
  name: "update_competitor",
  title: "Edit a competitor",
  description: `Use to rename a competitor or replace its aliases or domains. ${REANALYSIS} Returns the competitor as it now stands.`,
  input: z.strictObject({ competitor_id: competitorId, name: name.optional(), aliases: aliases.optional(), domains: domains.optional() }),
  output: z.object({ competitor }),
  annotations: UPDATES,
  plan: "visibility",
  handler: async (input, ctx) => ({ competitor: await updateCompetitor(ctx.app, ctx.brand.id, input.competitor_id, input) }),
});

const deleteCompetitorTool = defineTool({
  name: "delete_competitor",
  title: "Remove a competitor",
  description: `Use to stop tracking a competitor; its mentions leave the figures. ${REANALYSIS} Returns the competitor as it was.`,
  input: z.strictObject({ competitor_id: competitorId }),
  output: z.object({ competitor }),
  annotations: DELETES,
  plan: "visibility",
  handler: async (input, ctx) => ({ competitor: await deleteCompetitor(ctx.app, ctx.brand.id, input.competitor_id) }),
});

export const competitorTools = [listCompetitorsTool, createCompetitorTool, updateCompetitorTool, deleteCompetitorTool] as const;
