// Tools as data (STYLE.md): each tool is one declaration; the registry turns the list into the MCP
// server, the plan filter, the snapshot and the docs.
import type { z } from "zod";
import type { AppContext } from "../app";
import type { Plan } from "../db/schema";
import type { PaidPlan } from "../errors";
import type { VerifiedKey } from "../keys/service";

export interface ToolContext {
  app: AppContext;
  /** From the verified key only: no tool input ever carries a brand id. */
  brand: VerifiedKey["brand"];
  account: VerifiedKey["account"];
  plan: Plan;
  requestId: string;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** Says when to use the tool and what it returns. */
  description: string;
  input: I;
  output: O;
  annotations: ToolAnnotations;
  plan: PaidPlan;
  handler: (input: z.output<I>, ctx: ToolContext) => z.input<O> | Promise<z.input<O>>;
}

/** Identity with inference: keeps each declaration's input and output types tied to its handler. */
export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}

export type AnyTool = ToolDef<z.ZodObject, z.ZodObject>;
