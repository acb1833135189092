// The dashboard when things happen quickly or out of order, in headless Chromium against the
// compiled binary (each case from a review that held chosen answers back with page.route): a save
// still on its way when the person leaves, text typed while a save is on its way, the same page of
// another brand while brand A's save is on its way, a double click on a form without a busy state,
// Escape while a confirmed step is under way, and two tabs editing the same prompt.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type Page } from "playwright-core";
import {
  type Dashboard,
  expectFocus,
  expectNothingUnsafe,
  explainedOnFailure,
  openDashboard,
  sessionTool,
  signIn,
} from "../support/dashboard";

setDefaultTimeout(60_000);

const OWNER = { email: "owner@example.com", password: "a long password" };

let d: Dashboard;
let page: Page;
let acme: string;
let beta: string;

/** Holds the page's calls of `tool` until the returned release() (each held call, in order). */
async function hold(p: Page, tool: string): Promise<{ release(): void; sent: Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let sent!: () => void;
  const arrived = new Promise<void>((resolve) => {
    sent = resolve;
  });
  await p.route(
    `**/tools/${tool}`,
    async (route) => {
      sent();
      await released;
      await route.continue();
    },
    { times: 1 },
  );
  return { release, sent: arrived };
}

/** Lets the page run what follows an answer it has just had (its continuations and a frame). */
function settle(p: Page): Promise<unknown> {
  return p.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50))));
}

function pageTest(name: string, body: () => Promise<void>): void {
  test(
    name,
    explainedOnFailure(() => page, name, body),
  );
}

beforeAll(async () => {
  d = await openDashboard();
  expect((await d.box.cli(["account", "create", "--email", OWNER.email, "--password", OWNER.password, "--plan", "autopilot"])).code).toBe(
    0,
  );
  acme = (await d.box.cliJson(["brand", "create", "--email", OWNER.email, "--name", "Acme", "--domain", "acme.com"])).id;
  beta = (await d.box.cliJson(["brand", "create", "--email", OWNER.email, "--name", "Beta", "--domain", "beta.com"])).id;
  page = await d.page();
  await signIn(d, page, OWNER);
});

afterAll(async () => {
  await d?.close();
});

describe("a save on its way", () => {
  pageTest("a new article saved, then left without waiting: the draft is stored and the person stays where they went", async () => {
    await page.goto(d.url(`/brands/${acme}/articles/new`));
    await page.getByLabel("Title").fill("Left behind");
    await page.getByLabel("Markdown").fill("Saved while the person went elsewhere.");
    const held = await hold(page, "create_article");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await held.sent;
    await page.getByRole("link", { name: "All articles" }).click();
    const dialog = page.getByRole("dialog", { name: "Leave without saving?" });
    await dialog.getByText("A save of your changes is under way. If you leave this page and it fails, they are lost").waitFor();
    await dialog.getByRole("button", { name: "Leave without saving" }).click();
    await page.waitForURL(`**/brands/${acme}/articles`);
    const answered = page.waitForResponse("**/tools/create_article");
    held.release();
    await answered;
    await settle(page);
    // It was pulled back to the new article's editor, over the page the person had chosen.
    expect(new URL(page.url()).pathname).toBe(`/brands/${acme}/articles`);
    const list = await sessionTool<{ articles: Array<{ title: string }> }>(page, acme, "list_articles", {});
    expect(list.articles.map((a) => a.title)).toContain("Left behind");
    expectNothingUnsafe(page);
  });

  pageTest("what is typed while a save is on its way stays in the editor, and the page says it is not saved yet", async () => {
    const made = await sessionTool<{ article: { id: string } }>(page, acme, "create_article", { title: "Typed on", markdown: "First." });
    await page.goto(d.url(`/brands/${acme}/articles/${made.article.id}`));
    const body = page.getByLabel("Markdown");
    await body.fill("First, edited.");
    const held = await hold(page, "update_article");
    await page.keyboard.press("Control+s");
    await held.sent;
    await body.press("End");
    await body.pressSequentially(" Typed while saving.");
    held.release();
    await page.getByRole("status").filter({ hasText: "Saved. What you typed since is not saved yet." }).waitFor();
    expect(await body.inputValue()).toBe("First, edited. Typed while saving.");
    await page.getByText("Unsaved changes", { exact: true }).waitFor();
    const stored = await sessionTool<{ article: { markdown: string } }>(page, acme, "get_article", { article_id: made.article.id });
    expect(stored.article.markdown).toBe("First, edited.");
    // Saved again, all of it is.
    await page.keyboard.press("Control+s");
    await page
      .getByRole("status")
      .filter({ hasText: /^Saved\.$/ })
      .waitFor();
    const again = await sessionTool<{ article: { markdown: string } }>(page, acme, "get_article", { article_id: made.article.id });
    expect(again.article.markdown).toBe("First, edited. Typed while saving.");
  });

  pageTest(
    "asked to leave while a save is on its way, the page goes where the person asked once the save has stored everything",
    async () => {
      const made = await sessionTool<{ article: { id: string } }>(page, acme, "create_article", {
        title: "Saved meanwhile",
        markdown: "One.",
      });
      await page.goto(d.url(`/brands/${acme}/articles/${made.article.id}`));
      await page.getByLabel("Markdown").fill("One, then two.");
      const held = await hold(page, "update_article");
      await page.keyboard.press("Control+s");
      await held.sent;
      await page.getByRole("link", { name: "All articles" }).click();
      const dialog = page.getByRole("dialog", { name: "Leave without saving?" });
      await dialog.getByText("A save of your changes is under way.").waitFor();
      held.release();
      // Nothing left to lose: the question goes, and the page is where the person asked to go.
      await page.waitForURL(`**/brands/${acme}/articles`);
      await page.getByRole("heading", { name: "Articles", level: 1 }).waitFor();
      expect(await dialog.count()).toBe(0);
      const stored = await sessionTool<{ article: { markdown: string } }>(page, acme, "get_article", { article_id: made.article.id });
      expect(stored.article.markdown).toBe("One, then two.");
      expectNothingUnsafe(page);
    },
  );
});

/**
 * A page whose first field matching `selector` is typed into in the same task as it is shown, before
 * any frame: what a person or a test types at once, every time.
 */
async function typingAtOnce(selector: string, text: string): Promise<Page> {
  const early = await d.page();
  await signIn(d, early, OWNER);
  await early.addInitScript(
    ([selector, text]) => {
      new MutationObserver((_changes, observer) => {
        const input = document.querySelector<HTMLInputElement>(selector);
        if (!input) return;
        observer.disconnect();
        input.value = text;
        input.dispatchEvent(new Event("input", { bubbles: true }));
      }).observe(document, { childList: true, subtree: true });
    },
    [selector, text] as const,
  );
  return early;
}

describe("typed at once", () => {
  // Forms that set their fields in an effect, which runs a frame after the form is shown, wiped what
  // was typed in that frame (a fill on a loaded machine saved the brand's old name).
  test("a name typed in the brand form's first frame stays, and is what Save stores", async () => {
    const early = await typingAtOnce('form[aria-label="Edit the brand"] input', "Acme Typed Early");
    await early.goto(d.url(`/brands/${acme}`));
    const name = early.getByLabel("Name", { exact: true });
    await name.waitFor();
    await settle(early);
    await settle(early);
    expect(await name.inputValue()).toBe("Acme Typed Early");
    await early.getByRole("button", { name: "Save", exact: true }).click();
    await early.getByText("Saved.", { exact: true }).waitFor();
    const stored = await sessionTool<{ brand: { name: string } }>(early, acme, "get_brand", {});
    expect(stored.brand.name).toBe("Acme Typed Early");
    await sessionTool(early, acme, "update_brand", { name: "Acme" });
    expectNothingUnsafe(early);
    await early.close();
  });

  test("a title typed in a new article's first frame stays", async () => {
    const early = await typingAtOnce('form[aria-label="The article"] input', "Typed at once");
    await early.goto(d.url(`/brands/${acme}/articles/new`));
    const title = early.getByLabel("Title");
    await title.waitFor();
    await settle(early);
    await settle(early);
    expect(await title.inputValue()).toBe("Typed at once");
    expectNothingUnsafe(early);
    await early.close();
  });
});

describe("the same page of another brand", () => {
  pageTest("brand A's save, answered after the switch to B, leaves B's form, name and message alone", async () => {
    await page.goto(d.url(`/brands/${acme}`));
    const name = page.getByLabel("Name", { exact: true });
    await name.fill("Acme Renamed");
    const held = await hold(page, "update_brand");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await held.sent;
    await name.pressSequentially("!");
    await page.getByLabel("Brand", { exact: true }).selectOption(beta);
    await page.waitForURL(`**/brands/${beta}`);
    const answered = page.waitForResponse("**/tools/update_brand");
    held.release();
    await answered;
    await settle(page);
    await page.getByRole("heading", { name: "Beta", level: 1 }).waitFor();
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Beta");
    expect(await page.getByText("Saved.", { exact: true }).count()).toBe(0);
    // Saving B now saves B as it is: A's values are not carried over.
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved.", { exact: true }).waitFor();
    const b = await sessionTool<{ brand: { name: string; domain: string | null } }>(page, beta, "get_brand", {});
    expect({ name: b.brand.name, domain: b.brand.domain }).toEqual({ name: "Beta", domain: "beta.com" });
    const a = await sessionTool<{ brand: { name: string } }>(page, acme, "get_brand", {});
    expect(a.brand.name).toBe("Acme Renamed");
  });

  pageTest("a message and an open question of brand A's page do not follow to B's (Back, under the question)", async () => {
    // B's Tags, then A's through the switcher: Back from A's returns to B's in the same document.
    await page.goto(d.url(`/brands/${beta}/tags`));
    await page.getByRole("heading", { name: "Tags", level: 1 }).waitFor();
    await page.getByLabel("Brand", { exact: true }).selectOption(acme);
    await page.waitForURL(`**/brands/${acme}/tags`);
    await page.getByLabel("Tag name", { exact: true }).fill("only-acme");
    await page.getByRole("button", { name: "Create the tag" }).click();
    await page.getByText("Created the tag “only-acme”").waitFor();
    await page.getByRole("button", { name: "Delete tag only-acme" }).click();
    await page.getByRole("dialog", { name: "Delete this tag?" }).waitFor();
    await page.goBack();
    await page.waitForURL(`**/brands/${beta}/tags`);
    await page.getByRole("heading", { name: "Tags", level: 1 }).waitFor();
    await settle(page);
    expect(await page.getByText("Created the tag “only-acme”").count()).toBe(0);
    expect(await page.getByRole("dialog").count()).toBe(0);
  });
});

describe("a step under way", () => {
  pageTest(
    "Escape while a confirmed deletion is under way does not close its dialog (it looked cancelled while the step went on)",
    async () => {
      await sessionTool(page, acme, "create_tag", { name: "to-delete" });
      await page.goto(d.url(`/brands/${acme}/tags`));
      await page.getByRole("button", { name: "Delete tag to-delete" }).click();
      const dialog = page.getByRole("dialog", { name: "Delete this tag?" });
      await dialog.waitFor();
      const held = await hold(page, "delete_tag");
      await dialog.getByRole("button", { name: "Delete", exact: true }).click();
      await held.sent;
      await page.keyboard.press("Escape");
      await settle(page);
      expect(await dialog.isVisible()).toBe(true);
      expect(await dialog.getByRole("button", { name: "Cancel" }).isDisabled()).toBe(true);
      held.release();
      await dialog.waitFor({ state: "hidden" });
      await page.getByText("Deleted the tag").waitFor();
    },
  );

  pageTest("a double click on Create the account creates one account and says so once", async () => {
    await page.goto(d.url("/accounts"));
    const form = page.getByRole("form", { name: "Create an account" });
    await form.getByLabel("Email").fill("second@example.com");
    await form.getByLabel("Password").fill("another long password");
    let posts = 0;
    page.on("request", (request) => {
      if (request.method() === "POST" && new URL(request.url()).pathname === "/api/accounts") posts++;
    });
    await form.getByRole("button", { name: "Create the account" }).dblclick();
    await form.getByText("Created the account second@example.com.").waitFor();
    await settle(page);
    expect(posts).toBe(1);
    expect(await form.getByText("already exists").count()).toBe(0);
    // The same email again: said under the email, with the keyboard there to correct it.
    await form.getByLabel("Email").fill("second@example.com");
    await form.getByLabel("Password").fill("another long password");
    await form.getByRole("button", { name: "Create the account" }).click();
    await form.locator(".field-error").filter({ hasText: "An account with this email already exists." }).waitFor();
    expect(await form.getByLabel("Email").getAttribute("aria-invalid")).toBe("true");
    await expectFocus(form.getByLabel("Email"));
    // Typed anew, the email is no longer said to be taken (the sentence stayed beside any email).
    await form.getByLabel("Email").fill("third@example.com");
    await form.locator(".field-error").waitFor({ state: "detached" });
    expect(await form.getByLabel("Email").getAttribute("aria-invalid")).toBeNull();
  });
});

describe("edits in place", () => {
  pageTest("a tag's colour turned on from none is saved, and a field left alone is not sent back over another tab's change", async () => {
    const made = await sessionTool<{ tag: { id: string } }>(page, acme, "create_tag", { name: "colourless" });
    await page.goto(d.url(`/brands/${acme}/tags`));
    await page.getByRole("button", { name: "Edit tag colourless" }).click();
    // Named after the tag as the list reads it now (another tab renames it below).
    const form = page.getByRole("form", { name: /^Edit tag / });
    await form.getByLabel("No colour").uncheck();
    // Meanwhile another tab renames the tag, and this page reads the list again (a tag created here).
    await sessionTool(page, acme, "update_tag", { tag_id: made.tag.id, name: "renamed-elsewhere" });
    await page.getByLabel("Tag name", { exact: true }).last().fill("another-tag");
    await page.getByRole("button", { name: "Create the tag" }).click();
    await page.getByText("Created the tag “another-tag”").waitFor();
    await form.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText(/^Saved the tag/).waitFor();
    const tags = await sessionTool<{ tags: Array<{ id: string; name: string; color: string | null }> }>(page, acme, "list_tags", {});
    const tag = tags.tags.find((t) => t.id === made.tag.id)!;
    // The colour turned on is stored; the name, untouched in this form, stays the other tab's.
    expect({ name: tag.name, color: tag.color?.toLowerCase() }).toEqual({ name: "renamed-elsewhere", color: "#3b82f6" });
  });
});

describe("signed out meanwhile", () => {
  pageTest("a page whose load finds the session ended says so, and its link leads to the sign-in form, then back", async () => {
    const other = await d.page();
    try {
      await signIn(d, other, OWNER);
      await other.goto(d.url(`/brands/${acme}/overview`));
      await other.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
      await other.context().clearCookies();
      await other.getByRole("navigation", { name: "Brand pages" }).getByRole("link", { name: "Prompts" }).click();
      const notice = other.getByRole("alert").filter({ hasText: "You are signed out (the session ended), so this could not be shown." });
      await notice.first().waitFor();
      await notice.first().getByRole("link", { name: "Sign in again" }).click();
      await other.getByRole("button", { name: "Sign in" }).waitFor();
      await other.getByLabel("Email").fill(OWNER.email);
      await other.getByLabel("Password").fill(OWNER.password);
      await other.getByRole("button", { name: "Sign in" }).click();
      await other.waitForURL(`**/brands/${acme}/prompts`);
      await other.getByRole("heading", { name: "Prompts", level: 1 }).waitFor();
    } finally {
      await other.close();
    }
  });
});

describe("two tabs", () => {
  pageTest("two tabs editing one prompt's different fields keep both changes", async () => {
    const created = await sessionTool<{ created: Array<{ id: string }> }>(page, acme, "create_prompts", {
      prompts: [{ text: "best crm for two tabs" }],
    });
    const promptId = created.created[0]!.id;
    const other = await page.context().newPage();
    try {
      for (const tab of [page, other]) {
        await tab.goto(d.url(`/brands/${acme}/prompts`));
        await tab.getByRole("button", { name: "Edit prompt best crm for two tabs" }).click();
      }
      await page
        .getByRole("form", { name: /^Edit prompt/ })
        .getByLabel("Tags")
        .fill("from-tab-one");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByText("Saved the prompt").waitFor();
      await other
        .getByRole("form", { name: /^Edit prompt/ })
        .getByLabel("Country")
        .fill("US");
      await other.getByRole("button", { name: "Save", exact: true }).click();
      await other.getByText("Saved the prompt").waitFor();
    } finally {
      await other.close();
    }
    const listed = await sessionTool<{ prompts: Array<{ id: string; tags: string[]; country: string | null }> }>(
      page,
      acme,
      "list_prompts",
      {},
    );
    const prompt = listed.prompts.find((p) => p.id === promptId)!;
    expect({ tags: prompt.tags, country: prompt.country }).toEqual({ tags: ["from-tab-one"], country: "US" });
  });
});
