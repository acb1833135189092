// Articles through the content tools (in process, app.handle): drafts, slugs, sanitized HTML on
// save, limits, publishing, paging, and brand isolation.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { ArticleRenderer, articleRenderer, setArticleRenderer } from "../../src/content/renderer";
import { addPrompt, apiKeyFor, callTool, makeWorld, type World } from "../public/world";

/** An article summary's fields, in order (list_articles); the whole record adds its body after them. */
const SUMMARY_KEYS = ["id", "slug", "title", "description", "status", "published_at", "created_at", "prompt_id", "updated_at"];

let world: World;
let key: string;
let otherKey: string;

beforeEach(async () => {
  world = await makeWorld();
  key = await apiKeyFor(world, world.brand.id);
  otherKey = await apiKeyFor(world, world.other.id);
});
afterEach(async () => {
  await world.close();
});

const tool = (name: string, args: Record<string, unknown> = {}, as = key) => callTool(world, as, name, args);

async function create(args: Record<string, unknown>) {
  const outcome = await tool("create_article", { markdown: "Some text.", ...args });
  if (outcome.error) throw new Error(outcome.error);
  return outcome.data.article;
}

describe("create_article", () => {
  test("saves a draft with the record's fields, HTML rendered and sanitized once, the repeated H1 dropped", async () => {
    const article = await create({
      title: "Best CRM for Startups",
      description: "  How to choose\n a CRM ",
      markdown:
        '# Best CRM for startups\n\nPick <b onclick="alert(1)">Acme</b>.<script>alert(1)</script>\n\n[site](javascript:alert(1)) [ok](https://acme.com)',
    });
    expect(Object.keys(article)).toEqual([...SUMMARY_KEYS, "prompt_text", "markdown", "html"]);
    expect(article).toMatchObject({
      slug: "best-crm-for-startups",
      title: "Best CRM for Startups",
      description: "How to choose a CRM",
      status: "draft",
      published_at: null,
      prompt_id: null,
      prompt_text: null,
    });
    expect(article.id).toMatch(/^art_/);
    expect(article.html).not.toContain("<h1");
    expect(article.html).not.toContain("script");
    expect(article.html).not.toContain("onclick");
    expect(article.html).not.toContain("javascript:");
    expect(article.html).toContain('<a href="https://acme.com" rel="noopener noreferrer">ok</a>');
    expect(article.html).toContain("<b>Acme</b>");
    const stored = await tool("get_article", { article_id: article.id });
    expect(stored.data.article).toEqual(article);
  });

  test("a title and a description are counted in characters, as every name is: an emoji is one", async () => {
    const rockets = "🚀".repeat(200);
    const made = await tool("create_article", { title: rockets, description: "🚀".repeat(500), markdown: "Body" });
    expect(made.error).toBeNull();
    expect(made.data.article.title).toBe(rockets);
    expect((await tool("create_article", { title: `${rockets}!`, markdown: "Body" })).error).toBe(
      "title: the title is 201 characters; the limit is 200.",
    );
    expect((await tool("create_article", { title: "t", description: "🚀".repeat(501), markdown: "Body" })).error).toBe(
      "description: the description is 501 characters; the limit is 500 (it is the page's meta description).",
    );
  });

  test("slugs are derived from the title, lowercase a-z0-9-, and get -2, -3 on collision", async () => {
    expect((await create({ title: "Crème Brûlée: 10 Tips!" })).slug).toBe("creme-brulee-10-tips");
    expect((await create({ title: "Same title" })).slug).toBe("same-title");
    expect((await create({ title: "Same Title" })).slug).toBe("same-title-2");
    expect((await create({ title: "same   title!" })).slug).toBe("same-title-3");
    expect((await create({})).slug).toBe("untitled");
    expect((await create({ title: "" })).slug).toBe("untitled-2");
    expect((await create({ title: "x".repeat(200) })).slug).toHaveLength(80);
  });

  test("titles in other scripts and letters get readable slugs, not 'untitled'", async () => {
    expect((await create({ title: "Straße & Œuvre" })).slug).toBe("strasse-oeuvre");
    expect((await create({ title: "Как выбрать CRM" })).slug).toBe("kak-vybrat-crm");
    expect((await create({ title: "Ελληνικά" })).slug).toBe("ellinika");
    expect((await create({ title: "Æsir in Łódź" })).slug).toBe("aesir-in-lodz");
    expect((await create({ title: "日本語のガイド" })).slug).toMatch(/^[a-z]+$/);
    // Kana keep their voicing (デ is "de", not "te"; ゲ "ge", not "ke").
    expect((await create({ title: "テレビとゲーム" })).slug).toBe("terebitogemu");
    // Symbols outside ASCII are dropped, not spelled out.
    expect((await create({ title: "Launch day 🚀 Acme ★" })).slug).toBe("launch-day-acme");
  });

  test("the same slug may exist in two brands", async () => {
    await create({ title: "Shared" });
    const theirs = await tool("create_article", { title: "Shared", markdown: "x" }, otherKey);
    expect(theirs.data.article.slug).toBe("shared");
  });

  test("an explicit slug is validated, and refused when the brand already uses it", async () => {
    expect((await create({ title: "A", slug: "my-own-slug" })).slug).toBe("my-own-slug");
    for (const slug of ["Upper-Case", "spaces here", "-leading", "trailing-", "a--b", "ünï", "a/b", "x".repeat(101)]) {
      const outcome = await tool("create_article", { markdown: "x", slug });
      expect(outcome.error).toContain("slug");
    }
    const taken = await tool("create_article", { markdown: "x", slug: "my-own-slug" });
    expect(taken.error).toBe('slug: another article of this brand already uses "my-own-slug"; choose another slug.');
  });

  test("limits: markdown over 200 KB, an empty body, a title or description too long", async () => {
    const big = await tool("create_article", { markdown: "a".repeat(200 * 1024 + 1) });
    expect(big.error).toBe("markdown: the article body is 201 KB; the limit is 200 KB. Shorten it or split it into several articles.");
    expect((await tool("create_article", { markdown: "a".repeat(200 * 1024) })).error).toBeNull();
    const multibyte = await tool("create_article", { markdown: "é".repeat(110 * 1024) });
    expect(multibyte.error).toContain("the limit is 200 KB");
    expect((await tool("create_article", { markdown: "  \n " })).error).toBe("markdown: the article body is empty; give it some text.");
    expect((await tool("create_article", { markdown: "x", title: "t".repeat(201) })).error).toContain("title");
    expect((await tool("create_article", { markdown: "x", description: "d".repeat(501) })).error).toContain("description");
  });

  test("prompt_id must be one of the brand's prompts", async () => {
    const own = await addPrompt(world, world.brand.id, "best crm for startups");
    const theirs = await addPrompt(world, world.other.id, "best crm for agencies");
    expect(await create({ prompt_id: own })).toMatchObject({ prompt_id: own, prompt_text: "best crm for startups" });
    const foreign = await tool("create_article", { markdown: "x", prompt_id: theirs });
    const unknown = await tool("create_article", { markdown: "x", prompt_id: "prm_doesnotexist0000" });
    expect(foreign.error).toContain("Prompt not found");
    expect(foreign.error).toBe(unknown.error);
  });

  test("a mutation-XSS shape of HTML is saved sanitized: its handler does not survive", async () => {
    const article = await create({ markdown: "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>" });
    expect(article.html).not.toContain("onerror");
    expect((await tool("get_article", { article_id: article.id })).data.article.html).toBe(article.html);
  });

  test("HTML the sanitizer cannot make safe is refused with a sentence saying so; nothing is saved and the slug stays free", async () => {
    // No known body makes the real sanitizer give up, so a worker built on it refuses on request
    // (workers/misbehaving.ts refuses the body "unsafe") in the process renderer's place.
    const refusing = new ArticleRenderer({ workerUrl: new URL("./workers/misbehaving.ts", import.meta.url).href });
    const own = articleRenderer();
    setArticleRenderer(refusing);
    let outcome: Awaited<ReturnType<typeof tool>>;
    try {
      outcome = await tool("create_article", { title: "Refused", markdown: "unsafe" });
    } finally {
      setArticleRenderer(own);
      refusing.close();
    }
    expect(outcome).toEqual({
      data: null,
      error: "The article body contains HTML that cannot be made safe: remove the raw HTML (or simplify it) and try again.",
    });
    expect((await tool("list_articles")).data.articles).toEqual([]);
    expect((await create({ title: "Refused" })).slug).toBe("refused");
  }, 30_000);
});

describe("update_article", () => {
  test("a never-published draft's derived slug follows its title; an explicit slug is kept", async () => {
    const draft = await create({ title: "First idea" });
    const renamed = await tool("update_article", { article_id: draft.id, title: "Better idea" });
    expect(renamed.data.article.slug).toBe("better-idea");
    const custom = await tool("update_article", { article_id: draft.id, slug: "chosen" });
    expect(custom.data.article.slug).toBe("chosen");
    const retitled = await tool("update_article", { article_id: draft.id, title: "Third idea" });
    expect(retitled.data.article.slug).toBe("chosen");
  });

  test("re-renders the HTML when the markdown or title changes, and keeps fields not given", async () => {
    const draft = await create({ title: "Title", description: "desc", markdown: "# Title\n\nOne" });
    const updated = await tool("update_article", { article_id: draft.id, markdown: "# Title\n\nTwo *three*" });
    expect(updated.data.article).toMatchObject({ title: "Title", description: "desc", html: "<p>Two <em>three</em></p>\n" });
    // Renamed alone: the heading that repeated the old title (hidden on the site) does not come back
    // under the new one, which would make two titles.
    const retitled = await tool("update_article", { article_id: draft.id, title: "Other" });
    expect(retitled.data.article).toMatchObject({ title: "Other", markdown: "Two *three*", html: "<p>Two <em>three</em></p>\n" });
    const cleared = await tool("update_article", { article_id: draft.id, description: null });
    expect(cleared.data.article.description).toBeNull();
  });

  test("a rename drops only a leading heading that repeated the old title, and never one of a body given with it", async () => {
    const spelled = await create({ title: "Use git & GitHub", markdown: "  # Use *git* &amp; GitHub #\r\n\r\nBody" });
    expect(spelled.html).toBe("<p>Body</p>\n");
    expect((await tool("update_article", { article_id: spelled.id, title: "Git" })).data.article).toMatchObject({
      markdown: "Body",
      html: "<p>Body</p>\n",
    });
    // A heading that is not the title showed all along: it stays.
    const other = await create({ title: "Guide", markdown: "# Chapter one\n\nBody" });
    expect((await tool("update_article", { article_id: other.id, title: "Handbook" })).data.article.markdown).toBe("# Chapter one\n\nBody");
    // A body that is only that heading keeps it: a body is never empty.
    const bare = await create({ title: "Guide", markdown: "# Guide" });
    expect((await tool("update_article", { article_id: bare.id, title: "Handbook" })).data.article.markdown).toBe("# Guide");
    // With a body given, the body is as given.
    const given = await create({ title: "Guide", markdown: "# Guide\n\nBody" });
    const both = await tool("update_article", { article_id: given.id, title: "Handbook", markdown: "# Guide\n\nNew body" });
    expect(both.data.article.markdown).toBe("# Guide\n\nNew body");
  });

  test("a published article's slug is fixed for ever: a different slug is refused, the same is fine", async () => {
    const draft = await create({ title: "Launch post" });
    await tool("publish_to_site", { article_id: draft.id });
    const refused = await tool("update_article", { article_id: draft.id, slug: "new-slug" });
    expect(refused.error).toBe(
      'slug: this article has been published as "launch-post" and its slug is fixed so that links to it keep working; leave slug out (or pass "launch-post").',
    );
    expect((await tool("update_article", { article_id: draft.id, slug: "launch-post", title: "Renamed" })).data.article.slug).toBe(
      "launch-post",
    );
    await tool("unpublish_article", { article_id: draft.id });
    expect((await tool("update_article", { article_id: draft.id, slug: "new-slug" })).error).toContain("fixed");
    expect((await tool("update_article", { article_id: draft.id, title: "Another name" })).data.article.slug).toBe("launch-post");
  });

  test("prompt_id links the article to one of the brand's prompts and null unlinks it", async () => {
    const first = await addPrompt(world, world.brand.id, "best crm for startups");
    const second = await addPrompt(world, world.brand.id, "cheapest crm");
    const draft = await create({ title: "Linked" });
    const linked = await tool("update_article", { article_id: draft.id, prompt_id: first });
    expect(linked.data.article).toMatchObject({
      prompt_id: first,
      prompt_text: "best crm for startups",
      title: "Linked",
      markdown: draft.markdown,
    });
    expect((await tool("update_article", { article_id: draft.id, title: "Relinked", prompt_id: second })).data.article).toMatchObject({
      prompt_id: second,
      prompt_text: "cheapest crm",
      title: "Relinked",
    });
    // The prompt's text comes with every answer that carries the article, whatever changed.
    expect((await tool("update_article", { article_id: draft.id, title: "Kept" })).data.article).toMatchObject({
      prompt_id: second,
      prompt_text: "cheapest crm",
    });
    expect((await tool("get_article", { article_id: draft.id })).data.article.prompt_text).toBe("cheapest crm");
    expect((await tool("publish_to_site", { article_id: draft.id })).data.article.prompt_text).toBe("cheapest crm");
    expect((await tool("update_article", { article_id: draft.id, prompt_id: null })).data.article).toMatchObject({
      prompt_id: null,
      prompt_text: null,
    });
    expect((await tool("get_article", { article_id: draft.id })).data.article).toMatchObject({ prompt_id: null, prompt_text: null });
  });

  test("another brand's prompt or an unknown one is not found, and nothing of the article changes", async () => {
    const own = await addPrompt(world, world.brand.id, "best crm for startups");
    const theirs = await addPrompt(world, world.other.id, "best crm for agencies");
    const draft = await create({ title: "Before", markdown: "Old body.", prompt_id: own });
    const foreign = await tool("update_article", { article_id: draft.id, title: "After", markdown: "New body.", prompt_id: theirs });
    const unknown = await tool("update_article", { article_id: draft.id, title: "After", prompt_id: "prm_doesnotexist0000" });
    expect(foreign.error).toContain("Prompt not found");
    expect(foreign.error).toBe(unknown.error);
    expect(foreign.error).toBe((await tool("create_article", { markdown: "x", prompt_id: theirs })).error);
    expect((await tool("get_article", { article_id: draft.id })).data.article).toEqual(draft);
  });

  test("expected_updated_at: a save over a version someone else has replaced writes nothing, and says so", async () => {
    const draft = await create({ title: "Shared", markdown: "Original body." });
    // An AI client revises it; a person's editor, opened before, saves its older text over it.
    await Bun.sleep(2);
    const revised = (await tool("update_article", { article_id: draft.id, markdown: "Original body.\n\nAdded by the AI client." })).data
      .article;
    const stale = await tool("update_article", {
      article_id: draft.id,
      markdown: "Original body.",
      description: "new description",
      expected_updated_at: draft.updated_at,
    });
    expect(stale.error).toBe(
      `The article was changed since it was read (it was last saved at ${revised.updated_at}), so nothing was written: read it again (get_article), apply the change to it and save that, or leave expected_updated_at out to replace it.`,
    );
    expect((await tool("get_article", { article_id: draft.id })).data.article).toEqual(revised);
    // Over the version it read, the save goes through; without the field, the last save wins as before.
    const current = await tool("update_article", { article_id: draft.id, description: "new", expected_updated_at: revised.updated_at });
    expect(current.data.article).toMatchObject({ description: "new", markdown: "Original body.\n\nAdded by the AI client." });
    expect((await tool("update_article", { article_id: draft.id, markdown: "Replaced." })).data.article.markdown).toBe("Replaced.");
    expect((await tool("update_article", { article_id: draft.id, expected_updated_at: "yesterday" })).error).toContain(
      "expected_updated_at",
    );
  });
});

describe("publish_to_site and unpublish_article", () => {
  test("published_at is the first publication: kept by unpublish and republish", async () => {
    const draft = await create({ title: "Dated" });
    const published = (await tool("publish_to_site", { article_id: draft.id })).data.article;
    expect(published.status).toBe("published");
    expect(published.published_at).not.toBeNull();
    const again = (await tool("publish_to_site", { article_id: draft.id })).data.article;
    expect(again).toEqual(published);
    await Bun.sleep(5);
    const unpublished = (await tool("unpublish_article", { article_id: draft.id })).data.article;
    expect(unpublished.status).toBe("draft");
    expect(unpublished.published_at).toBe(published.published_at);
    const republished = (await tool("publish_to_site", { article_id: draft.id })).data.article;
    expect(republished.published_at).toBe(published.published_at);
  });

  test("an article that shows nothing once sanitized (only a script, an iframe) is not published, saying why; one with an image is", async () => {
    // An image whose data: source the sanitizer removed shows nothing either.
    for (const markdown of [
      "<script>alert(1)</script>",
      '<iframe src="https://x.example"></iframe>\n\n<p></p>',
      '<img width="5" src="data:image/png;base64,AAAA">',
    ]) {
      const draft = await create({ title: "Nothing to show", markdown });
      const outcome = await tool("publish_to_site", { article_id: draft.id });
      expect(outcome.error).toContain("This article shows nothing once sanitized");
      expect((await tool("get_article", { article_id: draft.id })).data.article.status).toBe("draft");
    }
    const picture = await create({ title: "A picture", markdown: "![chart](https://acme.com/chart.png)" });
    expect((await tool("publish_to_site", { article_id: picture.id })).data.article.status).toBe("published");
  });

  test("a published article is readable at once through the public API, and gone at once when unpublished", async () => {
    const draft = await create({ title: "Live now", markdown: "Body" });
    const path = `http://localhost/api/public/articles/live-now?key=${world.brand.site_key}`;
    expect((await world.app.handle(new Request(path))).status).toBe(404);
    await tool("publish_to_site", { article_id: draft.id });
    const live = await world.app.handle(new Request(path));
    expect(live.status).toBe(200);
    expect((await live.json()).article.html).toBe("<p>Body</p>\n");
    await tool("unpublish_article", { article_id: draft.id });
    expect((await world.app.handle(new Request(path))).status).toBe(404);
  });
});

describe("get_article_impact of one article", () => {
  test("an article it does not list is said why: not published, or linked to no prompt", async () => {
    const promptId = await addPrompt(world, world.brand.id, "best crm for a small team");
    const draft = await create({ title: "Linked draft", prompt_id: promptId });
    const impactOf = async (id: string) => (await tool("get_article_impact", { article_id: id })).data;
    expect(await impactOf(draft.id)).toMatchObject({
      articles: [],
      note: "This article is not published (a draft): its impact is measured from its publication (publish_to_site).",
    });
    const unlinked = await create({ title: "Unlinked" });
    await tool("publish_to_site", { article_id: unlinked.id });
    expect((await impactOf(unlinked.id)).note).toBe(
      "This article is linked to no prompt, so there is no prompt whose figures it could move: link it to the prompt it answers (update_article with prompt_id).",
    );
    await tool("publish_to_site", { article_id: draft.id });
    const listed = await impactOf(draft.id);
    expect(listed.articles.map((a: { article: { id: string } }) => a.article.id)).toEqual([draft.id]);
    expect(listed.note).toBeNull();
    expect((await tool("get_article_impact", {})).data.note).toBeNull();
  });
});

describe("list_articles", () => {
  test("newest first, filtered by status, paged with cursor", async () => {
    const made = [];
    for (let i = 0; i < 5; i++) {
      made.push(await create({ title: `Post ${i}` }));
      await Bun.sleep(2);
    }
    await tool("publish_to_site", { article_id: made[1].id });
    await tool("publish_to_site", { article_id: made[3].id });
    const all = (await tool("list_articles")).data;
    expect(all.articles.map((a: { slug: string }) => a.slug)).toEqual(["post-4", "post-3", "post-2", "post-1", "post-0"]);
    expect(all.next_cursor).toBeNull();
    expect(Object.keys(all.articles[0])).toEqual(SUMMARY_KEYS);
    const published = (await tool("list_articles", { status: "published" })).data;
    expect(published.articles.map((a: { slug: string }) => a.slug)).toEqual(["post-3", "post-1"]);
    const drafts = (await tool("list_articles", { status: "draft" })).data;
    expect(drafts.articles.map((a: { slug: string }) => a.slug)).toEqual(["post-4", "post-2", "post-0"]);
    const first = (await tool("list_articles", { limit: 2 })).data;
    expect(first.articles.map((a: { slug: string }) => a.slug)).toEqual(["post-4", "post-3"]);
    const second = (await tool("list_articles", { limit: 2, cursor: first.next_cursor })).data;
    expect(second.articles.map((a: { slug: string }) => a.slug)).toEqual(["post-2", "post-1"]);
    const third = (await tool("list_articles", { limit: 2, cursor: second.next_cursor })).data;
    expect(third.articles.map((a: { slug: string }) => a.slug)).toEqual(["post-0"]);
    expect(third.next_cursor).toBeNull();
    expect((await tool("list_articles", { cursor: "garbage" })).error).toContain("cursor");
  });
});

describe("brand isolation", () => {
  test("another brand's article id gets the same not-found error as an unknown id, and changes nothing", async () => {
    const ours = await create({ title: "Private draft", markdown: "secret words" });
    const unknownId = "art_0000000000000000";
    const calls: Array<[string, Record<string, unknown>]> = [
      ["get_article", {}],
      ["update_article", { title: "hijacked" }],
      ["publish_to_site", {}],
      ["unpublish_article", {}],
    ];
    for (const [name, extra] of calls) {
      const foreign = await tool(name, { article_id: ours.id, ...extra }, otherKey);
      const unknown = await tool(name, { article_id: unknownId, ...extra }, otherKey);
      expect(foreign.error).toBe("Article not found; list_articles gives the brand's articles with their ids and slugs.");
      expect(foreign.error).toBe(unknown.error);
    }
    // What a model passes by mistake is named: a slug, another record's id.
    expect((await tool("get_article", { article_id: "private-draft" })).error).toBe(
      `Article not found: an article id looks like art_…, and "private-draft" looks like a slug; list_articles gives the brand's articles with their ids and slugs.`,
    );
    expect((await tool("unpublish_article", { article_id: "prm_0000000000000000" })).error).toBe(
      `Article not found: "prm_0000000000000000" is a prompt's id, and an article id looks like art_…; list_articles gives the brand's articles with their ids and slugs.`,
    );
    expect((await tool("list_articles", {}, otherKey)).data.articles).toEqual([]);
    const after = (await tool("get_article", { article_id: ours.id })).data.article;
    expect(after).toEqual(ours);
    const publicList = await world.app.handle(new Request(`http://localhost/api/public/articles?key=${world.brand.site_key}`));
    expect(await publicList.text()).toBe('{"articles":[]}');
  });

  test("no content tool takes a brand id", async () => {
    const outcome = await tool("list_articles", { brand_id: world.other.id });
    expect(outcome.error).toContain("brand_id");
  });
});

describe("generate_article without a writer", () => {
  test("says no writer is configured and points to create_article", async () => {
    const promptId = await addPrompt(world, world.brand.id, "best crm for startups");
    const outcome = await tool("generate_article", { prompt_id: promptId });
    expect(outcome.error).toContain("No writer model is configured");
    expect(outcome.error).toContain("create_article");
    expect((await tool("list_articles")).data.articles).toEqual([]);
  });

  test("another brand's prompt is not found, before the missing writer is mentioned", async () => {
    const theirs = await addPrompt(world, world.other.id, "best crm for agencies");
    expect((await tool("generate_article", { prompt_id: theirs })).error).toContain("Prompt not found");
  });
});
