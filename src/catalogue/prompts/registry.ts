// Prompt templates as data (STYLE.md "Tools as data", applied to MCP prompts): each is one declaration
// with its arguments, the plan it needs and a builder that asks the catalogue's own tools for the
// brand's current figures. buildPromptCatalog checks them, renders prompts/list per plan, gates `get`
// by plan, and completes argument values from the brand's own data (completion/complete).
import { describePlan, type PaidPlan, planChangeHint, planCovers, planLabel } from "../../accounts/plans";
import { type AppContext } from "../../context";
import { PLANS, type Plan } from "../../db/values";
import { type AppError, Invalid, NotFound, PlanRequired } from "../../errors";
import { type Principal, type ToolCatalog, type ToolContext } from "../registry";
import { type ToolInput, type ToolName, type ToolOutput } from "../types";

/** Values for an argument that start with (or contain) what the user has typed, from the brand's data. */
export type Completer = (typed: string, ctx: ToolContext) => Promise<string[]>;

export interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
  complete?: Completer;
}

export interface PromptContext extends ToolContext {
  /** Runs a tool of the catalogue for this principal (plan gate, validation, output schema); throws its error. */
  tool<N extends ToolName>(name: N, input: ToolInput<N>): Promise<ToolOutput<N>>;
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: { type: "text"; text: string };
}

export interface PromptDef {
  name: string;
  title: string;
  /** Says what the conversation it starts does, and with which figures. */
  description: string;
  arguments: PromptArgument[];
  plan: PaidPlan;
  build: (args: Record<string, string>, ctx: PromptContext) => Promise<{ description: string; messages: PromptMessage[] }>;
}

export function definePrompt(def: PromptDef): PromptDef {
  return def;
}

/** A prompt as prompts/list shows it. */
export interface PromptListing {
  name: string;
  title: string;
  description: string;
  arguments: Array<{ name: string; description: string; required: boolean }>;
}

export class UnknownPrompt extends NotFound {
  constructor(name: string) {
    super(`Unknown prompt "${name.slice(0, 64)}"; prompts/list shows the prompts this credential can use.`, "unknown_prompt");
  }
}

export interface PromptCatalog {
  byName: ReadonlyMap<string, PromptDef>;
  listFor(plan: Plan): { prompts: PromptListing[] };
  /** The prompt's messages for `principal`; throws an AppError (unknown prompt, plan, argument, a tool's error). */
  get(
    app: AppContext,
    principal: Principal,
    requestId: string,
    name: string,
    args: Record<string, string> | undefined,
  ): Promise<{
    description: string;
    messages: PromptMessage[];
  }>;
  /** completion/complete for a prompt's argument: at most 100 values, and whether there are more. */
  complete(
    app: AppContext,
    principal: Principal,
    requestId: string,
    name: string,
    argument: string,
    typed: string,
  ): Promise<{
    values: string[];
    total: number;
    hasMore: boolean;
  }>;
}

const MAX_COMPLETIONS = 100;
const PROMPT_NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;

function promptPlanRequired(prompt: PromptDef, plan: Plan): PlanRequired {
  return new PlanRequired(
    prompt.plan,
    `The prompt ${prompt.name} requires the ${planLabel(prompt.plan)} plan; this account is on ${describePlan(plan)}. To upgrade: ${planChangeHint(prompt.plan)}.`,
  );
}

export function buildPromptCatalog(prompts: readonly PromptDef[], tools: ToolCatalog): PromptCatalog {
  const byName = new Map<string, PromptDef>();
  for (const prompt of prompts) {
    if (!PROMPT_NAME.test(prompt.name) || prompt.name.length > 64) throw new Error(`prompt name "${prompt.name}" is not snake_case`);
    if (byName.has(prompt.name)) throw new Error(`prompt "${prompt.name}" is declared twice`);
    if (!prompt.title.trim() || prompt.description.trim().length < 20)
      throw new Error(`prompt "${prompt.name}" needs a title and a description`);
    byName.set(prompt.name, prompt);
  }
  const perPlan = new Map<Plan, { prompts: PromptListing[] }>();
  for (const plan of PLANS) {
    perPlan.set(plan, {
      prompts: prompts
        .filter((p) => planCovers(plan, p.plan))
        .map((p) => ({
          name: p.name,
          title: p.title,
          description: p.description,
          arguments: p.arguments.map((a) => ({ name: a.name, description: a.description, required: a.required })),
        })),
    });
  }

  function visible(name: string, plan: Plan): PromptDef {
    const prompt = byName.get(name);
    if (!prompt) throw new UnknownPrompt(name);
    if (!planCovers(plan, prompt.plan)) throw promptPlanRequired(prompt, plan);
    return prompt;
  }

  function contextFor(app: AppContext, principal: Principal, requestId: string): PromptContext {
    return {
      ...principal,
      app,
      requestId,
      async tool(name, input) {
        const outcome = await tools.call(app, principal, requestId, name, input);
        if (!outcome.ok) throw outcome.error as AppError;
        return outcome.value as never;
      },
    };
  }

  return {
    byName,
    listFor: (plan) => perPlan.get(plan) ?? { prompts: [] },
    async get(app, principal, requestId, name, args = {}) {
      const prompt = visible(name, principal.plan);
      const known = new Set(prompt.arguments.map((a) => a.name));
      const unknown = Object.keys(args).find((key) => !known.has(key));
      if (unknown !== undefined) {
        const accepted = prompt.arguments.map((a) => a.name).join(", ") || "none";
        throw new Invalid(`The prompt ${prompt.name} has no argument "${unknown.slice(0, 64)}" (it takes: ${accepted}).`);
      }
      const values: Record<string, string> = {};
      for (const argument of prompt.arguments) {
        const value = args[argument.name]?.trim() ?? "";
        if (value === "" && argument.required)
          throw new Invalid(`The prompt ${prompt.name} needs the argument "${argument.name}": ${argument.description}`);
        if (value !== "") values[argument.name] = value;
      }
      return prompt.build(values, contextFor(app, principal, requestId));
    },
    async complete(app, principal, requestId, name, argumentName, typed) {
      const prompt = visible(name, principal.plan);
      const argument = prompt.arguments.find((a) => a.name === argumentName);
      if (!argument) throw new Invalid(`The prompt ${prompt.name} has no argument "${argumentName.slice(0, 64)}".`);
      const all = argument.complete ? await argument.complete(typed, contextFor(app, principal, requestId)) : [];
      return { values: all.slice(0, MAX_COMPLETIONS), total: all.length, hasMore: all.length > MAX_COMPLETIONS };
    },
  };
}
