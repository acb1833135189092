// get_article_impact on a small hand-built dataset, every figure worked out by hand below.
//
// Roster: Acme (the brand, acme.com), Globex. Engine gpt. public_url https://spyglass.example.com.
// "today" is 2025-03-15 (12:00 UTC); window_days 7.
// Article A "Best CRM" (slug best-crm) linked to P1, published 2025-03-10 15:00:
//   before = 03-03..03-09 (7 days), after = 03-11..03-15 (5 days: it ends today); 03-10 is in neither.
// Article B linked to P2, published 2025-03-15 08:00 (today): after has no day yet.
// A draft linked to P1 and a published article without a prompt are not listed.
//
//  #  day    prompt status  Acme?  citations
//  1  03-04  P1     ok      –      acme.com/blog/best-crm   (before publication: not "cited since")
//  2  03-05  P1     ok      –      –
//  3  03-06  P1     ok      –      –
//  4  03-07  P1     ok      –      –
//  5  03-08  P1     error   –      –
//  6  03-10  P1     ok      yes    –                        (publication day: in neither window)
//  7  03-11  P1     ok      yes    acme.com/blog/best-crm   (cited since: 1)
//  8  03-12  P1     ok      yes    acme.com/pricing         (owned, another page)
//  9  03-12  P1     ok      yes    other.com/best-crm       (not the brand's site)
// 10  03-13  P1     ok      yes    acme.com/best-crm-guide  (another slug)
// 11  03-14  P1     ok      yes    –
// 12  03-12  P2     ok      –      spyglass.example.com/articles/best-crm (cited since: 2; another prompt counts)
// 13  03-02  P1     ok      yes    –                        (before the before window)
//
// A, visibility: before 0/4 (answers 1-4; 5 is an error), after 5/5 (7-11).
//   Wilson 0/4: high = (z²/8 + z·√(z²/64)) / (1 + z²/4) = 0.4899; 5/5: low = 0.5655.
//   The intervals do not overlap: change +100 pp, within_noise false (up).
// A, citation rate (valid answers citing acme.com): before 1/4 (answer 1), after 3/5 (7, 8, 10).
//   1/4: [0.0456, 0.6994]; 3/5: [0.2307, 0.8824]; overlap: +35 pp, within_noise true.
// A, article_cited: answers 7 and 12 → 2 citations, first 03-11, last 03-12.
// B, before = 03-08..03-14: P2's answer 12 (ok, Acme not mentioned, no acme.com citation) → 0/1 and 0/1;
//   after: 0 days, n 0, within_noise null.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { articleImpact } from "../../src/analytics/impact";
import { publishArticle } from "../../src/content/publishing";
import { createArticle, listPublishedArticles } from "../../src/content/service";
import { type AppContext } from "../../src/context";
import { type AnswerStatus } from "../../src/db/schema";
import { loadRoster } from "../../src/tracking/roster";
import { addBrand, GPT_ENGINE_TOML, openApp, type SeededBrand } from "./dataset";

let app: AppContext;
let s: SeededBrand;
let articleA: string;
let articleB: string;
const NOW = Date.parse("2025-03-15T12:00:00Z");

beforeAll(async () => {
  app = await openApp(`public_url = "https://spyglass.example.com"
${GPT_ENGINE_TOML}`);
  s = await addBrand(app, {
    name: "Acme",
    domain: "acme.com",
    competitors: [{ key: "C1", name: "Globex", domains: ["globex.com"] }],
    prompts: [
      { key: "P1", text: "best crm" },
      { key: "P2", text: "crm for agencies" },
    ],
  });
  const roster = await loadRoster(app.db, s.brandId);
  const B = s.brandId;
  const cite = (url: string) => [{ url, domain: new URL(url).hostname }];
  const rows: Array<[string, string, AnswerStatus, boolean, Array<{ url: string; domain: string }>]> = [
    ["2025-03-04", "P1", "ok", false, cite("https://acme.com/blog/best-crm")],
    ["2025-03-05", "P1", "ok", false, []],
    ["2025-03-06", "P1", "ok", false, []],
    ["2025-03-07", "P1", "ok", false, []],
    ["2025-03-08", "P1", "error", false, []],
    ["2025-03-10", "P1", "ok", true, []],
    ["2025-03-11", "P1", "ok", true, cite("https://acme.com/blog/best-crm")],
    ["2025-03-12", "P1", "ok", true, cite("https://acme.com/pricing")],
    ["2025-03-12", "P1", "ok", true, cite("https://other.com/best-crm")],
    ["2025-03-13", "P1", "ok", true, cite("https://acme.com/best-crm-guide")],
    ["2025-03-14", "P1", "ok", true, []],
    ["2025-03-12", "P2", "ok", false, cite("https://spyglass.example.com/articles/best-crm")],
    ["2025-03-02", "P1", "ok", true, []],
  ];
  for (const [i, [day, prompt, status, mentioned, citations]] of rows.entries()) {
    await app.tracking.writer.write(
      app.db,
      {
        brandId: B,
        runId: null,
        promptId: s.prompts[prompt]!,
        engine: "gpt",
        model: "gpt-test",
        sample: i,
        status,
        text: status === "ok" ? `answer ${i + 1}` : "",
        providerCitations: [],
        error: status === "error" ? "HTTP 500" : null,
        latencyMs: 100,
        tokensIn: 1,
        tokensOut: 1,
        createdAt: Date.parse(`${day}T14:00:00Z`) + i,
      },
      { mentions: mentioned ? [{ member_id: B, rank: 1, sentiment: 0, offset: 0 }] : [], citations },
      roster,
    );
  }
  const a = await createArticle(app.db, B, { title: "Best CRM", markdown: "Acme is the best CRM.", promptId: s.prompts.P1! });
  articleA = (await publishArticle(app, B, a.id, Date.parse("2025-03-10T15:00:00Z"))).id;
  const b = await createArticle(app.db, B, { title: "CRM for agencies", markdown: "Agencies pick Acme.", promptId: s.prompts.P2! });
  articleB = (await publishArticle(app, B, b.id, Date.parse("2025-03-15T08:00:00Z"))).id;
  await createArticle(app.db, B, { title: "A draft", markdown: "Not yet.", promptId: s.prompts.P1! });
  const unlinked = await createArticle(app.db, B, { title: "No prompt", markdown: "Linked to nothing." });
  await publishArticle(app, B, unlinked.id, Date.parse("2025-03-01T10:00:00Z"));
});

afterAll(async () => {
  await app.db.close();
});

const impact = async (limit = 10, offset = 0) =>
  await articleImpact(app, s.brandId, await listPublishedArticles(app.db, s.brandId), { windowDays: 7, limit, offset }, NOW);

describe("article impact on the hand-built dataset", () => {
  test("lists the published articles linked to a prompt, newest publication first, paged", async () => {
    const all = await impact();
    expect(all.total_articles).toBe(2);
    expect(all.articles.map((x) => x.article.id)).toEqual([articleB, articleA]);
    expect(all.next_cursor).toBeNull();
    const first = await impact(1);
    expect(first.articles.map((x) => x.article.id)).toEqual([articleB]);
    expect(first.next_cursor).not.toBeNull();
    expect((await impact(1, 1)).articles.map((x) => x.article.id)).toEqual([articleA]);
  });

  test("windows: whole UTC days before the publication day and after it, the after window ending today", async () => {
    const a = (await impact()).articles[1]!;
    expect(a.article).toMatchObject({ slug: "best-crm", published_at: "2025-03-10T15:00:00.000Z" });
    expect(a.prompt.text).toBe("best crm");
    expect(a.before).toEqual({ start_date: "2025-03-03", end_date: "2025-03-09", days: 7 });
    expect(a.after).toEqual({ start_date: "2025-03-11", end_date: "2025-03-15", days: 5 });
    expect(a.answers).toEqual({ before: { total: 5, valid: 4 }, after: { total: 5, valid: 5 } });
  });

  test("visibility before and after, with n, Wilson intervals and the noise verdict", async () => {
    const v = (await impact()).articles[1]!.visibility;
    expect(v.before).toMatchObject({ rate: 0, successes: 0, n: 4, low: 0 });
    expect(v.before.high!).toBeCloseTo(0.4899, 3);
    expect(v.after).toMatchObject({ rate: 1, successes: 5, n: 5, high: 1 });
    expect(v.after.low!).toBeCloseTo(0.5655, 3);
    expect(v.change_pp).toBe(100);
    expect(v.within_noise).toBe(false);
  });

  test("citation rate before and after: valid answers citing the brand's domain", async () => {
    const c = (await impact()).articles[1]!.citation_rate;
    expect(c.before).toMatchObject({ rate: 0.25, successes: 1, n: 4 });
    expect(c.before.low!).toBeCloseTo(0.0456, 3);
    expect(c.before.high!).toBeCloseTo(0.6994, 3);
    expect(c.after).toMatchObject({ rate: 0.6, successes: 3, n: 5 });
    expect(c.after.low!).toBeCloseTo(0.2307, 3);
    expect(c.after.high!).toBeCloseTo(0.8824, 3);
    expect(c.change_pp).toBe(35);
    expect(c.within_noise).toBe(true);
  });

  test("the article's own URL cited since publication: on the brand's site or under public_url, slug as last segment", async () => {
    expect((await impact()).articles[1]!.article_cited).toEqual({
      cited: true,
      citations: 2,
      first_cited_at: new Date(Date.parse("2025-03-11T14:00:00Z") + 6).toISOString(),
      last_cited_at: new Date(Date.parse("2025-03-12T14:00:00Z") + 11).toISOString(),
    });
  });

  test("an article published today: the after window has no day yet, n 0, no verdict", async () => {
    const b = (await impact()).articles[0]!;
    expect(b.before).toEqual({ start_date: "2025-03-08", end_date: "2025-03-14", days: 7 });
    expect(b.after).toEqual({ start_date: null, end_date: null, days: 0 });
    expect(b.visibility).toMatchObject({
      before: { successes: 0, n: 1 },
      after: { rate: null, n: 0 },
      change_pp: null,
      within_noise: null,
    });
    expect(b.citation_rate).toMatchObject({ before: { successes: 0, n: 1 }, after: { n: 0 } });
    expect(b.article_cited).toMatchObject({ cited: false, citations: 0 });
  });
});
