// Prompt performance and answers in headless Chromium against the compiled binary, on demo data:
// the table shows get_prompt_performance's figures for the same filter (read through the session
// door with the page's cookie); the sort order is in the URL and survives a reload; a prompt leads to
// its page and to an answer whose mentions are highlighted exactly at the stored offsets; an answer
// whose text holds markup and script shows them as text and nothing runs. Checked with axe-core and
// photographed at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type Page } from "playwright-core";
import { analyzeAnswer } from "../../src/tracking/analysis/analyze";
import { AnswerWriter } from "../../src/tracking/answer-writer";
import { loadRoster } from "../../src/tracking/roster";
import {
  type Dashboard,
  expectAccessible,
  expectFocus,
  expectNothingUnsafe,
  openDashboard,
  photograph,
  sessionTool,
} from "../support/dashboard";

setDefaultTimeout(90_000);

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const HOSTILE = `<img src=x onerror=alert(1)> and <script>alert(1)</script> were written by the engine.`;

let d: Dashboard;
let page: Page;
let brandId: string;
let brandName: string;

/** Waits (≤ 15 s) until `read` gives `expected` (the page fills in after its tool calls), then checks it. */
async function eventually<T>(read: () => Promise<T>, expected: (value: T) => boolean): Promise<T> {
  const deadline = performance.now() + 15_000;
  let value = await read();
  while (!expected(value) && performance.now() < deadline) {
    await Bun.sleep(100);
    value = await read();
  }
  return value;
}

/** A tool read through the session door with the page's own cookie. */
const tool = <T = any>(name: string, input: object): Promise<T> => sessionTool<T>(page, brandId, name, input);

beforeAll(async () => {
  d = await openDashboard();
  const demo = await d.box.cliJson(["demo", "--json"]);
  brandId = demo.brand.id;
  brandName = demo.brand.name;
  // An answer whose text holds markup and script, stored by tracking's own answer writer in the
  // binary's database (the server reads it as any tracked answer).
  await d.box.withDb(async (db) => {
    const roster = await loadRoster(db, brandId);
    const promptId = (await db.get<{ id: string }>("SELECT id FROM prompts WHERE brand_id = ? LIMIT 1", [brandId]))!.id;
    // Its one link is to a site at www.: the citation counts as shop.example.org, the link keeps the www.
    const text = `${HOSTILE} ${brandName} is a fine choice; see https://www.shop.example.org/buy.`;
    const analysis = analyzeAnswer({ text, providerCitations: [], roster: roster.members });
    const writer = new AnswerWriter();
    await db.transaction((tx) =>
      writer.write(
        tx,
        {
          brandId,
          runId: null,
          promptId,
          engine: "chatgpt",
          model: "gpt-4o-mini",
          sample: 1,
          status: "ok",
          text,
          providerCitations: [],
          error: null,
          latencyMs: 1234,
          tokensIn: 10,
          tokensOut: 20,
          createdAt: Date.now(),
        },
        analysis,
        roster,
      ),
    );
    // A cited source with a script URL, as stored before sources were checked for http(s) (a review
    // saw such a provider URL become a link): the page shows it as text.
    const hostile = (await db.get<{ id: number; prompt_id: string; created_at: number }>(
      "SELECT id, prompt_id, created_at FROM answers WHERE brand_id = ? ORDER BY created_at DESC, id DESC LIMIT 1",
      [brandId],
    ))!;
    await db.run(
      `INSERT INTO answer_sources (answer_id, brand_id, kind, position, url, host, domain, title, start_index, end_index, engine, prompt_id, created_at)
       VALUES (?, ?, 'cited', 0, 'javascript:alert(document.cookie)//', NULL, NULL, 'A hostile source', NULL, NULL, 'chatgpt', ?, ?)`,
      [hostile.id, brandId, hostile.prompt_id, hostile.created_at],
    );
  });
  page = await d.page();
  await page.goto(d.url("/sign-in"));
  await page.getByLabel("Email").fill(demo.login.email);
  await page.getByLabel("Password").fill(demo.login.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/brands\/brd_/);
});

afterAll(async () => {
  await d?.close();
});

describe("prompt performance", () => {
  test("the table shows get_prompt_performance's figures for the same filter", async () => {
    await page.goto(d.url(`/brands/${brandId}/performance?engine=chatgpt`));
    await page.locator("table.performance-table tbody tr").first().waitFor();
    const out = await tool<{ prompts: Array<{ id: string; text: string; visibility: { rate: number | null; n: number } }> }>(
      "get_prompt_performance",
      { engine: "chatgpt" },
    );
    expect(out.prompts.length).toBeGreaterThan(0);
    const rows = await page.locator("table.performance-table tbody tr").evaluateAll((trs) =>
      trs.map((tr) => ({
        id: tr.getAttribute("data-prompt-id"),
        text: tr.querySelector("th")?.textContent,
        visibility: tr.querySelector("[data-figure=visibility]")?.textContent ?? "",
      })),
    );
    expect(rows.map((r) => r.id)).toEqual(out.prompts.map((p) => p.id));
    expect(rows.map((r) => r.text)).toEqual(out.prompts.map((p) => p.text));
    out.prompts.forEach((p, i) => {
      const shown = p.visibility.rate === null ? "—" : `${(p.visibility.rate * 100).toFixed(1)}%`;
      expect(rows[i]!.visibility.startsWith(shown)).toBe(true);
      expect(rows[i]!.visibility).toContain(`n = ${p.visibility.n}`);
    });
    await expectAccessible(page, "prompt performance");
    await photograph(page, "prompt-performance");
    expectNothingUnsafe(page);
  });

  test("the sort order is in the URL and survives a reload", async () => {
    await page.goto(d.url(`/brands/${brandId}/performance`));
    await page.locator("table.performance-table tbody tr").first().waitFor();
    await page.getByRole("button", { name: /^Visibility/ }).click();
    await page.waitForURL(/order=visibility_asc/);
    const out = await tool<{ prompts: Array<{ id: string }> }>("get_prompt_performance", { order: "visibility_asc" });
    const ids = () =>
      page.locator("table.performance-table tbody tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-prompt-id")));
    expect(await eventually(ids, (v) => JSON.stringify(v) === JSON.stringify(out.prompts.map((p) => p.id)))).toEqual(
      out.prompts.map((p) => p.id),
    );
    await page.reload();
    await page.locator("table.performance-table tbody tr").first().waitFor();
    expect(page.url()).toContain("order=visibility_asc");
    expect(await ids()).toEqual(out.prompts.map((p) => p.id));
    expectNothingUnsafe(page);
  });

  test("on a phone the rows are cards, nothing is wider than the screen, and the order is chosen above them", async () => {
    const viewport = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await page.goto(d.url(`/brands/${brandId}/performance`));
      const first = page.locator("table.performance-table tbody tr").first();
      await first.waitFor();
      // A card: the prompt, then its figures in two columns, each under its column's name.
      expect(await first.evaluate((tr) => getComputedStyle(tr).display)).toBe("grid");
      expect(await first.evaluate((tr) => getComputedStyle(tr).gridTemplateColumns.split(" ").length)).toBe(2);
      expect(await first.locator("[data-figure=answers]").evaluate((td) => getComputedStyle(td, "::before").content)).toBe('"Answers"');
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      // The header's sort button is out of sight and out of the Tab order; the one above the cards sorts.
      expect(await page.getByRole("button", { name: /^Visibility/ }).isVisible()).toBe(false);
      await page.getByText("Highest visibility first.").waitFor();
      await page.getByRole("button", { name: "Show lowest first" }).click();
      await page.waitForURL(/order=visibility_asc/);
      await page.getByText("Lowest visibility first.").waitFor();
      await page.getByRole("button", { name: "Show highest first" }).waitFor();
      expectNothingUnsafe(page);
    } finally {
      await page.setViewportSize(viewport);
    }
  });
});

describe("answers", () => {
  test("a prompt → its page → an answer with its mentions highlighted at the stored offsets", async () => {
    await page.goto(d.url(`/brands/${brandId}/performance`));
    const link = page.locator("table.performance-table tbody tr th a").first();
    const text = (await link.textContent())!.trim();
    await link.click();
    await page.waitForURL(/\/performance\/[^/?]+/);
    // Headed by the prompt's text, the word "Prompt" above it.
    const heading = page.getByRole("heading", { level: 1 });
    await page.locator(".page-kind", { hasText: "Prompt" }).waitFor();
    expect(await heading.textContent()).toBe(text);
    await page.locator("table.answers-table tbody tr").first().waitFor();
    // The prompt's figures are its row of get_prompt_performance.
    const promptIdShown = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    const perf = await tool<{ prompts: Array<{ id: string; visibility: { n: number }; answers: { valid: number; total: number } }> }>(
      "get_prompt_performance",
      { limit: 200 },
    );
    const row = perf.prompts.find((p) => p.id === promptIdShown)!;
    const figures = page.locator("table.prompt-figures tbody tr").first();
    await figures.locator("[data-figure=visibility]").waitFor();
    expect(await figures.locator("[data-figure=visibility]").textContent()).toContain(`n = ${row.visibility.n}`);
    expect(await figures.locator("[data-figure=answers]").textContent()).toBe(`${row.answers.valid} valid of ${row.answers.total}`);
    // The way to its answers in the Answers page keeps the period (the default: the last 30 days),
    // and the answers listed here are that period's too (the demo has 60 days).
    const thirtyDays = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    expect(await page.getByRole("link", { name: "Filter this prompt's answers of the period" }).getAttribute("href")).toBe(
      `/brands/${brandId}/answers?prompt=${encodeURIComponent(promptIdShown)}&start=${thirtyDays}`,
    );
    const ofPeriod = await tool<{ answers: Array<{ id: string }> }>("list_answers", {
      prompt_id: promptIdShown,
      start_date: thirtyDays,
      limit: 20,
    });
    const listed = () =>
      page.locator("table.answers-table tbody tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-answer-id")));
    expect(await eventually(listed, (v) => JSON.stringify(v) === JSON.stringify(ofPeriod.answers.map((a) => a.id)))).toEqual(
      ofPeriod.answers.map((a) => a.id),
    );
    const older = await tool<{ answers: unknown[] }>("list_answers", {
      prompt_id: promptIdShown,
      end_date: day(Date.now() - 31 * 86_400_000),
      limit: 1,
    });
    expect(older.answers.length).toBe(1);
    // Its trend: get_visibility_trend narrowed to the prompt, by week at first (a prompt has few answers
    // a day), drawn and as a table whose points add up to its row.
    await page.locator(".trend-chart canvas").waitFor();
    expect(await page.getByLabel("Points by", { exact: true }).inputValue()).toBe("week");
    const trend = await tool<{ points: Array<{ date: string; visibility: { n: number } }> }>("get_visibility_trend", {
      prompt_id: promptIdShown,
      interval: "week",
    });
    expect(trend.points.reduce((n, p) => n + p.visibility.n, 0)).toBe(row.visibility.n);
    await page.getByText("Show the figures as a table").click();
    expect(
      await page
        .getByRole("table", { name: /Visibility and share of voice by week/ })
        .locator("tbody tr")
        .count(),
    ).toBe(trend.points.length);
    // By day when chosen, in the URL.
    await page.getByLabel("Points by", { exact: true }).selectOption("day");
    await page.waitForURL(/interval=day/);
    await page.getByRole("table", { name: /Visibility and share of voice by day/ }).waitFor({ state: "attached" });
    await page.getByLabel("Points by", { exact: true }).selectOption("week");
    await page.waitForURL((url) => !url.searchParams.has("interval"));
    await page.getByRole("table", { name: /Visibility and share of voice by week/ }).waitFor({ state: "attached" });
    await page.getByText("Show the figures as a table").click();
    await expectAccessible(page, "prompt page");
    // On a phone its figures are cards: every figure on the screen, after its name (they scrolled sideways, the last ones out of sight).
    const viewport = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    const competitor = page.locator('table.prompt-figures td[data-figure="competitor"]').first();
    await competitor.waitFor();
    const cell = (await competitor.boundingBox())!;
    expect(cell.x + cell.width).toBeLessThanOrEqual(390);
    expect(await competitor.evaluate((td) => getComputedStyle(td, "::before").content)).toBe('"Top competitor"');
    await expectAccessible(page, "prompt page at 390 px");
    await page.setViewportSize(viewport);
    await photograph(page, "prompt-page");
    // An answer of this prompt that mentions the brand and a competitor.
    const promptId = decodeURIComponent(new URL(page.url()).pathname.split("/").pop()!);
    let answerId: string | undefined;
    let cursor: string | undefined;
    for (let i = 0; i < 10 && !answerId; i++) {
      const list = await tool<{ answers: Array<{ id: string; status: string }>; next_cursor: string | null }>("list_answers", {
        prompt_id: promptId,
        status: "ok",
        limit: 50,
        ...(cursor ? { cursor } : {}),
      });
      for (const a of list.answers) {
        const full = await tool<{ answer: { mentions: Array<{ is_brand: boolean }> } }>("get_answer", { answer_id: a.id });
        if (full.answer.mentions.some((m) => m.is_brand) && full.answer.mentions.some((m) => !m.is_brand)) {
          answerId = a.id;
          break;
        }
      }
      if (!list.next_cursor) break;
      cursor = list.next_cursor;
    }
    expect(answerId).toBeDefined();
    await page.goto(d.url(`/brands/${brandId}/answers/${answerId}`));
    await page.locator(".answer-text").waitFor();
    // Headed by the prompt it answers, as the prompt's page is; a link leads back to that page.
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(text);
    await page.locator(".page-kind", { hasText: "Answer to" }).waitFor();
    expect(await page.getByRole("link", { name: "This prompt's figures and answers" }).getAttribute("href")).toBe(
      `/brands/${brandId}/performance/${encodeURIComponent(promptId)}`,
    );
    const { answer } = await tool<{
      answer: { text: string; mentions: Array<{ name: string; offset: number; is_brand: boolean }> };
    }>("get_answer", { answer_id: answerId! });
    expect(
      await eventually(
        () => page.locator(".answer-text mark").count(),
        (n) => n === answer.mentions.length,
      ),
    ).toBe(answer.mentions.length);
    const marks = await page.locator(".answer-text mark").evaluateAll((ms) =>
      ms.map((m) => ({
        member: m.getAttribute("data-member"),
        offset: Number(m.getAttribute("data-offset")),
        brand: m.classList.contains("mention-brand"),
        // The visible text, without the screen reader's label.
        text: [...m.childNodes]
          .filter((n) => n.nodeType === Node.TEXT_NODE)
          .map((n) => n.textContent)
          .join(""),
      })),
    );
    const brand = await tool<{ brand: { name: string; aliases: string[] }; competitors: Array<{ name: string; aliases: string[] }> }>(
      "get_brand",
      {},
    );
    const aliases = new Map([
      [brand.brand.name, brand.brand.aliases],
      ...brand.competitors.map((c) => [c.name, c.aliases] as [string, string[]]),
    ]);
    expect(marks.some((m) => m.brand)).toBe(true);
    expect(marks.some((m) => !m.brand)).toBe(true);
    for (const mark of marks) {
      const mention = answer.mentions.find((m) => m.name === mark.member)!;
      expect(mention.offset).toBe(mark.offset);
      expect(mark.brand).toBe(mention.is_brand);
      expect(answer.text.slice(mark.offset, mark.offset + mark.text.length)).toBe(mark.text);
      // The highlighted text is the member's name or one of its aliases (the demo brand, "Northwind
      // CRM (demo)", is written as its alias "Northwind CRM"), ignoring case.
      const names = [mention.name, ...(aliases.get(mention.name) ?? [])].map((n) => n.toLowerCase());
      expect(names).toContain(mark.text.toLowerCase());
    }
    // The whole text is shown, character for character, around the marks.
    const shown = await page.locator(".answer-text").evaluate((el) => {
      const walk = (n: Node): string =>
        n.nodeType === Node.TEXT_NODE
          ? (n.textContent ?? "")
          : (n as Element).classList?.contains("visually-hidden")
            ? ""
            : [...n.childNodes].map(walk).join("");
      return walk(el);
    });
    expect(shown).toBe(answer.text);
    await expectAccessible(page, "answer");
    await photograph(page, "answer");
    expectNothingUnsafe(page);
  });

  test("an answer whose text holds markup and script shows them as text, and nothing runs", async () => {
    await page.goto(d.url(`/brands/${brandId}/answers?engine=chatgpt`));
    await page.locator("table.answers-table tbody tr").first().waitFor();
    await expectAccessible(page, "answers");
    await photograph(page, "answers");
    // Engines and statuses by their names, as the filters name them, not by their ids.
    const brand = await tool<{ engines: Array<{ id: string; label: string }> }>("get_brand", {});
    const label = brand.engines.find((e) => e.id === "chatgpt")!.label;
    expect(label).not.toBe("chatgpt");
    const firstRow = page.locator("table.answers-table tbody tr").first();
    const cells = () => firstRow.locator("td").allTextContents();
    expect((await eventually(cells, (v) => v[0] === label)).slice(0, 2)).toEqual([label, "Answered"]);
    // Each row leads with the prompt it answers, its link to the answer, named by the prompt, engine
    // and date (a screen reader's list of links tells them apart); the date comes last.
    const newest = (
      await tool<{ answers: Array<{ prompt_text: string; created_at: string }> }>("list_answers", { engine: "chatgpt", limit: 1 })
    ).answers[0]!;
    const link = page.locator("table.answers-table tbody tr th a").first();
    expect(await link.textContent()).toBe(newest.prompt_text);
    const name = (await link.getAttribute("aria-label")) ?? "";
    expect(name).toStartWith(`${newest.prompt_text}: ${label}'s answer of `);
    const when = await firstRow.locator("td[data-label=Date]").textContent();
    expect(name).toEndWith(` of ${when}`);
    // This year's dates leave the year out in the list (it took the prompts' column's width); the
    // answer's own page has it.
    const year = String(new Date(newest.created_at).getFullYear());
    expect(when).not.toContain(year);
    expect(when).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{1,2}:\d{2}/);
    // The newest answer is the hostile one.
    await link.click();
    await page.waitForURL(/\/answers\/[^/?]+$/);
    await page.locator(".answer-text").waitFor();
    expect(await page.locator(".answer-facts dd", { hasText: year }).count()).toBe(1);
    expect(await page.locator(".answer-facts dd").first().textContent()).toBe(label);
    // Its latency of 1,234 ms read as seconds, its tokens as counted.
    expect(await page.locator(".answer-facts dd").allTextContents()).toEqual(expect.arrayContaining(["1.2 s", "10 in, 20 out"]));
    expect(await page.locator(".answer-text").textContent()).toContain("<img src=x onerror=alert(1)>");
    expect(await page.locator(".answer-text").textContent()).toContain("<script>alert(1)</script>");
    expect(await page.locator(".answer-text img, .answer-text script").count()).toBe(0);
    expect(await page.locator(".answer-text mark.mention-brand").count()).toBe(1);
    await page.getByText("A hostile source").waitFor();
    expect(await page.getByText("(not a web address)").count()).toBeGreaterThan(0);
    const citation = page.locator('section[aria-labelledby="answer-citations"] li a');
    expect(await citation.getAttribute("href")).toBe("https://www.shop.example.org/buy");
    expect(await citation.textContent()).toBe("https://www.shop.example.org/buy");
    expect(await page.locator('a[href^="javascript:" i], a[href^="data:" i]').count()).toBe(0);
    await photograph(page, "answer-hostile");
    expectNothingUnsafe(page);
  });

  test("a next page that fails keeps the rows shown and asks again for that page; a refusal offers no Try again", async () => {
    await page.goto(d.url(`/brands/${brandId}/answers`));
    const rows = page.locator("table.answers-table tbody tr");
    await rows.first().waitFor();
    expect(await rows.count()).toBe(20);
    await page.route("**/tools/list_answers", (route) => route.abort("connectionrefused"), { times: 1 });
    await page.getByRole("button", { name: "More answers" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "The server could not be reached" });
    await alert.waitFor();
    expect(await rows.count()).toBe(20);
    await alert.getByRole("button", { name: "Try again" }).click();
    await eventually(
      () => rows.count(),
      (n) => n === 40,
    );
    expect(await rows.count()).toBe(40);
    expect(await alert.count()).toBe(0);
    // Not found is not a failure that asking again could mend.
    await page.goto(d.url(`/brands/${brandId}/answers/ans_999999999`));
    const refused = page.getByRole("alert").filter({ hasText: "There is no such answer for this brand" });
    await refused.waitFor();
    expect(await refused.getByRole("button").count()).toBe(0);
  });

  test("Back from an answer opened in the list finds the list as it was: the rows read and the scroll; a new visit starts at the first page", async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(d.url(`/brands/${brandId}/answers`));
    const rows = page.locator("table.answers-table tbody tr");
    await rows.first().waitFor();
    for (const n of [40, 60]) {
      await page.getByRole("button", { name: "More answers" }).click();
      await eventually(
        () => rows.count(),
        (count) => count === n,
      );
    }
    const opened = rows.nth(45);
    await opened.scrollIntoViewIfNeeded();
    // The place is kept in the history entry (after a scroll settles, and at the click).
    await page.waitForFunction(
      () => (history.state as { lists?: { answers?: { scrollY: number } } } | null)?.lists?.answers?.scrollY === window.scrollY,
    );
    const scrolled = await page.evaluate(() => window.scrollY);
    expect(scrolled).toBeGreaterThan(500);
    const name = (await opened.locator("th").textContent())!;
    await opened.getByRole("link").first().click();
    await page.waitForURL(/\/answers\/ans_/);
    await page.getByRole("heading", { name: "Answer text" }).waitFor();
    await page.goBack();
    await eventually(
      () => rows.count(),
      (count) => count === 60,
    );
    await page.waitForFunction((y) => Math.abs(window.scrollY - y) < 40, scrolled);
    expect(await rows.nth(45).locator("th").textContent()).toBe(name);
    // Another page, then the Answers link: a new visit, its first page at the top.
    const nav = page.getByRole("navigation", { name: "Brand pages" });
    await nav.getByRole("link", { name: "Sources", exact: true }).click();
    await page.waitForURL(/\/sources/);
    await nav.getByRole("link", { name: "Answers", exact: true }).click();
    await page.waitForURL(/\/answers$/);
    await rows.first().waitFor();
    await page.waitForFunction(() => window.scrollY === 0);
    await page.getByRole("button", { name: "More answers" }).waitFor();
    expect(await rows.count()).toBe(20);
  });

  test("a page of the brand's own site that the search read but the answer did not cite is marked as the brand's", async () => {
    const listed = await tool<{ answers: Array<{ id: string }> }>("list_answers", { status: "ok", limit: 100 });
    let found: { id: string; url: string } | null = null;
    for (const { id } of listed.answers) {
      const { answer } = await tool<{ answer: { retrieved_sources: Array<{ url: string; owned: boolean }> } }>("get_answer", {
        answer_id: id,
      });
      const own = answer.retrieved_sources.find((r) => r.owned);
      if (own) {
        found = { id, url: own.url };
        break;
      }
    }
    expect(found).not.toBeNull();
    await page.goto(d.url(`/brands/${brandId}/answers/${found!.id}`));
    const retrieved = page.getByRole("list", { name: "Retrieved, not cited" });
    await retrieved.waitFor();
    const item = retrieved.getByRole("listitem").filter({ has: page.locator(`a[href="${found!.url}"]`) });
    expect(await item.getByText("Your site", { exact: true }).count()).toBe(1);
  });

  test("a More pressed before a filter's change does not pull the focus from the filter when the new list ends", async () => {
    // One engine's answers (many pages), then a status whose answers of that engine fit one page:
    // of every stored day, as the page lists them without a period (the demo's counts vary by seed).
    let pick: { engine: string; status: string } | null = null;
    for (const engine of ["chatgpt", "claude", "perplexity"]) {
      for (const status of ["error", "refusal", "empty"]) {
        const out = await tool<{ answers: unknown[]; next_cursor: string | null }>("list_answers", { engine, status, limit: 20 });
        if (!pick && out.answers.length > 0 && out.next_cursor === null) pick = { engine, status };
      }
    }
    expect(pick).not.toBeNull();
    await page.goto(d.url(`/brands/${brandId}/answers?engine=${pick!.engine}`));
    const rows = page.locator("table.answers-table tbody tr");
    await rows.first().waitFor();
    await page.getByRole("button", { name: "More answers" }).focus();
    await page.keyboard.press("Enter");
    await eventually(
      () => rows.count(),
      (n) => n === 40,
    );
    const status = page.getByLabel("Status");
    await status.focus();
    await status.selectOption(pick!.status);
    await page.waitForURL(new RegExp(`status=${pick!.status}`));
    await page.getByRole("button", { name: "More answers" }).waitFor({ state: "detached" });
    expect(await page.getByText("That is the whole list.").count()).toBe(0);
    await expectFocus(status);
  });

  test("answers of one prompt (?prompt=) name it by its text, and each row is that prompt's", async () => {
    const first = (await tool<{ prompts: Array<{ id: string; text: string }> }>("list_prompts", { limit: 1 })).prompts[0]!;
    await page.goto(d.url(`/brands/${brandId}/answers?prompt=${first.id}`));
    await page.getByText(`Prompt: ${first.text}`, { exact: true }).waitFor();
    await page.locator("table.answers-table tbody tr").first().waitFor();
    const texts = await page.locator("table.answers-table th.answer-prompt").allTextContents();
    expect(new Set(texts)).toEqual(new Set([first.text]));
  });

  test("an answer that could not be read is neither mentioning nor not mentioning the brand: '–', never 'No'", async () => {
    const unread = await tool<{ answers: Array<{ id: string; status: string }> }>("list_answers", { status: "empty", limit: 1 });
    expect(unread.answers.length).toBe(1);
    await page.goto(d.url(`/brands/${brandId}/answers?status=empty`));
    const cell = page.locator("table.answers-table tbody tr").first().locator('td[data-label="Brand mentioned"]');
    await cell.waitFor();
    expect(await cell.textContent()).toBe("—");
  });

  test("an answer without text says so once: no empty box, no mentions, citations or searches to show", async () => {
    for (const status of ["error", "empty"] as const) {
      const listed = await tool<{ answers: Array<{ id: string }> }>("list_answers", { status, limit: 1 });
      expect(listed.answers.length).toBe(1);
      await page.goto(d.url(`/brands/${brandId}/answers/${listed.answers[0]!.id}`));
      const text = page.getByRole("region", { name: "Answer text" });
      await text.waitFor();
      expect(await text.textContent()).toContain(
        status === "error"
          ? "None: the request to the engine failed, so there is no text, mention or citation to show."
          : "None: the engine answered with no text.",
      );
      expect(await page.locator(".answer-text").count()).toBe(0);
      for (const heading of ["Mentions", "Citations", "What the assistant searched"]) {
        expect(await page.getByRole("heading", { name: heading }).count()).toBe(0);
      }
    }
    await photograph(page, "answer-without-text");
  });

  test("the answers filters are in the URL", async () => {
    await page.goto(d.url(`/brands/${brandId}/answers`));
    await page.locator("table.answers-table tbody tr").first().waitFor();
    await page.getByLabel("Brand mentioned").selectOption("no");
    await page.waitForURL(/mentioned=no/);
    await page.getByLabel("Status").selectOption("ok");
    await page.waitForURL(/status=ok/);
    const out = await tool<{ answers: Array<{ id: string }> }>("list_answers", { mentioned: false, status: "ok" });
    const ids = () => page.locator("table.answers-table tbody tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-answer-id")));
    expect(await eventually(ids, (v) => JSON.stringify(v) === JSON.stringify(out.answers.map((a) => a.id)))).toEqual(
      out.answers.map((a) => a.id),
    );
    await page.reload();
    await page.locator("table.answers-table tbody tr").first().waitFor();
    expect(await ids()).toEqual(out.answers.map((a) => a.id));
    // What a filter brought is said in a live region (a screen reader hears nothing of the table's change).
    const said = page.getByTestId("answers-said");
    const rows = (await ids()).length;
    expect(await said.getAttribute("role")).toBe("status");
    expect(
      await eventually(
        () => said.textContent(),
        (t) => (t ?? "").startsWith(`${rows} answer`),
      ),
    ).toStartWith(`${rows} answer${rows === 1 ? "" : "s"} shown`);
    // By keyboard, the date field keeps its 3 px ring on its calendar button too (after its three parts).
    const from = page.getByRole("textbox", { name: "From", exact: true });
    await from.focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press("Tab");
    expect(
      await from.evaluate((el) => [el === document.activeElement, el.matches(":focus-visible"), getComputedStyle(el).outlineWidth]),
    ).toEqual([true, false, "3px"]);
    await page.getByRole("textbox", { name: "From", exact: true }).fill("2099-12-31");
    await page.waitForURL(/start=2099-12-31/);
    expect(
      await eventually(
        () => said.textContent(),
        (t) => t === "No answer matches these filters.",
      ),
    ).toBe("No answer matches these filters.");
    // A From after its To (a link typed by hand) lists the answers between the two dates, as the
    // figures' pages do, and says so once beside them (list_answers refused it, "start_date is after end_date").
    const [early, late] = [day(Date.now() - 9 * 86_400_000), day(Date.now() - 6 * 86_400_000)];
    await page.goto(d.url(`/brands/${brandId}/answers?start=${late}&end=${early}`));
    const between = await tool<{ answers: Array<{ id: string }> }>("list_answers", { start_date: early, end_date: late });
    expect(between.answers.length).toBeGreaterThan(0);
    expect(await eventually(ids, (v) => JSON.stringify(v) === JSON.stringify(between.answers.map((a) => a.id)))).toEqual(
      between.answers.map((a) => a.id),
    );
    await page
      .getByRole("status")
      .filter({ hasText: /^From is after To: the answers are of / })
      .waitFor();
    expect(await page.getByRole("alert").count()).toBe(0);
    expect(await page.getByRole("textbox", { name: "From", exact: true }).inputValue()).toBe(late);
    await photograph(page, "answers-reversed-range");
    expectNothingUnsafe(page);
  });

  test("a prompt's page for an id that is no prompt of the brand says so; one of its answers' prompt is named in Answers", async () => {
    await page.goto(d.url(`/brands/${brandId}/performance/prm_doesnotexist0000`));
    await page.getByText("This prompt does not exist.").waitFor();
    const first = (await tool<{ prompts: Array<{ id: string; text: string }> }>("list_prompts", { limit: 1 })).prompts[0]!;
    await page.goto(d.url(`/brands/${brandId}/answers?prompt=${first.id}`));
    await page.getByText(`Prompt: ${first.text}`).waitFor();
  });
});
