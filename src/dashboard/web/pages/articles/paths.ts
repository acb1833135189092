// The URLs of the articles pages: the list (its status filter and page in the query) and one article.
import { brandPath } from "../../components/layout";

export type Filter = "draft" | "published" | undefined;

export function articlesPath(brandId: string, query: { status?: Filter; cursor?: string } = {}): string {
  const search = new URLSearchParams();
  if (query.status) search.set("status", query.status);
  if (query.cursor) search.set("cursor", query.cursor);
  const qs = search.toString();
  return brandPath(brandId, `/articles${qs ? `?${qs}` : ""}`);
}

export function articlePath(brandId: string, articleId: string): string {
  return brandPath(brandId, `/articles/${encodeURIComponent(articleId)}`);
}
