// The instance's first-run state (public) and the owner's account management (CONTRACT §3, §7):
//   GET  /api/auth/status              {setup, signup, public_url}: setup is true until the first account exists
//   GET  /api/accounts                 {accounts:[{id,email,plan,created_at,owner}]}
//   POST /api/accounts                 {email,password,plan?} → 201 {account}
//   POST /api/accounts/:id/plan        {plan} → {account}
import { Elysia } from "elysia";
import { type AppContext } from "../context";
import { Invalid, methodNotAllowed } from "../errors";
import { sessionGuard } from "./guard";
import { listAccounts, requireOwner, setPlanOfAccount } from "./owner";
import { countAccounts, createAccount } from "./service";

function objectBody(body: unknown, fields: string): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw new Invalid(`Send a JSON object with ${fields}.`, "invalid_input");
  return body as Record<string, unknown>;
}

export function ownerRoutes(ctx: AppContext) {
  const { config, db } = ctx;
  const status = new Elysia().all("/api/auth/status", methodNotAllowed("GET")).get("/api/auth/status", async () => ({
    setup: (await countAccounts(db)).all === 0,
    signup: config.auth.signup,
    public_url: config.publicUrl,
  }));
  const owner = new Elysia({ prefix: "/api/accounts" })
    .all("/", methodNotAllowed("GET, POST"))
    .all("/:id/plan", methodNotAllowed("POST"))
    .use(sessionGuard(ctx))
    .onBeforeHandle(async ({ account }) => {
      await requireOwner(db, account.id);
    })
    .get("/", async () => ({ accounts: await listAccounts(db) }))
    .post("/", async ({ body, set }) => {
      const input = objectBody(body, "email, password and plan");
      const account = await createAccount(db, { email: input.email, password: input.password, plan: input.plan });
      set.status = 201;
      return { account };
    })
    .post("/:id/plan", async ({ params, body }) => ({ account: await setPlanOfAccount(db, params.id, objectBody(body, "plan").plan) }));
  return new Elysia().use(status).use(owner);
}
