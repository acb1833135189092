// The Prompts, Tags and Competitors pages in headless Chromium against the compiled binary: bulk add
// with a duplicate reported, filters in the URL across a reload, edits in place, archive and
// restore, tags and competitors created, edited and deleted behind confirmations, markup in names
// shown as text, the page's writes read back through the session door and an MCP client, a plan
// too small, keyboard-only use, axe-core and screenshots at 1280 and 390 px in light and dark.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type Locator, type Page, type Request } from "playwright-core";
import {
  type Dashboard,
  expectAccessible,
  expectFocus,
  expectNothingUnsafe,
  openDashboard,
  photograph,
  screenshot,
  signIn,
} from "../support/dashboard";
import { call, connect } from "../support/mcp";

const USER = { email: "roster@example.com", password: "a long password" };
const HOSTILE_PROMPT = `<img src=x onerror=alert(1)> best CRM`;
const HOSTILE_TAG = `"><script>alert(1)</script>`;
const HOSTILE_COMPETITOR = `<img src=x onerror=alert(1)>`;

setDefaultTimeout(60_000);

let d: Dashboard;
let page: Page;
let brandId: string;

/** Runs a tool through the session door with the page's cookie, as the page itself does. */
async function viaSession(name: string, input: Record<string, unknown>): Promise<any> {
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  const res = await fetch(d.url(`/api/brands/${brandId}/tools/${name}`), {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify(input),
  });
  expect(res.status).toBe(200);
  return res.json();
}

/** Adds `lines` with the bulk add (no tags) and waits for its sentence `said`. */
async function bulkAdd(lines: string[], said: string): Promise<void> {
  await page.getByLabel("Prompts", { exact: true }).fill(lines.join("\n"));
  await page.getByRole("button", { name: "Add the prompts" }).click();
  await page.getByRole("status").filter({ hasText: said }).waitFor();
}

/** Presses Tab until `target` has focus (the keyboard's own way there). */
async function tabTo(target: Locator): Promise<void> {
  for (let i = 0; i < 120; i++) {
    if (await target.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press("Tab");
  }
  throw new Error("Tab never reached the control");
}

function row(name: string): Locator {
  return page.getByRole("row").filter({ has: page.getByRole("rowheader", { name, exact: true }) });
}

beforeAll(async () => {
  d = await openDashboard();
  expect((await d.box.cli(["account", "create", "--email", USER.email, "--password", USER.password, "--plan", "visibility"])).code).toBe(0);
  brandId = (await d.box.cliJson(["brand", "create", "--email", USER.email, "--name", "Acme", "--domain", "acme.com"])).id;
  page = await d.page();
  page.setDefaultTimeout(20_000);
  await signIn(d, page, { email: USER.email, password: USER.password });
});

afterAll(async () => {
  await d?.close();
});

describe("the Prompts page", () => {
  test("with no prompt yet it says what prompts are, with an example", async () => {
    await page.getByRole("link", { name: "Prompts", exact: true }).click();
    await page.waitForURL(`**/brands/${brandId}/prompts`);
    await page.getByRole("heading", { name: "No prompts yet" }).waitFor();
    expect(await page.getByText("best CRM for small agencies").count()).toBeGreaterThan(0);
    expect(await page.getByRole("link", { name: "Prompts", exact: true }).getAttribute("aria-current")).toBe("page");
    await expectAccessible(page, "prompts-empty");
    await photograph(page, "prompts-empty");
    // No prompt was ever archived, so there is nothing to show under "archived" (the next test's
    // brand, with one archived prompt, is offered it).
    await page.waitForLoadState("networkidle");
    expect(await page.getByRole("link", { name: "show the archived prompts" }).count()).toBe(0);
  });

  test("a brand whose prompts are all archived is offered them", async () => {
    const other = await d.box.cliJson<{ brand?: { id: string }; id?: string }>([
      "brand",
      "create",
      "--email",
      USER.email,
      "--name",
      "All archived",
    ]);
    const id = other.brand?.id ?? other.id;
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const tool = async (name: string, input: object) => {
      const res = await fetch(d.url(`/api/brands/${id}/tools/${name}`), {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: JSON.stringify(input),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { created: Array<{ id: string }> };
    };
    const { created } = await tool("create_prompts", { prompts: [{ text: "an archived question" }] });
    await tool("delete_prompt", { prompt_id: created[0]!.id });
    await page.goto(d.url(`/brands/${id}/prompts`));
    await page.getByRole("heading", { name: "No prompts yet" }).waitFor();
    await page.getByRole("link", { name: "show the archived prompts" }).click();
    await page.waitForURL(/[?&]archived=1/);
    await row("an archived question").waitFor();
    await page.goto(d.url(`/brands/${brandId}/prompts`));
    await page.getByRole("heading", { name: "No prompts yet" }).waitFor();
  });

  test("a bulk add creates the prompts, with markup as text, and reports the duplicate", async () => {
    await page
      .getByLabel("Prompts", { exact: true })
      .fill(
        ["best CRM for small agencies", "which CRM integrates with Gmail?", "", "Best CRM  for small agencies", HOSTILE_PROMPT].join("\n"),
      );
    await page.getByLabel("Tags for all of them (optional)").fill(`pricing, ${HOSTILE_TAG}`);
    await page.getByRole("button", { name: "Add the prompts" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: "Added 3 prompts. Listed more than once, added once: best CRM for small agencies." })
      .waitFor();
    await row(HOSTILE_PROMPT).waitFor();
    expect(await row("best CRM for small agencies").getByText(HOSTILE_TAG, { exact: true }).count()).toBe(1);
    expect(await page.getByRole("img").count()).toBe(0);
    expectNothingUnsafe(page);
    // What the page wrote is what the tools return.
    const listed = await viaSession("list_prompts", {});
    expect(listed.prompts.map((p: { text: string }) => p.text)).toEqual([
      "best CRM for small agencies",
      "which CRM integrates with Gmail?",
      HOSTILE_PROMPT,
    ]);
    expect(listed.prompts[2].tags.sort()).toEqual([HOSTILE_TAG, "pricing"].sort());
    // A text the brand tracks already is said as such, given twice or not: never "added once".
    await bulkAdd(
      ["Which CRM integrates with Gmail?", "which crm integrates with gmail?"],
      "Nothing new was added. Already tracked: Which CRM integrates with Gmail?",
    );
    expect(await page.getByText(/added once/).count()).toBe(0);
    expect((await viaSession("list_prompts", {})).prompts).toHaveLength(3);
  });

  test("search and tag filter live in the URL and survive a reload", async () => {
    await page.getByLabel("Search", { exact: true }).fill("crm");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/[?&]query=crm/);
    await page.getByLabel("Tag", { exact: true }).focus();
    await page.getByLabel("Tag", { exact: true }).selectOption("pricing");
    await page.waitForURL(/[?&]tag=pricing/);
    await row("which CRM integrates with Gmail?").waitFor();
    // The page stays put: the keyboard is still on the filter.
    expect(await page.getByLabel("Tag", { exact: true }).evaluate((el) => el === document.activeElement)).toBe(true);
    await row("which CRM integrates with Gmail?").waitFor();
    await page.getByLabel("Search", { exact: true }).fill("gmail");
    await page.getByLabel("Search", { exact: true }).press("Enter");
    await page.waitForURL(/query=gmail/);
    await row("best CRM for small agencies").waitFor({ state: "detached" });
    await page.reload();
    await row("which CRM integrates with Gmail?").waitFor();
    expect(await page.getByLabel("Search", { exact: true }).inputValue()).toBe("gmail");
    expect(await page.getByLabel("Tag", { exact: true }).inputValue()).toBe("pricing");
    expect(await row("best CRM for small agencies").count()).toBe(0);
    // A shared link opens the same selection.
    const other = await d.page();
    await signIn(d, other, { email: USER.email, password: USER.password });
    await other.goto(page.url());
    await other.getByRole("rowheader", { name: "which CRM integrates with Gmail?" }).waitFor();
    expect(await other.getByRole("rowheader").count()).toBe(1);
    await page.getByRole("link", { name: "Prompts", exact: true }).click();
    await page.waitForURL(`**/brands/${brandId}/prompts`);
    await row(HOSTILE_PROMPT).waitFor();
  });

  test("a prompt is edited in place: text, tags, country and language", async () => {
    await page.getByRole("button", { name: "Edit prompt which CRM integrates with Gmail?" }).click();
    const form = page.getByRole("form", { name: "Edit prompt which CRM integrates with Gmail?" });
    // The form takes the keyboard when it opens.
    await page.waitForFunction(() => document.activeElement?.tagName === "TEXTAREA");
    expect(await form.getByLabel("Prompt text").evaluate((el) => el === document.activeElement)).toBe(true);
    await expectAccessible(page, "prompts-edit");
    await photograph(page, "prompts-edit");
    await form.getByLabel("Prompt text").fill("which CRM integrates with Gmail and Outlook?");
    await form.getByLabel("Tags", { exact: true }).fill("integrations, pricing");
    await form.getByLabel("Country").fill("us");
    await form.getByLabel("Language").fill("en");
    await form.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved the prompt." }).waitFor();
    const edited = row("which CRM integrates with Gmail and Outlook?");
    await edited.getByRole("cell", { name: "US", exact: true }).waitFor();
    await edited.getByRole("cell", { name: "en", exact: true }).waitFor();
    expect(await edited.getByText("integrations", { exact: true }).count()).toBe(1);
    // The list reloads after a save: let it settle before opening the next row's form.
    await page.waitForLoadState("networkidle");
    // An error is the server's sentence.
    await page.getByRole("button", { name: "Edit prompt best CRM for small agencies" }).click();
    const again = page.getByRole("form", { name: "Edit prompt best CRM for small agencies" });
    await again.waitFor();
    await page.waitForFunction(() => document.activeElement?.tagName === "TEXTAREA");
    await again.getByLabel("Country").fill("U1");
    expect(await again.getByLabel("Country").inputValue()).toBe("U1");
    await again.getByRole("button", { name: "Save" }).click();
    // Under the field it is about, without the tool's name, and the keyboard there.
    await again.getByText("Must be a two-letter country code such as US or DE.").waitFor({ timeout: 30_000 });
    expect(await again.getByLabel("Country").getAttribute("aria-invalid")).toBe("true");
    await expectFocus(again.getByLabel("Country"));
    expect(await again.getByText("update_prompt").count()).toBe(0);
    await again.getByLabel("Country").fill("");
    // Another prompt's text: said under the text, without that prompt's id.
    await again.getByLabel("Prompt text").fill("Which CRM integrates with Gmail and Outlook?");
    await again.getByRole("button", { name: "Save" }).click();
    await again.getByText("Another prompt of this brand already has this text (compared ignoring case and spaces).").waitFor();
    expect(await again.getByLabel("Prompt text").getAttribute("aria-invalid")).toBe("true");
    expect(await again.getByText(/prm_/).count()).toBe(0);
    await photograph(page, "prompts-edit-error");
    // Blank: too short, under the text too.
    await again.getByLabel("Prompt text").fill(" ");
    await again.getByRole("button", { name: "Save" }).click();
    await again.getByText("Must be at least 3 characters.").waitFor();
    expect(await again.getByLabel("Prompt text").getAttribute("aria-invalid")).toBe("true");
    // Escape cancels, and the keyboard is back on the row's Edit button.
    await again.getByLabel("Prompt text").press("Escape");
    await again.waitFor({ state: "detached" });
    await expectFocus(page.getByRole("button", { name: "Edit prompt best CRM for small agencies" }));
    const listed = await viaSession("list_prompts", { query: "Outlook" });
    expect(listed.prompts).toEqual([
      expect.objectContaining({ text: "which CRM integrates with Gmail and Outlook?", country: "US", language: "en", archived: false }),
    ]);
    expect(listed.prompts[0].tags.sort()).toEqual(["integrations", "pricing"]);
  });

  test("a prompt is archived behind a confirmation naming it, then restored", async () => {
    await expectAccessible(page, "prompts");
    await photograph(page, "prompts");
    await page.getByRole("button", { name: "Archive prompt best CRM for small agencies" }).click();
    const dialog = page.getByRole("dialog", { name: "Archive this prompt?" });
    await dialog.waitFor();
    expect(await dialog.getByText("best CRM for small agencies", { exact: true }).count()).toBe(1);
    await expectAccessible(page, "prompts-archive-dialog");
    await screenshot(page, "prompts-archive-dialog");
    await dialog.getByRole("button", { name: "Archive" }).click();
    await page.getByRole("status").filter({ hasText: "Archived “best CRM for small agencies”." }).waitFor();
    expect(await row("best CRM for small agencies").count()).toBe(0);
    await page.getByLabel("Show archived").check();
    await page.waitForURL(/[?&]archived=1/);
    const archived = row("best CRM for small agencies");
    await archived.getByRole("cell", { name: "Archived" }).waitFor();
    await page.reload();
    expect(await page.getByLabel("Show archived").isChecked()).toBe(true);
    await archived.getByRole("button", { name: "Restore prompt best CRM for small agencies" }).click();
    await page.getByRole("status").filter({ hasText: "Restored “best CRM for small agencies”" }).waitFor();
    await archived.getByRole("cell", { name: "Tracked" }).waitFor();
    await expectFocus(archived.getByRole("button", { name: "Edit prompt best CRM for small agencies" }));
    const listed = await viaSession("list_prompts", { query: "small agencies" });
    expect(listed.prompts).toEqual([expect.objectContaining({ text: "best CRM for small agencies", archived: false })]);
    // A prompt's text is the way to its figures and answers, as on Prompt performance.
    await archived.getByRole("link", { name: "best CRM for small agencies", exact: true }).click();
    await page.waitForURL(`**/performance/${encodeURIComponent(listed.prompts[0].id)}`);
    // Its page is headed by the prompt itself.
    await page.getByRole("heading", { name: "best CRM for small agencies", level: 1, exact: true }).waitFor();
    await page.goBack();
    await archived.waitFor();
    expectNothingUnsafe(page);
  });

  test("the keyboard alone adds a prompt and archives it", async () => {
    await page.goto(d.url(`/brands/${brandId}/prompts`));
    await row(HOSTILE_PROMPT).waitFor();
    // The form is after every row of the list: "Add prompts", by the heading, takes the keyboard there.
    await tabTo(page.getByRole("button", { name: "Add prompts", exact: true }));
    await page.keyboard.press("Enter");
    await expectFocus(page.getByLabel("Prompts", { exact: true }));
    await page.keyboard.type("crm with the best keyboard support");
    await tabTo(page.getByRole("button", { name: "Add the prompts" }));
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Added 1 prompt." }).waitFor();
    // The keyboard is where it was, on the button (disabled while sending), not back at the page's top.
    await page.waitForFunction(() => document.activeElement?.textContent === "Add the prompts");
    const archive = page.getByRole("button", { name: "Archive prompt crm with the best keyboard support" });
    await tabTo(archive);
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Archive this prompt?" });
    await dialog.waitFor();
    await tabTo(dialog.getByRole("button", { name: "Archive" }));
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Archived “crm with the best keyboard support”." }).waitFor();
    expect(await row("crm with the best keyboard support").count()).toBe(0);
    // Focus stays in the page, on the list, not lost to the document.
    // The dialog's close event (a task after the dialog closes, and the browser's return of focus to
    // the control that opened it, now gone) moves the keyboard there: waited for, not read at once.
    await page.waitForFunction((heading) => document.activeElement?.textContent === heading, "Tracked prompts");
    // Its text added again, with a new one: the archived prompt is tracked again, and said apart.
    await bulkAdd(
      ["crm with the best keyboard support", "a question never asked before"],
      "Added 2 prompts. 1 of them was archived, and is tracked again with its earlier answers.",
    );
    await row("crm with the best keyboard support").waitFor();
  });
});

describe("many prompts", () => {
  test("lines too short or too long are named by their line in the box, and nothing is sent or lost", async () => {
    let calls = 0;
    const count = (request: Request) => {
      if (request.url().endsWith("/tools/create_prompts")) calls++;
    };
    page.on("request", count);
    const typed = `a fine prompt about crm\n\nok\n${"long ".repeat(101)}\nanother fine prompt`;
    await page.getByLabel("Prompts", { exact: true }).fill(typed);
    await page.getByRole("button", { name: "Add the prompts" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: "Nothing was added: a prompt has 3 to 500 characters; fix line 3 (too short), line 4 (504 characters)." })
      .waitFor();
    expect(calls).toBe(0);
    expect(await page.getByLabel("Prompts", { exact: true }).inputValue()).toBe(typed);
    // A tag over 50 characters is named as typed (the tool named it prompts[0].tags[1]), and nothing is sent.
    const longTag = "enterprise buyers comparing analytics suites in EMEA";
    await page.getByLabel("Prompts", { exact: true }).fill("a fine prompt about crm");
    await page.getByLabel("Tags for all of them (optional)").fill(`pricing, ${longTag}`);
    await page.getByRole("button", { name: "Add the prompts" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: `Nothing was added: a tag has at most 50 characters; shorten “${longTag}” (${longTag.length} characters).` })
      .waitFor();
    page.off("request", count);
    expect(calls).toBe(0);
    await page.getByLabel("Tags for all of them (optional)").fill("");
    // A country the tool refuses is said under Country, in words (it named it prompts[0].country),
    // with the keyboard there; the lines stay in the box and nothing is added.
    const lines = "a fine prompt about crm\nanother fine prompt";
    await page.getByLabel("Prompts", { exact: true }).fill(lines);
    await page.getByLabel("Country (optional)").fill("ZZ");
    await page.getByRole("button", { name: "Add the prompts" }).click();
    const form = page.getByRole("form", { name: "Add prompts" });
    await form.getByText("ZZ is no country's two-letter code (ISO 3166-1); give one such as US or DE.").waitFor();
    expect(await page.getByLabel("Country (optional)").getAttribute("aria-invalid")).toBe("true");
    await expectFocus(page.getByLabel("Country (optional)"));
    expect(await form.getByText("prompts[0]").count()).toBe(0);
    await photograph(page, "prompts-bulk-add-country-error");
    expect(await page.getByLabel("Prompts", { exact: true }).inputValue()).toBe(lines);
    expect((await viaSession("list_prompts", { query: "a fine prompt about crm" })).prompts).toEqual([]);
    // Retyped, the sentence goes.
    await page.getByLabel("Country (optional)").fill("");
    await form.getByText("ZZ is no country's two-letter code (ISO 3166-1); give one such as US or DE.").waitFor({ state: "detached" });
    // A language the tool's input check refuses, for each line: one sentence, under Language.
    await page.getByLabel("Language (optional)").fill("e");
    await page.getByRole("button", { name: "Add the prompts" }).click();
    await form
      .locator(".field-error")
      .filter({ hasText: /^Must be a language code such as en or pt-BR\.$/ })
      .waitFor();
    await expectFocus(page.getByLabel("Language (optional)"));
    expect(await form.getByRole("alert").filter({ hasText: "prompts[" }).count()).toBe(0);
    await page.getByLabel("Language (optional)").fill("");
    await page.getByLabel("Prompts", { exact: true }).fill("");
  });

  test("a paste of 120 lines is sent as calls of 100, and the list pages with More", async () => {
    const texts = Array.from({ length: 120 }, (_, i) => `generated prompt number ${i + 1}`);
    let calls = 0;
    const count = (request: Request) => {
      if (request.url().endsWith("/tools/create_prompts")) calls++;
    };
    page.on("request", count);
    await page.getByLabel("Prompts", { exact: true }).fill(texts.join("\n"));
    await page.getByLabel("Country (optional)").fill("de");
    await page.getByLabel("Language (optional)").fill("de-AT");
    await page.getByRole("button", { name: "Add the prompts" }).click();
    await page.getByRole("status").filter({ hasText: "Added 120 prompts." }).waitFor();
    page.off("request", count);
    expect(calls).toBe(2);
    expect(await page.getByLabel("Prompts", { exact: true }).inputValue()).toBe("");
    // 5 earlier prompts tracked + 120: pages of 50.
    const rows = page.getByRole("table").getByRole("rowheader");
    await row("generated prompt number 45").waitFor();
    expect(await rows.count()).toBe(50);
    await page.getByRole("button", { name: "More" }).click();
    await row("generated prompt number 95").waitFor();
    // The last page by the keyboard: the button goes, and the focus goes to the sentence in its place,
    // not to the page's body.
    await page.getByRole("button", { name: "More" }).focus();
    await page.keyboard.press("Enter");
    await row("generated prompt number 120").waitFor();
    expect(await rows.count()).toBe(125);
    await page.getByRole("button", { name: "More" }).waitFor({ state: "detached" });
    await expectFocus(page.getByText("That is the whole list."));
    const listed = await viaSession("list_prompts", { query: "generated prompt number 120" });
    expect(listed.prompts).toEqual([expect.objectContaining({ country: "DE", language: "de-AT", tags: [] })]);
  });
});

describe("the Tags page", () => {
  test("lists the tags with colour, name as text and prompt count; creates, renames and recolours one", async () => {
    await page.getByRole("link", { name: "Tags", exact: true }).click();
    await page.waitForURL(`**/brands/${brandId}/tags`);
    await row("pricing").waitFor();
    expect(await row(HOSTILE_TAG).count()).toBe(1);
    expect(await row("pricing").getByRole("link").textContent()).toBe("3");
    await page.getByLabel("Tag name").fill("Top of funnel");
    await page.getByLabel("Colour", { exact: true }).fill("#e11d48");
    await page.getByRole("button", { name: "Create the tag" }).click();
    await page.getByRole("status").filter({ hasText: "Created the tag “Top of funnel”." }).waitFor();
    await row("Top of funnel").getByRole("cell", { name: "#e11d48" }).waitFor();
    await expectAccessible(page, "tags");
    await photograph(page, "tags");

    await page.getByRole("button", { name: "Edit tag Top of funnel" }).click();
    const form = page.getByRole("form", { name: "Edit tag Top of funnel" });
    await form.getByLabel("Tag name").fill("Awareness");
    await form.getByLabel("Colour", { exact: true }).fill("#16a34a");
    await form.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved the tag “Awareness”." }).waitFor();
    await row("Awareness").getByRole("cell", { name: "#16a34a" }).waitFor();
    // A name another tag has is refused with the server's sentence.
    await page.getByRole("button", { name: "Edit tag Awareness" }).click();
    await page.getByRole("form", { name: "Edit tag Awareness" }).getByLabel("Tag name").fill("Pricing");
    await page.getByRole("form", { name: "Edit tag Awareness" }).getByRole("button", { name: "Save" }).click();
    // Under the name's field, which has the focus (a name taken is the name's problem).
    const editing = page.getByRole("form", { name: "Edit tag Awareness" });
    await editing.locator(".field-error").filter({ hasText: "Pricing" }).waitFor();
    await expectFocus(editing.getByRole("textbox", { name: "Tag name" }));
    expect(await editing.getByRole("textbox", { name: "Tag name" }).getAttribute("aria-invalid")).toBe("true");
    await editing.getByRole("button", { name: "Cancel" }).click();
    const listed = await viaSession("list_tags", {});
    expect(listed.tags).toContainEqual(expect.objectContaining({ name: "Awareness", color: "#16a34a", prompt_count: 0 }));
    expectNothingUnsafe(page);
  });

  test("a tag is deleted behind a confirmation; its prompts stay tracked", async () => {
    await page.getByRole("button", { name: "Delete tag integrations" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this tag?" });
    await dialog.getByText("integrations", { exact: true }).waitFor();
    await expectAccessible(page, "tags-delete-dialog");
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("status").filter({ hasText: "Deleted the tag “integrations”; its prompts are still tracked." }).waitFor();
    expect(await row("integrations").count()).toBe(0);
    // The row's button went with it: the keyboard is on the page's heading, not lost to the body.
    // (The notice comes a moment before the dialog closes.)
    await page.waitForFunction(() => document.activeElement?.tagName === "H1", undefined, { timeout: 5_000 });
    const listed = await viaSession("list_prompts", { query: "Outlook" });
    expect(listed.prompts).toEqual([expect.objectContaining({ tags: ["pricing"], archived: false })]);
    // The prompt count links to the tag's prompts.
    await row("pricing").getByRole("link").click();
    await page.waitForURL(/\/prompts\?tag=pricing$/);
    expect(await page.getByLabel("Tag", { exact: true }).inputValue()).toBe("pricing");
  });
});

describe("the Competitors page", () => {
  test("empty, it says what to add; a competitor named with markup is added with aliases and domains", async () => {
    await page.getByRole("link", { name: "Competitors", exact: true }).click();
    await page.waitForURL(`**/brands/${brandId}/competitors`);
    await page.getByRole("heading", { name: "No competitors yet" }).waitFor();
    expect(await page.getByText("re-analysed").count()).toBeGreaterThan(0);
    await expectAccessible(page, "competitors-empty");
    await photograph(page, "competitors-empty");
    await page.getByLabel("Competitor name").fill(HOSTILE_COMPETITOR);
    await page.getByLabel("Aliases").fill("Hub Spot\nHubSpot CRM");
    await page.getByLabel("Domains").fill("hubspot.com\nhttps://www.hubspot.de/pricing");
    await page.getByRole("button", { name: "Add the competitor" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: `Added the competitor “${HOSTILE_COMPETITOR}”.` })
      .waitFor();
    const added = row(HOSTILE_COMPETITOR);
    await added.getByText("hubspot.de", { exact: true }).waitFor();
    expect(await added.getByText("HubSpot CRM", { exact: true }).count()).toBe(1);
    expect(await page.getByRole("img").count()).toBe(0);
    await page.getByLabel("Competitor name").fill("Pipedrive");
    await page.getByRole("button", { name: "Add the competitor" }).click();
    await row("Pipedrive").waitFor();
    await expectAccessible(page, "competitors");
    await photograph(page, "competitors");
    expectNothingUnsafe(page);
  });

  test("a competitor is edited in place and deleted behind a confirmation; an MCP client sees the same roster", async () => {
    await page.getByRole("button", { name: `Edit competitor ${HOSTILE_COMPETITOR}` }).click();
    const form = page.getByRole("form", { name: `Edit competitor ${HOSTILE_COMPETITOR}` });
    expect(await form.getByLabel("Aliases").inputValue()).toBe("Hub Spot\nHubSpot CRM");
    await form.getByLabel("Competitor name").fill("HubSpot");
    await form.getByLabel("Aliases").fill("Hub Spot");
    await form.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved the competitor “HubSpot”." }).waitFor();
    await row("HubSpot").waitFor();
    // A name already taken is refused with the server's sentence, under the name's field, which is
    // marked invalid, described by it and given the focus.
    const add = page.getByRole("form", { name: "Add a competitor" });
    await add.getByLabel("Competitor name").fill("pipedrive");
    await page.getByRole("button", { name: "Add the competitor" }).click();
    const nameField = add.getByRole("textbox", { name: "Competitor name" });
    await add.locator(".field-error").filter({ hasText: "already exists for this brand" }).waitFor();
    expect(await nameField.getAttribute("aria-invalid")).toBe("true");
    await expectFocus(nameField);
    const described = (await nameField.getAttribute("aria-describedby"))!.split(" ");
    const texts = await Promise.all(described.map((id) => page.locator(`[id="${id}"]`).textContent()));
    expect(texts.some((t) => t?.includes("already exists for this brand"))).toBe(true);
    // A domain that is none, by its field, in words without the API's field path.
    await add.getByLabel("Competitor name").fill("Zoho");
    await add.getByLabel("Domains").fill("zoho.com\nnot a domain");
    await page.getByRole("button", { name: "Add the competitor" }).click();
    const domainsError = add.locator(".field-error").filter({ hasText: "is not a domain name" });
    await domainsError.waitFor();
    expect(await domainsError.textContent()).not.toContain("domains[");
    await expectFocus(add.getByRole("textbox", { name: "Domains" }));
    await expectAccessible(page, "competitor-field-error");
    await screenshot(page, "competitor-field-error");
    await add.getByLabel("Domains").fill("");
    await add.getByLabel("Competitor name").fill("");

    await page.getByRole("button", { name: "Delete competitor Pipedrive" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete this competitor?" });
    await dialog.getByText("Pipedrive", { exact: true }).waitFor();
    await expectAccessible(page, "competitors-delete-dialog");
    await screenshot(page, "competitors-delete-dialog");
    await dialog.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("status").filter({ hasText: "Deleted the competitor “Pipedrive”." }).waitFor();
    expect(await row("Pipedrive").count()).toBe(0);
    await page.waitForFunction(() => document.activeElement?.tagName === "H1", undefined, { timeout: 5_000 });

    const key = await d.box.cliJson(["key", "create", "--email", USER.email, "--brand", brandId, "--name", "check"]);
    const client = await connect(d.server.url, key.plaintext);
    try {
      const { data } = await call(client, "list_competitors", {});
      expect(data.competitors).toEqual([
        expect.objectContaining({ name: "HubSpot", aliases: ["Hub Spot"], domains: ["hubspot.com", "hubspot.de"] }),
      ]);
    } finally {
      await client.close();
    }
    expectNothingUnsafe(page);
  });
});

describe("a plan too small", () => {
  test("each page says the Visibility plan is needed", async () => {
    await d.box.cli(["account", "create", "--email", "free@example.com", "--password", USER.password, "--plan", "none"]);
    await d.box.cliJson(["brand", "create", "--email", "free@example.com", "--name", "Free brand"]);
    const free = await d.page();
    await signIn(d, free, { email: "free@example.com", password: USER.password });
    for (const [link, what] of [
      ["Prompts", "Tracking prompts needs the Visibility plan."],
      ["Tags", "Grouping prompts with tags needs the Visibility plan."],
      ["Competitors", "Tracking competitors needs the Visibility plan."],
    ] as const) {
      await free.getByRole("link", { name: link, exact: true }).click();
      await free.getByRole("status").filter({ hasText: what }).waitFor();
    }
    expectNothingUnsafe(free);
  });
});
