// Publishing an article to the brand's own site: the one entry point shared by the `publish_to_site`
// and `unpublish_article` tools and the dashboard's Publish button. The public content API serves
// the change on the very next request (the articles service announces it; the public cache drops the brand).
import { type AppContext } from "../context";
import { type Article, setArticlePublished } from "./service";

/** Publishes a brand's article; idempotent. A brand id of the caller's credential only. */
export async function publishArticle(
  app: Pick<AppContext, "db" | "events">,
  brandId: string,
  articleId: string,
  at?: number,
): Promise<Article> {
  return setArticlePublished(app, brandId, articleId, true, at);
}

/** Takes a brand's article off its site (back to draft); its slug and first publication date stay. */
export async function unpublishArticle(app: Pick<AppContext, "db" | "events">, brandId: string, articleId: string): Promise<Article> {
  return setArticlePublished(app, brandId, articleId, false);
}
