// /api/brands for the dashboard session (CONTRACT §3), and DELETE /api/brands/:brand_id.
import { Elysia } from "elysia";
import { sessionGuard } from "../accounts/guard";
import { type AppContext } from "../context";
import { Invalid, methodNotAllowed } from "../errors";
import { deleteBrand } from "./delete";
import { type BrandInput, createBrand, listBrands } from "./service";

export function brandRoutes(ctx: AppContext) {
  return (
    new Elysia({ prefix: "/api/brands" })
      .all("/", methodNotAllowed("GET, POST"))
      .all("/:brand_id", methodNotAllowed("DELETE"))
      .use(sessionGuard(ctx))
      .get("/", async ({ account }) => ({ brands: await listBrands(ctx.db, account.id) }))
      .post("/", async ({ account, body, set }) => {
        if (typeof body !== "object" || body === null || Array.isArray(body)) {
          throw new Invalid("Send a JSON object with name, and optionally domain and aliases.", "invalid_input");
        }
        const brand = await createBrand(ctx.db, account.id, body as BrandInput);
        set.status = 201;
        return { brand };
      })
      // Everything of the brand goes with it (brands/delete.ts); another account's brand is 404.
      .delete("/:brand_id", async ({ account, params }) => ({ deleted: await deleteBrand(ctx, account.id, params.brand_id) }))
  );
}
