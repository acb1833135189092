// Articles an older build's renderer made are rendered again at start (content/rerender.ts): their
// HTML becomes this renderer's, the public API's cached copy is dropped, an article edited meanwhile
// keeps its edit's HTML, and one the renderer now refuses keeps its HTML and is named in the log.
// On the test database (SQLite, or PostgreSQL with SPYGLASS_TEST_DATABASE=postgres).
import { afterEach, beforeEach, expect, test } from "bun:test";
import { RENDERER_VERSION } from "../../src/content/renderer-version";
import { rerenderStaleArticles } from "../../src/content/rerender";
import { apiKeyFor, callTool, makeWorld, type World } from "../public/world";
import { captureLog } from "../support/log";

let world: World;
let key: string;

beforeEach(async () => {
  world = await makeWorld();
  key = await apiKeyFor(world, world.brand.id);
});
afterEach(async () => {
  await world.close();
});

async function create(markdown: string, publish = false): Promise<{ id: string; slug: string; html: string }> {
  const outcome = await callTool(world, key, "create_article", { title: `About ${markdown.slice(0, 12)}`, markdown });
  if (outcome.error) throw new Error(outcome.error);
  const article = outcome.data.article;
  if (publish) await callTool(world, key, "publish_to_site", { article_id: article.id });
  return article;
}

const STALE = "<p>made by an older renderer</p>";

const stored = (id: string) =>
  world.ctx.db.get<{ html: string; rendered_by: number }>("SELECT html, rendered_by FROM articles WHERE id = ?", [id]);

test("articles an older renderer made are rendered again, once; the public API serves the new HTML at once", async () => {
  const published = await create("## Why Acme\n\nAcme is *fast*.", true);
  const draft = await create("A draft with a [link](https://acme.com).");
  const current = await create("Rendered by this build.");
  expect((await stored(current.id))!.rendered_by).toBe(RENDERER_VERSION);
  const siteKey = (await world.ctx.db.get<{ site_key: string }>("SELECT site_key FROM brands WHERE id = ?", [world.brand.id]))!.site_key;
  const publicHtml = async () =>
    (
      (await (await world.app.handle(new Request(`http://localhost/api/public/articles/${published.slug}?key=${siteKey}`))).json()) as {
        article: { html: string };
      }
    ).article.html;
  // The public API has the article cached; then an older build's HTML, as an upgrade finds it.
  expect(await publicHtml()).toBe(published.html);
  await world.ctx.db.run("UPDATE articles SET html = ?, rendered_by = 0 WHERE id IN (?, ?)", [STALE, published.id, draft.id]);
  await world.ctx.db.run("UPDATE articles SET rendered_by = 0 WHERE id = ?", [current.id]);

  const outcome = await rerenderStaleArticles(world.ctx);
  expect(outcome).toEqual({ changed: 2, same: 1, failed: 0 });
  expect(await stored(published.id)).toEqual({ html: published.html, rendered_by: RENDERER_VERSION });
  expect(await stored(draft.id)).toEqual({ html: draft.html, rendered_by: RENDERER_VERSION });
  expect(await stored(current.id)).toEqual({ html: current.html, rendered_by: RENDERER_VERSION });
  expect(await publicHtml()).toBe(published.html);
  // Nothing is left to render.
  expect(await rerenderStaleArticles(world.ctx)).toEqual({ changed: 0, same: 0, failed: 0 });
});

test("an article the renderer now refuses keeps its HTML, is named in the log, and does not stop the others", async () => {
  const refused = await create("Fine once.");
  const fine = await create("Fine still.");
  // As if a bound added since (here: emphasis markers) refused what an older build accepted.
  await world.ctx.db.run("UPDATE articles SET markdown = ?, html = ?, rendered_by = 0 WHERE id = ?", [
    `${"*a_".repeat(700)}`,
    STALE,
    refused.id,
  ]);
  await world.ctx.db.run("UPDATE articles SET html = ?, rendered_by = 0 WHERE id = ?", [STALE, fine.id]);
  let outcome: Awaited<ReturnType<typeof rerenderStaleArticles>> | undefined;
  const logged = await captureLog(async () => {
    outcome = await rerenderStaleArticles(world.ctx);
  });
  expect(outcome).toEqual({ changed: 1, same: 0, failed: 1 });
  expect(await stored(refused.id)).toEqual({ html: STALE, rendered_by: 0 });
  expect(await stored(fine.id)).toEqual({ html: fine.html, rendered_by: RENDERER_VERSION });
  const warning = logged
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line))
    .find((line) => line.level === "warn");
  expect(warning).toMatchObject({ article: refused.id, brand: world.brand.id });
  expect(warning.msg).toContain("could not be rendered again");
  expect(warning.message).toContain("the limit is 1,000");
});

test("an article edited while it waited keeps its edit's HTML", async () => {
  const article = await create("Before the edit.");
  await world.ctx.db.run("UPDATE articles SET html = ?, rendered_by = 0 WHERE id = ?", [STALE, article.id]);
  // The edit renders with this build's renderer and records it; the pass then finds nothing to do.
  const edited = await callTool(world, key, "update_article", { article_id: article.id, markdown: "After the edit." });
  expect(await stored(article.id)).toEqual({ html: edited.data.article.html, rendered_by: RENDERER_VERSION });
  expect(await rerenderStaleArticles(world.ctx)).toEqual({ changed: 0, same: 0, failed: 0 });
});
