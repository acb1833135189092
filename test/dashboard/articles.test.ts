// The Articles pages in headless Chromium against the compiled binary: write an article with an
// attack in its Markdown, save, preview the server's sanitized HTML in the sandboxed frame, publish
// (the public content API serves the same HTML), unpublish behind a confirmation; the status filter
// in the URL; a markup title as text; a Visibility account's plan notice; the writer's "not
// configured" sentence, with the form as typed; the editor's link to the prompt the article answers
// and to its impact, the question before unsaved changes are left, and where the keyboard is after
// Save, Publish and Unpublish. Checked with axe-core and photographed at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type Page } from "playwright-core";
import {
  type Dashboard,
  expectAccessible,
  expectFocus,
  expectNothingUnsafe,
  explainedOnFailure,
  openDashboard,
  photograph,
  sessionTool,
  signIn,
} from "../support/dashboard";
import { answer, startFakeOpenAI } from "../support/fake-providers";

const AUTOPILOT = { email: "writer@example.com", password: "a long password" };
const VISIBILITY = { email: "watcher@example.com", password: "another long password" };
const HOSTILE_TITLE = `<img src=x onerror=alert(1)> Acme "><script>alert(2)</script>`;
const NO_WRITER =
  /^This server has no writer model set up, so it cannot draft articles\. Whoever runs Spyglass can set one up: add a \[writer\] section to the server's configuration file/;

const MARKDOWN = `# Choosing a CRM

A short guide for **startups**.

## What matters

- Price
- Integrations
- Support

Read [the comparison](https://example.com/crm).

![A chart of prices](https://example.com/chart.png)

<img src=x onerror=alert(1)>

<script>alert(1)</script>
`;

setDefaultTimeout(60_000);

let d: Dashboard;
let page: Page;
let brandId: string;
let articleUrl: string;
let slug: string;
let siteKey: string;

// After a resize or a change of colour scheme, Chromium repaints a sandboxed (cross-origin) frame
// only once it is looked at: the full-page screenshot alone shows it blank.
async function repaintPreview(p: Page): Promise<void> {
  for (const frame of await p.getByTitle("Preview of the saved article").all()) await frame.screenshot();
}

async function createBrand(email: string, name: string): Promise<{ id: string; site_key: string }> {
  const result = await d.box.cliJson(["brand", "create", "--email", email, "--name", name]);
  return result.brand ?? result;
}

function preview(p: Page) {
  return p.frameLocator("iframe[title='Preview of the saved article']");
}

beforeAll(async () => {
  d = await openDashboard();
  for (const [who, plan] of [
    [AUTOPILOT, "autopilot"],
    [VISIBILITY, "visibility"],
  ] as const) {
    const created = await d.box.cli(["account", "create", "--email", who.email, "--password", who.password, "--plan", plan]);
    expect(created.code).toBe(0);
  }
  const brand = await createBrand(AUTOPILOT.email, "Acme");
  brandId = brand.id;
  siteKey = brand.site_key;
  page = await d.page();
  await signIn(d, page, AUTOPILOT);
});

afterAll(async () => {
  await d?.close();
});

/** A test on the shared page: when it fails, what the page was doing is printed (explainPage). */
function pageTest(name: string, body: () => Promise<void>): void {
  test(
    name,
    explainedOnFailure(() => page, name, body),
  );
}

describe("the Articles pages", () => {
  pageTest("an empty list says what articles are for and offers to write one", async () => {
    await page.getByRole("navigation", { name: "Brand pages" }).getByRole("link", { name: "Articles" }).click();
    await page.waitForURL(`**/brands/${brandId}/articles`);
    await page.getByRole("heading", { name: "No article yet" }).waitFor();
    expect(await page.getByText(/Articles close content gaps/).count()).toBe(1);
    // The page's, the empty list's, and the writer section's (this server has no writer).
    await page.getByRole("status").filter({ hasText: NO_WRITER }).waitFor();
    expect(await page.getByRole("link", { name: "New article" }).count()).toBe(3);
    await expectAccessible(page, "articles-empty");
    await photograph(page, "articles-empty", repaintPreview);
  });

  pageTest(
    "without a [writer] in the config, the writer section says at once what the server needs, in plain words, and offers no form",
    async () => {
      const said = page.getByRole("status").filter({ hasText: NO_WRITER });
      await said.waitFor();
      expect(await page.getByRole("button", { name: "Draft with the writer" }).count()).toBe(0);
      // No tool names: the tool's own sentence is for AI clients.
      expect(await said.textContent()).not.toMatch(/generate_article|create_article/);
      expect(await said.getByRole("link", { name: "New article" }).getAttribute("href")).toBe(`/brands/${brandId}/articles/new`);
      await photograph(page, "articles-no-writer");
      expectNothingUnsafe(page);
    },
  );

  pageTest("an article written with an attack in it saves, previews sanitized and runs nothing", async () => {
    await page.getByRole("link", { name: "New article" }).first().click();
    await page.waitForURL("**/articles/new");
    await page.getByRole("heading", { name: "New article", level: 1 }).waitFor();
    await page.getByLabel("Title").fill("Choosing a CRM");
    await page.getByLabel("Description (optional)").fill("What a startup should look for.");
    await page.getByLabel("Markdown").fill(MARKDOWN);
    await expectAccessible(page, "article-new");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.waitForURL(/\/articles\/art_[a-z0-9]+$/);
    articleUrl = page.url();
    await page.getByRole("status").filter({ hasText: "Saved as a draft." }).waitFor();
    slug = await page.getByLabel("Slug").inputValue();
    expect(slug).toBe("choosing-a-crm");
    expect(await page.getByLabel("Slug").evaluate((el) => (el as HTMLInputElement).readOnly)).toBe(false);

    const frame = preview(page);
    await frame.getByRole("heading", { name: "What matters" }).waitFor();
    expect(await frame.getByRole("listitem").allTextContents()).toEqual(["Price", "Integrations", "Support"]);
    expect(await frame.getByRole("link", { name: "the comparison" }).getAttribute("href")).toBe("https://example.com/crm");
    expect(await frame.getByRole("img", { name: "A chart of prices" }).getAttribute("src")).toBe("https://example.com/chart.png");
    expect(await frame.locator("script").count()).toBe(0);
    expect(await frame.locator("[onerror]").count()).toBe(0);
    const iframe = page.getByTitle("Preview of the saved article");
    expect(await iframe.getAttribute("sandbox")).toBe("");
    // The frame is a stop of the keyboard (its text scrolls with the arrows): its focus is drawn, as
    // every other control's is (a review found it an invisible stop).
    const ring = () => iframe.evaluate((el) => getComputedStyle(el).outlineStyle);
    expect(await ring()).toBe("none");
    await iframe.focus();
    expect(await ring()).toBe("solid");
    await page.getByLabel("Slug").focus();
    expect(await page.getByText("this preview shows the last saved version").count()).toBe(0);
    // In dark mode the preview is drawn dark too (it was a white box), light text on a dark canvas.
    const textColour = () => frame.locator("body").evaluate((body) => getComputedStyle(body).color);
    expect(await textColour()).toBe("rgb(0, 0, 0)");
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await textColour()).toBe("rgb(255, 255, 255)");
    await page.emulateMedia({ colorScheme: "light" });
    // In a plain sans-serif at a reading measure, not the browser's default serif: the preview's one
    // inline style, which the page's CSP admits by its hash (nothing else inline is).
    const look = await frame.locator("body").evaluate((body) => {
      const style = getComputedStyle(body);
      return { font: style.fontFamily, width: style.maxWidth };
    });
    expect(look.font).toStartWith("system-ui");
    expect(look.width).toBe("672px");

    await page.getByLabel("Markdown").fill(`${MARKDOWN}\nOne more line.`);
    await page.getByText("You have unsaved changes: this preview shows the last saved version.").waitFor();
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    await frame.getByText("One more line.").waitFor();
    await page.waitForTimeout(300);
    await expectAccessible(page, "article-draft");
    await photograph(page, "article-draft", repaintPreview);
    expectNothingUnsafe(page);
  });

  pageTest("the preview's sandbox is a wall of its own: markup the sanitizer had let through still runs nothing", async () => {
    const iframe = page.getByTitle("Preview of the saved article");
    await iframe.evaluate((el) => {
      (el as HTMLIFrameElement).srcdoc =
        '<h2>Wall</h2><script>alert("script")</script><img src=x onerror="alert(\'onerror\')"><a href="javascript:alert(3)">js</a>';
    });
    await preview(page).getByRole("heading", { name: "Wall" }).waitFor();
    await preview(page).getByRole("link", { name: "js" }).click();
    await page.waitForTimeout(500);
    expectNothingUnsafe(page);
    await page.reload({ waitUntil: "commit" });
    await preview(page).getByRole("heading", { name: "What matters" }).waitFor();
  });

  pageTest("Publish puts the same HTML on the public API and fixes the slug; Unpublish (confirmed) takes it off", async () => {
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Published: the brand's site can read it now." }).waitFor();
    const link = page.getByRole("link", { name: /\/api\/public\/articles\// });
    const publicUrl = (await link.getAttribute("href"))!;
    expect(publicUrl).toBe(`${d.url("")}/api/public/articles/${slug}?key=${siteKey}`);
    const served = await fetch(publicUrl);
    expect(served.status).toBe(200);
    const { article } = (await served.json()) as { article: { html: string; title: string } };
    expect(article.title).toBe("Choosing a CRM");
    // Followed, the link shows the API's answer (the app's router once took it for a page of its own).
    const [opened] = await Promise.all([page.context().waitForEvent("page"), link.click()]);
    await opened.waitForLoadState();
    expect(opened.url()).toBe(publicUrl);
    expect(await opened.locator("body").textContent()).toContain('"title":"Choosing a CRM"');
    await opened.close();
    // Back to the editor's tab (a tab in the background runs no animation frame, where Preact runs effects).
    await page.bringToFront();
    expect(page.url()).toBe(articleUrl);
    expect(await page.getByTitle("Preview of the saved article").getAttribute("srcdoc")).toContain(article.html);
    expect(article.html).not.toContain("<script");
    expect(article.html).not.toContain("onerror");
    const list = (await (await fetch(d.url(`/api/public/articles?key=${siteKey}`))).json()) as { articles: Array<{ slug: string }> };
    expect(list.articles.map((a) => a.slug)).toEqual([slug]);

    const slugField = page.getByLabel("Slug");
    expect(await slugField.evaluate((el) => (el as HTMLInputElement).readOnly)).toBe(true);
    expect(await page.getByText("Fixed: the article has been published under this slug").count()).toBe(1);
    await expectAccessible(page, "article-published");
    await photograph(page, "article-published", repaintPreview);

    await page.getByRole("button", { name: "Unpublish" }).click();
    const dialog = page.getByRole("dialog", { name: "Unpublish this article?" });
    await dialog.waitFor();
    // The dialog opens on Cancel: Enter on opening keeps the article on the site (a review found it on Unpublish).
    await expectFocus(dialog.getByRole("button", { name: "Cancel" }));
    await expectAccessible(page, "article-unpublish-dialog");
    await photograph(page, "article-unpublish-dialog", repaintPreview);
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect((await fetch(publicUrl)).status).toBe(200);

    await page.getByRole("button", { name: "Unpublish" }).click();
    await dialog.getByRole("button", { name: "Unpublish" }).click();
    await page.getByRole("status").filter({ hasText: "Unpublished" }).waitFor();
    const gone = await fetch(publicUrl);
    expect(gone.status).toBe(404);
    const after = (await (await fetch(d.url(`/api/public/articles?key=${siteKey}`))).json()) as { articles: unknown[] };
    expect(after.articles).toEqual([]);
    expect(await page.getByRole("button", { name: "Publish", exact: true }).count()).toBe(1);
    expect(await slugField.evaluate((el) => (el as HTMLInputElement).readOnly)).toBe(true);
    // The reload waits on what the page shows, not on the frames' load states: the preview's srcdoc
    // frame is replaced as the page loads, and playwright-core once lost it ("Cannot find object to
    // \"loadstate\": frame@…") in a CI run.
    await page.reload({ waitUntil: "commit" });
    await page.getByTitle("Preview of the saved article").waitFor();
    expect(await page.getByLabel("Title").inputValue()).toBe("Choosing a CRM");
    // In the list, the draft's first publication is said with what became of it.
    await page.goto(d.url(`/brands/${brandId}/articles`));
    const row = page.getByRole("row", { name: /Choosing a CRM/ });
    await row.waitFor();
    expect(await row.locator('td[data-label="Status"]').textContent()).toBe("Draft");
    expect(await row.locator('td[data-label="First published"]').textContent()).toMatch(/UTC \(since unpublished\)$/);
    expectNothingUnsafe(page);
  });

  pageTest(
    "the Brand page's snippet, pasted into a page of the brand's site, lists the published article, shows it, and says when one is not available",
    async () => {
      const articleId = articleUrl.split("/").at(-1)!;
      await sessionTool(page, brandId, "publish_to_site", { article_id: articleId });
      await page.goto(d.url(`/brands/${brandId}`));
      const snippet = await page.getByRole("figure").filter({ hasText: "Snippet for the site" }).locator("code").textContent();
      // A page of the brand's own site, on another origin (the public API answers it with CORS).
      const site = Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: () => new Response(`<!doctype html><title>Acme blog</title>${snippet}`, { headers: { "content-type": "text/html" } }),
      });
      const visitor = await page.context().newPage();
      try {
        const errors: string[] = [];
        visitor.on("pageerror", (error) => errors.push(error.message));
        await visitor.goto(`http://127.0.0.1:${site.port}/blog`);
        await visitor.getByRole("link", { name: "Choosing a CRM" }).click();
        await visitor.waitForURL(`**/blog?article=${slug}`);
        await visitor.getByRole("heading", { name: "Choosing a CRM", level: 1 }).waitFor();
        await visitor.getByRole("heading", { name: "What matters" }).waitFor();
        expect(await visitor.locator("#spyglass-articles script, #spyglass-articles [onerror]").count()).toBe(0);
        await visitor.goto(`http://127.0.0.1:${site.port}/blog?article=no-such-article`);
        await visitor.getByText("This article is not available.").waitFor();
        expect(errors).toEqual([]);
      } finally {
        await visitor.close();
        site.stop(true);
        await sessionTool(page, brandId, "unpublish_article", { article_id: articleId });
      }
    },
  );

  pageTest("a title made of markup is text in the list, and the status filter survives a reload", async () => {
    await page.goto(d.url(`/brands/${brandId}/articles/new`));
    await page.getByLabel("Title").fill(HOSTILE_TITLE);
    await page.getByLabel("Slug").fill("hostile-title");
    await page.getByLabel("Markdown").fill("Plain body.");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.waitForURL(/\/articles\/art_/);
    await page.getByRole("button", { name: "Publish", exact: true }).click();
    await page.getByRole("status").filter({ hasText: "Published" }).waitFor();

    await page.getByRole("link", { name: "All articles" }).click();
    // The list loads after the navigation: wait for both rows before counting them.
    await page.getByRole("link", { name: "Choosing a CRM" }).waitFor();
    expect(await page.getByRole("link", { name: HOSTILE_TITLE, exact: true }).count()).toBe(1);
    expect(await page.getByRole("link", { name: "Choosing a CRM" }).count()).toBe(1);

    await page.getByRole("navigation", { name: "Filter by status" }).getByRole("link", { name: "Published" }).click();
    await page.waitForURL("**/articles?status=published");
    await page.getByRole("link", { name: "Choosing a CRM" }).waitFor({ state: "detached" });
    await page.reload();
    await page.getByRole("link", { name: HOSTILE_TITLE, exact: true }).waitFor();
    expect(await page.getByRole("link", { name: "Choosing a CRM" }).count()).toBe(0);
    expect(
      await page
        .getByRole("navigation", { name: "Filter by status" })
        .getByRole("link", { name: "Published" })
        .getAttribute("aria-current"),
    ).toBe("page");

    await page.getByRole("navigation", { name: "Filter by status" }).getByRole("link", { name: "Drafts" }).click();
    await page.waitForURL("**/articles?status=draft");
    await page.getByRole("link", { name: "Choosing a CRM" }).waitFor();
    expect(await page.getByRole("link", { name: HOSTILE_TITLE, exact: true }).count()).toBe(0);

    await page.getByRole("navigation", { name: "Filter by status" }).getByRole("link", { name: "All" }).click();
    await page.getByRole("link", { name: HOSTILE_TITLE, exact: true }).waitFor();
    await expectAccessible(page, "articles");
    await photograph(page, "articles", repaintPreview);
    expectNothingUnsafe(page);
    await page.goto(articleUrl);
    await page.getByLabel("Markdown").waitFor();
  });

  pageTest("an account on the Visibility plan is told that articles need Autopilot", async () => {
    const vBrand = await createBrand(VISIBILITY.email, "Watched");
    const other = await d.page();
    await signIn(d, other, VISIBILITY);
    for (const path of ["/articles/new", "/articles"]) {
      await other.goto(d.url(`/brands/${vBrand.id}${path}`));
      await other.getByRole("status").filter({ hasText: "Writing and publishing articles needs the Autopilot plan." }).waitFor();
      expect(await other.getByLabel("Markdown").count()).toBe(0);
      expect(await other.getByRole("link", { name: "New article" }).count()).toBe(0);
    }
    const refused = await other.evaluate(async (id) => {
      const r = await fetch(`/api/brands/${id}/tools/list_articles`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      return { status: r.status, body: await r.json() };
    }, vBrand.id);
    expect(refused.body.code).toBe("plan_required");
    expect(refused.body.required_plan).toBe("autopilot");
    await expectAccessible(other, "articles-plan-needed");
    await photograph(other, "articles-plan-needed", repaintPreview);
    expectNothingUnsafe(other);
  });
});

/**
 * What has the keyboard's focus once it has settled (the page moves it after the render that follows
 * an action): its tag, role and text; the body when focus was lost.
 */
async function focused(p: Page) {
  await p
    .waitForFunction(() => document.activeElement !== document.body, undefined, { timeout: 10_000, polling: 50 })
    .catch(() => undefined);
  return p.evaluate(() => {
    const el = document.activeElement;
    return { tag: el?.tagName.toLowerCase(), role: el?.getAttribute("role") ?? null, text: el?.textContent?.trim() ?? "" };
  });
}

/**
 * Whether leaving the page (reload, closing the tab) would make the browser ask first, once it settles on `expected`: Preact arms and disarms
 * the guard in an effect, a frame after the render that shows the change.
 */
async function asksBeforeUnload(p: Page, expected: boolean): Promise<boolean> {
  const asks = () =>
    p.evaluate(() => {
      const event = new Event("beforeunload", { cancelable: true });
      dispatchEvent(event);
      return event.defaultPrevented;
    });
  for (let i = 0; i < 50 && (await asks()) !== expected; i++) await Bun.sleep(20);
  return asks();
}

type Article = { article: { prompt_id: string | null; title: string } };

describe("the article editor", () => {
  let promptIds: Record<string, string>;

  beforeAll(async () => {
    const created = await sessionTool<{ created: Array<{ id: string; text: string }> }>(page, brandId, "create_prompts", {
      prompts: [{ text: "best crm for startups" }, { text: "cheapest crm for a small team" }],
    });
    promptIds = Object.fromEntries(created.created.map((p) => [p.text, p.id]));
  });

  pageTest("an article that could not be loaded offers Try again, which loads it", async () => {
    await page.route("**/tools/get_article", (route) => route.abort("connectionrefused"), { times: 1 });
    await page.goto(articleUrl);
    const alert = page.getByRole("alert").filter({ hasText: "The server could not be reached" });
    await alert.getByRole("button", { name: "Try again" }).click();
    expect(await page.getByLabel("Title").inputValue()).toBe("Choosing a CRM");
    expect(await alert.count()).toBe(0);
    // An article that does not exist says so in plain words (no tool names), with nothing to try again.
    await page.goto(d.url(`/brands/${brandId}/articles/art_nonexistent`));
    const missing = page.getByRole("alert").filter({ hasText: "There is no such article" });
    await missing.waitFor();
    expect(await missing.textContent()).not.toContain("list_articles");
    expect(await missing.getByRole("button").count()).toBe(0);
    // Nor is it headed as an article to edit.
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Article not found");
  });

  pageTest("a title over 200 characters is said under the title, with the keyboard there, and nothing is saved", async () => {
    await page.goto(d.url(`/brands/${brandId}/articles/new`));
    const title = page.getByLabel("Title");
    await title.fill("A".repeat(201));
    await page.getByLabel("Markdown").fill("A body.");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("The title is 201 characters; the limit is 200.").waitFor();
    expect(await title.getAttribute("aria-invalid")).toBe("true");
    await expectFocus(title);
    expect(new URL(page.url()).pathname).toEndWith("/articles/new");
    await photograph(page, "article-title-error");
    // Corrected, the sentence goes.
    await title.fill("A".repeat(200));
    await page.waitForFunction(() => !document.querySelector('[aria-invalid="true"]'));
    // Left empty, as it came: nothing unsaved for the next test's page to ask about, once the guard's
    // effect has run (Preact runs effects after the next frame).
    await title.fill("");
    await page.getByLabel("Markdown").fill("");
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 50)))));
  });

  pageTest("Save by keyboard keeps the keyboard on Save, for a new article and a saved one", async () => {
    await page.goto(d.url(`/brands/${brandId}/articles/new`));
    await page.getByLabel("Title").fill("Keyboard article");
    await page.getByLabel("Markdown").fill("Written without a mouse.");
    await page.getByRole("button", { name: "Save", exact: true }).focus();
    await page.keyboard.press("Enter");
    await page.waitForURL(/\/articles\/art_[a-z0-9]+$/);
    await page.getByRole("status").filter({ hasText: "Saved as a draft." }).waitFor();
    expect(await focused(page)).toMatchObject({ tag: "button", text: "Save" });

    await page.getByLabel("Description (optional)").fill("Saved again.");
    await page.getByRole("button", { name: "Save", exact: true }).focus();
    await page.keyboard.press("Enter");
    await page
      .getByRole("status")
      .filter({ hasText: /^Saved\.$/ })
      .waitFor();
    expect(await focused(page)).toMatchObject({ tag: "button", text: "Save" });
  });

  pageTest("after Publish and Unpublish by keyboard, the keyboard is on the status sentence, which says what happened", async () => {
    await page.getByRole("button", { name: "Publish", exact: true }).focus();
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Published: the brand's site can read it now." }).waitFor();
    await expectFocus(page.getByRole("status").filter({ hasText: "Published: the brand's site can read it now." }));
    expect(await focused(page)).toEqual({ tag: "p", role: "status", text: "Published: the brand's site can read it now." });

    await page.keyboard.press("Tab");
    expect(await focused(page)).toMatchObject({ tag: "button", text: "Save" });
    await page.keyboard.press("Tab");
    expect(await focused(page)).toMatchObject({ tag: "button", text: "Unpublish" });
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Unpublish this article?" });
    await dialog.waitFor();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await dialog.waitFor({ state: "hidden" });
    await page.getByRole("status").filter({ hasText: "Unpublished" }).waitFor();
    await expectFocus(page.getByRole("status").filter({ hasText: "Unpublished" }));
    expectNothingUnsafe(page);
  });

  pageTest(
    "the prompt the article answers is chosen among the brand's prompts, saved with the rest, and leads to the article's impact",
    async () => {
      await page.goto(articleUrl);
      const choice = page.getByLabel("Prompt this article answers");
      await choice.locator("option", { hasText: "best crm for startups" }).waitFor({ state: "attached" });
      expect(await choice.locator("option").allTextContents()).toEqual(["None", "best crm for startups", "cheapest crm for a small team"]);
      // A brand with few prompts has no search for them.
      expect(await page.getByLabel("Find a prompt").count()).toBe(0);
      expect(await choice.inputValue()).toBe("");
      expect(await page.getByRole("link", { name: "See this article's impact" }).count()).toBe(0);

      await choice.selectOption({ label: "best crm for startups" });
      await page.getByText("Unsaved changes", { exact: true }).waitFor();
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page
        .getByRole("status")
        .filter({ hasText: /^Saved\.$/ })
        .waitFor();
      const articleId = articleUrl.split("/").at(-1)!;
      const saved = await sessionTool<Article>(page, brandId, "get_article", { article_id: articleId });
      expect(saved.article.prompt_id).toBe(promptIds["best crm for startups"]!);
      const impact = page.getByRole("link", { name: "See this article's impact" });
      expect(await impact.getAttribute("href")).toBe(`/brands/${brandId}/impact?article=${articleId}`);
      await page.getByText("measured once the article is published").waitFor();
      await expectAccessible(page, "article-linked");
      await photograph(page, "article-linked", repaintPreview);

      await page.reload({ waitUntil: "commit" });
      expect(await page.getByLabel("Prompt this article answers").inputValue()).toBe(promptIds["best crm for startups"]!);
      await page.getByRole("button", { name: "Publish", exact: true }).click();
      await page.getByRole("status").filter({ hasText: "Published" }).waitFor();
      await page.getByRole("link", { name: "See this article's impact" }).click();
      await page.waitForURL(`**/brands/${brandId}/impact?article=${articleId}`);
      const card = page.getByRole("region", { name: "Choosing a CRM" });
      await card.waitFor();
      await card.getByText("best crm for startups").waitFor();
      // That article's card alone (get_article_impact's article_id), with the way to every article's.
      type Impact = { total_articles: number; articles: Array<{ article: { id: string } }> };
      const one = await sessionTool<Impact>(page, brandId, "get_article_impact", { article_id: articleId });
      expect(one.articles.map((a) => a.article.id)).toEqual([articleId]);
      // An id that is no article of the brand is not found (a draft, or an article linked to no prompt, is listed as none).
      const refusal = await sessionTool<Impact>(page, brandId, "get_article_impact", { article_id: "art_unknown" }).then(
        () => "answered",
        (error: Error) => error.message,
      );
      expect(refusal).toContain(
        'Error: 404 {"error":"Article not found; list_articles gives the brand\'s articles with their ids and slugs."',
      );
      expect(await page.getByRole("link", { name: "Every article's impact" }).getAttribute("href")).toBe(`/brands/${brandId}/impact`);
      // Published today: no answer after it yet, which the card says in words rather than as 0/0.
      await card.getByText("no answers").first().waitFor();
      expect(await card.getByText("0/0").count()).toBe(0);
      // A link to an article that is not there says so, in the dashboard's words (in a tab of its own).
      const tab = await page.context().newPage();
      try {
        await tab.goto(d.url(`/brands/${brandId}/impact?article=art_unknown`));
        await tab.getByRole("heading", { name: "There is no such article" }).waitFor();
        expect(await tab.getByText("list_articles").count()).toBe(0);
      } finally {
        await tab.close();
      }

      await card.getByRole("link", { name: "Choosing a CRM" }).click();
      await page.waitForURL(articleUrl);
      await page.getByLabel("Prompt this article answers").selectOption({ label: "None" });
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByRole("status").filter({ hasText: "Saved; the brand's site shows the change." }).waitFor();
      expect((await sessionTool<Article>(page, brandId, "get_article", { article_id: articleId })).article.prompt_id).toBeNull();
      expect(await page.getByRole("link", { name: "See this article's impact" }).count()).toBe(0);
      expectNothingUnsafe(page);
    },
  );

  pageTest(
    "unsaved changes: a link elsewhere in the dashboard asks first (Cancel keeps them); the browser is asked to warn before the tab goes",
    async () => {
      // From the list to the article, inside the app: Back then stays in this document, as it does for
      // a person who came that way (a Back to another document is the browser's own question, above).
      await page.goto(d.url(`/brands/${brandId}/articles`));
      await page.getByRole("link", { name: "Choosing a CRM", exact: true }).click();
      await page.waitForURL(articleUrl);
      expect(await page.getByLabel("Title").inputValue()).toBe("Choosing a CRM");
      expect(await asksBeforeUnload(page, false)).toBe(false);
      await page.getByLabel("Title").fill("Choosing a CRM, revised");
      expect(await asksBeforeUnload(page, true)).toBe(true);

      await page.getByRole("navigation", { name: "Brand pages" }).getByRole("link", { name: "Overview" }).click();
      const dialog = page.getByRole("dialog", { name: "Leave without saving?" });
      await dialog.waitFor();
      await dialog.getByText("Your changes to “Choosing a CRM, revised” are not saved.").waitFor();
      await expectFocus(dialog.getByRole("button", { name: "Cancel" }));
      await expectAccessible(page, "article-leave-dialog");
      await photograph(page, "article-leave-dialog", repaintPreview);
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "hidden" });
      expect(page.url()).toBe(articleUrl);
      expect(await page.getByLabel("Title").inputValue()).toBe("Choosing a CRM, revised");
      await page.getByText("Unsaved changes", { exact: true }).waitFor();
      // So does a way out that is no link: Sign out (Cancel keeps the session and the edits).
      await page.getByRole("button", { name: "Sign out" }).click();
      await dialog.waitFor();
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "hidden" });
      expect(page.url()).toBe(articleUrl);
      expect((await page.request.get(d.url("/api/auth/me"))).status()).toBe(200);
      expect(await page.getByLabel("Title").inputValue()).toBe("Choosing a CRM, revised");

      // So does the browser's Back: Cancel puts the article's address back, with the edits; Leave
      // without saving goes where Back went.
      await page.goBack();
      await dialog.waitFor();
      expect(page.url()).toBe(articleUrl);
      await dialog.getByRole("button", { name: "Cancel" }).click();
      await dialog.waitFor({ state: "hidden" });
      expect(page.url()).toBe(articleUrl);
      expect(await page.getByLabel("Title").inputValue()).toBe("Choosing a CRM, revised");
      await page.goBack();
      await dialog.getByRole("button", { name: "Leave without saving" }).click();
      await page.waitForURL(`**/brands/${brandId}/articles`);
      await page.getByRole("heading", { name: "Articles", level: 1 }).waitFor();
      // The article stays in the history, as saved.
      await page.goBack();
      await page.waitForURL(articleUrl);
      expect(await page.getByLabel("Title").inputValue()).toBe("Choosing a CRM");
      await page.getByLabel("Title").fill("Choosing a CRM, revised");

      // Any link to another dashboard page asks, and Leave without saving goes there.
      await page.getByRole("link", { name: "All articles" }).click();
      await dialog.waitFor();
      await dialog.getByRole("button", { name: "Leave without saving" }).click();
      await page.waitForURL(`**/brands/${brandId}/articles`);
      await page.getByRole("heading", { name: "Articles", level: 1 }).waitFor();
      expect(await asksBeforeUnload(page, false)).toBe(false);

      // Nothing is asked when nothing changed, or once the change is saved.
      await page.getByRole("link", { name: "Choosing a CRM" }).click();
      await page.waitForURL(articleUrl);
      expect(await page.getByLabel("Title").inputValue()).toBe("Choosing a CRM");
      await page.getByRole("navigation", { name: "Brand pages" }).getByRole("link", { name: "Prompts" }).click();
      await page.waitForURL(`**/brands/${brandId}/prompts`);
      await page.goBack();
      await page.waitForURL(articleUrl);
      await page.getByLabel("Title").fill("Choosing a CRM for a startup");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByRole("status").filter({ hasText: "Saved; the brand's site shows the change." }).waitFor();
      expect(await asksBeforeUnload(page, false)).toBe(false);
      await page.getByRole("navigation", { name: "Brand pages" }).getByRole("link", { name: "Overview" }).click();
      await page.waitForURL(`**/brands/${brandId}/overview`);
      expect(await dialog.count()).toBe(0);
      expectNothingUnsafe(page);
    },
  );

  pageTest(
    "Back at the moment Cancel closes the question asks again: the first question's closing does not cancel the second",
    async () => {
      await page.goto(articleUrl);
      await page.getByLabel("Title").fill("Choosing a CRM, again");
      expect(await asksBeforeUnload(page, true)).toBe(true);
      await page.getByRole("link", { name: "All articles" }).click();
      const dialog = page.getByRole("dialog", { name: "Leave without saving?" });
      await dialog.waitFor();
      // Cancel; and as the dialog closes, before the browser tells the page it closed (a task later),
      // Back to the list, as a quick Alt+Left can land.
      await page.evaluate(async (list) => {
        const element = document.querySelector("dialog[open]") as HTMLDialogElement;
        const closeEvent = new Promise((resolve) => element.addEventListener("close", resolve, { once: true }));
        new MutationObserver((_, observer) => {
          observer.disconnect();
          history.pushState(null, "", list);
          dispatchEvent(new PopStateEvent("popstate"));
        }).observe(element, { attributes: true, attributeFilter: ["open"] });
        [...element.querySelectorAll("button")].find((button) => button.textContent === "Cancel")?.click();
        await closeEvent;
      }, `/brands/${brandId}/articles`);
      // The question for the Back (it stayed closed: the first one's close event cancelled it).
      await dialog.waitFor({ timeout: 15_000 });
      expect(page.url()).toBe(articleUrl);
      await dialog.getByRole("button", { name: "Leave without saving" }).click();
      await page.waitForURL(`**/brands/${brandId}/articles`);
      await page.getByRole("heading", { name: "Articles", level: 1 }).waitFor();
      // Left: the browser is no longer asked to warn (twice in a full run on a loaded machine, the
      // next test's page.goto from this list was asked whether to leave).
      expect(await asksBeforeUnload(page, false)).toBe(false);
      expectNothingUnsafe(page);
    },
  );

  pageTest(
    "a save over a version saved meanwhile elsewhere writes nothing, keeps the text, and offers to replace theirs or load it",
    async () => {
      await page.goto(d.url(`/brands/${brandId}/articles/new`));
      await page.getByLabel("Title").fill("Shared article");
      await page.getByLabel("Markdown").fill("Our first draft.");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.waitForURL(/\/articles\/art_[a-z0-9]+$/);
      await page.getByRole("status").filter({ hasText: "Saved as a draft." }).waitFor();
      const id = new URL(page.url()).pathname.split("/").pop()!;
      type Read = { article: { title: string; markdown: string; description: string | null } };
      const read = async () => (await sessionTool<Read>(page, brandId, "get_article", { article_id: id })).article;

      // An AI client revises it behind the page's back; the page's save of its older text is refused.
      const theirs = "Our first draft.\n\nA paragraph from the AI client.";
      await sessionTool(page, brandId, "update_article", { article_id: id, markdown: theirs });
      await page.getByLabel("Description (optional)").fill("Mine");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByRole("alert").filter({ hasText: "Someone saved this article after you opened it" }).waitFor();
      expect(await read()).toMatchObject({ markdown: theirs, description: null });
      expect(await page.getByLabel("Description (optional)").inputValue()).toBe("Mine");
      await expectAccessible(page, "article-conflict");
      // Load theirs: their text in the form, the page's dropped.
      await page.getByRole("button", { name: "Load theirs" }).click();
      await page.getByRole("status").filter({ hasText: "Loaded the version saved at" }).waitFor();
      expect(await page.getByLabel("Markdown").inputValue()).toBe(theirs);
      expect(await page.getByLabel("Description (optional)").inputValue()).toBe("");

      // Once more, and this time the writer's own version replaces theirs.
      await sessionTool(page, brandId, "update_article", { article_id: id, title: "Renamed by the AI client" });
      await page.getByLabel("Description (optional)").fill("Mine again");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByRole("button", { name: "Replace theirs with mine" }).click();
      await page
        .getByRole("status")
        .filter({ hasText: /^Saved\.$/ })
        .waitFor();
      expect(await read()).toMatchObject({ title: "Shared article", markdown: theirs, description: "Mine again" });
      expect(await page.getByRole("alert").filter({ hasText: "Someone saved this article" }).count()).toBe(0);
      expectNothingUnsafe(page);
    },
  );

  pageTest("an article is deleted from its editor behind a confirmation, unsaved changes or not; the list says so", async () => {
    const made = await sessionTool<{ article: { id: string } }>(page, brandId, "create_article", {
      title: "Junk draft",
      markdown: "Nothing worth keeping.",
    });
    await page.goto(d.url(`/brands/${brandId}/articles/${made.article.id}`));
    expect(await page.getByLabel("Title").inputValue()).toBe("Junk draft");
    await page.getByLabel("Description (optional)").fill("typed, not saved");
    await page.getByRole("button", { name: "Delete…" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete “Junk draft”?" });
    await dialog.getByText("deleted for good; its slug is free again").waitFor();
    await expectAccessible(page, "article-delete-dialog");
    await dialog.getByRole("button", { name: "Delete the article" }).click();
    await page.waitForURL((url) => url.pathname === `/brands/${brandId}/articles`);
    await page.getByRole("status").filter({ hasText: "Deleted the draft “Junk draft”." }).waitFor();
    expect(await page.getByRole("link", { name: "Junk draft" }).count()).toBe(0);
    expectNothingUnsafe(page);
  });

  pageTest("a retitled article whose body starts with another heading says the site would show both; Ctrl+S saves", async () => {
    const made = await sessionTool<{ article: { id: string } }>(page, brandId, "create_article", {
      title: "The Complete Guide",
      markdown: "# The Complete Guide\n\nBody.",
    });
    await page.goto(d.url(`/brands/${brandId}/articles/${made.article.id}`));
    expect(await page.getByLabel("Title").inputValue()).toBe("The Complete Guide");
    expect(await page.getByText("readers would see both").count()).toBe(0);
    await page.getByLabel("Title").fill("The Ultimate Guide");
    await page.getByText("The body starts with the heading “The Complete Guide”, which is not the title").waitFor();
    await page.keyboard.press("Control+s");
    await page
      .getByRole("status")
      .filter({ hasText: /^Saved\.$/ })
      .waitFor();
    const saved = await sessionTool<{ article: { title: string } }>(page, brandId, "get_article", { article_id: made.article.id });
    expect(saved.article.title).toBe("The Ultimate Guide");
  });

  pageTest("signed out while editing: Save says so, sends nothing and keeps the text", async () => {
    const made = await sessionTool<{ article: { id: string } }>(page, brandId, "create_article", {
      title: "Signed out",
      markdown: "Body.",
    });
    await page.goto(d.url(`/brands/${brandId}/articles/${made.article.id}`));
    expect(await page.getByLabel("Title").inputValue()).toBe("Signed out");
    const saved = await page.getByLabel("Description (optional)").inputValue();
    await page.getByLabel("Description (optional)").fill("typed while signed out");
    // The session ends elsewhere (another tab signs out).
    await page.evaluate(() => fetch("/api/auth/logout", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }));
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByRole("alert").filter({ hasText: "You are signed out (the session ended), so nothing was sent." }).waitFor();
    expect(await page.getByLabel("Description (optional)").inputValue()).toBe("typed while signed out");
    // Back as it was (nothing unsaved, so leaving asks nothing), and signed in again for the next tests.
    await page.getByLabel("Description (optional)").fill(saved);
    await page.getByText("Unsaved changes").waitFor({ state: "detached" });
    // Signed in again from the page itself (a navigation now could meet the app's own), for the next tests.
    const login = await page.evaluate(
      async (who) =>
        (await fetch("/api/auth/login", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(who) }))
          .status,
      AUTOPILOT,
    );
    expect(login).toBe(200);
  });
});

describe("the article editor, for a brand with more prompts than a list can hold", () => {
  pageTest(
    "the select shows the first 200 and the linked prompt; Find a prompt searches the rest, and Enter there saves nothing",
    async () => {
      const big = await createBrand(AUTOPILOT.email, "Bigco");
      const ids: string[] = [];
      for (let batch = 0; batch < 3; batch++) {
        const prompts = Array.from({ length: 100 }, (_, i) => ({ text: `question number ${String(batch * 100 + i).padStart(3, "0")}` }));
        const created = await sessionTool<{ created: Array<{ id: string }> }>(page, big.id, "create_prompts", { prompts });
        ids.push(...created.created.map((p) => p.id));
      }
      // Linked to a prompt past the first page: the select names it all the same.
      const made = await sessionTool<{ article: { id: string } }>(page, big.id, "create_article", {
        title: "Many questions",
        markdown: "Answers.",
        prompt_id: ids[250],
      });
      await page.goto(d.url(`/brands/${big.id}/articles/${made.article.id}`));
      const choice = page.getByLabel("Prompt this article answers");
      await choice.locator("option", { hasText: "question number 199" }).waitFor({ state: "attached" });
      expect(await choice.inputValue()).toBe(ids[250]!);
      const options = await choice.locator("option").allTextContents();
      expect(options.slice(0, 3)).toEqual(["None", "question number 250", "question number 000"]);
      expect(options).toHaveLength(202);
      const search = page.getByLabel("Find a prompt");
      await page.getByText("The brand tracks more than 200 prompts: the list below shows the first 200.", { exact: false }).waitFor();

      await search.fill("number 27");
      await page.getByText("10 prompts contain “number 27”: the list below shows them.").waitFor();
      expect(await choice.locator("option").allTextContents()).toEqual([
        "None",
        "question number 250",
        ...Array.from({ length: 10 }, (_, i) => `question number 27${i}`),
      ]);
      await choice.selectOption({ label: "question number 274" });
      // Enter in the search field searches; it does not save the article.
      await search.fill("number 1");
      await search.press("Enter");
      await page.getByText("The first 50 prompts containing “number 1” are in the list below", { exact: false }).waitFor();
      expect(await choice.locator("option").nth(1).textContent()).toBe("question number 274");
      expect(await choice.inputValue()).toBe(ids[274]!);
      await page.getByText("Unsaved changes", { exact: true }).waitFor();
      expect(
        (await sessionTool<{ article: { prompt_id: string } }>(page, big.id, "get_article", { article_id: made.article.id })).article
          .prompt_id,
      ).toBe(ids[250]!);
      await search.fill("no such question");
      await page.getByText("No prompt contains “no such question”.").waitFor();

      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page
        .getByRole("status")
        .filter({ hasText: /^Saved/ })
        .waitFor();
      const saved = await sessionTool<{ article: { prompt_id: string; prompt_text: string } }>(page, big.id, "get_article", {
        article_id: made.article.id,
      });
      expect(saved.article).toMatchObject({ prompt_id: ids[274], prompt_text: "question number 274" });
      await expectAccessible(page, "article-many-prompts");
      await search.fill("number 27");
      await page.getByText("10 prompts contain “number 27”: the list below shows them.").waitFor();
      await photograph(page, "article-many-prompts", repaintPreview);
      expectNothingUnsafe(page);
    },
  );
});

describe("the writer, when the server has one", () => {
  test("Draft with the writer opens the model's draft, sanitized, in the editor", async () => {
    const writer = startFakeOpenAI({
      apiKey: "sk-dash-writer",
      fallback: answer(
        "---\ntitle: Written by the model\ndescription: Drafted from the brief.\n---\n# Written by the model\n\n## Why it matters\n\nA **fine** answer.<script>alert(1)</script>",
      ),
    });
    const own = await openDashboard({
      toml: `[tracking]\nenabled = false\n\n[writer]\napi = "openai"\nbase_url = "${writer.url}"\nmodel = "writer-dash"\napi_key_env = "DASH_WRITER_KEY"\nmax_retries = 0\n`,
      env: { DASH_WRITER_KEY: "sk-dash-writer" },
    });
    try {
      expect(
        (await own.box.cli(["account", "create", "--email", AUTOPILOT.email, "--password", AUTOPILOT.password, "--plan", "autopilot"]))
          .code,
      ).toBe(0);
      const brand = (await own.box.cliJson(["brand", "create", "--email", AUTOPILOT.email, "--name", "Acme"])) as {
        brand?: { id: string };
        id: string;
      };
      const id = brand.brand?.id ?? brand.id;
      const p = await own.page();
      await p.goto(own.url("/sign-in"));
      await p.getByLabel("Email").fill(AUTOPILOT.email);
      await p.getByLabel("Password").fill(AUTOPILOT.password);
      await p.getByRole("button", { name: "Sign in" }).click();
      await p.waitForURL(/\/brands\/brd_/);
      await p.goto(own.url(`/brands/${id}/articles`));
      // The form opens on its first field, and Cancel gives the keyboard back to the button.
      await p.getByRole("button", { name: "Draft with the writer" }).click();
      await expectFocus(p.getByLabel("Topic"));
      await p.getByRole("button", { name: "Cancel" }).click();
      await expectFocus(p.getByRole("button", { name: "Draft with the writer" }));
      await p.keyboard.press("Enter");
      // A topic too short once trimmed (the browser counted its spaces) is said under it, in words.
      await p.getByLabel("Topic").fill("  ab  ");
      await p.getByRole("button", { name: "Draft the article" }).click();
      await p.locator(".field-error").filter({ hasText: "Must be at least 3 characters." }).waitFor();
      expect(await p.getByLabel("Topic").getAttribute("aria-invalid")).toBe("true");
      expect(await p.getByText("generate_article").count()).toBe(0);
      await p.getByLabel("Topic").fill("choosing a CRM for a startup");
      await p.getByLabel("Length").selectOption("short");
      // A draft that fails (the server out of reach, once) keeps what was typed and the keyboard where it was.
      await p.route("**/tools/generate_article", (route) => route.abort("connectionrefused"), { times: 1 });
      await p.getByRole("button", { name: "Draft the article" }).focus();
      await p.keyboard.press("Enter");
      await p.getByRole("alert").filter({ hasText: "The server could not be reached" }).waitFor();
      expect(await p.getByLabel("Topic").inputValue()).toBe("choosing a CRM for a startup");
      expect(await p.getByLabel("Length").inputValue()).toBe("short");
      await expectFocus(p.getByRole("button", { name: "Draft the article" }));
      await p.getByRole("button", { name: "Draft the article" }).click();
      await p.waitForURL(/\/articles\/art_[a-z0-9]+$/);
      // The preview frame is rebuilt when the saved HTML arrives: wait for its final document first, so
      // the frame is not looked into while it is being replaced.
      await p.waitForFunction(() =>
        document.querySelector("iframe[title='Preview of the saved article']")?.getAttribute("srcdoc")?.includes("Why it matters"),
      );
      expect(await p.getByLabel("Title").inputValue()).toBe("Written by the model");
      await p.frameLocator("iframe[title='Preview of the saved article']").getByRole("heading", { name: "Why it matters" }).waitFor();
      expect(await p.frameLocator("iframe[title='Preview of the saved article']").locator("script").count()).toBe(0);
      expect(writer.requests.at(-1)!.prompt).toContain("choosing a CRM for a startup");
      expectNothingUnsafe(p);
    } finally {
      await own.close();
      await writer.stop();
    }
  });
});
