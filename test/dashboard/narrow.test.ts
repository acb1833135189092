// The dashboard on a phone (390 px), in headless Chromium against the compiled binary, on demo data:
// where a review found it hard to use. The brand's pages are one strip that scrolls sideways, and the
// current page is brought into sight (it was off-screen from Tags on); a long tag name no longer
// widens the analytics pages past the screen; the roster tables (tags, competitors, prompts) are cards,
// whose actions were off-screen to the right.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type Page } from "playwright-core";
import { type Dashboard, expectNothingUnsafe, openDashboard, photograph, sessionTool, signIn } from "../support/dashboard";

setDefaultTimeout(90_000);

let d: Dashboard;
let page: Page;
let brandId: string;
let login: { email: string; password: string };

/** How far the page scrolls sideways: 0 when it fits the screen. */
const sidewaysOverflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

beforeAll(async () => {
  d = await openDashboard();
  const demo = await d.box.cliJson(["demo", "--json"]);
  brandId = demo.brand.id;
  login = demo.login;
  page = await d.page({ width: 390, height: 844 });
  await signIn(d, page, demo.login);
});

afterAll(() => d.close());

describe("at 390 px", () => {
  test("the current page's link is in sight in the pages strip, clear of its faded edge", async () => {
    for (const [path, label] of [
      ["/competitors", "Competitors"],
      ["/keys", "API keys"],
      ["/tags", "Tags"],
    ] as const) {
      await page.goto(d.url(`/brands/${brandId}${path}`));
      const link = page.getByRole("navigation", { name: "Brand pages" }).getByRole("link", { name: label, exact: true });
      expect(await link.getAttribute("aria-current")).toBe("page");
      await page.waitForFunction(
        (name) => {
          const nav = document.querySelector("nav.brand-nav")!.getBoundingClientRect();
          const a = [...document.querySelectorAll("nav.brand-nav a")].find((x) => x.textContent === name)!.getBoundingClientRect();
          return a.left >= nav.left && a.right <= nav.right - 32;
        },
        label,
        { timeout: 15_000 },
      );
    }
    // The strip is faded where more pages hide, and only there: a strip scrolled to the end fades its
    // left edge (it cut a word there with no sign that more pages came before).
    const edges = () =>
      page.evaluate(() => {
        const nav = document.querySelector("nav.brand-nav")!;
        return {
          before: nav.hasAttribute("data-more-before"),
          after: nav.hasAttribute("data-more-after"),
          mask: getComputedStyle(nav).maskImage,
        };
      });
    await page.goto(d.url(`/brands/${brandId}/overview`));
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await page.waitForFunction(() => document.querySelector("nav.brand-nav")!.hasAttribute("data-more-after"));
    let seen = await edges();
    expect([seen.before, seen.after]).toEqual([false, true]);
    // Opaque from the left, transparent at the right edge.
    expect(seen.mask).toMatch(/^linear-gradient\(90deg, rgb\(0, 0, 0\) .*, rgba\(0, 0, 0, 0\)\)$/);
    await page.evaluate(() => {
      const nav = document.querySelector("nav.brand-nav")!;
      nav.scrollLeft = nav.scrollWidth;
    });
    await page.waitForFunction(() => !document.querySelector("nav.brand-nav")!.hasAttribute("data-more-after"));
    seen = await edges();
    expect([seen.before, seen.after]).toEqual([true, false]);
    expect(seen.mask).toMatch(/^linear-gradient\(270deg, rgb\(0, 0, 0\) .*, rgba\(0, 0, 0, 0\)\)$/);
    await page.evaluate(() => {
      const nav = document.querySelector("nav.brand-nav")!;
      nav.scrollLeft = (nav.scrollWidth - nav.clientWidth) / 2;
    });
    await page.waitForFunction(() => document.querySelector("nav.brand-nav")!.hasAttribute("data-more-after"));
    seen = await edges();
    expect([seen.before, seen.after]).toEqual([true, true]);
    expect(seen.mask).toMatch(/^linear-gradient\(90deg, rgba\(0, 0, 0, 0\), .*, rgba\(0, 0, 0, 0\)\)$/);
    // And when a wide window narrows to the strip.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(d.url(`/brands/${brandId}/competitors`));
    await page.getByRole("heading", { name: "Competitors", level: 1 }).waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForFunction(() => {
      const nav = document.querySelector("nav.brand-nav")!.getBoundingClientRect();
      const a = document.querySelector('nav.brand-nav a[aria-current="page"]')!.getBoundingClientRect();
      return a.left >= nav.left && a.right <= nav.right - 32;
    });
    await photograph(page, "narrow-nav-current");
  });

  test("the roster tables are cards: every row's actions are on the screen", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [path, edit] of [
      ["/tags", /^Edit tag /],
      ["/competitors", /^Edit competitor /],
      ["/prompts", /^Edit prompt /],
    ] as const) {
      await page.goto(d.url(`/brands/${brandId}${path}`));
      const button = page.getByRole("button", { name: edit }).first();
      await button.waitFor();
      const box = (await button.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(await sidewaysOverflow()).toBe(0);
    }
    // A prompt's four short facts share lines under its text, two lines at most (one a line made the
    // demo's 40 prompts ~9,000 px of cards); its actions are under them.
    const card = page.locator("table.roster-table tbody tr").first();
    const top = async (selector: string) => (await card.locator(selector).boundingBox())!.y;
    const facts = await Promise.all(["Tags", "Country", "Language", "Status"].map((label) => top(`td[data-label="${label}"]`)));
    const lines = facts.filter((y, i) => facts.findIndex((other) => Math.abs(other - y) < 4) === i);
    expect(lines.length).toBeLessThanOrEqual(2);
    expect(await top("td.row-action")).toBeGreaterThan(Math.max(...facts) + 10);
    await photograph(page, "narrow-prompts-cards");
    await page.setViewportSize({ width: 390, height: 844 });
  });

  test("the answers and sources tables are cards: every row's figures are on the screen, each named", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    // An answer's card is its prompt, then one line of facts that name themselves, then its date:
    // "Answered" and "Yes" said nothing there, and the cards were ~230 px each as a grid of named facts.
    await page.goto(d.url(`/brands/${brandId}/answers`));
    const answer = page.locator("table.answers-table tbody tr").first();
    await answer.waitFor();
    const engine = (await answer.locator("td.answer-engine").boundingBox())!;
    const mention = answer.locator('td[data-label="Brand mentioned"]');
    expect(await mention.locator(".narrow-only").textContent()).toMatch(/^(Mentioned|Not mentioned)$/);
    expect(await mention.locator(".narrow-only").isVisible()).toBe(true);
    expect(await mention.locator(".wide-only").isVisible()).toBe(false);
    expect(await mention.evaluate((td) => getComputedStyle(td, "::before").content)).toBe('" · "');
    expect(Math.abs((await mention.boundingBox())!.y - engine.y)).toBeLessThan(4);
    expect(await answer.locator('td[data-label="Status"]').isVisible()).toBe(false);
    expect((await answer.locator("td.answer-date").boundingBox())!.y).toBeGreaterThan(engine.y + 10);
    expect((await answer.boundingBox())!.height).toBeLessThan(140);
    expect(await sidewaysOverflow()).toBe(0);
    // The whole card is its link's target: a tap on its date opens the answer.
    const href = (await answer.locator("th a").getAttribute("href"))!;
    const date = (await answer.locator("td.answer-date").boundingBox())!;
    await page.mouse.click(date.x + date.width / 2, date.y + date.height / 2);
    await page.waitForURL((url) => url.pathname === href);
    // An answer that is not one says so on its card, and says no mention.
    await page.goto(d.url(`/brands/${brandId}/answers?status=error`));
    const failed = page.locator("table.answers-table tbody tr").first();
    await failed.locator(".badge.answer-status").waitFor();
    expect(await failed.locator('td[data-label="Brand mentioned"]').isVisible()).toBe(false);
    // The small link under a source's name is a target a finger can hit.
    await page.goto(d.url(`/brands/${brandId}/sources`));
    const citing = page.getByRole("link", { name: /^Answers citing / }).first();
    await citing.waitFor();
    expect((await citing.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await page.goto(d.url(`/brands/${brandId}/searches`));
    const searched = page.getByRole("link", { name: /^Answers that searched it/ }).first();
    await searched.waitFor();
    expect((await searched.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    for (const [path, table, label] of [
      ["/sources", "table.sources-table", "Citation share"],
      ["/searches", "table.searches-table", "Engines"],
    ] as const) {
      await page.goto(d.url(`/brands/${brandId}${path}`));
      const cell = page.locator(`${table} tbody tr`).first().locator(`td[data-label="${label}"]`);
      await cell.waitFor();
      const box = (await cell.boundingBox())!;
      expect({ path, right: box.x + box.width <= 390, left: box.x >= 0 }).toEqual({ path, right: true, left: true });
      expect(await cell.evaluate((td) => getComputedStyle(td, "::before").content)).toContain(label);
      expect(await sidewaysOverflow()).toBe(0);
    }
    await photograph(page, "narrow-answers-cards");
    await page.setViewportSize({ width: 390, height: 844 });
  });

  test("the site key wraps into even lines, not one character alone on the last", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(d.url(`/brands/${brandId}`));
    const key = page.getByRole("figure").filter({ hasText: "Site key" }).locator("pre code");
    await key.waitFor();
    const lines = await key.evaluate((code) => {
      const range = document.createRange();
      range.selectNodeContents(code);
      return [...range.getClientRects()].map((r) => r.width);
    });
    expect(lines.length).toBeGreaterThanOrEqual(1);
    expect(Math.min(...lines) / Math.max(...lines)).toBeGreaterThan(0.6);
    expect(await sidewaysOverflow()).toBe(0);
  });

  test("a tag name of 50 characters does not widen the overview past the screen", async () => {
    const name = "Enterprise buyers comparing analytics suites, EMEA";
    expect([...name].length).toBe(50);
    await page.setViewportSize({ width: 390, height: 844 });
    await sessionTool(page, brandId, "create_tag", { name });
    await page.goto(d.url(`/brands/${brandId}/overview`));
    await page.getByRole("button", { name: /^Filters/ }).click();
    const tag = page.getByRole("combobox", { name: "Tag", exact: true });
    await page.getByRole("option", { name }).waitFor({ state: "attached" });
    await tag.selectOption({ label: name });
    await page.waitForURL(/tag=/);
    expect(await sidewaysOverflow()).toBe(0);
    // The folded filters say so, the long name wrapping inside the button.
    await page.getByRole("button", { name: `Filters Last 30 days · All engines · ${name}` }).waitFor();
    expect(await sidewaysOverflow()).toBe(0);
    expectNothingUnsafe(page);
  });

  test("the filters fold under one button that says what they are set to; the figures come first", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(d.url(`/brands/${brandId}/overview?start=${new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10)}`));
    const toggle = page.getByRole("button", { name: "Filters Last 7 days · All engines · All tags" });
    await toggle.waitFor();
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    const period = page.getByRole("combobox", { name: "Period" });
    expect(await period.isVisible()).toBe(false);
    // The first figure is on the first screen, under the header (the fields took 200–270 px before it).
    const tile = page.getByRole("heading", { name: "Visibility", level: 3 });
    await tile.waitFor();
    expect((await tile.boundingBox())!.y).toBeLessThan(500);
    // By keyboard: the button opens them, the fields follow it in the Tab order, and choosing keeps them open.
    await toggle.focus();
    await page.keyboard.press("Enter");
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    await page.keyboard.press("Tab");
    expect(await period.evaluate((el) => el === document.activeElement)).toBe(true);
    await period.selectOption("30");
    await page.waitForURL((url) => !url.searchParams.has("start"));
    await page.getByRole("button", { name: "Filters Last 30 days · All engines · All tags" }).waitFor();
    expect(await period.isVisible()).toBe(true);
    // Opened, the fields are in the button's frame, right under it (they stood outside it).
    const fields = page.locator(".filter-fields[data-open]");
    const [button, frame] = await Promise.all([page.getByRole("button", { name: /^Filters/ }).boundingBox(), fields.boundingBox()]);
    expect(Math.abs(frame!.y - (button!.y + button!.height))).toBeLessThan(1.5);
    expect({ x: frame!.x, width: frame!.width }).toEqual({ x: button!.x, width: button!.width });
    expect(await fields.evaluate((el) => getComputedStyle(el).borderLeftWidth)).toBe("1px");
    await photograph(page, "narrow-filters-open");
    // On a wide screen there is nothing to fold: the fields show and the button does not.
    await page.setViewportSize({ width: 1280, height: 800 });
    expect(await period.isVisible()).toBe(true);
    expect(await page.getByRole("button", { name: /^Filters/ }).isVisible()).toBe(false);
    // The Answers page folds its own the same way.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(d.url(`/brands/${brandId}/answers?status=error`));
    await page.getByRole("button", { name: "Filters All engines · Error · Mentioned or not · All dates" }).waitFor();
    expect(await page.getByRole("combobox", { name: "Status" }).isVisible()).toBe(false);
    // The Sources page folds its grouping with them, and says which.
    await page.goto(d.url(`/brands/${brandId}/sources?level=url`));
    await page.getByRole("button", { name: "Filters Last 30 days · All engines · All tags · By URL" }).click();
    await page.getByRole("radio", { name: "Domain" }).check();
    await page.waitForURL((url) => !url.searchParams.has("level"));
    await page.getByRole("button", { name: "Filters Last 30 days · All engines · All tags · By domain" }).waitFor();
    // And the Prompts page its search, tag and archived switch.
    await page.goto(d.url(`/brands/${brandId}/prompts?archived=1`));
    await page.getByRole("button", { name: "Filters Every prompt · All tags · Archived shown" }).click();
    await page.getByLabel("Search").fill("CRM");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await page.waitForURL(/query=CRM/);
    await page.getByRole("button", { name: "Filters “CRM” · All tags · Archived shown" }).waitFor();
  });
});

describe("names at their longest, without a space to wrap at", () => {
  const competitor = "C".repeat(100);
  const tag = "T".repeat(50);
  const prompt = `${"P".repeat(200)}?`;

  test("widen no page past the screen, at 1280 and 390 px, and every row's actions stay on it", async () => {
    await sessionTool(page, brandId, "create_competitor", { name: competitor });
    await sessionTool(page, brandId, "create_prompts", { prompts: [{ text: prompt, tags: [tag] }] });
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 844 });
      for (const [path, heading] of [
        ["/overview", "Overview"],
        ["/competitors", "Competitors"],
        ["/prompts", "Prompts"],
        ["/tags", "Tags"],
      ] as const) {
        await page.goto(d.url(`/brands/${brandId}${path}`));
        await page.getByRole("heading", { name: heading, level: 1 }).waitFor();
        await page.waitForLoadState("networkidle");
        expect({ width, path, overflow: await sidewaysOverflow() }).toEqual({ width, path, overflow: 0 });
      }
      // The prompts' Archive buttons, beside the longest tag.
      await page.goto(d.url(`/brands/${brandId}/prompts`));
      const archive = page.getByRole("button", { name: /^Archive prompt / }).first();
      await archive.waitFor();
      await photograph(page, `long-names-prompts-${width}`);
      // In sight: within the screen and within every box around it that clips or scrolls.
      const clipped = await archive.evaluate((button) => {
        const right = button.getBoundingClientRect().right;
        let box: Element | null = button.parentElement;
        while (box && box !== document.body) {
          const { overflowX } = getComputedStyle(box);
          if (overflowX !== "visible" && right > box.getBoundingClientRect().right + 0.5) return `${box.className}: ${right}`;
          box = box.parentElement;
        }
        return right > window.innerWidth ? `the screen: ${right}` : null;
      });
      expect({ width, clipped }).toEqual({ width, clipped: null });
    }
    // The competitors page's own message after adding one.
    await page.setViewportSize({ width: 1280, height: 844 });
    await page.goto(d.url(`/brands/${brandId}/competitors`));
    await page.getByLabel("Competitor name").fill("D".repeat(100));
    await page.getByRole("button", { name: "Add the competitor" }).click();
    await page.getByRole("status").filter({ hasText: "Added the competitor" }).waitFor();
    expect(await sidewaysOverflow()).toBe(0);
    await page.goto(d.url(`/brands/${brandId}/overview`));
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor();
    await page.waitForLoadState("networkidle");
    // The ranking's figures stay in sight beside the longest name.
    const sentiment = page.getByRole("columnheader", { name: "Sentiment" }).first();
    const panel = page.locator(".ranking").locator("xpath=..");
    const [cell, wrap] = [(await sentiment.boundingBox())!, (await panel.boundingBox())!];
    expect(cell.x + cell.width).toBeLessThanOrEqual(wrap.x + wrap.width + 1);
    await photograph(page, "long-names-overview-1280");
    await page.setViewportSize({ width: 390, height: 844 });
  });
});

test("a signed-out visitor of a shared link signs in and lands on that page, filters included", async () => {
  // An instance with its owner (without one, a visitor is asked to create it first).
  expect((await d.box.cli(["account", "create", "--email", "owner@example.com", "--password", "correct horse"])).code).toBe(0);
  const visitor = await d.page({ width: 1280, height: 800 });
  const shared = `/brands/${brandId}/answers?engine=claude`;
  await visitor.goto(d.url(shared));
  await visitor.waitForURL(/\/sign-in\?next=/);
  expect(new URL(visitor.url()).searchParams.get("next")).toBe(shared);
  await visitor.getByLabel("Email").fill(login.email);
  await visitor.getByLabel("Password").fill(login.password);
  await visitor.getByRole("button", { name: "Sign in" }).click();
  await visitor.waitForURL((url) => `${url.pathname}${url.search}` === shared);
  await visitor.getByRole("heading", { name: "Answers", level: 1 }).waitFor();
  await visitor.context().close();
});
