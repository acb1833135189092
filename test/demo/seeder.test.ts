// `spyglass demo`: the seeder makes its records through each feature's service, so what it leaves
// reads like a user's data through those same services.
import { expect, test } from "bun:test";
import { createAccount, findAccountByEmail } from "../../src/accounts/service";
import { resolveFilter } from "../../src/analytics/filters";
import { articleImpact } from "../../src/analytics/impact";
import { visibilityOverview } from "../../src/analytics/visibility";
import { createBrand } from "../../src/brands/service";
import { listAllCompetitors } from "../../src/competitors/service";
import { listArticles, listPublishedArticles } from "../../src/content/service";
import { DEMO_ARTICLE_AGE_DAYS, DEMO_DAYS, seedDemo } from "../../src/demo/seeder";
import * as T from "../../src/demo/templates";
import { listApiKeys } from "../../src/keys/service";
import { listPrompts } from "../../src/prompts/service";
import { listTags } from "../../src/prompts/tags";
import { brandEngines } from "../../src/tracking/engines";
import { getTrackingStatus } from "../../src/tracking/service";
import { memoryApp } from "../analytics/dataset";
import { testCatalog } from "../support/http";

test("the demo brand's competitors, tags, prompts, key and article read back through their services", async () => {
  const app = memoryApp();
  const demo = await seedDemo(app, { now: Date.parse("2025-06-30T15:00:00Z") });
  const brandId = demo.brand.id;

  expect((await listAllCompetitors(app.db, brandId)).map((c) => c.name)).toEqual(T.DEMO_COMPETITORS.map((c) => c.name));
  const tags = (await listTags(app.db, brandId, { limit: 50 })).tags;
  expect(tags.map((t) => t.name).sort()).toEqual(T.DEMO_TAGS.map((t) => t.name).sort());
  expect(tags.reduce((n, t) => n + t.prompt_count, 0)).toBe(demo.prompts);
  const prompts = (await listPrompts(app.db, brandId, { limit: 200 })).prompts;
  expect(prompts.map((p) => p.text)).toEqual(T.DEMO_PROMPTS.map(([, text]) => text));
  expect(prompts.every((p) => p.tags.length === 1 && p.language === "en")).toBe(true);
  expect(demo.answers).toBe(DEMO_DAYS * T.DEMO_ENGINES.length * demo.prompts);
  expect(await listApiKeys(app, demo.account_id)).toHaveLength(1);
  const [article] = (await listArticles(app.db, brandId, { status: "published" })).articles;
  expect(article!.slug).toBe(demo.article!.slug);
  // Written before it was published (it read as written after: created 2025-06-30, published 06-16).
  expect(Date.parse(article!.created_at)).toBeLessThan(Date.parse(article!.published_at!));
});

test("a second run is refused without --reset; with it the demo account is replaced", async () => {
  const app = memoryApp();
  const first = await seedDemo(app);
  await expect(seedDemo(app)).rejects.toThrow(/already exists/);
  const second = await seedDemo(app, { reset: true });
  expect(second.account_id).not.toBe(first.account_id);
  expect((await findAccountByEmail(app.db, T.DEMO_EMAIL))!.id).toBe(second.account_id);
  expect(await listAllCompetitors(app.db, first.brand.id)).toEqual([]);
});

test("60 days: the overview's previous period is full and its verdicts are of every kind, by construction", async () => {
  const app = memoryApp();
  const demo = await seedDemo(app, { now: Date.parse("2025-06-30T15:00:00Z") });
  expect(DEMO_DAYS).toBe(60);
  const o = await visibilityOverview(app, await resolveFilter(app, demo.brand.id, {}, Date.parse("2025-06-30T15:00:00Z")));
  expect(o.filter).toMatchObject({ start_date: "2025-06-01", end_date: "2025-06-30", previous_start_date: "2025-05-02" });
  expect(o.visibility.previous.n).toBeGreaterThan(3_000);
  const verdict = (r: { change_pp: number | null; within_noise: boolean | null }) =>
    r.within_noise === null ? "none" : r.within_noise ? "within noise" : r.change_pp! > 0 ? "up" : "down";
  expect(verdict(o.visibility)).toBe("up");
  expect(verdict(o.no_answer_rate)).toBe("down");
  expect(verdict(o.citation_rate)).toBe("within noise");
  const byEngine = Object.fromEntries(o.by_engine.map((e) => [e.engine, verdict(e.visibility)]));
  expect(byEngine).toEqual({ chatgpt: "up", claude: "down", perplexity: "within noise" });
  expect(o.by_engine.map((e) => e.label)).toEqual(["ChatGPT (demo)", "Claude (demo)", "Perplexity (demo)"]);
});

test("its engines are listed as demo engines, and its article moved its prompt", async () => {
  const app = memoryApp();
  const now = Date.parse("2025-06-30T15:00:00Z");
  const demo = await seedDemo(app, { now });
  expect(await brandEngines(app, demo.brand.id)).toEqual(
    ["chatgpt", "claude", "perplexity"].map((id) => ({
      id,
      label: `${{ chatgpt: "ChatGPT", claude: "Claude", perplexity: "Perplexity" }[id]} (demo)`,
      model: T.DEMO_ENGINES.find((e) => e.id === id)!.model,
      configured: false,
      demo: true,
    })),
  );
  const impact = await articleImpact(
    app,
    demo.brand.id,
    await listPublishedArticles(app.db, demo.brand.id),
    { windowDays: 14, limit: 10, offset: 0 },
    now,
  );
  expect(impact.total_articles).toBe(1);
  const a = impact.articles[0]!;
  expect(a.article.id).toBe(demo.article!.id);
  expect(a.article.published_at).toBe(new Date(Date.parse("2025-06-30T12:00:00Z") - DEMO_ARTICLE_AGE_DAYS * 86_400_000).toISOString());
  expect(a.after.days).toBe(14);
  expect(a.visibility.within_noise).toBe(false);
  expect(a.visibility.after.rate! - a.visibility.before.rate!).toBeGreaterThan(0.4);
  expect(a.article_cited.cited).toBe(true);
  expect(Date.parse(a.article_cited.first_cited_at!)).toBeGreaterThan(Date.parse(a.article.published_at));
});

test("the demo's brand is out of the schedule: no next run, a forecast of no scheduled request, and a word on Run now's cost", async () => {
  const app = memoryApp(`
[[engines]]
id = "chatgpt"
label = "ChatGPT"
api = "openai"
base_url = "http://127.0.0.1:9/v1"
model = "gpt-test"
`);
  const demo = await seedDemo(app);
  const catalog = testCatalog();
  await catalog.ready();
  const status = await getTrackingStatus(app, demo.brand.id);
  expect(status.next_run).toBeNull();
  expect(status.forecast.schedule.runs_per_month).toBe(0);
  expect(status.forecast.requests_per_month).toBe(0);
  expect(status.forecast.requests_per_run).toBeGreaterThan(0);
  expect(status.message).toStartWith("This is spyglass demo's brand: its answers are made up, and scheduled runs leave it out.");
  // The server's schedule is on; this brand's prompts are not asked by it (one field each, which agree with get_brand).
  expect(status.schedule).toMatchObject({ enabled: true, brand_scheduled: false });
  // Its engines are the demo's, not configured: no API or concurrency to show.
  expect(status.engines.filter((e) => e.demo)).toContainEqual(expect.objectContaining({ configured: false, api: null, concurrency: null }));
  // get_brand says so too: scheduled runs ask nothing for it.
  const principal = {
    account: { id: demo.account_id },
    brand: { id: demo.brand.id, name: demo.brand.name, domain: demo.brand.domain },
    plan: "autopilot" as const,
  };
  const brand = await catalog.call(app, principal, "req_demo", "get_brand", {});
  expect(brand.ok && (brand.value.tracking as { enabled: boolean }).enabled).toBe(false);
  // Another account's brand on the same server keeps its schedule.
  const account = await createAccount(app.db, { email: "real@example.com", password: "a long password", plan: "visibility" });
  const real = await createBrand(app.db, account.id, { name: "Real Brand" });
  const realStatus = await getTrackingStatus(app, real.id);
  expect(realStatus.next_run).not.toBeNull();
  expect(realStatus.schedule.brand_scheduled).toBe(true);
  expect(realStatus.message).toBeNull();
});
