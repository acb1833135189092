// What each plan covers, and the one error every door answers when a plan does not cover a request.
import { type Plan } from "../db/values";
import { PlanRequired } from "../errors";

export type PaidPlan = Exclude<Plan, "none">;

const PLAN_RANK: Record<Plan, number> = { none: 0, visibility: 1, autopilot: 2 };

export function planLabel(plan: PaidPlan): string {
  return plan === "autopilot" ? "Autopilot" : "Visibility";
}

/** Whether an account on `plan` may use something that needs `required`. */
export function planCovers(plan: Plan, required: PaidPlan): boolean {
  return PLAN_RANK[plan] >= PLAN_RANK[required];
}

/** Throws PlanRequired, with `message` as its sentence, unless `plan` covers `required`. */
export function requirePlan(plan: Plan, required: PaidPlan, message: string): void {
  if (!planCovers(plan, required)) throw new PlanRequired(required, message);
}

/**
 * How to change an account's plan, for error sentences: the owner's Accounts page, or the CLI. Without
 * the email (answers to a key's holder, who must not learn it), `E` stands for it and says so.
 */
export function planChangeHint(plan: PaidPlan, email?: string): string {
  const command =
    email === undefined
      ? `spyglass account plan --email E --plan ${plan} (E: the account's email)`
      : `spyglass account plan --email ${email} --plan ${plan}`;
  return `the instance's owner sets it on the dashboard's Accounts page, or run ${command}`;
}

/** "the Visibility plan", or "no paid plan". */
export function describePlan(plan: Plan): string {
  return plan === "none" ? "no paid plan" : `the ${planLabel(plan)} plan`;
}
