// Tracking tools (CONTRACT §4): start a run now, and see engines, schedule and runs.
import { z } from "zod";
import { RUN_STATUSES } from "../../db/values";
import { getTrackingStatus, startTracking } from "../../tracking/service";
import { defineTool } from "../registry";
import { ASKS_MODELS, READ_ONLY } from "./common";

const runView = z.object({
  id: z.string(),
  status: z.enum(RUN_STATUSES),
  trigger: z.string(),
  engines: z.array(z.string()),
  answers_planned: z.number().int(),
  answers_done: z.number().int(),
  answers: z.object({ ok: z.number().int(), empty: z.number().int(), refusal: z.number().int(), error: z.number().int() }),
  by_engine: z
    .array(
      z.object({
        engine: z.string(),
        ok: z.number().int(),
        empty: z.number().int(),
        refusal: z.number().int(),
        error: z.number().int(),
        first_error: z.string().nullable().describe("the reason of the engine's first failed answer in the run"),
      }),
    )
    .describe("the stored answers by engine and status"),
  waiting: z
    .array(z.object({ engine: z.string(), until: z.string(), reason: z.string() }))
    .describe(
      "while the run is running: its engines whose provider asked to wait (a rate limit or an overload), until when, and the provider's answer; their requests, and the run, wait meanwhile",
    ),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  error: z.string().nullable(),
});

const money = z.number().nullable();
const forecastOut = z
  .object({
    prompts: z.number().int().describe("the brand's active prompts"),
    engines: z.number().int(),
    samples: z.number().int(),
    schedule: z.object({
      cron: z.string(),
      enabled: z.boolean(),
      runs_per_month: z.number().int().describe("scheduled runs in the next 30 days"),
      runs_per_day: z.number(),
    }),
    requests_per_run: z.number().int().describe("prompts × engines × samples, before retries"),
    requests_per_month: z.number().int().describe("requests_per_run × runs_per_month"),
    requests_per_day: z.number(),
    estimated_cost_per_run: money.describe("sum over the engines whose cost could be estimated; null when none could"),
    estimated_cost_per_month: money,
    unestimated_engines: z.array(z.string()).describe("engines without a price, or priced per token with no answers to measure yet"),
    by_engine: z.array(
      z.object({
        id: z.string(),
        label: z.string(),
        api: z.string(),
        model: z.string(),
        web_search: z.boolean(),
        requests_per_run: z.number().int(),
        requests_per_month: z.number().int(),
        avg_tokens_in: z.number().nullable(),
        avg_tokens_out: z.number().nullable(),
        token_sample: z.number().int().describe("recent valid answers the token means come from"),
        price_per_request: money,
        price_per_million_input_tokens: money,
        price_per_million_output_tokens: money,
        cost_per_request: money,
        cost_per_run: money,
        cost_per_month: money,
        note: z.string().nullable(),
      }),
    ),
    basis: z.string().describe("how the figures were computed, in a sentence"),
  })
  .describe("what tracking asks and roughly costs: in the currency of the prices in spyglass.toml");

const runTrackingTool = defineTool({
  name: "run_tracking",
  title: "Run tracking now",
  description:
    "Use to ask the configured AI engines the brand's prompts now instead of waiting for the schedule (for example after adding prompts). Starts a run in the background and returns it at once with answers_planned; follow it with get_tracking_status. Only one run per brand at a time. Costs provider API calls.",
  input: z.strictObject({
    prompt_ids: z.array(z.string().min(1).max(64)).min(1).max(1000).optional().describe("Only these prompts; default all active prompts."),
    engines: z
      .array(z.string().min(1).max(64))
      .min(1)
      .max(50)
      .optional()
      .describe("Only these engine ids; default all configured engines."),
  }),
  output: z.object({ run: runView }),
  annotations: ASKS_MODELS,
  plan: "visibility",
  handler: async (input, ctx) => {
    const started = await startTracking(ctx.app, ctx.brand.id, { promptIds: input.prompt_ids, engines: input.engines, trigger: "tool" });
    return { run: started.run };
  },
});

const getTrackingStatusTool = defineTool({
  name: "get_tracking_status",
  title: "Tracking status",
  description:
    "Use to see which AI engines are tracked (and any unconfigured engine present in stored answers, such as the demo's), the schedule (cron, UTC), the brand's last run (status, answers done and by status, error), when the next scheduled run is, and the forecast: requests per run and per month (active prompts × engines × samples × scheduled runs in the next 30 days) with an estimated cost where spyglass.toml gives prices (per request, or per million tokens applied to the tokens of recent answers).",
  input: z.strictObject({}),
  output: z.object({
    engines: z.array(
      z.object({
        id: z.string(),
        label: z.string(),
        api: z.string().nullable().describe("the provider's API (openai, anthropic…); null for an engine not configured"),
        model: z.string(),
        concurrency: z.number().int().nullable().describe("requests at once; null for an engine not configured"),
        api_key_set: z.boolean(),
        api_key_env: z
          .string()
          .nullable()
          .describe("the environment variable the engine's key is read from (its name; the value is never shown)"),
        configured: z.boolean().describe("in spyglass.toml; false for an engine only present in stored answers (api null)"),
        demo: z.boolean().describe("not configured; its stored answers were seeded by spyglass demo"),
      }),
    ),
    schedule: z.object({
      cron: z.string(),
      timezone: z.literal("UTC"),
      enabled: z
        .boolean()
        .describe(
          "[tracking] enabled in spyglass.toml: the server's schedule is on. Whether it asks this brand's prompts is brand_scheduled",
        ),
      brand_scheduled: z
        .boolean()
        .describe(
          "whether scheduled runs ask this brand's prompts: the schedule is on, an engine is configured, and the brand is not the demo's (get_brand's tracking.enabled); next_run is when",
        ),
      samples: z.number().int(),
    }),
    last_run: runView.nullable(),
    next_run: z.string().nullable(),
    running: z.boolean(),
    message: z.string().nullable(),
    forecast: forecastOut,
  }),
  annotations: READ_ONLY,
  plan: "visibility",
  handler: async (_input, ctx) => await getTrackingStatus(ctx.app, ctx.brand.id),
});

export const trackingTools = [runTrackingTool, getTrackingStatusTool] as const;
