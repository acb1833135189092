// Brand tools (CONTRACT §4): the key's brand with its competitors and tracking set-up, and edits to
// the brand's name, domain and aliases.
import { z } from "zod";
import { isDemoAccount } from "../../accounts/service";
import { storedAnswerDays } from "../../analytics/notes";
import { getBrand, MAX_ALIASES, updateBrand } from "../../brands/service";
import { assertBrandClearOfCompetitors, listCompetitors, MAX_COMPETITORS } from "../../competitors/service";
import { type AppContext } from "../../context";
import { brandEngines } from "../../tracking/engines";
import { defineTool } from "../registry";
import { READ_ONLY, UPDATES } from "./common";
import { competitor } from "./competitors";

const brand = z.object({
  id: z.string(),
  name: z.string(),
  domain: z.string().nullable().describe("the brand's own site, such as example.com"),
  aliases: z.array(z.string()).describe("other names counted as mentions of the brand"),
  site_key: z.string().describe("public key of the content API (GET /api/public/articles?key=…)"),
});

const getBrandTool = defineTool({
  name: "get_brand",
  title: "Get the brand",
  description:
    "Use first, to learn which brand this connection works on. Returns the brand (name, domain, aliases, public site key), the account's plan, the tracked competitors, the AI engines (id, label, model): the configured ones and any others present in the stored answers (configured false; demo true for spyglass demo's), the tracking schedule (cron, UTC), samples per prompt and whether scheduled runs ask anything, whether the server has a writer model for generate_article, and today's date (UTC) with the days of the first and last stored answer (answers).",
  input: z.strictObject({}),
  output: z.object({
    brand,
    plan: z.enum(["visibility", "autopilot"]),
    competitors: z.array(competitor),
    engines: z.array(
      z.object({
        id: z.string(),
        label: z.string(),
        model: z.string(),
        configured: z.boolean().describe("in spyglass.toml: tracking runs ask it"),
        demo: z.boolean().describe("not configured; its stored answers were seeded by spyglass demo"),
      }),
    ),
    tracking: z.object({
      schedule: z.string().describe("cron expression, UTC"),
      timezone: z.literal("UTC"),
      samples: z.number().int().describe("answers per prompt and engine per run"),
      enabled: z
        .boolean()
        .describe("whether scheduled runs ask anything: the schedule is on and at least one engine is configured (configured true above)"),
    }),
    writer: z
      .object({ configured: z.boolean(), model: z.string().nullable() })
      .describe("the server's writer model (spyglass.toml [writer]): generate_article works only when configured"),
    answers: z
      .object({
        today: z.string().describe("today's date, UTC (YYYY-MM-DD): dates in the analytics tools are UTC days"),
        first_day: z.string().nullable().describe("the day of the brand's first stored answer, or null before any"),
        last_day: z.string().nullable().describe("the day of the latest stored answer"),
        total: z.number().int().describe("stored answers, of every status"),
      })
      .describe("which days the analytics tools can cover"),
  }),
  annotations: READ_ONLY,
  plan: "visibility",
  handler: async (_input, ctx) => {
    const { config, db } = ctx.app;
    return {
      brand: await getBrand(db, ctx.brand.id),
      plan: ctx.plan === "autopilot" ? ("autopilot" as const) : ("visibility" as const),
      competitors: (await listCompetitors(db, ctx.brand.id, { limit: MAX_COMPETITORS })).competitors,
      engines: await brandEngines(ctx.app, ctx.brand.id),
      tracking: {
        schedule: config.tracking.schedule,
        timezone: "UTC" as const,
        samples: config.tracking.samples,
        // A schedule with no engine to ask runs nothing: "enabled" would mislead a client into
        // waiting for answers.
        // Nor does it for the demo's brand, which the schedule leaves out.
        enabled: config.tracking.enabled && config.engines.length > 0 && !(await isDemoAccount(db, ctx.account.id)),
      },
      writer: { configured: config.writer !== null, model: config.writer?.model ?? null },
      answers: await answerDays(ctx.app, ctx.brand.id),
    };
  },
});

async function answerDays(app: AppContext, brandId: string) {
  const stored = await storedAnswerDays(app, brandId);
  return {
    today: new Date().toISOString().slice(0, 10),
    first_day: stored?.first_day ?? null,
    last_day: stored?.last_day ?? null,
    total: stored?.answers ?? 0,
  };
}

const updateBrandTool = defineTool({
  name: "update_brand",
  title: "Edit the brand",
  description:
    "Use to correct the brand's name, its own domain (null or \"\" removes it) or its aliases (other names and spellings, each 3+ characters; the list replaces the current one). Name and aliases decide which mentions count as the brand and the domain which citations are owned (none may be a tracked competitor's name, alias or domain); stored answers are re-analysed with the change in the background. Returns the brand as it now stands.",
  input: z.strictObject({
    name: z.string().min(1).max(100).optional().describe("The brand's name as answers write it."),
    domain: z.string().max(253).nullable().optional().describe('The brand\'s own site, such as example.com; null (or "") removes it.'),
    aliases: z
      .array(z.string().min(3).max(100))
      .max(MAX_ALIASES)
      .optional()
      .describe(
        "Other names or spellings: the whole list to keep, which replaces the current one ([] removes them all); one equal to the name is left out.",
      ),
  }),
  output: z.object({ brand }),
  annotations: UPDATES,
  plan: "visibility",
  handler: async (input, ctx) => ({ brand: await updateBrand(ctx.app, ctx.brand.id, input, assertBrandClearOfCompetitors) }),
});

export const brandTools = [getBrandTool, updateBrandTool] as const;
