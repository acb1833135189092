// /api/mcp/keys: API-key management for the dashboard session (spec "Key management", CONTRACT §3).
// Authenticated by the session cookie only; a bearer key is never accepted here.
import { Elysia } from "elysia";
import { sessionGuard } from "../accounts/guard";
import { type AppContext } from "../context";
import { Invalid, methodNotAllowed } from "../errors";
import { createApiKey, listApiKeys, revokeApiKey } from "./service";

export function keyRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/mcp/keys" })
    .all("/", methodNotAllowed("GET, POST"))
    .all("/:id", methodNotAllowed("DELETE"))
    .use(sessionGuard(ctx))
    .get("/", async ({ account }) => ({ keys: await listApiKeys(ctx, account.id) }))
    .post("/", async ({ account, body, set }) => {
      if (typeof body !== "object" || body === null || Array.isArray(body)) {
        throw new Invalid("Send a JSON object with name and optionally brand_id.", "invalid_input");
      }
      const input = body as { name?: unknown; brand_id?: unknown };
      const created = await createApiKey(ctx.db, account.id, { name: input.name, brandId: input.brand_id });
      set.status = 201;
      // The plaintext key is shown once: no cache may keep it.
      set.headers["cache-control"] = "no-store";
      return created;
    })
    .delete("/:id", async ({ account, params, set }) => {
      await revokeApiKey(ctx.db, account.id, params.id);
      set.status = 204;
      return null;
    });
}
