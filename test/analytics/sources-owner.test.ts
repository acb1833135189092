// Whose site a cited source is (get_top_sources' owned and competitor): the brand's own by its domain,
// a competitor's by the domains on its roster entry, at both levels, with and without a tag filter.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { resolveFilter } from "../../src/analytics/filters";
import { topSources } from "../../src/analytics/sources";
import { type AppContext } from "../../src/context";
import { loadRoster } from "../../src/tracking/roster";
import { addBrand, GPT_ENGINE_TOML, openApp, type SeededBrand } from "./dataset";

let app: AppContext;
let s: SeededBrand;

beforeAll(async () => {
  app = await openApp(GPT_ENGINE_TOML);
  s = await addBrand(app, {
    name: "Acme",
    domain: "acme.com",
    competitors: [
      { key: "C1", name: "Globex", domains: ["globex.com", "globex.io"] },
      { key: "C2", name: "Initech", domains: ["shop.initech.net"] },
    ],
    tags: ["general"],
    prompts: [{ key: "P1", text: "best crm", tags: ["general"] }],
  });
  const roster = await loadRoster(app.db, s.brandId);
  const cited = [
    { url: "https://blog.acme.com/post", domain: "acme.com" },
    { url: "https://www.globex.com/pricing", domain: "globex.com" },
    { url: "https://docs.globex.io/start", domain: "globex.io" },
    // Initech's site is one host of initech.net: another host of that domain is still Initech's registrable domain.
    { url: "https://shop.initech.net/crm", domain: "initech.net" },
    { url: "https://g2.com/crm", domain: "g2.com" },
  ];
  await app.tracking.writer.write(
    app.db,
    {
      brandId: s.brandId,
      runId: null,
      promptId: s.prompts.P1!,
      engine: "gpt",
      model: "gpt-model",
      sample: 0,
      status: "ok",
      text: "an answer",
      providerCitations: [],
      error: null,
      latencyMs: 100,
      tokensIn: 1,
      tokensOut: 1,
      createdAt: Date.parse("2025-03-01T12:00:00Z"),
    },
    { mentions: [], citations: cited },
    roster,
  );
});

afterAll(async () => {
  await app.db.close();
});

const owners = (sources: Array<{ domain: string; url?: string; owned: boolean; competitor: { id: string; name: string } | null }>) =>
  Object.fromEntries(sources.map((x) => [x.url ?? x.domain, x.owned ? "brand" : (x.competitor?.name ?? null)]));

for (const tag of [undefined, "general"]) {
  test(`sources name the competitor whose site they are${tag ? " (tag filter)" : ""}`, async () => {
    const filter = await resolveFilter(app, s.brandId, { start_date: "2025-03-01", end_date: "2025-03-01", tag });
    const byDomain = await topSources(app, filter, { level: "domain", limit: 10, offset: 0 });
    expect(owners(byDomain.sources)).toEqual({
      "acme.com": "brand",
      "globex.com": "Globex",
      "globex.io": "Globex",
      "initech.net": "Initech",
      "g2.com": null,
    });
    expect(byDomain.sources.find((x) => x.domain === "globex.com")!.competitor!.id).toBe(s.competitors.C1!);
    const byUrl = await topSources(app, filter, { level: "url", limit: 10, offset: 0 });
    expect(owners(byUrl.sources)).toEqual({
      "https://blog.acme.com/post": "brand",
      "https://www.globex.com/pricing": "Globex",
      "https://docs.globex.io/start": "Globex",
      "https://shop.initech.net/crm": "Initech",
      "https://g2.com/crm": null,
    });
  });
}
