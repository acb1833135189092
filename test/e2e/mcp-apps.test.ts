// The MCP Apps views in headless Chromium, loaded the way a client loads them: the host reads the
// tool's _meta.ui.resourceUri from tools/list, reads that ui:// resource from the compiled binary,
// puts its HTML in a sandboxed iframe and speaks the extension's postMessage JSON-RPC to it through
// the extension's own host SDK (test/support/apps-host.ts): ui/initialize, then the tool's input and
// its REAL result from the binary. Each view must draw that result's figures, make no request of its
// own, and log no error (a CSP violation is one).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type Browser, chromium, type Frame, type Page } from "playwright-core";
import { articleDocument } from "../../src/dashboard/web/components/article-document";
import { formatDay, formatDays } from "../../src/dashboard/web/components/dates";
import { fortnightOfAnswers, writeAnswers } from "../support/answers";
import { type Sandbox, type ServerProcess, sandbox } from "../support/binary";
import { expectAccessible, SCREENSHOT_DIR } from "../support/dashboard";
import { seedToolServerDb, type ToolServerSeed } from "../support/fixtures";
import { call, connect } from "../support/mcp";
import { CHROMIUM_PATH } from "../support/xss-harness";

setDefaultTimeout(90_000);

let box: Sandbox;
let server: ServerProcess;
let seed: ToolServerSeed;
let mcp: Client;
let browser: Browser;
let hostScript: string;
let viewOf: Map<string, string>;

beforeAll(async () => {
  box = await sandbox();
  seed = await box.withDb(seedToolServerDb);
  await box.withDb((db) => writeAnswers(db, seed.a.brandId, fortnightOfAnswers(seed.a.ids.promptId, "Acme Analytics", "Acme Rival")));
  server = await box.serve();
  mcp = await connect(server.url, seed.a.key);
  // As a host does: which view draws which tool comes from tools/list.
  viewOf = new Map(
    (await mcp.listTools()).tools.flatMap((t) => {
      const uri = (t._meta?.ui as { resourceUri?: string } | undefined)?.resourceUri;
      return uri ? [[t.name, uri] as [string, string]] : [];
    }),
  );
  const bridge = resolve(import.meta.dir, "../../.tools/mcp-tools/node_modules/@modelcontextprotocol/ext-apps/dist/src/app-bridge.js");
  if (!existsSync(bridge)) throw new Error(`${bridge} is missing: run ./build.sh test (its ensure_mcp_tools installs the MCP Apps SDK)`);
  const built = await Bun.build({ entrypoints: [resolve(import.meta.dir, "../support/apps-host.ts")], target: "browser", minify: true });
  if (!built.success) throw new Error(built.logs.join("\n"));
  hostScript = await built.outputs[0]!.text();
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await mcp?.close().catch(() => undefined);
  await server?.stop();
  box?.cleanup();
}, 60_000);

interface Shown {
  page: Page;
  frame: Frame;
  requests: string[];
  problems: string[];
}

/** Loads `tool`'s view in a host page, hands it `result`, and waits for the view to draw. */
async function show(
  tool: string,
  input: Record<string, unknown>,
  result: CallToolResult,
  theme: "light" | "dark" = "light",
  serverTools = false,
): Promise<Shown> {
  const uri = viewOf.get(tool);
  if (!uri) throw new Error(`${tool} has no view in tools/list`);
  const resource = (await mcp.readResource({ uri })).contents[0] as { mimeType: string; text: string };
  expect(resource.mimeType).toBe("text/html;profile=mcp-app");
  const context = await browser.newContext({ viewport: { width: 760, height: 900 }, colorScheme: theme });
  const page = await context.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on("request", (r) => {
    if (!/^(about:|data:)/.test(r.url())) requests.push(r.url());
  });
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  // The host's MCP connection: a view's tools/call goes to the binary through the test's SDK client.
  await page.exposeFunction("forwardToolCall", (params: { name: string; arguments?: Record<string, unknown> }) => mcp.callTool(params));
  await page.setContent(
    `<!doctype html><html><head><meta charset="utf-8"><title>host</title></head><body style="margin:16px;font-family:sans-serif"><p>A conversation, then the view:</p><script>${hostScript.replaceAll("</script", "<\\/script")}</script></body></html>`,
  );
  await page.evaluate(({ html, input, result, theme, serverTools }) => window.showView(html, input, result, theme, serverTools), {
    html: resource.text,
    input,
    result,
    theme,
    serverTools,
  });
  const frame = page.frames().find((f) => f !== page.mainFrame());
  if (!frame) throw new Error("the view's frame did not load");
  await frame.waitForSelector(".view", { timeout: 30_000 });
  return { page, frame, requests, problems };
}

async function photographView(shown: Shown, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await shown.page.waitForTimeout(300);
  // A frame's content below the first viewport is not painted in a full-page shot: make the viewport as tall as the page.
  const height = await shown.page.evaluate(() => document.documentElement.scrollHeight);
  await shown.page.setViewportSize({ width: 760, height: Math.max(900, height) });
  await shown.page.waitForTimeout(200);
  await shown.page.screenshot({ path: `${SCREENSHOT_DIR}/mcp-app-${name}-light.png`, fullPage: true });
}

async function done(shown: Shown, name: string, log = ["initialized", "result sent"]): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  // Let the view report its size and the host grow the frame before the photograph.
  await shown.page.waitForTimeout(300);
  // A frame's content below the first viewport is not painted in a full-page shot: make the viewport as tall as the page.
  const height = await shown.page.evaluate(() => document.documentElement.scrollHeight);
  await shown.page.setViewportSize({ width: 760, height: Math.max(900, height) });
  await shown.page.waitForTimeout(200);
  const dark = await shown.page.evaluate(() => matchMedia("(prefers-color-scheme: dark)").matches);
  await shown.page.screenshot({ path: `${SCREENSHOT_DIR}/mcp-app-${name}-${dark ? "dark" : "light"}.png`, fullPage: true });
  await expectAccessible(shown.frame, `mcp-app-${name}`);
  expect(shown.requests).toEqual([]);
  expect(shown.problems).toEqual([]);
  // The view's own tools/call may reach the host before or after the host logs its result as sent.
  expect((await shown.page.evaluate(() => window.hostLog)).sort()).toEqual([...log].sort());
  await shown.page.context().close();
}

/** The rows of a trend's table: one per point, the points before the first valid answer (when more than one) in one. */
function rowsOf(points: Array<{ visibility: { n: number } }>): number {
  const first = points.findIndex((p) => p.visibility.n > 0);
  const before = first === -1 ? points.length : first;
  return before > 1 ? points.length - before + 1 : points.length;
}

const percent = (r: number | null) => (r === null ? "—" : `${(r * 100).toFixed(1)}%`);
const answers = (n: number) => `${n.toLocaleString("en-US")} ${n === 1 ? "answer" : "answers"}`;

describe("MCP Apps views in a host", () => {
  test("the visibility trend draws the tool's points with their interval bands, and the same figures as a table", async () => {
    const input = { interval: "day" };
    const { result, data } = await call(mcp, "get_visibility_trend", input);
    const shown = await show("get_visibility_trend", input, result);
    const { frame } = shown;
    expect(await frame.locator("h1").textContent()).toBe("Visibility trend");
    expect(await frame.locator("tbody tr").count()).toBe(rowsOf(data.points));
    const seen = data.points.filter((p: { visibility: { n: number } }) => p.visibility.n > 0);
    const first = seen[0];
    const last = seen[seen.length - 1];
    expect(await frame.locator("figcaption").textContent()).toContain(
      `Visibility went from ${percent(first.visibility.rate)} (${formatDay(first.date)}: ${answers(first.visibility.n)}) to ${percent(last.visibility.rate)} (${formatDay(last.date)}: ${answers(last.visibility.n)}); share of voice from ${percent(first.share_of_voice.rate)} to ${percent(last.share_of_voice.rate)}.`,
    );
    const lastRow = frame.locator("tbody tr").last();
    // Each figure with its interval under it, each day with its valid answers.
    const visibility = lastRow.locator("td").nth(0);
    expect(await visibility.textContent()).toStartWith(percent(last.visibility.rate));
    expect(await visibility.locator(".cell-meta").textContent()).toBe(
      `${(last.visibility.low * 100).toFixed(1)}–${(last.visibility.high * 100).toFixed(1)}%`,
    );
    expect(await lastRow.locator("th .point-name").textContent()).toBe(formatDay(last.date));
    expect(await lastRow.locator("th .cell-meta").textContent()).toBe(
      `${last.answers.valid.toLocaleString("en-US")} valid ${last.answers.valid === 1 ? "answer" : "answers"}`,
    );
    // uPlot drew on its canvas: coloured pixels, two lines and their two bands.
    const painted = await frame.evaluate(() => {
      const canvas = document.querySelector<HTMLCanvasElement>(".trend-chart canvas");
      if (!canvas) return 0;
      const pixels = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) n++;
      return n;
    });
    expect(painted).toBeGreaterThan(5_000);
    expect(await frame.locator(".trend-legend li").allTextContents()).toEqual([
      "Visibility (band: 95% interval)",
      "Share of voice (band: 95% interval)",
    ]);
    await done(shown, "trend");
  });

  test("the trend by week, in a dark colour scheme, heads its table by week", async () => {
    const { result } = await call(mcp, "get_visibility_trend", { interval: "week" });
    const shown = await show("get_visibility_trend", { interval: "week" }, result, "dark");
    expect(await shown.frame.locator("th[scope=col]").first().textContent()).toBe("Week");
    await done(shown, "trend-weekly");
  });

  test("where the host runs tools for views, the trend switches to weeks by calling get_visibility_trend again", async () => {
    const { result } = await call(mcp, "get_visibility_trend", {});
    const shown = await show("get_visibility_trend", {}, result, "light", true);
    const { frame } = shown;
    expect(await frame.locator("th[scope=col]").first().textContent()).toBe("Day");
    await frame.getByLabel("Points by").selectOption("week");
    await frame.waitForSelector("th[scope=col]:text-is('Week')", { state: "attached" });
    const weekly = await call(mcp, "get_visibility_trend", { interval: "week" });
    expect(await frame.locator("tbody tr").count()).toBe(rowsOf(weekly.data.points));
    await done(shown, "trend-interval", ["initialized", "result sent", "tools/call get_visibility_trend"]);
  });

  test("the competitor ranking lists the tool's roster in its order, the brand marked", async () => {
    const { result, data } = await call(mcp, "get_competitor_ranking");
    const shown = await show("get_competitor_ranking", {}, result);
    const names = await shown.frame.locator("table.ranking tbody th[scope=row]").allTextContents();
    expect(names).toEqual(data.ranking.map((r: { name: string; is_brand: boolean }) => (r.is_brand ? `${r.name}Your brand` : r.name)));
    const cells = await shown.frame.locator("table.ranking tbody tr").first().locator("td").first().textContent();
    expect(cells).toStartWith(percent(data.ranking[0].visibility.rate));
    await done(shown, "ranking");
  });

  test("the overview tiles show each figure with its n and the tool's noise verdict", async () => {
    const input = { start_date: new Date(Date.now() - 6 * 86_400_000).toISOString().slice(0, 10) };
    const { result, data } = await call(mcp, "get_visibility_overview", input);
    const shown = await show("get_visibility_overview", input, result);
    const tile = shown.frame.locator("section.kpi", { has: shown.frame.locator("h3", { hasText: /^Visibility$/ }) });
    expect(await tile.locator(".kpi-value").textContent()).toBe(percent(data.visibility.rate));
    expect(await tile.locator(".kpi-meta").first().textContent()).toContain(`n = ${data.visibility.n}`);
    const verdict = data.visibility.within_noise ? "within noise" : data.visibility.change_pp > 0 ? "up" : "down";
    expect(await tile.locator(".verdict-text").textContent()).toBe(verdict);
    expect(await shown.frame.locator("section.kpi").count()).toBeGreaterThanOrEqual(5);
    // The fortnight's answers are to one prompt: its n is a count of one.
    expect(data.prompt_coverage.n).toBe(1);
    const coverage = shown.frame.locator("section.kpi", { has: shown.frame.locator("h3", { hasText: /^Prompt coverage$/ }) });
    expect(await coverage.locator(".kpi-meta").first().textContent()).toStartWith("n = 1 prompt answered ·");
    await done(shown, "overview");
  });

  test("'how visible are we?': where the host runs tools for views, the overview adds the trend and the ranking of its period", async () => {
    const input = { start_date: new Date(Date.now() - 13 * 86_400_000).toISOString().slice(0, 10) };
    const { result } = await call(mcp, "get_visibility_overview", input);
    const shown = await show("get_visibility_overview", input, result, "light", true);
    const { frame } = shown;
    await frame.waitForSelector("table.ranking");
    await frame.waitForSelector(".trend-chart canvas");
    const trend = await call(mcp, "get_visibility_trend", input);
    const ranking = await call(mcp, "get_competitor_ranking", input);
    expect(await frame.locator(".trend-figure tbody tr").count()).toBe(trend.data.points.length);
    const names = await frame.locator("table.ranking tbody th[scope=row]").allTextContents();
    expect(names).toEqual(
      ranking.data.ranking.map((r: { name: string; is_brand: boolean }) => (r.is_brand ? `${r.name}Your brand` : r.name)),
    );
    expect(await frame.locator("figcaption").textContent()).toContain(formatDays(trend.data.filter.start_date, trend.data.filter.end_date));
    await done(shown, "overview-full", [
      "initialized",
      "result sent",
      "tools/call get_visibility_trend",
      "tools/call get_competitor_ranking",
    ]);
  });

  test("the publish confirmation shows the article as served: sanitized, in a frame without scripts", async () => {
    const markdown =
      '# Analytics for small teams\n\nAcme Analytics **counts** what matters.\n\n<script>alert("x")</script><img src="https://tracker.example/p.gif" onerror="alert(1)">\n\n| Plan | Price |\n|---|---|\n| Team | 9 |';
    const draft = await call(mcp, "create_article", { title: "Analytics for small teams", markdown });
    const input = { article_id: draft.data.article.id };
    const { result, data } = await call(mcp, "publish_to_site", input);
    expect(data.article.status).toBe("published");
    expect(data.article.html).not.toContain("<script");
    const shown = await show("publish_to_site", input, result);
    expect(await shown.frame.locator("h1").textContent()).toBe("Published: Analytics for small teams");
    expect(await shown.frame.getByRole("button").count()).toBe(0);
    expect(await shown.frame.locator("dd").first().textContent()).toBe(data.article.slug);
    const preview = shown.frame.locator("iframe.preview");
    expect(await preview.getAttribute("sandbox")).toBe("");
    // The served HTML, except the one image from another host, which is named instead of fetched.
    const served = data.article.html as string;
    expect(served).toContain('<img src="https://tracker.example/p.gif">');
    expect(await preview.getAttribute("srcdoc")).toBe(
      articleDocument(served.replace('<img src="https://tracker.example/p.gif">', '<p class="withheld">[image — not loaded here]</p>')),
    );
    expect(await shown.frame.locator("#preview-heading + p").textContent()).toContain("1 image(s) are not loaded in this view");
    const inner = shown.frame.childFrames()[0]!;
    await inner.waitForSelector("table");
    expect(await inner.locator("strong").textContent()).toBe("counts");
    expect(await inner.locator("td").allTextContents()).toEqual(["Team", "9"]);
    // Its style, admitted by the view's CSP (a refused one leaves the browser's default serif).
    expect(await inner.locator("body").evaluate((body) => getComputedStyle(body).fontFamily)).toStartWith("system-ui");
    await done(shown, "publish");
  });

  test("a draft read with get_article is shown as it will be served, and its button publishes it through the host", async () => {
    const draft = await call(mcp, "create_article", { title: "Reporting for teams", markdown: "Acme Analytics *reports* weekly." });
    const input = { article_id: draft.data.article.id };
    const { result } = await call(mcp, "get_article", input);
    const shown = await show("get_article", input, result, "light", true);
    const { frame } = shown;
    expect(await frame.locator("h1").textContent()).toBe("Draft, not published yet: Reporting for teams");
    expect(await frame.locator("#preview-heading").textContent()).toBe("As the site will serve it");
    await photographView(shown, "publish-draft");
    await frame.getByRole("button", { name: "Publish to the site" }).click();
    await frame.waitForSelector("h1:has-text('Published: Reporting for teams')");
    expect(await frame.locator("dd").nth(1).textContent()).toBe("Published");
    // A badge in the good tone, as the dashboard's articles list shows a published article.
    expect(await frame.locator("dd").nth(1).locator(".badge.tone-good").count()).toBe(1);
    // A moment as people read it, not the ISO text of the tool's result.
    expect(await frame.locator("dd").nth(2).textContent()).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2}\s?[AP]M\s/);
    expect(await frame.getByRole("button").count()).toBe(0);
    // The host ran publish_to_site on the server: the article is published there.
    expect((await call(mcp, "get_article", input)).data.article.status).toBe("published");
    await done(shown, "publish-confirmed", ["initialized", "result sent", "tools/call publish_to_site"]);
  });

  test("a publish the server refuses is said under the button, and the article stays in view", async () => {
    const draft = await call(mcp, "create_article", { title: "Refused draft", markdown: "Text to publish later." });
    const input = { article_id: draft.data.article.id };
    const { result } = await call(mcp, "get_article", input);
    const shown = await show("get_article", input, result, "light", true);
    const publish = shown.frame.getByRole("button", { name: "Publish to the site" });
    const alert = shown.frame.getByRole("alert");
    // The account's plan changed since the view was drawn: the host's SDK client checks the plan's
    // refusal (with its structuredContent) against the tool's output schema, and fails on that.
    expect((await box.cli(["account", "plan", "--email", seed.a.email, "--plan", "visibility"])).code).toBe(0);
    try {
      await publish.click();
      await alert.waitFor();
      expect(await alert.textContent()).toBe(
        "Publishing failed: the server refused it, and this app could not show why (the account's plan may no longer include publishing). Ask the assistant to publish this article to see the reason.",
      );
    } finally {
      expect((await box.cli(["account", "plan", "--email", seed.a.email, "--plan", "autopilot"])).code).toBe(0);
    }
    expect((await call(mcp, "get_article", input)).data.article.status).toBe("draft");
    // Deleted meanwhile (in the dashboard): the server's sentence, under the button. The view was
    // replaced by the refusal's text (the AI-client walk); the article stays in view.
    await box.withDb((db) => db.run("DELETE FROM articles WHERE id = ?", [input.article_id]));
    await publish.click();
    await shown.frame.getByRole("alert").filter({ hasText: "Publishing failed: Article not found" }).waitFor();
    expect(await shown.frame.locator("h1").textContent()).toBe("Draft, not published yet: Refused draft");
    expect(await publish.isEnabled()).toBe(true);
    await done(shown, "publish-refused", ["initialized", "result sent", "tools/call publish_to_site", "tools/call publish_to_site"]);
  });

  test("a host that does not forward tool calls gets no publish button, but a sentence", async () => {
    const draft = await call(mcp, "create_article", { title: "Another draft", markdown: "Text." });
    const input = { article_id: draft.data.article.id };
    const { result } = await call(mcp, "get_article", input);
    const shown = await show("get_article", input, result);
    expect(await shown.frame.getByRole("button").count()).toBe(0);
    expect(await shown.frame.locator("text=ask the assistant to publish this article").count()).toBe(1);
    await done(shown, "publish-no-server-tools");
    expect((await call(mcp, "get_article", input)).data.article.status).toBe("draft");
  });

  test("a tool error is shown as its sentence", async () => {
    const { result, error } = await call(mcp, "get_visibility_trend", { tag: "no such tag" });
    expect(error).toContain('Tag "no such tag" not found');
    const uri = viewOf.get("get_visibility_trend")!;
    const html = ((await mcp.readResource({ uri })).contents[0] as { text: string }).text;
    const page = await (await browser.newContext()).newPage();
    const requests: string[] = [];
    page.on("request", (r) => {
      if (!/^(about:|data:)/.test(r.url())) requests.push(r.url());
    });
    await page.setContent(`<!doctype html><html><body><script>${hostScript.replaceAll("</script", "<\\/script")}</script></body></html>`);
    await page.evaluate(({ html, result }) => window.showView(html, {}, result, "light"), { html, result });
    const frame = page.frames().find((f) => f !== page.mainFrame())!;
    await frame.waitForSelector(".notice.notice-error");
    expect(await frame.locator(".notice.notice-error").textContent()).toBe(error!);
    expect(requests).toEqual([]);
    await page.context().close();
  });
});
