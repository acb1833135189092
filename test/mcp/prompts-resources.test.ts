// Prompts, completion and resources through the SDK Client (in process): what a client such as Claude
// or VS Code asks for slash commands, @-mentions of resources and MCP Apps views, per plan and brand.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { createArticle } from "../../src/content/service";
import { fortnightOfAnswers, writeAnswers } from "../support/answers";
import { call } from "../support/mcp";
import { type SeededToolServer, seededToolServer } from "../support/tool-server";

let s: SeededToolServer;
let a: Client;
let v: Client;

beforeAll(async () => {
  s = await seededToolServer();
  await writeAnswers(s.t.db, s.seed.a.brandId, fortnightOfAnswers(s.seed.a.ids.promptId, "Acme Analytics", "Acme Rival"));
  a = await s.client(s.seed.a.key);
  v = await s.client(s.seed.visibility.key);
});
afterAll(() => s.close());

async function failure(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "no error",
    (e: Error) => e.message,
  );
}

function text(result: { messages: Array<{ content: { type: string; text?: string } }> }): string {
  return result.messages.map((m) => (m.content.type === "text" ? m.content.text : "")).join("\n");
}

describe("prompts", () => {
  test("the server says it offers prompts, resources and completion, with an icon", () => {
    expect(a.getServerCapabilities()).toMatchObject({ prompts: {}, resources: {}, completions: {}, tools: {} });
    const icons = a.getServerVersion()?.icons ?? [];
    expect(icons[0]?.src).toStartWith("data:image/svg+xml;base64,");
  });

  test("an Autopilot key lists four prompts, a Visibility key the three without the content prompt", async () => {
    expect((await a.listPrompts()).prompts.map((p) => p.name)).toEqual([
      "weekly_visibility_review",
      "competitor_deep_dive",
      "audit_cited_sources",
      "close_content_gap",
    ]);
    expect((await v.listPrompts()).prompts.map((p) => p.name)).toEqual([
      "weekly_visibility_review",
      "competitor_deep_dive",
      "audit_cited_sources",
    ]);
  });

  test("the weekly review is built from the brand's current figures and changes when they do", async () => {
    const before = text(await a.getPrompt({ name: "weekly_visibility_review" }));
    expect(before).toContain('"Acme Analytics"');
    // 7 days × 2 engines of the fortnight written above, and the seed's own answer of yesterday.
    expect(before).toContain("Answers: 15 (15 valid, 0 without an answer).");
    expect(before).toMatch(/- Visibility: \d+\.\d% \(n = 15, 95% interval /);
    expect(before).toMatch(/\d\. Acme Analytics \(the brand\): visibility \d+\.\d% \(n = 15/);
    expect(before).toMatch(/\d\. Acme Rival: visibility 100\.0% \(n = 15/);
    expect(before).not.toContain("Borealis");
    await call(a, "create_competitor", { name: "Zephyr Metrics" });
    const after = text(await a.getPrompt({ name: "weekly_visibility_review" }));
    expect(after).toContain("Zephyr Metrics");
    await call(a, "delete_competitor", {
      competitor_id: (await call(a, "list_competitors")).data.competitors.find((c: { name: string }) => c.name === "Zephyr Metrics").id,
    });
  });

  test("a prompt's arguments filter its figures, and a bad one is refused with the tool's sentence", async () => {
    const byEngine = text(await a.getPrompt({ name: "weekly_visibility_review", arguments: { engine: "claude", tag: "Acme launch" } }));
    expect(byEngine).toContain("engine claude");
    expect(byEngine).toContain("Answers: 7 (7 valid");
    expect(byEngine).toContain('tag "Acme launch"');
    expect(await failure(a.getPrompt({ name: "weekly_visibility_review", arguments: { tag: s.seed.b.ids.tagName } }))).toContain(
      `Tag "${s.seed.b.ids.tagName}" not found`,
    );
    expect(await failure(a.getPrompt({ name: "weekly_visibility_review", arguments: { brand_id: s.seed.b.brandId } }))).toContain(
      'has no argument "brand_id"',
    );
  });

  test("the competitor deep-dive needs a competitor of the key's own brand", async () => {
    const dive = text(await a.getPrompt({ name: "competitor_deep_dive", arguments: { competitor: "acme rival" } }));
    expect(dive).toContain('"Acme Analytics" against "Acme Rival"');
    expect(dive).toContain("acme-rival.com");
    // By one of its aliases too ("AcmeR"), as answers may name it.
    expect(text(await a.getPrompt({ name: "competitor_deep_dive", arguments: { competitor: "acmer" } }))).toContain(
      '"Acme Analytics" against "Acme Rival"',
    );
    expect(await failure(a.getPrompt({ name: "competitor_deep_dive" }))).toContain('needs the argument "competitor"');
    expect(await failure(a.getPrompt({ name: "competitor_deep_dive", arguments: { competitor: "Borealis Rival" } }))).toContain(
      'Competitor "Borealis Rival" not found',
    );
  });

  test("close a content gap names the prompt and the create_article step; another brand's prompt is not found", async () => {
    const gap = text(await a.getPrompt({ name: "close_content_gap", arguments: { prompt: s.seed.a.ids.promptId } }));
    expect(gap).toContain('"best Acme software for small teams"');
    expect(gap).toContain(`create_article (prompt_id ${s.seed.a.ids.promptId})`);
    expect(await failure(a.getPrompt({ name: "close_content_gap", arguments: { prompt: s.seed.b.ids.promptId } }))).toContain(
      "Prompt not found",
    );
  });

  test("a Visibility key asking for the content prompt is told the plan it needs", async () => {
    const message = await failure(v.getPrompt({ name: "close_content_gap", arguments: { prompt: "x" } }));
    expect(message).toContain("MCP error -32602: The prompt close_content_gap requires the Autopilot plan");
    expect(await failure(v.getPrompt({ name: "no_such_prompt" }))).toContain('Unknown prompt "no_such_prompt"');
  });

  test("the audit of cited sources reads the brand's citation figures", async () => {
    const audit = text(await a.getPrompt({ name: "audit_cited_sources" }));
    expect(audit).toContain('Audit of the sources AI engines cite for "Acme Analytics"\'s prompts');
    expect(audit).toContain("- g2.com: 28 citations");
    expect(audit).toContain("- https://g2.com/categories/analytics: 28 citations");
  });
});

describe("completion", () => {
  const complete = (c: Client, name: string, argument: string, value: string) =>
    c.complete({ ref: { type: "ref/prompt", name }, argument: { name: argument, value } }).then((r) => r.completion.values);

  test("competitor names, tags, engines and prompt ids complete from the key's brand only", async () => {
    expect(await complete(a, "competitor_deep_dive", "competitor", "ac")).toEqual(["Acme Rival"]);
    expect(await complete(a, "competitor_deep_dive", "competitor", "bor")).toEqual([]);
    expect(await complete(a, "weekly_visibility_review", "tag", "launch")).toEqual(["Acme launch"]);
    expect(await complete(a, "audit_cited_sources", "engine", "cl")).toEqual(["claude"]);
    const engines = (await call(a, "get_brand")).data.engines.map((e: { id: string }) => e.id);
    expect(engines).toEqual(expect.arrayContaining(["chatgpt", "claude"]));
    expect(await complete(a, "audit_cited_sources", "engine", "")).toEqual(engines);
    expect(await complete(a, "close_content_gap", "prompt", "small teams")).toEqual([s.seed.a.ids.promptId]);
    expect(await complete(a, "close_content_gap", "prompt", s.seed.a.ids.promptId.slice(0, 6))).toContain(s.seed.a.ids.promptId);
    const b = await s.client(s.seed.b.key);
    expect(await complete(b, "close_content_gap", "prompt", "")).not.toContain(s.seed.a.ids.promptId);
  });

  test("completing the content prompt's argument needs Autopilot; article slugs complete from the template", async () => {
    expect(await failure(complete(v, "close_content_gap", "prompt", ""))).toContain("requires the Autopilot plan");
    const slugs = await a.complete({
      ref: { type: "ref/resource", uri: "spyglass://articles/{slug}" },
      argument: { name: "slug", value: "why" },
    });
    expect(slugs.completion.values).toEqual([s.seed.a.ids.articleSlug]);
  });
});

describe("resources", () => {
  test("an Autopilot key lists the four views and each article as Markdown and HTML", async () => {
    const { resources } = await a.listResources();
    expect(resources.filter((r) => r.uri.startsWith("ui://")).map((r) => r.uri)).toEqual([
      "ui://spyglass/visibility-trend.html",
      "ui://spyglass/competitor-ranking.html",
      "ui://spyglass/overview.html",
      "ui://spyglass/publish.html",
    ]);
    const articles = resources.filter((r) => r.uri.startsWith("spyglass://"));
    expect(articles.map((r) => [r.uri, r.mimeType])).toEqual([
      [`spyglass://articles/${s.seed.a.ids.articleSlug}`, "text/markdown"],
      [`spyglass://articles/${s.seed.a.ids.articleSlug}/html`, "text/html"],
    ]);
    expect(JSON.stringify(resources)).not.toContain(s.seed.b.ids.articleSlug);
    expect((await a.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "spyglass://articles/{slug}",
      "spyglass://articles/{slug}/html",
    ]);
  });

  test("a Visibility key lists the three visibility views, no article and no template", async () => {
    const { resources } = await v.listResources();
    expect(resources.map((r) => r.uri)).toEqual([
      "ui://spyglass/visibility-trend.html",
      "ui://spyglass/competitor-ranking.html",
      "ui://spyglass/overview.html",
    ]);
    expect((await v.listResourceTemplates()).resourceTemplates).toEqual([]);
    // Beyond the plan: not found, with the plan that reads it, as a tool names it; the same for a slug
    // that exists and one that does not (nothing of what exists is told).
    const beyond = (uri: string) =>
      `MCP error -32002: Resource not found: ${uri}: reading it requires the Autopilot plan, and this account is on the Visibility plan. To upgrade: the instance's owner sets it on the dashboard's Accounts page, or run spyglass account plan --email E --plan autopilot (E: the account's email).`;
    expect(await failure(v.readResource({ uri: "ui://spyglass/publish.html" }))).toBe(beyond("ui://spyglass/publish.html"));
    for (const slug of [s.seed.a.ids.articleSlug, "no-such-article"]) {
      const uri = `spyglass://articles/${slug}`;
      expect(await failure(v.readResource({ uri }))).toBe(beyond(uri));
    }
  });

  test("an article reads as its Markdown and as the sanitized HTML served; another brand's slug is not found", async () => {
    const md = await a.readResource({ uri: `spyglass://articles/${s.seed.a.ids.articleSlug}` });
    expect(md.contents).toEqual([
      { uri: `spyglass://articles/${s.seed.a.ids.articleSlug}`, mimeType: "text/markdown", text: "Small teams pick Acme." },
    ]);
    const html = await a.readResource({ uri: `spyglass://articles/${s.seed.a.ids.articleSlug}/html` });
    expect(html.contents[0]).toMatchObject({ mimeType: "text/html", text: "<p>Small teams pick Acme.</p>" });
    expect(await failure(a.readResource({ uri: `spyglass://articles/${s.seed.b.ids.articleSlug}` }))).toBe(
      `MCP error -32002: Resource not found: spyglass://articles/${s.seed.b.ids.articleSlug}; resources/list shows the resources this credential can read.`,
    );
    expect(await failure(a.readResource({ uri: "spyglass://articles/../../etc" }))).toContain("Resource not found");
    const raw = await s.post(
      { authorization: `Bearer ${s.seed.a.key}` },
      JSON.stringify({ jsonrpc: "2.0", id: 9, method: "resources/read", params: { uri: "test://nothing" } }),
    );
    expect(raw.json.error).toEqual({
      code: -32002,
      message: "Resource not found: test://nothing; resources/list shows the resources this credential can read.",
      data: { uri: "test://nothing" },
    });
  });

  test("a draft is a resource too, and the tools that return an article link its resources", async () => {
    const created = await call(a, "create_article", {
      title: "Draft on teams",
      markdown: "# Draft on teams\n\nHello **teams**.",
      slug: "draft-on-teams",
    });
    const links = created.result.content.filter((c) => c.type === "resource_link");
    expect(links).toEqual([
      {
        type: "resource_link",
        uri: "spyglass://articles/draft-on-teams",
        name: "draft-on-teams",
        title: "Draft on teams",
        mimeType: "text/markdown",
      },
      {
        type: "resource_link",
        uri: "spyglass://articles/draft-on-teams/html",
        name: "draft-on-teams.html",
        title: "Draft on teams (HTML)",
        mimeType: "text/html",
      },
    ]);
    // The text result still stands alone: the JSON of the article comes first.
    expect(JSON.parse(created.text).article.slug).toBe("draft-on-teams");
    const read = await a.readResource({ uri: "spyglass://articles/draft-on-teams/html" });
    expect((read.contents[0] as { text: string }).text).toContain("<strong>teams</strong>");
  });

  test("get_article_impact links the articles it reports on, only for a key that may read them", async () => {
    const impact = await call(a, "get_article_impact");
    expect(impact.data.articles.map((x: { article: { slug: string } }) => x.article.slug)).toEqual([s.seed.a.ids.articleSlug]);
    expect(impact.result.content.filter((c) => c.type === "resource_link").map((c) => (c as { uri: string }).uri)).toEqual([
      `spyglass://articles/${s.seed.a.ids.articleSlug}`,
      `spyglass://articles/${s.seed.a.ids.articleSlug}/html`,
    ]);
    await s.t.db.run("UPDATE accounts SET plan = 'visibility' WHERE id = ?", [s.seed.a.accountId]);
    try {
      const asVisibility = await call(await s.client(s.seed.a.key), "get_article_impact");
      expect(asVisibility.data.articles).toHaveLength(1);
      expect(asVisibility.result.content.map((c) => c.type)).toEqual(["text"]);
    } finally {
      await s.t.db.run("UPDATE accounts SET plan = 'autopilot' WHERE id = ?", [s.seed.a.accountId]);
    }
  });

  test("resources/list pages the articles after the views, with a cursor clients follow", async () => {
    const b = await s.client(s.seed.b.key);
    for (let i = 0; i < 55; i++) await createArticle(s.t.db, s.seed.b.brandId, { title: `Note ${i}`, markdown: `Note ${i}.` });
    const first = await b.listResources();
    expect(first.resources.filter((r) => r.uri.startsWith("ui://"))).toHaveLength(4);
    expect(first.resources.filter((r) => r.uri.startsWith("spyglass://"))).toHaveLength(100);
    expect(first.nextCursor).toBeString();
    const second = await b.listResources({ cursor: first.nextCursor });
    expect(second.resources.map((r) => r.uri.startsWith("spyglass://"))).toEqual(Array(12).fill(true));
    expect(second.nextCursor).toBeUndefined();
    const all = [...first.resources, ...second.resources].filter((r) => r.mimeType === "text/markdown").map((r) => r.uri);
    expect(new Set(all).size).toBe(56);
    expect(all).toContain(`spyglass://articles/${s.seed.b.ids.articleSlug}`);
    expect(await failure(b.listResources({ cursor: "not-a-cursor" }))).toBe(
      "MCP error -32602: cursor: pass back the nextCursor of a previous resources/list unchanged.",
    );
  });

  test("each view is an MCP App: its MIME type, its _meta.ui with a CSP of no outside domain, one self-contained document", async () => {
    for (const uri of [
      "ui://spyglass/visibility-trend.html",
      "ui://spyglass/competitor-ranking.html",
      "ui://spyglass/overview.html",
      "ui://spyglass/publish.html",
    ]) {
      const { contents } = await a.readResource({ uri });
      const content = contents[0] as { uri: string; mimeType: string; text: string; _meta: Record<string, unknown> };
      expect(content.mimeType).toBe("text/html;profile=mcp-app");
      expect(content._meta).toEqual({ ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } });
      expect(content.text).toStartWith("<!doctype html>");
      expect(content.text).toContain(`<meta name="spyglass-view" content="${uri.slice("ui://spyglass/".length, -".html".length)}">`);
      expect(content.text).toContain("default-src 'none'");
      // Nothing is loaded from elsewhere: no src= or href= in the document at all.
      expect(content.text).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
    }
  });

  test("the tools with a view link it in _meta, for both keys of the extension", async () => {
    const tools = new Map((await a.listTools()).tools.map((t) => [t.name, t]));
    expect(tools.get("get_visibility_trend")?._meta).toEqual({
      ui: { resourceUri: "ui://spyglass/visibility-trend.html" },
      "ui/resourceUri": "ui://spyglass/visibility-trend.html",
    });
    expect(tools.get("get_competitor_ranking")?._meta?.ui).toEqual({ resourceUri: "ui://spyglass/competitor-ranking.html" });
    expect(tools.get("get_visibility_overview")?._meta?.ui).toEqual({ resourceUri: "ui://spyglass/overview.html" });
    expect(tools.get("publish_to_site")?._meta?.ui).toEqual({ resourceUri: "ui://spyglass/publish.html" });
    expect(tools.get("list_prompts")?._meta).toBeUndefined();
    for (const tool of tools.values()) expect(tool.icons?.[0]?.mimeType).toBe("image/svg+xml");
    const vTools = (await v.listTools()).tools;
    expect(vTools.some((t) => JSON.stringify(t._meta ?? {}).includes("publish.html"))).toBe(false);
  });
});
