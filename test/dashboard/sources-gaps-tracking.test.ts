// The Sources, Content gaps and Tracking pages in headless Chromium against the compiled binary.
// Sources and gaps on demo data: the table shows get_top_sources' figures for the same filter (read
// through the session door with the page's cookie), level and chosen source survive reload, a chosen
// source lists the answers citing it, a gap becomes a draft in the editor. Tracking with a loopback
// stand-in engine: Run now shows progress and ends with the run's answers counted; an engine whose key
// variable is unset says so. axe-core on each page; screenshots at 1280 and 390 px, light and dark.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type Page, type Request } from "playwright-core";
import {
  type Dashboard,
  expectAccessible,
  expectFocus,
  expectNothingUnsafe,
  openDashboard,
  photograph,
  screenshot,
  sessionTool,
  signIn,
} from "../support/dashboard";
import { answer, type FakeProvider, startFakeResponses } from "../support/fake-providers";

setDefaultTimeout(90_000);

/** Waits until `read` gives `expected` (the page loads after the URL changes). */
async function until<T>(read: () => Promise<T>, expected: T, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  let last = await read();
  while (JSON.stringify(last) !== JSON.stringify(expected) && Date.now() < end) {
    await Bun.sleep(100);
    last = await read();
  }
  expect(last as unknown).toEqual(expected);
}

interface Sources {
  sources: Array<{
    domain: string;
    url?: string;
    citations: number;
    answers: number;
    owned: boolean;
    competitor: { id: string; name: string } | null;
    citation_share: { rate: number | null; n: number; low: number | null; high: number | null };
  }>;
}

describe("Sources and Content gaps on demo data", () => {
  let d: Dashboard;
  let page: Page;
  let brandId: string;
  let start: string;
  let email: string;

  beforeAll(async () => {
    d = await openDashboard();
    const seeded = await d.box.cli(["demo", "--json"]);
    expect(seeded.code).toBe(0);
    const demo = JSON.parse(seeded.stdout) as { login: { email: string; password: string }; brand: { id: string } };
    brandId = demo.brand.id;
    email = demo.login.email;
    page = await d.page();
    await signIn(d, page, demo.login);
  });

  afterAll(async () => {
    await d?.close();
  });

  test("the sources table shows get_top_sources' figures for the same filter", async () => {
    await page.getByRole("navigation", { name: "Brand pages" }).getByRole("link", { name: "Sources" }).click();
    await page.waitForURL(`**/brands/${brandId}/sources`);
    await page.getByLabel("Period").selectOption("7");
    await page.waitForURL(/start=/);
    start = new URL(page.url()).searchParams.get("start")!;
    const rows = page.locator("table.sources-table tbody tr");
    await rows.first().waitFor();
    const expected = await sessionTool<Sources>(page, brandId, "get_top_sources", { start_date: start, level: "domain", limit: 50 });
    expect(expected.sources.length).toBeGreaterThan(0);
    // The demo's competitors have sites of their own, which its answers cite.
    expect(expected.sources.some((s) => s.competitor !== null)).toBe(true);
    await until(() => rows.count(), expected.sources.length);
    const shown = await rows.evaluateAll((trs) =>
      trs.map((tr) => ({
        domain: tr.querySelector("th .mono")?.textContent,
        citations: tr.children[1]?.childNodes[0]?.textContent,
        answers: tr.children[1]?.querySelector(".cell-meta")?.textContent,
        share: tr.children[2]?.childNodes[0]?.textContent,
        interval: tr.children[2]?.querySelector(".cell-meta")?.textContent,
        owned: tr.children[3]?.textContent,
      })),
    );
    const pct = (x: number) => (x * 100).toFixed(1);
    expect(shown).toEqual(
      expected.sources.map((s) => ({
        domain: s.domain,
        citations: s.citations.toLocaleString("en-US"),
        // The count said once where each answer cites the domain once ("409, in 409 answers" said it twice).
        answers: s.answers === s.citations && s.answers > 1 ? "in as many answers" : `in ${s.answers} answer${s.answers === 1 ? "" : "s"}`,
        share: s.citation_share.rate === null ? "—" : `${pct(s.citation_share.rate)}%`,
        interval: s.citation_share.low === null ? "" : `${pct(s.citation_share.low)}–${pct(s.citation_share.high!)}%`,
        owned: s.owned ? "Your site" : s.competitor ? `Competitor: ${s.competitor.name}` : "Other",
      })),
    );
    // The shares' n, the period's citations, is the same on every row: said once, above the table.
    expect(new Set(expected.sources.map((s) => s.citation_share.n)).size).toBe(1);
    expect(await page.locator("table.sources-table caption").textContent()).toBe(
      `Cited sources by domain, each one's share of the period's ${expected.sources[0]!.citation_share.n.toLocaleString("en-US")} citations`,
    );
    // Counts and rates line up on the right of their columns.
    expect(
      await rows
        .first()
        .locator("td.num")
        .evaluateAll((tds) => tds.map((td) => getComputedStyle(td).textAlign)),
    ).toEqual(["right", "right"]);
    // The grouping sits level with the filters beside it: its legend with their labels, its choices with their selects.
    const level = await page.evaluate(() => {
      const box = (selector: string) => document.querySelector(selector)!.getBoundingClientRect();
      const [tagLabel, tagSelect, legend, choice] = [
        box('.filter-bar label[for$="-tag"]'),
        box('.filter-bar select[id$="-tag"]'),
        box(".filter-bar .segmented legend"),
        box(".filter-bar .segmented label"),
      ];
      return { legend: Math.round(legend.top - tagLabel.top), choice: Math.round(choice.bottom - tagSelect.bottom) };
    });
    expect(level).toEqual({ legend: 0, choice: 0 });
    await expectAccessible(page, "sources");
    await photograph(page, "sources");
    expectNothingUnsafe(page);
  });

  test("level and the chosen source are in the URL, survive reload, and list the answers citing it", async () => {
    await page.getByRole("radio", { name: "URL" }).check();
    await page.waitForURL(/level=url/);
    await page.locator("table.sources-table tbody tr").first().waitFor();
    // The chosen half of the grouping is tinted, the other not.
    const tints = await page
      .locator(".filter-bar .segmented label")
      .evaluateAll((labels) => labels.map((l) => [l.textContent?.trim(), getComputedStyle(l).backgroundColor]));
    expect(tints[0]![1]).not.toBe(tints[1]![1]);
    expect(tints[1]![0]).toBe("URL");
    const byUrl = await sessionTool<Sources>(page, brandId, "get_top_sources", { start_date: start, level: "url", limit: 50 });
    await until(() => page.locator("table.sources-table tbody tr").count(), byUrl.sources.length);
    // A URL counts once per answer: its citations are its answers, shown once.
    expect(byUrl.sources.every((s) => s.citations === s.answers)).toBe(true);
    expect(await page.locator("table.sources-table thead th").allTextContents()).toEqual([
      "URL",
      "Citations",
      "Citation share (95% interval)",
      "Whose site",
    ]);
    expect(await page.locator('table.sources-table td[data-label="Citations"] .cell-meta').count()).toBe(0);
    // By URL, a row's answers are those citing that page (list_answers cited_url), not its whole domain.
    const url = byUrl.sources[0]!.url!;
    await page.getByRole("link", { name: `Answers citing ${url}`, exact: true }).click();
    await page.waitForURL((u) => u.searchParams.get("source") === url && u.searchParams.get("level") === "url");
    await page.reload();
    expect(await page.getByRole("radio", { name: "URL" }).isChecked()).toBe(true);
    expect(new URL(page.url()).searchParams.get("start")).toBe(start);
    const panel = page.getByRole("region", { name: `Answers citing ${url}` });
    await panel.locator("tbody tr").first().waitFor();
    // Under its row, not after the whole list (it was some thousands of pixels further down).
    expect(
      await page
        .locator("table.sources-table > tbody > tr.chosen")
        .evaluate((tr) => tr.nextElementSibling?.classList.contains("citing-row")),
    ).toBe(true);
    const citing = await sessionTool<{ answers: Array<{ id: string }> }>(page, brandId, "list_answers", {
      cited_url: url,
      start_date: start,
      limit: 20,
    });
    expect(citing.answers.length).toBe(Math.min(20, byUrl.sources[0]!.answers));
    const links = await panel.locator("tbody tr th a").evaluateAll((as) => as.map((a) => a.getAttribute("href")));
    expect(links).toEqual(citing.answers.map((a) => `/brands/${brandId}/answers/${a.id}`));
    const open = panel.getByRole("link", { name: "Open them in Answers" });
    // It keeps the period: Answers without dates lists every stored answer.
    expect(await open.getAttribute("href")).toBe(`/brands/${brandId}/answers?cites_url=${encodeURIComponent(url)}&start=${start}`);
    await open.click();
    await page.waitForURL(/\/answers\?/);
    expect(await page.getByRole("textbox", { name: "From", exact: true }).inputValue()).toBe(start);
    await page.locator("table.answers-table tbody tr").first().waitFor();
    expect(await page.locator("table.answers-table tbody tr th a").evaluateAll((as) => as.map((a) => a.getAttribute("href")))).toEqual(
      citing.answers.map((a) => `/brands/${brandId}/answers/${a.id}`),
    );
    await page.goBack();
    // External links only as http(s), opened without a referrer.
    for (const rel of await page.locator("table.sources-table a.url").evaluateAll((as) => as.map((a) => a.getAttribute("rel"))))
      expect(rel?.split(" ").sort()).toEqual(["nofollow", "noopener", "noreferrer"]);
    await expectAccessible(page, "sources-by-url");
    await photograph(page, "sources-by-url");
    expectNothingUnsafe(page);
    // Its Close link takes the list back without a chosen source.
    await page.getByRole("link", { name: `Close the answers citing ${url}`, exact: true }).click();
    await page.waitForURL((u) => !u.searchParams.has("source") && u.searchParams.get("level") === "url");
    expect(await page.locator("tr.citing-row").count()).toBe(0);
    // The keyboard is back on the row's link (it fell to the page's start), and Escape inside the panel closes it too.
    const rowLink = page.getByRole("link", { name: `Answers citing ${url}`, exact: true });
    await until(() => rowLink.evaluate((a) => a === document.activeElement), true);
    await page.keyboard.press("Enter");
    await page.waitForURL((u) => u.searchParams.get("source") === url);
    await page
      .getByRole("region", { name: `Answers citing ${url}` })
      .getByRole("link", { name: "Open them in Answers" })
      .focus();
    await page.keyboard.press("Escape");
    await page.waitForURL((u) => !u.searchParams.has("source") && u.searchParams.get("level") === "url");
    expect(await page.locator("tr.citing-row").count()).toBe(0);
    await until(() => rowLink.evaluate((a) => a === document.activeElement), true);
  });

  test("the search queries page shows get_search_queries' queries; a query's answers open in Answers, filtered by it", async () => {
    await page.getByRole("navigation", { name: "Brand pages" }).getByRole("link", { name: "Search queries" }).click();
    await page.waitForURL(`**/brands/${brandId}/searches`);
    const rows = page.locator("table.searches-table tbody tr");
    await rows.first().waitFor();
    type Queries = {
      queries: Array<{
        id: string;
        query: string;
        answers: number;
        prompt_count: number;
        engines: string[];
        prompts: Array<{ text: string }>;
      }>;
    };
    const expected = await sessionTool<Queries>(page, brandId, "get_search_queries", { limit: 50 });
    expect(expected.queries.length).toBeGreaterThan(1);
    await until(() => rows.count(), expected.queries.length);
    const shown = await rows.evaluateAll((trs) =>
      trs.map((tr) => ({
        query: tr.querySelector("th .search-query")?.textContent,
        answers: tr.children[1]?.textContent,
        prompts: [...(tr.children[2]?.querySelectorAll("li a") ?? [])].map((a) => a.textContent),
        more: tr.children[2]?.querySelector(".cell-meta")?.textContent ?? "",
        engines: tr.children[3]?.textContent,
      })),
    );
    const labels: Record<string, string> = { chatgpt: "ChatGPT (demo)", claude: "Claude (demo)", perplexity: "Perplexity (demo)" };
    expect(shown).toEqual(
      expected.queries.map((q) => ({
        query: q.query,
        answers: q.answers.toLocaleString("en-US"),
        prompts: q.prompts.map((p) => p.text),
        more:
          q.prompt_count > q.prompts.length
            ? `and ${q.prompt_count - q.prompts.length} more prompt${q.prompt_count - q.prompts.length === 1 ? "" : "s"}`
            : "",
        engines: q.engines.map((e) => labels[e] ?? e).join(", "),
      })),
    );
    await expectAccessible(page, "search queries");
    await photograph(page, "search-queries");
    // A query's answers: the Answers page lists as many as the query's row counts (the same 30 days; all valid answers).
    const first = expected.queries[0]!;
    await rows
      .first()
      .getByRole("link", { name: `Answers that searched it: ${first.query}` })
      .click();
    await page.waitForURL(/\/answers\?/);
    expect(new URL(page.url()).searchParams.get("searched")).toBe(first.id);
    await page.getByText(`Searched: ${first.id}`).waitFor();
    const answerRows = page.locator("table.answers-table tbody tr");
    await answerRows.first().waitFor();
    const more = page.getByRole("button", { name: "More answers" });
    while (await more.isVisible()) {
      const before = await answerRows.count();
      await more.click();
      await until(async () => (await answerRows.count()) > before, true);
    }
    expect(await answerRows.count()).toBe(first.answers);
    // Cleared, the list is every answer again.
    await page.getByRole("button", { name: "Any search" }).click();
    await page.waitForURL((url) => !url.searchParams.has("searched"));
    expectNothingUnsafe(page);
  });

  test("a gap → Draft an article → the editor opens with a draft linked to the prompt", async () => {
    await page.goto(d.url(`/brands/${brandId}/gaps`));
    type CitedDomain = { domain: string; citations: number; owned: boolean; competitor: { name: string } | null };
    const gaps = await sessionTool<{ gaps: Array<{ prompt_id: string; text: string; top_domains: CitedDomain[] }> }>(
      page,
      brandId,
      "get_content_gaps",
      { limit: 20 },
    );
    expect(gaps.gaps.length).toBeGreaterThan(0);
    const first = gaps.gaps[0]!;
    await page.getByRole("heading", { name: first.text, level: 2 }).waitFor();
    expect(await page.locator(".gap-list > li").count()).toBe(gaps.gaps.length);
    // Each cited domain says whose site it is when it is the brand's or a competitor's (the demo's competitors have sites).
    const shown = await page
      .locator(".gap-list > li")
      .evaluateAll((cards) =>
        cards.map((card) =>
          [...card.querySelectorAll(".gap-columns > div:last-child li")].map((li) => li.textContent?.replace(/\s+/g, " ").trim()),
        ),
      );
    const whose = (d: CitedDomain) => (d.owned ? "; your site" : d.competitor ? `; ${d.competitor.name}'s site` : "");
    expect(shown).toEqual(
      gaps.gaps.map((g) => g.top_domains.map((d) => `${d.domain} (${d.citations} citation${d.citations === 1 ? "" : "s"}${whose(d)})`)),
    );
    expect(gaps.gaps.some((g) => g.top_domains.some((d) => d.competitor !== null))).toBe(true);
    await expectAccessible(page, "gaps");
    await photograph(page, "gaps");
    await page
      .locator(".gap-list > li")
      .first()
      .getByRole("button", { name: /Draft an article/ })
      .click();
    await page.waitForURL(/\/articles\/art_[a-z0-9]+$/);
    const articleId = page.url().split("/").pop()!;
    const { article } = await sessionTool<{ article: { prompt_id: string | null; title: string; status: string } }>(
      page,
      brandId,
      "get_article",
      {
        article_id: articleId,
      },
    );
    expect(article.prompt_id).toBe(first.prompt_id);
    expect(article.status).toBe("draft");
    expect(await page.getByLabel("Markdown").inputValue()).toContain("Draft to edit");
    // This instance has no writer: the page says the draft is an outline, and why.
    await page
      .getByRole("status")
      .filter({ hasText: "Saved as a draft: an outline to write, since this server has no writer model" })
      .waitFor();
    // Back on the gaps, that gap says an article answers it, links to it, and offers another draft only as a second choice.
    await page.goto(d.url(`/brands/${brandId}/gaps`));
    const card = page.locator(".gap-list > li").first();
    await card.getByText("A draft answers it:").waitFor();
    expect(await card.getByRole("link", { name: article.title }).getAttribute("href")).toBe(`/brands/${brandId}/articles/${articleId}`);
    await card.getByRole("button", { name: /^Draft another article for/ }).waitFor();
    expect(
      await page
        .locator(".gap-list > li")
        .nth(1)
        .getByRole("button", { name: /^Draft an article for/ })
        .count(),
    ).toBe(1);
    expectNothingUnsafe(page);
  });

  test("an archived prompt's gap and its performance row say it is archived", async () => {
    type Gap = { prompt_id: string; text: string };
    const gaps = await sessionTool<{ gaps: Gap[] }>(page, brandId, "get_content_gaps", { limit: 20 });
    const gap = gaps.gaps.at(-1)!;
    await sessionTool(page, brandId, "delete_prompt", { prompt_id: gap.prompt_id });
    try {
      await page.goto(d.url(`/brands/${brandId}/gaps`));
      const card = page.locator(".gap-list > li").filter({ has: page.getByRole("heading", { name: gap.text, level: 2 }) });
      await card.getByText("This prompt is no longer tracked; its answers of this period still count here.").waitFor();
      expect(await page.locator(".gap-list > li .badge").filter({ hasText: "Archived" }).count()).toBe(1);
      await photograph(page, "gaps-archived", () => card.scrollIntoViewIfNeeded());
      // Lowest visibility first: a gap's prompt is among them (the brand is named in none of its answers).
      await page.goto(d.url(`/brands/${brandId}/performance?order=visibility_asc`));
      const row = page.getByRole("row").filter({ has: page.getByRole("link", { name: gap.text, exact: true }) });
      await row.getByText("Archived", { exact: true }).waitFor();
      expect(await page.locator("table tbody .badge").filter({ hasText: "Archived" }).count()).toBe(1);
      await photograph(page, "performance-archived", () => row.scrollIntoViewIfNeeded());
    } finally {
      await sessionTool(page, brandId, "create_prompts", { prompts: [{ text: gap.text }] });
    }
  });

  test("Tracking without engines in spyglass.toml shows how to add one", async () => {
    await page.goto(d.url(`/brands/${brandId}/tracking`));
    await page.getByRole("heading", { name: "No engines configured" }).waitFor();
    expect(await page.getByText('api_key_env = "OPENAI_API_KEY"').count()).toBe(1);
    // The demo's account on an instance without an owner yet is, as a rule, whoever runs it: told what to do.
    expect(await page.getByText(/Add one to spyglass\.toml in the data directory/).count()).toBe(1);
    await expectAccessible(page, "tracking-no-engines");
    await screenshot(page, "tracking-no-engines");
    // The brand's page says the same: the demo's engines are stored answers, not engines it asks.
    await page.goto(d.url(`/brands/${brandId}`));
    const tracking = page.getByRole("region", { name: "Tracking" });
    await tracking.getByRole("heading", { name: "No engines configured" }).waitFor();
    expect(await tracking.getByRole("listitem").count()).toBe(0);
  });

  test("a Visibility account sees the gaps, and that drafting needs the Autopilot plan", async () => {
    expect((await d.box.cli(["account", "plan", "--email", email, "--plan", "visibility"])).code).toBe(0);
    await page.goto(d.url(`/brands/${brandId}/gaps`));
    await page.getByText("Drafting an article needs the Autopilot plan.").waitFor();
    expect(await page.locator(".gap-list > li").count()).toBeGreaterThan(0);
    expect(await page.getByRole("button", { name: /Draft an article/ }).count()).toBe(0);
    await expectAccessible(page, "gaps-visibility-plan");
    await screenshot(page, "gaps-visibility-plan");
    expect((await d.box.cli(["account", "plan", "--email", email, "--plan", "autopilot"])).code).toBe(0);
    expectNothingUnsafe(page);
  });
});

describe("Tracking with a loopback stand-in engine", () => {
  let d: Dashboard;
  let page: Page;
  let brandId: string;
  let fake: FakeProvider;
  const WHO = { email: "tracker@example.com", password: "a long password" };
  // While set, the stand-in engine holds its answers until the test has seen the run under way (a run
  // of 150 ms answers could end before a loaded machine showed it running).
  let held: Promise<void> | null = null;
  // The daily schedule's hour, twelve hours from now: a scheduled run never starts during the tests.
  const hour = (new Date().getUTCHours() + 12) % 24;
  // The browser's language (en-US) writes a 12-hour clock; the schedule is written as its dates are.
  const clock = `${hour % 12 || 12}:00 ${hour < 12 ? "AM" : "PM"}`;

  beforeAll(async () => {
    fake = startFakeResponses({
      apiKey: "sk-fake",
      script: async () => {
        await held;
        return answer("Acme and Globex are both good CRMs.", {
          latencyMs: 150,
          queries: ["best crm tools", "acme vs globex"],
          citations: [{ url: "https://acme.com/crm", title: "Acme CRM", quote: "Acme and Globex" }],
          searchResults: [
            "https://acme.com/crm",
            { url: "https://review.example/crm", title: "CRM review" },
            "https://xn--mller-kchen-thbg.de/k%C3%BCchen",
          ],
        });
      },
    });
    d = await openDashboard({
      env: { FAKE_OPENAI_KEY: "sk-fake", REVOKED_KEY_FOR_TEST: "sk-revoked" },
      toml: `
[tracking]
schedule = "0 ${hour} * * *"

[[engines]]
id = "gpt"
label = "GPT stand-in"
api = "openai-responses"
base_url = "${fake.url}"
model = "gpt-test"
api_key_env = "FAKE_OPENAI_KEY"
max_retries = 0
price_per_request = 0.002

[[engines]]
id = "nokey"
label = "Engine without a key"
api = "openai"
base_url = "${fake.url}"
model = "gpt-test"
api_key_env = "UNSET_KEY_FOR_TEST"
max_retries = 0

[[engines]]
id = "revoked"
label = "Engine with a revoked key"
api = "openai-responses"
base_url = "${fake.url}"
model = "gpt-test"
api_key_env = "REVOKED_KEY_FOR_TEST"
max_retries = 0
`,
    });
    expect((await d.box.cli(["account", "create", "--email", WHO.email, "--password", WHO.password, "--plan", "visibility"])).code).toBe(0);
    const brand = await d.box.cliJson<{ brand?: { id: string }; id?: string }>(["brand", "create", "--email", WHO.email, "--name", "Acme"]);
    brandId = (brand.brand?.id ?? brand.id)!;
    page = await d.page();
    await signIn(d, page, WHO);
    await sessionTool(page, brandId, "create_prompts", {
      prompts: [{ text: "best crm" }, { text: "crm pricing" }, { text: "crm for agencies" }],
    });
  });

  afterAll(async () => {
    await d?.close();
    await fake?.stop();
  });

  test("the engines, with the one whose key variable is unset shown as such", async () => {
    await page.getByRole("navigation", { name: "Brand pages" }).getByRole("link", { name: "Tracking" }).click();
    await page.waitForURL(`**/brands/${brandId}/tracking`);
    const engines = page.getByRole("table", { name: "Configured engines" });
    await engines
      .getByRole("row", { name: /GPT stand-in/ })
      .getByText("Key set")
      .waitFor();
    await engines
      .getByRole("row", { name: /Engine without a key/ })
      .getByText("Key missing.")
      .waitFor();
    // The variable is named, where it is missing and above the table.
    expect(await engines.getByRole("row", { name: /Engine without a key/ }).textContent()).toContain(
      "Set UNSET_KEY_FOR_TEST in the server's environment",
    );
    await page.getByRole("alert").filter({ hasText: "No API key for Engine without a key (nokey: UNSET_KEY_FOR_TEST)" }).waitFor();
    expect(await page.getByText("No run yet.").count()).toBe(1);
    // The schedule in words, with the expression that sets it.
    const schedule = page.getByRole("region", { name: "Schedule" });
    const said = (await schedule.textContent()) ?? "";
    expect(said).toContain(`Asked at ${clock}, every day (UTC; 0 ${hour} * * * in spyglass.toml)`);
    // The next run on the same clock, beside it (it said "at 19:00" and "7:00 PM UTC" in one sentence),
    // its time and zone joined by no-break spaces: never "10:00" at a line's end and "PM UTC" on the next.
    expect(said).toMatch(/Next run: [^.]*, \d{1,2}:00\u00a0[AP]M\u00a0[A-Z]+\./);
    await expectAccessible(page, "tracking");
    await photograph(page, "tracking");
    // On a phone's card an engine's API stays whole ("openai-" / "responses" read as two words).
    const viewport = page.viewportSize()!;
    await page.setViewportSize({ width: 390, height: 844 });
    const api = engines.locator('td[data-label="API"]', { hasText: "openai-responses" }).first();
    const lines = await api.evaluate((td) => {
      const range = document.createRange();
      range.selectNodeContents(td);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    });
    expect(lines).toBe(1);
    await page.setViewportSize(viewport);
    await page.goto(d.url(`/brands/${brandId}`));
    const brandTracking = page.getByRole("region", { name: "Tracking" });
    await brandTracking.getByText(`The engines below are asked at ${clock}, every day (UTC)`).waitFor();
    expect(await brandTracking.getByRole("listitem").allTextContents()).toEqual([
      "GPT stand-in (gpt-test)",
      "Engine without a key (gpt-test)",
      "Engine with a revoked key (gpt-test)",
    ]);
    await page.goto(d.url(`/brands/${brandId}/tracking`));
    await page.getByRole("button", { name: "Run now" }).waitFor();
  });

  test("with no engine keyed, Run now is still reached by the keyboard, says why it does nothing, and sends nothing", async () => {
    // The tool's answer as a server whose every engine lacks its key would give it.
    await page.route("**/tools/get_tracking_status", async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      for (const engine of body.engines) engine.api_key_set = false;
      await route.fulfill({ response, json: body });
    });
    let asked = 0;
    const count = (request: Request) => {
      if (request.url().endsWith("/tools/run_tracking")) asked++;
    };
    page.on("request", count);
    try {
      await page.reload();
      const button = page.getByRole("button", { name: "Run now" });
      await button.focus();
      await expectFocus(button);
      expect(await button.getAttribute("aria-disabled")).toBe("true");
      const why = await button.getAttribute("aria-describedby");
      expect(await page.locator(`#${why}`).textContent()).toBe("No engine has its API key yet (see Engines above).");
      await page.keyboard.press("Enter");
      await page.waitForTimeout(300);
      expect(asked).toBe(0);
    } finally {
      page.off("request", count);
      await page.unroute("**/tools/get_tracking_status");
      await page.reload();
      await page.getByRole("button", { name: "Run now" }).waitFor();
    }
  });

  test("a running run whose engine its provider asked to wait says so: which engine, the provider's words, and when it goes on", async () => {
    // The tool's answer while a 429 holds an engine (the server side: test/tracking/engine-pauses).
    const until = new Date(Date.now() + 60_000).toISOString();
    await page.route("**/tools/get_tracking_status", async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      body.running = true;
      const engine = body.engines[0].id;
      body.last_run = {
        id: "run_waiting",
        brand_id: brandId,
        status: "running",
        trigger: "tool",
        engines: [engine],
        answers_planned: 4,
        answers_done: 1,
        answers: { ok: 1, empty: 0, refusal: 0, error: 0 },
        by_engine: [{ engine, ok: 1, empty: 0, refusal: 0, error: 0, first_error: null }],
        started_at: new Date().toISOString(),
        finished_at: null,
        error: null,
        waiting: [{ engine, until, reason: "HTTP 429: Rate limit reached for requests <b>x</b>" }],
      };
      await route.fulfill({ response, json: body });
    });
    try {
      await page.reload();
      const notice = page.locator(".notice-warning").filter({ hasText: "asked to wait" });
      await notice.waitFor();
      const time = await page.evaluate((at) => new Date(at).toLocaleTimeString(undefined, { timeZoneName: "short" }), until);
      expect(await notice.textContent()).toBe(
        `GPT stand-in's provider asked to wait (“HTTP 429: Rate limit reached for requests <b>x</b>”): its requests, and the run with them, go on at ${time}.`,
      );
      await photograph(page, "tracking-waiting");
    } finally {
      await page.unroute("**/tools/get_tracking_status");
      await page.reload();
      await page.getByRole("button", { name: "Run now" }).waitFor();
    }
  });

  test("Run now shows progress and ends with the run's answers counted", async () => {
    // By keyboard: the button keeps the focus while the run goes on (it was disabled, and the focus fell to the page's body).
    // Every text the run's live region takes, from before the click.
    await page.evaluate(() => {
      const said = document.querySelector('[data-testid="run-said"]')!;
      const texts: string[] = [];
      (window as unknown as { runSaid: string[] }).runSaid = texts;
      new MutationObserver(() => texts.push(said.textContent ?? "")).observe(said, { childList: true, characterData: true, subtree: true });
    });
    let release = (): void => undefined;
    held = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await page.getByRole("button", { name: "Run now" }).focus();
      await page.keyboard.press("Enter");
      await page.getByRole("button", { name: "Running…" }).waitFor();
      expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Running…");
      expect(await page.getByRole("button", { name: "Running…" }).getAttribute("aria-disabled")).toBe("true");
      await page
        .getByRole("status")
        .filter({ hasText: /Running: \d+% of \d+ answers stored\./ })
        .waitFor();
    } finally {
      held = null;
      release();
    }
    await page.getByRole("button", { name: "Run now" }).waitFor({ timeout: 60_000 });
    const status = await sessionTool<{
      last_run: { status: string; answers_planned: number; answers_done: number; answers: { ok: number; error: number } };
    }>(page, brandId, "get_tracking_status", {});
    const run = status.last_run;
    expect(run.answers_done).toBe(run.answers_planned);
    const live = page.getByRole("status").filter({ hasText: /answers stored/ });
    expect(await live.textContent()).toContain(`${run.answers_done} of ${run.answers_planned} answers stored (${run.answers.ok} answered`);
    // While it ran, the live region spoke in quarters, not at every poll's new count.
    const said = await page.evaluate(() => (window as unknown as { runSaid: string[] }).runSaid);
    const whileRunning = said.filter((text) => text.startsWith("Running"));
    expect(whileRunning.length).toBeGreaterThan(0);
    for (const text of whileRunning) expect(text).toMatch(/^Running: (0|25|50|75|100)% of \d+ answers stored\.$/);
    expect(run.answers.ok).toBeGreaterThan(0);
    // Run now asked only the engines with their key: none of the keyless engine's answers is an error in the figures.
    const byEngine = page.getByRole("table", { name: "Answers of the last run by engine" });
    expect(await byEngine.getByRole("row", { name: /Engine without a key/ }).count()).toBe(0);
    // Errors by engine: the engine whose key the provider refuses failed every answer, with the reason.
    const refusedRow = byEngine.getByRole("row", { name: /Engine with a revoked key/ });
    await refusedRow.waitFor();
    expect(await refusedRow.textContent()).toMatch(/401/);
    // Said in words above the table too, with the reason: a run "Completed" must not hide an engine that answered nothing.
    await page
      .getByRole("alert")
      .filter({ hasText: "Engine with a revoked key answered nothing in this run: every answer was an error (first: “" })
      .waitFor();
    // The server's log says so too, at warn, for a run started from the dashboard.
    expect(d.server.logs()).toContain('"level":"warn","msg":"tracking run: engine \\"revoked\\" answered nothing');
    expect(await page.locator(".run-facts").textContent()).toContain("(Run now or an AI client)");
    // Its badge does not say a plain "Completed" beside the failed answers.
    expect(await page.locator(".run-facts .run-status").textContent()).toBe("Completed with errors");
    // Nor does the engines table say "Key set" alone for the key the provider refused.
    const engines = page.getByRole("table", { name: "Configured engines" });
    await engines
      .getByRole("row", { name: /Engine with a revoked key/ })
      .getByText("Key refused")
      .waitFor();
    expect(
      await engines
        .getByRole("row", { name: /Engine with a revoked key/ })
        .getByRole("cell")
        .last()
        .textContent(),
    ).toBe("Key refused in the last run (HTTP 401).");
    expect(
      await engines
        .getByRole("row", { name: /GPT stand-in/ })
        .getByRole("cell")
        .last()
        .textContent(),
    ).toBe("Key set");
    expect(await page.locator(".run-facts").textContent()).toContain(
      `${run.answers.ok} answered, 0 empty, 0 refused, ${run.answers.error} errors`,
    );
    await expectAccessible(page, "tracking-after-run");
    await photograph(page, "tracking-after-run");
    expectNothingUnsafe(page);
  });

  test("the forecast: requests per run and per month, and the estimated cost from the configured price", async () => {
    const status = await sessionTool<{ forecast: { requests_per_run: number; requests_per_month: number } }>(
      page,
      brandId,
      "get_tracking_status",
      {},
    );
    expect(status.forecast).toMatchObject({ requests_per_run: 9, requests_per_month: 270 });
    const card = page.getByRole("region", { name: "Forecast" });
    await card.getByText("9 requests per run", { exact: true }).waitFor();
    await card.getByText("270 requests per month", { exact: true }).waitFor();
    // gpt: 0.002 per request × 3 prompts; the engine without a key has no price.
    await card.getByText("~0.0060 per run, ~0.1800 per month", { exact: true }).waitFor();
    const row = card.getByRole("table", { name: "Forecast by engine" }).getByRole("row", { name: /GPT stand-in/ });
    expect(await row.getByRole("cell").allTextContents()).toEqual([
      "On",
      "3",
      "90",
      expect.stringMatching(/^\d+ \/ 7 \(3 answers\)$/),
      "0.0060",
      "0.1800",
    ]);
    await expectAccessible(page, "tracking-forecast");
    await card.scrollIntoViewIfNeeded();
    await photograph(page, "tracking-forecast");
  });

  test("an answer's page shows the queries searched, the cited passages and the sources retrieved but not cited, apart", async () => {
    const listed = await sessionTool<{ answers: Array<{ id: string }> }>(page, brandId, "list_answers", { engine: "gpt", limit: 1 });
    await page.goto(d.url(`/brands/${brandId}/answers/${listed.answers[0]!.id}`));
    const trail = page.getByRole("region", { name: "What the assistant searched" });
    await trail.waitFor();
    expect(await trail.getByRole("list", { name: "Search queries" }).getByRole("listitem").allTextContents()).toEqual([
      "best crm tools",
      "acme vs globex",
    ]);
    const cited = trail.getByRole("list", { name: "Cited sources" });
    expect(await cited.getByRole("link").allTextContents()).toEqual(["Acme CRM"]);
    expect(await cited.getByRole("link").getAttribute("href")).toBe("https://acme.com/crm");
    expect(await cited.locator("blockquote").textContent()).toBe("Acme and Globex");
    const retrieved = trail.getByRole("list", { name: "Retrieved, not cited" });
    // The Responses API lists a search's sources by URL only: the link reads as its URL.
    // An internationalised address reads as people write it; its link is the address as given.
    expect(await retrieved.getByRole("link").allTextContents()).toEqual(["https://review.example/crm", "https://müller-küchen.de/küchen"]);
    expect(await retrieved.getByRole("link").nth(1).getAttribute("href")).toBe("https://xn--mller-kchen-thbg.de/k%C3%BCchen");
    expect(await retrieved.textContent()).toContain("review.example");
    expect(await retrieved.textContent()).toContain("müller-küchen.de");
    await expectAccessible(page, "answer-search");
    await trail.scrollIntoViewIfNeeded();
    await photograph(page, "answer-search");
    // A query leads to every answer that ran it (the stand-in searched it for each prompt), this one among them.
    await trail.getByRole("link", { name: "Answers that searched acme vs globex" }).click();
    await page.waitForURL(/searched=/);
    expect(new URL(page.url()).searchParams.get("searched")).toBe("acme vs globex");
    const ran = await sessionTool<{ answers: Array<{ id: string }> }>(page, brandId, "list_answers", { searched: "acme vs globex" });
    expect(ran.answers.map((a) => a.id)).toContain(listed.answers[0]!.id);
    const rows = page.locator("table.answers-table tbody tr");
    await until(() => rows.count(), ran.answers.length);
    expect(await rows.locator("th a").evaluateAll((links) => links.map((a) => a.getAttribute("href")))).toEqual(
      ran.answers.map((a) => `/brands/${brandId}/answers/${a.id}`),
    );
    expectNothingUnsafe(page);
  });
});
