// The Article impact page in Chromium against the compiled binary, on `spyglass demo` data: the demo
// article's before/after figures are the ones get_article_impact gives (read both, compare), the
// verdict is written as a word, "cited since" says yes, the window is kept in the URL across a
// reload, and a brand without a linked published article gets the empty state that says what it
// needs. axe-core, the unsafe-content watch and screenshots at both widths, light and dark.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { type Page } from "playwright-core";
import { type ToolOutput } from "../../src/catalogue/types";
import { formatDay } from "../../src/dashboard/web/components/dates";
import { type Dashboard, expectAccessible, expectNothingUnsafe, openDashboard, screenshot, sessionTool } from "../support/dashboard";

setDefaultTimeout(120_000);

let d: Dashboard;
let demo: { login: { email: string; password: string }; brand: { id: string }; article: { id: string } };

beforeAll(async () => {
  d = await openDashboard();
  demo = await d.box.cliJson(["demo"]);
});

afterAll(async () => {
  await d?.close();
});

async function signIn(page: Page): Promise<void> {
  await page.goto(d.url("/sign-in"));
  await page.getByLabel("Email").fill(demo.login.email);
  await page.getByLabel("Password").fill(demo.login.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
}

/** The tool's own answer, through the session door the page uses. */
const toolAnswer = (page: Page, windowDays: number) =>
  sessionTool<ToolOutput<"get_article_impact">>(page, demo.brand.id, "get_article_impact", { window_days: windowDays });

const pct = (v: number | null) => (v === null ? "—" : `${(v * 100).toFixed(1)}%`);

test("the demo article: the tool's before/after figures, the verdict in words, cited since yes; the window in the URL", async () => {
  const page = await d.page();
  await signIn(page);
  await page.goto(d.url(`/brands/${demo.brand.id}`));
  await page.getByRole("navigation", { name: "Brand pages" }).getByRole("link", { name: "Article impact", exact: true }).click();
  await page.waitForURL(`**/brands/${demo.brand.id}/impact`);
  await page.getByRole("heading", { name: "Article impact", level: 1 }).waitFor();

  const tool = await toolAnswer(page, 14);
  expect(tool.total_articles).toBe(1);
  const item = tool.articles[0]!;
  expect(item.article.id).toBe(demo.article.id);
  expect(item.visibility.within_noise).toBe(false);
  expect(item.visibility.change_pp!).toBeGreaterThan(0);
  expect(item.article_cited.cited).toBe(true);

  const card = page.getByRole("region", { name: item.article.title });
  await card.waitFor();
  const table = card.getByRole("table");
  const row = table.getByRole("row", { name: /^Visibility/ });
  const cells = row.getByRole("cell");
  expect(await cells.nth(0).textContent()).toContain(pct(item.visibility.before.rate));
  expect(await cells.nth(0).textContent()).toContain(`${item.visibility.before.successes}/${item.visibility.before.n}`);
  // Written as every page writes an interval.
  expect(await cells.nth(0).textContent()).toContain(
    `95% interval ${pct(item.visibility.before.low).replace("%", "")}–${pct(item.visibility.before.high)}`,
  );
  expect(await cells.nth(1).textContent()).toContain(pct(item.visibility.after.rate));
  expect(await cells.nth(1).textContent()).toContain(`${item.visibility.after.successes}/${item.visibility.after.n}`);
  expect(await cells.nth(2).textContent()).toContain("up");
  // The change in points, written as the overview writes it ("+4.5 points").
  expect(await cells.nth(2).textContent()).toContain(`+${item.visibility.change_pp!.toFixed(1)} points`);
  const citation = table.getByRole("row", { name: /^Citation rate/ }).getByRole("cell");
  expect(await citation.nth(1).textContent()).toContain(pct(item.citation_rate.after.rate));
  expect(await card.getByText("Article's URL cited since publication:").textContent()).toContain("yes");
  // The prompt leads to its own page (its figures and answers).
  expect(await card.getByRole("link", { name: item.prompt.text }).getAttribute("href")).toBe(
    `/brands/${demo.brand.id}/performance/${item.prompt.id}`,
  );
  expect(await card.getByRole("link", { name: item.article.title }).getAttribute("href")).toBe(
    `/brands/${demo.brand.id}/articles/${demo.article.id}`,
  );

  await expectAccessible(page, "article impact");
  await screenshot(page, "impact");

  // The window: in the URL, kept on reload, and the figures are the tool's for that window.
  await page.getByLabel("Window (days before and after)").selectOption("30");
  await page.waitForURL(/\/impact\?window=30$/);
  await page.reload();
  expect(await page.getByLabel("Window (days before and after)").inputValue()).toBe("30");
  const wide = (await toolAnswer(page, 30)).articles[0]!;
  expect(wide.before.days).toBe(30);
  const before30 = page
    .getByRole("region", { name: item.article.title })
    .getByRole("row", { name: /^Visibility/ })
    .getByRole("cell")
    .nth(0);
  expect(await before30.textContent()).toContain(`${wide.visibility.before.successes}/${wide.visibility.before.n}`);
  // 90 days before a publication 14 days ago begin before the demo's first answer (60 days ago): said,
  // where the window named 30 days no answer could be of.
  await page.getByLabel("Window (days before and after)").selectOption("90");
  await page.waitForURL(/\/impact\?window=90$/);
  const first = (await sessionTool<{ answers: { first_day: string } }>(page, demo.brand.id, "get_brand", {})).answers.first_day;
  const day = formatDay(first);
  const dates = page.getByRole("region", { name: item.article.title }).getByText(/^Published /);
  await page.waitForFunction(
    (wanted) => [...document.querySelectorAll(".impact-card small")].some((el) => el.textContent?.includes(wanted)),
    `(90 days; answers from ${day}`,
  );
  expect((await dates.textContent())?.split("after:")[1]).not.toContain("answers from");
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    for (const colorScheme of ["light", "dark"] as const) {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme });
      await screenshot(page, "impact-90-days");
    }
  }
  expectNothingUnsafe(page);
});

test("phone width and dark scheme: the page is usable and accessible", async () => {
  for (const colorScheme of ["light", "dark"] as const) {
    for (const size of [
      { width: 1280, height: 800 },
      { width: 390, height: 844 },
    ]) {
      if (colorScheme === "light" && size.width === 1280) continue;
      const page = await d.page({ ...size, colorScheme });
      await signIn(page);
      await page.goto(d.url(`/brands/${demo.brand.id}/impact`));
      await page.getByRole("table").first().waitFor();
      // The verdict as the overview writes its own: the word, its arrow only beside it.
      expect(await page.getByText("▲ up", { exact: true }).first().isVisible()).toBe(true);
      await expectAccessible(page, `article impact ${size.width} ${colorScheme}`);
      await screenshot(page, "impact");
      expectNothingUnsafe(page);
    }
  }
});

test("a brand without a published article linked to a prompt: the empty state says what it needs", async () => {
  const other = await d.box.cliJson<{ id: string }>(["brand", "create", "--email", demo.login.email, "--name", "Empty brand"]);
  const page = await d.page();
  await signIn(page);
  await page.goto(d.url(`/brands/${other.id}/impact`));
  await page.getByRole("heading", { name: "No article to measure yet" }).waitFor();
  expect(await page.getByText(/needs a published article linked to a prompt/).isVisible()).toBe(true);
  await expectAccessible(page, "article impact, empty");
  await screenshot(page, "impact-empty");
  expectNothingUnsafe(page);
});
