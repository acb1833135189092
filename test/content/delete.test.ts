// Deleting an article from the dashboard (DELETE /api/brands/:brand_id/articles/:article_id): gone
// from the list and, when published, from the brand's site at once; its slug free again; another
// brand's or account's article is 404 and stays.
import { afterEach, expect, test } from "bun:test";
import { type TestApp, testApp } from "../support/http";

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

test("an article is deleted: gone from the list and the site, its slug free; another's is 404", async () => {
  t = await testApp();
  const cookie = await t.signIn("writer@example.com", { plan: "autopilot" });
  const brand = (await t.call("POST", "/api/brands", { cookie, body: { name: "Acme" } })).json.brand;
  const other = (await t.call("POST", "/api/brands", { cookie, body: { name: "Beta" } })).json.brand;
  const tool = async (brandId: string, name: string, body: unknown) =>
    (await t.call("POST", `/api/brands/${brandId}/tools/${name}`, { cookie, body })).json;
  const published = (await tool(brand.id, "create_article", { title: "Best CRM", markdown: "Body." })).article;
  await tool(brand.id, "publish_to_site", { article_id: published.id });
  const draft = (await tool(brand.id, "create_article", { title: "Junk", markdown: "x" })).article;
  const theirs = (await tool(other.id, "create_article", { title: "Best CRM", markdown: "Theirs." })).article;
  expect((await t.call("GET", `/api/public/articles/best-crm?key=${brand.site_key}`)).status).toBe(200);

  // Another brand's article under this brand's address, or another account's brand: 404, nothing changes.
  const stranger = await t.signIn("stranger@example.com", { plan: "autopilot" });
  expect((await t.call("DELETE", `/api/brands/${brand.id}/articles/${theirs.id}`, { cookie })).status).toBe(404);
  expect((await t.call("DELETE", `/api/brands/${brand.id}/articles/${published.id}`, { cookie: stranger })).status).toBe(404);
  expect((await tool(other.id, "get_article", { article_id: theirs.id })).article.id).toBe(theirs.id);

  const res = await t.call("DELETE", `/api/brands/${brand.id}/articles/${published.id}`, { cookie });
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ deleted: { id: published.id, title: "Best CRM", slug: "best-crm", was_published: true } });
  expect((await t.call("GET", `/api/public/articles/best-crm?key=${brand.site_key}`)).status).toBe(404);
  expect((await t.call("GET", `/api/public/articles?key=${brand.site_key}`)).json).toEqual({ articles: [] });
  expect((await tool(brand.id, "list_articles", {})).articles.map((a: { id: string }) => a.id)).toEqual([draft.id]);
  // Its slug is free again; the other brand's article of the same slug is untouched.
  expect((await tool(brand.id, "create_article", { title: "Best CRM", markdown: "Again." })).article.slug).toBe("best-crm");
  expect((await t.call("GET", `/api/public/articles/best-crm?key=${other.site_key}`)).status).toBe(404);
  expect((await tool(other.id, "get_article", { article_id: theirs.id })).article.markdown).toBe("Theirs.");
  // Gone: a second delete is 404; the address takes only DELETE.
  expect((await t.call("DELETE", `/api/brands/${brand.id}/articles/${published.id}`, { cookie })).status).toBe(404);
  const get = await t.call("GET", `/api/brands/${brand.id}/articles/${draft.id}`, { cookie });
  expect([get.status, get.headers.get("allow")]).toEqual([405, "DELETE"]);
});
