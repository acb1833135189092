// Tracking tools (CONTRACT §4): start a run now, and see engines, schedule and runs.
import { z } from "zod";
import { RUN_STATUSES } from "../../db/schema";
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
  started_at: z.string(),
  finished_at: z.string().nullable(),
  error: z.string().nullable(),
});

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
  handler: (input, ctx) => {
    const started = startTracking(ctx.app, ctx.brand.id, { promptIds: input.prompt_ids, engines: input.engines, trigger: "tool" });
    return { run: started.run };
  },
});

const getTrackingStatusTool = defineTool({
  name: "get_tracking_status",
  title: "Tracking status",
  description:
    "Use to see which AI engines are tracked (and any unconfigured engine present in stored answers, such as the demo's), the schedule (cron, UTC), the brand's last run (status, answers done and by status, error) and when the next scheduled run is.",
  input: z.strictObject({}),
  output: z.object({
    engines: z.array(
      z.object({
        id: z.string(),
        label: z.string(),
        api: z.string(),
        model: z.string(),
        concurrency: z.number().int(),
        api_key_set: z.boolean(),
        configured: z.boolean().describe("in spyglass.toml; false for an engine only present in stored answers (api empty)"),
        demo: z.boolean().describe("not configured; its stored answers were seeded by spyglass demo"),
      }),
    ),
    schedule: z.object({ cron: z.string(), timezone: z.literal("UTC"), enabled: z.boolean(), samples: z.number().int() }),
    last_run: runView.nullable(),
    next_run: z.string().nullable(),
    running: z.boolean(),
    message: z.string().nullable(),
  }),
  annotations: READ_ONLY,
  plan: "visibility",
  handler: (_input, ctx) => getTrackingStatus(ctx.app, ctx.brand.id),
});

export const trackingTools = [runTrackingTool, getTrackingStatusTool] as const;
