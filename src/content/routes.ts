// DELETE /api/brands/:brand_id/articles/:article_id: the dashboard's editor deletes an article (a
// junk draft keeps its slug taken, and an article no longer wanted stays in the list, otherwise).
// A session's, for a brand its account owns, on any plan: what an account wrote, it may remove.
import { Elysia } from "elysia";
import { sessionGuard } from "../accounts/guard";
import { getAccountBrand } from "../brands/service";
import { type AppContext } from "../context";
import { methodNotAllowed } from "../errors";
import { deleteArticle } from "./service";

export function articleRoutes(ctx: AppContext) {
  return new Elysia({ prefix: "/api/brands/:brand_id/articles" })
    .all("/:article_id", methodNotAllowed("DELETE"))
    .use(sessionGuard(ctx))
    .delete("/:article_id", async ({ account, params }) => {
      const brand = await getAccountBrand(ctx.db, account.id, params.brand_id);
      return { deleted: await deleteArticle(ctx, brand.id, params.article_id) };
    });
}
