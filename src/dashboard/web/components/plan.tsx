// What a person on too small a plan is told: the owner gets the page that sets plans, anyone else
// whom to ask. Used wherever a call answers plan_required.
import { ApiError, type Plan } from "../api";
import { useSession } from "../session";
import { Notice } from "./ui";

const LABELS: Record<Exclude<Plan, "none">, string> = { visibility: "Visibility", autopilot: "Autopilot" };

export function isPlanRequired(error: unknown): error is ApiError {
  return error instanceof ApiError && error.code === "plan_required";
}

export function PlanNeeded({ required, what }: { required: Exclude<Plan, "none">; what: string }) {
  const { me } = useSession();
  return (
    <Notice kind="info">
      {what} needs the {LABELS[required]} plan.{" "}
      {me?.owner ? (
        <>
          You own this instance: <a href="/accounts">set your account's plan on the Accounts page</a>.
        </>
      ) : (
        "Ask the owner of this instance to change your account's plan."
      )}
    </Notice>
  );
}
