// The brand's overview (issue 15, part 1) in headless Chromium against the compiled binary, on the
// demo data: the tiles show the figures get_visibility_overview gives for the same filter (read
// through the session door with the page's own cookie, shown as the page rounds them); the engine
// filter changes the URL and the figures, and a reload keeps both; the uPlot trend draws on its
// canvas; the ranking names the brand; a brand without answers gets the empty state. Checked with
// axe-core, photographed at 1280 and 390 px, light and dark, and watched for CSP violations.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type Page } from "playwright-core";
import {
  type Dashboard,
  expectAccessible,
  expectFocus,
  expectNothingUnsafe,
  openDashboard,
  photograph,
  sessionTool,
} from "../support/dashboard";

setDefaultTimeout(120_000);

let d: Dashboard;
let page: Page;
let brandId: string;
let login: { email: string; password: string };

interface Rate {
  rate: number | null;
  n: number;
  low: number | null;
  high: number | null;
  within_noise: boolean | null;
  change_pp: number | null;
  previous: { n: number };
}
interface PeriodMean {
  value: number | null;
  n: number;
  low: number | null;
  high: number | null;
  previous: { value: number | null };
  change: number | null;
  within_noise: boolean | null;
}
interface Overview {
  filter: { previous_start_date: string; previous_end_date: string };
  visibility: Rate;
  share_of_voice: Rate;
  citation_rate: Rate;
  prompt_coverage: Rate;
  retrieval_rate: Rate;
  no_answer_rate: Rate;
  avg_position: PeriodMean & { top1_rate: Rate; top3_rate: Rate };
  sentiment: PeriodMean;
  by_engine: Array<{ engine: string; label: string }>;
}

/** An analytics day as the dashboard names it: "Nov 28, 2026". */
const dayName = (day: string) =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString("en-US", { month: "short", day: "numeric", year: "numeric", timeZone: "UTC" });
const percent = (r: number | null) => (r === null ? "no answers" : `${(r * 100).toFixed(1)}%`);
const verdict = (r: Rate) =>
  r.within_noise === null || r.change_pp === null
    ? "no previous figure"
    : r.within_noise || r.change_pp === 0
      ? "within noise"
      : r.change_pp > 0
        ? "up"
        : "down";

/** The tool's answer through the session door, with the page's cookie. */
const tool = <T>(p: Page, name: string, input: object): Promise<T> => sessionTool<T>(p, brandId, name, input);

function tile(p: Page, name: string) {
  return p.getByRole("region", { name, exact: true });
}

async function expectTilesMatch(p: Page, input: object): Promise<Overview> {
  const o = await tool<Overview>(p, "get_visibility_overview", input);
  // With no answer in the previous period, no tile has a change: the period's heading says so once.
  const compared = o.no_answer_rate.previous.n > 0;
  for (const [name, rate, what] of [
    ["Visibility", o.visibility, "valid answers"],
    ["Share of voice", o.share_of_voice, "roster mentions"],
    ["Prompt coverage", o.prompt_coverage, "prompts answered"],
    ["Citation rate", o.citation_rate, "valid answers"],
    ["Retrieval rate", o.retrieval_rate, "valid answers"],
    ["No-answer rate", o.no_answer_rate, "answers"],
  ] as const) {
    const text = await tile(p, name).textContent();
    expect(text).toContain(percent(rate.rate));
    expect(text).toContain(`n = ${rate.n.toLocaleString("en-US")} ${what}`);
    if (rate.low !== null && rate.high !== null) {
      expect(text).toContain(`95% interval ${(rate.low * 100).toFixed(1)}–${(rate.high * 100).toFixed(1)}%`);
    }
    if (compared) expect(text).toContain(verdict(rate));
    else expect(text).not.toMatch(/no previous figure|within noise|previous:/);
  }
  const position = await tile(p, "Average position").textContent();
  expect(position).toContain(o.avg_position.value === null ? "no answers" : o.avg_position.value.toFixed(1));
  // Means carry their Student t interval and the tool's verdict, as rates do.
  for (const [text, m, digits] of [
    [position, o.avg_position, 1],
    [await tile(p, "Sentiment").textContent(), o.sentiment, 2],
  ] as const) {
    const shown = (x: number) => x.toFixed(digits).replace("-", "−");
    if (m.low !== null && m.high !== null) expect(text).toContain(`95% interval ${shown(m.low)} to ${shown(m.high)}`);
    if (!compared) continue;
    expect(text).toContain(
      m.change === null
        ? "no previous figure"
        : m.within_noise === null
          ? "too few answers to judge"
          : m.within_noise || m.change === 0
            ? "within noise"
            : m.change > 0
              ? "up"
              : "down",
    );
  }
  expect(position).toContain(`Top 1: ${percent(o.avg_position.top1_rate.rate)}`);
  expect(position).toContain(`Top 3: ${percent(o.avg_position.top3_rate.rate)}`);
  const sentiment = await tile(p, "Sentiment").textContent();
  expect(sentiment).toContain(o.sentiment.value === null ? "no answers" : o.sentiment.value.toFixed(2).replace("-", "−"));
  expect(sentiment).toContain(`n = ${o.sentiment.n.toLocaleString("en-US")}`);
  return o;
}

async function waitForFigures(p: Page): Promise<void> {
  await tile(p, "Visibility").waitFor();
  await p.locator(".trend-chart canvas").waitFor();
  await p.waitForFunction(() => !document.querySelector("[aria-busy='true']") && !document.querySelector(".loading"));
}

beforeAll(async () => {
  // The demo's engines, configured as a real instance tracking them would be (never called here:
  // no key, and the test starts no run), so the filter bar lists them as get_brand does.
  d = await openDashboard({
    toml: ["chatgpt", "claude", "perplexity"]
      .map(
        (id) => `[[engines]]\nid = "${id}"\napi = "openai"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "${id}-model"\nmax_retries = 0\n`,
      )
      .join("\n"),
  });
  const demo = await d.box.cliJson<{ login: { email: string; password: string }; brand: { id: string } }>(["demo"]);
  login = demo.login;
  brandId = demo.brand.id;
  page = await d.page();
  await page.goto(d.url("/sign-in"));
  await page.getByLabel("Email").fill(login.email);
  await page.getByLabel("Password").fill(login.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/overview/);
});

afterAll(async () => {
  await d?.close();
});

describe("the overview", () => {
  test("signing in lands on the overview, first in the brand's navigation", async () => {
    expect(page.url()).toBe(d.url(`/brands/${brandId}/overview`));
    const links = page.getByRole("navigation", { name: "Brand pages" }).getByRole("link");
    expect(await links.first().textContent()).toBe("Overview");
    expect(await links.first().getAttribute("aria-current")).toBe("page");
    await page.getByRole("heading", { level: 1, name: "Overview" }).waitFor();
    await waitForFigures(page);
  });

  test("the tiles show get_visibility_overview's figures, n, interval and verdict", async () => {
    const o = await expectTilesMatch(page, {});
    expect(o.visibility.n).toBeGreaterThan(0);
  });

  test("each tile says what its figure counts behind an ⓘ, shut until asked, opened by keyboard", async () => {
    await page.goto(d.url(`/brands/${brandId}/overview`));
    await waitForFigures(page);
    const retrieval = tile(page, "Retrieval rate");
    const info = retrieval.getByRole("button", { name: "What Retrieval rate counts" });
    const definition = retrieval.getByText(/^Valid answers whose provider lists a page of the brand's site/);
    expect(await definition.isVisible()).toBe(false);
    // Shut, the definitions no longer make a row of tiles as tall as its longest (Retrieval rate's
    // sentence made its row ~70 px taller): the second row's tiles are one height.
    const heights = await page.locator("section.kpi").evaluateAll((tiles) => tiles.map((t) => t.getBoundingClientRect().height));
    const width = await page.locator(".kpi-grid").evaluate((g) => getComputedStyle(g).gridTemplateColumns.split(" ").length);
    const second = heights.slice(width, 2 * width);
    const citation = heights[4]!;
    expect(Math.max(...second) - citation).toBeLessThan(1);
    const value = retrieval.locator(".kpi-value");
    const before = (await value.boundingBox())!.y;
    await info.focus();
    await page.keyboard.press("Enter");
    await definition.waitFor();
    // It opens under the figure, which stays where it was (above it, the figure dropped ~140 px).
    expect((await value.boundingBox())!.y).toBe(before);
    expect((await definition.boundingBox())!.y).toBeGreaterThan(before);
    expect(await info.getAttribute("aria-expanded")).toBe("true");
    // Every tile has one, Citation rate's too.
    for (const name of [
      "Visibility",
      "Share of voice",
      "Average position",
      "Prompt coverage",
      "Citation rate",
      "Sentiment",
      "No-answer rate",
    ]) {
      await tile(page, name)
        .getByRole("button", { name: `What ${name} counts` })
        .waitFor();
    }
    await page.keyboard.press("Enter");
    await definition.waitFor({ state: "hidden" });
  });

  test("a period whose previous one has no answer says so once, and no tile claims a change", async () => {
    const start = new Date(Date.now() - 120 * 86_400_000).toISOString().slice(0, 10);
    await page.goto(d.url(`/brands/${brandId}/overview?start=${start}`));
    await waitForFigures(page);
    const o = await expectTilesMatch(page, { start_date: start });
    expect(o.visibility.n).toBeGreaterThan(0);
    expect(o.no_answer_rate.previous.n).toBe(0);
    const heading = page.locator("section.kpi").first().locator("xpath=ancestor::section[1]").getByRole("heading", { level: 2 });
    expect(await heading.textContent()).toContain("nothing to compare with: no answer in");
    expect(await page.locator("section.kpi .kpi-change").count()).toBe(0);
    // The trend starts at its first day with answers, and says so; its table keeps every day, the
    // days before the first answer in one row.
    // By day, as the chart asks for it (over 92 days the tool's own default is weeks).
    const trend = await tool<{ points: Array<{ date: string; visibility: { n: number } }> }>(page, "get_visibility_trend", {
      start_date: start,
      interval: "day",
    });
    const first = trend.points.find((p) => p.visibility.n > 0)!;
    expect(first.date > start).toBe(true);
    expect(await page.locator(".trend-chart").getAttribute("data-from")).toBe(first.date);
    const day = dayName(first.date);
    await page.locator("figcaption", { hasText: `No answer before ${day}: the chart starts there.` }).waitFor();
    const rows = page.getByRole("table", { name: /by day/, includeHidden: true }).locator("tbody tr");
    const before = trend.points.indexOf(first);
    expect(before).toBeGreaterThan(1);
    expect(await rows.count()).toBe(trend.points.length - before + 1);
    const lastEmpty = trend.points[before - 1]!.date;
    const from = start.slice(0, 4) === lastEmpty.slice(0, 4) ? dayName(start).replace(/, \d{4}$/, "") : dayName(start);
    expect(await rows.first().locator("th .point-name").textContent()).toBe(`${from} – ${dayName(lastEmpty)} (${before} days)`);
    expect(await rows.first().locator("th .cell-meta").textContent()).toBe("no valid answers");
    const cells = await rows.first().locator("td").allTextContents();
    expect(cells.length).toBeGreaterThan(1);
    expect(new Set(cells)).toEqual(new Set(["—"]));
    expect(await rows.nth(1).locator("th .point-name").textContent()).toBe(dayName(first.date));
    await page.goto(d.url(`/brands/${brandId}/overview`));
    await waitForFigures(page);
    expect(await page.locator("section.kpi .kpi-change").count()).toBe(8);
  });

  test("the trend chart draws: a canvas with pixels, one line per series, and a table of the same points", async () => {
    const painted = await page.locator(".trend-chart canvas").evaluate((canvas: HTMLCanvasElement) => {
      const ctx = canvas.getContext("2d");
      if (!ctx) return 0;
      const pixels = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      let drawn = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) drawn++;
      return drawn;
    });
    expect(painted).toBeGreaterThan(1000);
    expect(await page.locator(".trend-chart").getAttribute("data-series")).toBe("2");
    const trend = await tool<{ points: Array<{ date: string; visibility: { rate: number | null } }> }>(page, "get_visibility_trend", {});
    await page.getByText("Show the figures as a table").click();
    const table = page.getByRole("table", { name: /Visibility and share of voice by day/ });
    expect(await table.locator("tbody tr").count()).toBe(trend.points.length);
    const last = trend.points[trend.points.length - 1]!;
    // Each row named by its day as a person writes it ("Nov 28, 2026").
    const day = dayName(last.date);
    expect(await table.getByRole("row", { name: new RegExp(`^${day}`) }).textContent()).toContain(percent(last.visibility.rate));
    await page.getByText("Show the figures as a table").click();
  });

  test("on a phone, the trend's table fits the screen: each day with its valid answers, each figure with its interval", async () => {
    const phone = await d.page({ width: 390, height: 844 });
    await phone.goto(d.url("/sign-in"));
    await phone.getByLabel("Email").fill(login.email);
    await phone.getByLabel("Password").fill(login.password);
    await phone.getByRole("button", { name: "Sign in" }).click();
    await phone.waitForURL(/\/overview/);
    await waitForFigures(phone);
    await phone.getByText("Show the figures as a table").click();
    const table = phone.getByRole("table", { name: /Visibility and share of voice by day/ });
    // In six columns (day, valid answers, each figure and its interval apart) it scrolled sideways
    // to reach share of voice.
    const [scrollWidth, clientWidth] = await phone
      .locator(".trend-figure .table-wrap")
      .evaluate((frame) => [frame.scrollWidth, frame.clientWidth]);
    expect(scrollWidth).toBeLessThanOrEqual(clientWidth! + 1);
    const trend = await tool<{
      points: Array<{
        date: string;
        answers: { valid: number };
        visibility: { rate: number | null; low: number | null; high: number | null };
        share_of_voice: { rate: number | null; low: number | null; high: number | null };
      }>;
    }>(phone, "get_visibility_trend", {});
    const last = trend.points[trend.points.length - 1]!;
    const range = (r: { low: number | null; high: number | null }) => `${(r.low! * 100).toFixed(1)}–${(r.high! * 100).toFixed(1)}%`;
    const row = await table.getByRole("row", { name: new RegExp(`^${dayName(last.date)}`) }).textContent();
    expect(row).toContain(`${last.answers.valid.toLocaleString("en-US")} valid answers`);
    for (const figure of [last.visibility, last.share_of_voice]) {
      expect(row).toContain(percent(figure.rate));
      expect(row).toContain(range(figure));
    }
    await expectAccessible(phone, "overview-trend-table-phone");
    await phone.close();
  });

  test("the competitor ranking marks the brand", async () => {
    const ranking = await tool<{
      ranking: Array<{
        name: string;
        is_brand: boolean;
        visibility: { rate: number | null; change_pp: number | null; within_noise: boolean | null };
      }>;
    }>(page, "get_competitor_ranking", {});
    const table = page.locator("table.ranking");
    expect(await table.locator("tbody tr").count()).toBe(ranking.ranking.length);
    const brand = ranking.ranking.find((r) => r.is_brand)!;
    const row = table.locator("tbody tr.is-brand");
    expect(await row.textContent()).toContain(brand.name);
    expect(await row.textContent()).toContain("Your brand");
    expect(await row.textContent()).toContain(percent(brand.visibility.rate));
    // Its download is at the panel's head, beside its title, as every other page has its own (it sat under the table).
    const download = page.getByRole("link", { name: "Download the competitor ranking as CSV" });
    const [heading, link, top] = await Promise.all([
      page.getByRole("heading", { name: "Competitor ranking" }).boundingBox(),
      download.boundingBox(),
      table.boundingBox(),
    ]);
    expect(link!.y + link!.height).toBeLessThanOrEqual(top!.y);
    expect(Math.abs(link!.y + link!.height / 2 - (heading!.y + heading!.height / 2))).toBeLessThan(12);
    // Who is gaining: each member's change from the previous period, with the tool's verdict.
    const changes = await table.locator("tbody tr").evaluateAll((rows) => rows.map((tr) => tr.querySelector(".cell-change")?.textContent));
    const pts = (pp: number | null) =>
      pp === null ? "–" : `${Math.abs(pp) < 0.05 ? "±" : pp > 0 ? "+" : "−"}${Math.abs(pp).toFixed(1)} points`;
    const says = (v: { change_pp: number | null; within_noise: boolean | null }) =>
      v.within_noise === null || v.change_pp === null
        ? "no previous figure"
        : v.within_noise
          ? "within noise"
          : v.change_pp > 0
            ? "up"
            : "down";
    // Written as the tiles write theirs: the verdict first, with its arrow, then the points.
    const arrow: Record<string, string> = { up: "▲ ", down: "▼ ", "within noise": "≈ " };
    expect(changes).toEqual(
      ranking.ranking.map((r) =>
        r.visibility.change_pp === null
          ? "no previous figure"
          : `${arrow[says(r.visibility)] ?? ""}${says(r.visibility)} · ${pts(r.visibility.change_pp)}`,
      ),
    );
  });

  test("axe finds nothing serious; screenshots at 1280 and 390, light and dark; no CSP violation", async () => {
    await expectAccessible(page, "overview");
    await photograph(page, "overview", (p) => p.waitForTimeout(150));
    expectNothingUnsafe(page);
  });

  test("the engine filter changes the URL and the figures, and a reload keeps them", async () => {
    const all = await tool<Overview>(page, "get_visibility_overview", {});
    const engine = all.by_engine.find((e) => e.engine === "chatgpt")!;
    await page.getByLabel("Engine", { exact: true }).selectOption(engine.engine);
    await page.waitForURL(`**/overview?engine=${engine.engine}`);
    await page.waitForFunction(
      (text) => document.querySelector("section.kpi")?.textContent?.includes(text) ?? false,
      `n = ${(await tool<Overview>(page, "get_visibility_overview", { engine: engine.engine })).visibility.n.toLocaleString("en-US")}`,
    );
    const one = await expectTilesMatch(page, { engine: engine.engine });
    expect(one.visibility.n).toBeLessThan(all.visibility.n);
    await page.reload();
    await waitForFigures(page);
    expect(page.url()).toContain(`engine=${engine.engine}`);
    expect(await page.getByLabel("Engine", { exact: true }).inputValue()).toBe(engine.engine);
    await expectTilesMatch(page, { engine: engine.engine });
    expectNothingUnsafe(page);
  });

  test("a load that failed says so and offers Try again, which brings the figures without reloading the page", async () => {
    await page.goto(d.url(`/brands/${brandId}/overview`));
    await waitForFigures(page);
    // The server cannot be reached for the competitor ranking, once.
    let failed = 0;
    await page.route("**/tools/get_competitor_ranking", async (route) => {
      if (failed++ === 0) await route.abort("connectionrefused");
      else await route.continue();
    });
    await page.getByRole("link", { name: "Competitors", exact: true }).click();
    await page.goBack();
    const alert = page.getByRole("alert").filter({ hasText: "The server could not be reached" });
    await alert.waitFor();
    expect(await page.locator("table.ranking").count()).toBe(0);
    await photograph(page, "load-failed", (p) =>
      p.getByRole("alert").filter({ hasText: "The server could not be reached" }).scrollIntoViewIfNeeded(),
    );
    const navigations: string[] = [];
    page.on("framenavigated", (frame) => navigations.push(frame.url()));
    await alert.getByRole("button", { name: "Try again" }).focus();
    await page.keyboard.press("Enter");
    await page.locator("table.ranking tbody tr.is-brand").waitFor();
    // The keyboard is on the section's heading, not dropped with the alert.
    await expectFocus(page.getByRole("heading", { name: "Competitor ranking", exact: true }));
    expect(await alert.count()).toBe(0);
    expect(navigations).toEqual([]);
    await page.unroute("**/tools/get_competitor_ranking");
    expectNothingUnsafe(page);
  });

  test("while the stored answers are analysed again, the overview says its figures are not settled", async () => {
    const lag = (sql: string) => d.box.withDb((db) => db.run(sql, [brandId]));
    // As a roster change leaves it until its pass ends (on any instance): the version ahead of the analysed one.
    await lag(
      "INSERT INTO roster_versions (brand_id, version, analysed) VALUES (?, 1, 0) ON CONFLICT (brand_id) DO UPDATE SET version = roster_versions.analysed + 1",
    );
    try {
      await page.goto(d.url(`/brands/${brandId}/overview`));
      await waitForFigures(page);
      await page.getByText(/^The stored answers are being analysed again/).waitFor();
      await photograph(page, "overview-reanalysis", (p) => p.waitForTimeout(150));
    } finally {
      await lag("UPDATE roster_versions SET analysed = version WHERE brand_id = ?");
    }
    await page.reload();
    await waitForFigures(page);
    expect(await page.getByText(/^The stored answers are being analysed again/).count()).toBe(0);
  });

  test("a period of one day says so under the trend, rather than 'went from' a day to itself", async () => {
    const trend = await tool<{ points: Array<{ date: string; visibility: { rate: number | null } }> }>(page, "get_visibility_trend", {});
    const day = trend.points.at(-1)!.date;
    await page.goto(d.url(`/brands/${brandId}/overview?start=${day}&end=${day}`));
    await waitForFigures(page);
    const one = await tool<{ points: Array<{ visibility: { rate: number | null } }> }>(page, "get_visibility_trend", {
      start_date: day,
      end_date: day,
    });
    const named = dayName(day);
    await page.getByText(`Only ${named} has answers: visibility ${percent(one.points[0]!.visibility.rate)}`).waitFor();
    expect(await page.getByText("went from").count()).toBe(0);
  });

  test("choosing Custom range by keyboard puts the focus on its From date", async () => {
    await page.goto(d.url(`/brands/${brandId}/overview`));
    await waitForFigures(page);
    await page.getByLabel("Period").focus();
    await page.getByLabel("Period").selectOption("custom");
    await page.waitForURL(/start=/);
    await page.getByLabel("From", { exact: true }).waitFor();
    await page.waitForFunction(() => document.activeElement?.id?.endsWith("-start"));
    await page.keyboard.press("Shift+Tab");
    expect(await page.evaluate(() => (document.activeElement as HTMLSelectElement | null)?.value)).toBe("custom");
  });

  test("a From after its To is read as the period between them; a range the tools refuse shows their sentence and no figure of the range before", async () => {
    await page.goto(d.url(`/brands/${brandId}/overview`));
    await waitForFigures(page);
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel("Period").selectOption("custom");
    await page.getByLabel("From", { exact: true }).fill(daysAgo(2));
    await page.getByLabel("To", { exact: true }).fill(daysAgo(12));
    // Figures of the period between them, said once by the filter: every section said "From is after
    // To" on its own (the dashboard walk). The fields keep what was chosen.
    await page
      .getByRole("status")
      .filter({ hasText: /^From is after To: the figures are of / })
      .waitFor();
    await waitForFigures(page);
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.getByLabel("From", { exact: true }).inputValue()).toBe(daysAgo(2));
    expect(await page.getByLabel("To", { exact: true }).inputValue()).toBe(daysAgo(12));
    // Moving To past From, as a person fixing it would, gives the period chosen.
    await page.getByLabel("To", { exact: true }).fill(daysAgo(1));
    await page.waitForURL((url) => url.searchParams.get("start") === daysAgo(2) && url.searchParams.get("end") === daysAgo(1));
    await waitForFigures(page);
    expect(await page.getByText(/^From is after To/).count()).toBe(0);
    // As a link typed by hand.
    await page.goto(d.url(`/brands/${brandId}/overview?start=${daysAgo(3)}&end=${daysAgo(9)}`));
    await waitForFigures(page);
    await page
      .getByRole("status")
      .filter({ hasText: /^From is after To/ })
      .waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    await photograph(page, "overview-reversed-range", async (p) => {
      // On a phone the filters are folded (their summary says the period of the figures): opened, to show the note.
      const fold = p.getByRole("button", { name: /^Filters/ });
      if ((await fold.isVisible()) && (await fold.getAttribute("aria-expanded")) === "false") await fold.click();
    });
    // A review saw the earlier period's tiles stay under an error, unlike any period chosen: a period
    // too long is said with the form's words, and the tiles go.
    await page.getByLabel("From", { exact: true }).fill("2023-01-01");
    await page.getByLabel("To", { exact: true }).fill("2026-11-01");
    await page.getByRole("alert").filter({ hasText: "The period may cover at most 1100 days; move From or To." }).first().waitFor();
    await page.waitForFunction(() => document.querySelectorAll("section.kpi").length === 0, undefined, { timeout: 15_000 });
    expect(await page.getByText(/start_date|end_date/).count()).toBe(0);
    expectNothingUnsafe(page);
  });

  test("per-engine lines and weekly points are in the URL and drawn", async () => {
    await page.goto(d.url(`/brands/${brandId}/overview`));
    await waitForFigures(page);
    await page.getByLabel("Lines per engine").check();
    await page.waitForURL("**/overview?lines=engines");
    // Visibility and share of voice, and one line per demo engine.
    await page.locator('.trend-chart[data-series="5"]').waitFor();
    expect(await page.locator(".trend-legend").getByText("Visibility on ChatGPT").count()).toBe(1);
    // Each engine's line has a dash pattern of its own, drawn in its legend, so the lines are told
    // apart without their colours; the brand's two lines are solid.
    const legend = await page
      .locator(".trend-legend li")
      .evaluateAll((items) =>
        items.map((li) => ({ text: li.textContent ?? "", dash: li.querySelector("line")?.getAttribute("stroke-dasharray") ?? null })),
      );
    expect(legend.map((l) => (l.dash?.length ? "dashed" : "solid"))).toEqual(["solid", "solid", "dashed", "dashed", "dashed"]);
    expect(new Set(legend.slice(2).map((l) => l.dash)).size).toBe(3);
    await page.getByLabel("Points by", { exact: true }).selectOption("week");
    await page.waitForURL(/interval=week/);
    const weeks = page.getByRole("table", { name: /by week/, includeHidden: true });
    await weeks.waitFor({ state: "attached" });
    await page.locator('.trend-chart[data-series="5"]').waitFor();
    // A week is named by its days; one cut by the period's edge says how many it has, in the table
    // and under the chart (a 30-day period always has one).
    const weekly = await tool<{ points: Array<{ date: string; days: number }> }>(page, "get_visibility_trend", { interval: "week" });
    const names = await weeks.locator("tbody th .point-name").allTextContents();
    expect(names.length).toBe(weekly.points.length);
    const parts = weekly.points.flatMap((p, i) => (p.days < 7 ? [i] : []));
    expect(parts.length).toBeGreaterThan(0);
    for (const [i, p] of weekly.points.entries()) {
      if (p.days < 7) expect(names[i]).toEndWith(`(${p.days} ${p.days === 1 ? "day" : "days"})`);
      else expect(names[i]).toMatch(/^[A-Z][a-z]{2} \d{1,2}(, \d{4})? – [A-Z][a-z]{2} \d{1,2}, \d{4}$/);
    }
    await page.locator("figcaption", { hasText: /part weeks?, at the period's edge\./ }).waitFor();
    await expectAccessible(page, "overview-engines");
    await photograph(page, "overview-engines", (p) => p.waitForTimeout(150));
    expectNothingUnsafe(page);
  });

  test("a brand without answers says what to do", async () => {
    const other = await d.box.cliJson<{ brand?: { id: string }; id?: string }>([
      "brand",
      "create",
      "--email",
      login.email,
      "--name",
      "Empty",
    ]);
    const id = other.brand?.id ?? other.id;
    await page.goto(d.url(`/brands/${id}/overview`));
    await page.getByRole("heading", { name: "No answers yet" }).waitFor();
    expect(await page.getByText("spyglass demo").count()).toBe(1);
    // The steps say which are taken: this instance's engines can be asked (none needs a key),
    // the brand has no prompt yet, and no run has been made.
    const steps = page.locator("ol.steps > li");
    await steps.first().waitFor();
    expect(await steps.allTextContents()).toEqual([
      "Add the prompts people ask AI assistants about your market.",
      "Done: Engines to ask: ChatGPT, Claude, Perplexity.",
      expect.stringMatching(/^Run tracking on the Tracking page, or wait for the schedule/),
    ]);
    await expectAccessible(page, "overview-empty");
    // With a prompt, the first step is taken: the page points at the run, not at the prompts.
    await sessionTool(page, id!, "create_prompts", { prompts: [{ text: "best crm for a small agency" }] });
    await page.reload();
    await steps.first().waitFor();
    expect(await steps.first().textContent()).toBe("Done: 1 prompt is tracked (Prompts).");
    expect(await page.getByRole("link", { name: "Add the prompts" }).count()).toBe(0);
    await expectAccessible(page, "overview-empty");
    await photograph(page, "overview-empty", (p) => p.waitForTimeout(150));
    expectNothingUnsafe(page);
  });

  test("an account without the Visibility plan is told so, not shown zeros", async () => {
    const who = { email: "noplan@example.com", password: "a long password for no plan" };
    expect((await d.box.cli(["account", "create", "--email", who.email, "--password", who.password, "--plan", "none"])).code).toBe(0);
    const created = await d.box.cliJson<{ brand?: { id: string }; id?: string }>([
      "brand",
      "create",
      "--email",
      who.email,
      "--name",
      "Planless",
    ]);
    const other = await d.page({ width: 390, height: 844 });
    await other.goto(d.url("/sign-in"));
    await other.getByLabel("Email").fill(who.email);
    await other.getByLabel("Password").fill(who.password);
    await other.getByRole("button", { name: "Sign in" }).click();
    await other.waitForURL(`**/brands/${created.brand?.id ?? created.id}/overview`);
    await other.getByText("The overview needs the Visibility plan.").waitFor();
    expect(await other.locator("section.kpi").count()).toBe(0);
    await expectAccessible(other, "overview-plan");
    expectNothingUnsafe(other);
  });
});
