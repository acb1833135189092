// The dashboard's door onto the catalogue (CONTRACT §7): a session runs any tool of the catalogue for
// a brand its account owns, with the tool server's input, output, plan gate and error sentences.
//   GET  /api/brands/:brand_id/tools         the tools the account's plan covers, as tools/list shows them
//   POST /api/brands/:brand_id/tools/:tool   the tool's input as the JSON body → its result, or {error, code}
import { Elysia } from "elysia";
import { sessionGuard } from "../accounts/guard";
import { type AccountView } from "../accounts/service";
import { getAccountBrand } from "../brands/service";
import { noToolsFor, type Principal, type ToolCatalog } from "../catalogue/registry";
import { type AppContext } from "../context";
import { methodNotAllowed } from "../errors";
import { requestId } from "../http/observability";

/**
 * The principal a session's tool calls run as. Another account's brand (or none) is the same 404 as a
 * brand that does not exist (CONTRACT §3); then, as at the tool server's door, an account on plan
 * none may use no tool at all, and gets the door's 403 and sentence (not a tool's).
 */
export async function principalFor(ctx: AppContext, account: AccountView, brandId: string): Promise<Principal> {
  const brand = await getAccountBrand(ctx.db, account.id, brandId);
  const noTools = noToolsFor(account.plan);
  if (noTools) throw noTools;
  return { account: { id: account.id }, brand: { id: brand.id, name: brand.name, domain: brand.domain }, plan: account.plan };
}

export function dashboardRoutes(ctx: AppContext, catalogue: ToolCatalog) {
  return new Elysia({ prefix: "/api/brands/:brand_id/tools" })
    .all("/", methodNotAllowed("GET"))
    .all("/:tool", methodNotAllowed("POST"))
    .use(sessionGuard(ctx))
    .get("/", async ({ account, params }) => {
      const { plan } = await principalFor(ctx, account, params.brand_id);
      await catalogue.ready();
      return catalogue.listFor(plan);
    })
    .post("/:tool", async ({ account, params, body, request }) => {
      const outcome = await catalogue.call(ctx, await principalFor(ctx, account, params.brand_id), requestId(request), params.tool, body);
      if (!outcome.ok) throw outcome.error;
      return outcome.value;
    });
}
