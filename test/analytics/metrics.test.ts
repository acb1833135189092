// Every METRICS.md figure on a small hand-built dataset, worked out by hand below.
//
// Roster: Acme (the brand, acme.com), Globex (C1), Initech (C2). Engines gpt and claude.
// Prompts: P1, P2 (tag "general"), P3 (tag "pricing").
// Current period 2025-03-01..2025-03-10 (10 days); previous period 2025-02-19..2025-02-28.
//
//  #  day    prompt engine  status   mentions (rank, sentiment)          citations
//  1  03-01  P1     gpt     ok       Acme 1 (+0.5), Globex 2              acme.com/pricing, g2.com/crm
//  2  03-01  P1     claude  ok       Globex 1, Acme 2 (−0.5)              g2.com/crm
//  3  03-01  P2     gpt     ok       Globex 1, Initech 2                  g2.com/crm, reddit.com/r/crm
//  4  03-01  P2     claude  ok       Initech 1                            –
//  5  03-05  P2     gpt     error    –                                    –
//  6  03-05  P3     gpt     ok       Acme 1 (0)                           blog.acme.com/post
//  7  03-05  P3     claude  refusal  –                                    –
//  8  03-05  P3     claude  ok       –                                    en.wikipedia.org/wiki/crm
//  previous period:
//  9  02-20  P1     gpt     ok       Acme 1 (+1)                          –
// 10  02-20  P1     gpt     ok       –                                    –
// 11  02-21  P2     claude  ok       Globex 1                             –
// 12  02-21  P2     claude  empty    –                                    –
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { getAnswer, listAnswers } from "../../src/analytics/answers";
import { type FilterInput, resolveFilter } from "../../src/analytics/filters";
import { contentGaps, promptPerformance } from "../../src/analytics/prompts";
import { topSources } from "../../src/analytics/sources";
import { competitorRanking, visibilityOverview, visibilityTrend } from "../../src/analytics/visibility";
import { type AppContext } from "../../src/context";
import { type AnswerStatus } from "../../src/db/schema";
import { archivePrompt, createPrompts } from "../../src/prompts/service";
import { loadRoster } from "../../src/tracking/roster";
import { writeAnswers } from "../support/answers";
import { addBrand, GPT_ENGINE_TOML, openApp, type SeededBrand } from "./dataset";

let app: AppContext;
let s: SeededBrand;
const ids: number[] = [];

const PERIOD: FilterInput = { start_date: "2025-03-01", end_date: "2025-03-10" };

beforeAll(async () => {
  app = await openApp(`${GPT_ENGINE_TOML}
[[engines]]
id = "claude"
label = "Claude"
api = "anthropic"
base_url = "http://127.0.0.1:9"
model = "claude-test"
`);
  s = await addBrand(app, {
    name: "Acme",
    domain: "acme.com",
    competitors: [
      { key: "C1", name: "Globex", domains: ["globex.com"] },
      { key: "C2", name: "Initech" },
    ],
    tags: ["general", "pricing"],
    prompts: [
      { key: "P1", text: "best crm", tags: ["general"] },
      { key: "P2", text: "crm for agencies", tags: ["general"] },
      { key: "P3", text: "crm pricing", tags: ["pricing"] },
    ],
  });
  const roster = await loadRoster(app.db, s.brandId);
  const writer = app.tracking.writer;
  const B = s.brandId;
  const C1 = s.competitors.C1!;
  const C2 = s.competitors.C2!;
  const at = (day: string) => Date.parse(`${day}T12:00:00Z`);
  const cite = (url: string, domain: string) => ({ url, domain });
  const rows: Array<[string, string, string, AnswerStatus, Array<[string, number, number]>, Array<{ url: string; domain: string }>]> = [
    [
      "2025-03-01",
      "P1",
      "gpt",
      "ok",
      [
        [B, 1, 0.5],
        [C1, 2, 0],
      ],
      [cite("https://acme.com/pricing", "acme.com"), cite("https://g2.com/crm", "g2.com")],
    ],
    [
      "2025-03-01",
      "P1",
      "claude",
      "ok",
      [
        [C1, 1, 0],
        [B, 2, -0.5],
      ],
      [cite("https://g2.com/crm", "g2.com")],
    ],
    [
      "2025-03-01",
      "P2",
      "gpt",
      "ok",
      [
        [C1, 1, 0],
        [C2, 2, 0],
      ],
      [cite("https://g2.com/crm", "g2.com"), cite("https://reddit.com/r/crm", "reddit.com")],
    ],
    ["2025-03-01", "P2", "claude", "ok", [[C2, 1, 0]], []],
    ["2025-03-05", "P2", "gpt", "error", [], []],
    ["2025-03-05", "P3", "gpt", "ok", [[B, 1, 0]], [cite("https://blog.acme.com/post", "acme.com")]],
    ["2025-03-05", "P3", "claude", "refusal", [], []],
    ["2025-03-05", "P3", "claude", "ok", [], [cite("https://en.wikipedia.org/wiki/crm", "wikipedia.org")]],
    ["2025-02-20", "P1", "gpt", "ok", [[B, 1, 1]], []],
    ["2025-02-20", "P1", "gpt", "ok", [], []],
    ["2025-02-21", "P2", "claude", "ok", [[C1, 1, 0]], []],
    ["2025-02-21", "P2", "claude", "empty", [], []],
  ];
  for (const [i, [day, prompt, engine, status, mentions, citations]] of rows.entries()) {
    ids.push(
      await writer.write(
        app.db,
        {
          brandId: B,
          runId: null,
          promptId: s.prompts[prompt]!,
          engine,
          model: `${engine}-model`,
          sample: i,
          status,
          text: status === "ok" ? `answer ${i + 1}` : "",
          providerCitations: [],
          error: status === "error" ? "HTTP 500" : null,
          latencyMs: 100,
          tokensIn: 1,
          tokensOut: 1,
          createdAt: at(day) + i,
        },
        { mentions: mentions.map(([member_id, rank, sentiment]) => ({ member_id, rank, sentiment, offset: rank * 10 })), citations },
        roster,
      ),
    );
  }
});

afterAll(async () => {
  await app.db.close();
});

const filter = async (extra: FilterInput = {}) => await resolveFilter(app, s.brandId, { ...PERIOD, ...extra });

describe("visibility overview on the hand-built dataset", () => {
  test("overall figures are pooled counts over valid answers, with n", async () => {
    const o = await visibilityOverview(app, await filter());
    expect(o.filter).toMatchObject({
      start_date: "2025-03-01",
      end_date: "2025-03-10",
      days: 10,
      previous_start_date: "2025-02-19",
      previous_end_date: "2025-02-28",
    });
    expect(o.answers).toEqual({ total: 8, valid: 6, no_answer: 2 });
    // visibility: answers 1, 2, 6 of the 6 valid ones
    expect(o.visibility).toMatchObject({ rate: 0.5, successes: 3, n: 6 });
    // Wilson 95% for 3/6: centre 0.5, half-width 1.96·√(0.25/6 + 3.8415/144) / (1 + 3.8415/6) = 0.3124
    expect(o.visibility.low!).toBeCloseTo(0.1876, 3);
    expect(o.visibility.high!).toBeCloseTo(0.8124, 3);
    // share of voice: Acme in 3 answers; roster mentions 2 + 2 + 2 + 1 + 1 = 8
    expect(o.share_of_voice).toMatchObject({ rate: 0.375, successes: 3, n: 8 });
    // positions 1, 2, 1; s² = 1/3, so the interval is 4/3 ± t(0.975, 2) · √(1/9) = 4/3 ± 4.3027 / 3, from 1 at least
    expect(o.avg_position.value).toBeCloseTo(4 / 3, 4);
    expect(o.avg_position.n).toBe(3);
    expect(o.avg_position.low).toBe(1);
    expect(o.avg_position.high!).toBeCloseTo(2.7676, 4);
    expect(o.avg_position.top1_rate).toMatchObject({ successes: 2, n: 3 });
    expect(o.avg_position.top1_rate.rate).toBeCloseTo(2 / 3, 4);
    expect(o.avg_position.top3_rate).toMatchObject({ rate: 1, successes: 3, n: 3 });
    // sentiment (+0.5 − 0.5 + 0) / 3; s = 0.5, so 0 ± 4.3027 · 0.5 / √3 = ±1.2421, within [−1, 1]
    expect(o.sentiment).toMatchObject({ value: 0, n: 3, low: -1, high: 1 });
    // citation rate: answers 1 (acme.com/pricing) and 6 (blog.acme.com) of 6 valid
    expect(o.citation_rate).toMatchObject({ successes: 2, n: 6 });
    expect(o.citation_rate.rate).toBeCloseTo(1 / 3, 4);
    // prompt coverage: P1 and P3 of P1, P2, P3
    expect(o.prompt_coverage).toMatchObject({ successes: 2, n: 3 });
    // no-answer rate: error + refusal of 8
    expect(o.no_answer_rate).toMatchObject({ rate: 0.25, successes: 2, n: 8 });
  });

  test("the previous period of equal length, the change in points and within_noise", async () => {
    const o = await visibilityOverview(app, await filter());
    // previous: valid 9, 10, 11; Acme in 9 only
    expect(o.visibility.previous).toMatchObject({ successes: 1, n: 3 });
    // Wilson 95% for 1/3: centre 0.4269, half-width 0.3654
    expect(o.visibility.previous.low!).toBeCloseTo(0.0615, 3);
    expect(o.visibility.previous.high!).toBeCloseTo(0.7924, 3);
    expect(o.visibility.change_pp).toBeCloseTo(16.67, 2);
    expect(o.visibility.within_noise).toBe(true);
    // previous share of voice: Acme 1 of 2 roster mentions (answers 9 and 11)
    expect(o.share_of_voice.previous).toMatchObject({ rate: 0.5, successes: 1, n: 2 });
    expect(o.share_of_voice.change_pp).toBe(-12.5);
    expect(o.avg_position.previous).toEqual({ value: 1, n: 1, low: null, high: null });
    expect(o.avg_position.change).toBeCloseTo(1 / 3, 4);
    // One answer before: a change, but no interval to compare with.
    expect(o.avg_position.within_noise).toBeNull();
    expect(o.prompt_coverage.previous).toMatchObject({ rate: 0.5, successes: 1, n: 2 });
    expect(o.no_answer_rate.previous).toMatchObject({ rate: 0.25, successes: 1, n: 4 });
    expect(o.citation_rate.previous).toMatchObject({ rate: 0, successes: 0, n: 3 });
    expect(o.sentiment.previous).toEqual({ value: 1, n: 1, low: null, high: null });
    expect(o.sentiment).toMatchObject({ change: -1, within_noise: null });
  });

  test("by_engine keeps each engine's own denominators", async () => {
    const o = await visibilityOverview(app, await filter());
    const gpt = o.by_engine.find((e) => e.engine === "gpt")!;
    const claude = o.by_engine.find((e) => e.engine === "claude")!;
    expect(o.by_engine.map((e) => e.engine)).toEqual(["claude", "gpt"]);
    expect(gpt.label).toBe("GPT");
    // gpt: answers 1, 3, 5, 6; valid 1, 3, 6; Acme in 1 and 6
    expect(gpt.answers).toEqual({ total: 4, valid: 3, no_answer: 1 });
    expect(gpt.visibility).toMatchObject({ successes: 2, n: 3 });
    expect(gpt.share_of_voice).toMatchObject({ rate: 0.4, successes: 2, n: 5 });
    expect(gpt.avg_position).toMatchObject({ value: 1, n: 2 });
    expect(gpt.citation_rate).toMatchObject({ successes: 2, n: 3 });
    expect(gpt.prompt_coverage).toMatchObject({ successes: 2, n: 3 });
    expect(gpt.no_answer_rate).toMatchObject({ rate: 0.25, successes: 1, n: 4 });
    // claude: answers 2, 4, 7, 8; valid 2, 4, 8; Acme in 2 at position 2
    expect(claude.answers).toEqual({ total: 4, valid: 3, no_answer: 1 });
    expect(claude.visibility).toMatchObject({ successes: 1, n: 3 });
    expect(claude.share_of_voice).toMatchObject({ successes: 1, n: 3 });
    expect(claude.avg_position).toMatchObject({ value: 2, n: 1 });
    expect(claude.avg_position.top1_rate).toMatchObject({ rate: 0, successes: 0, n: 1 });
    expect(claude.avg_position.top3_rate).toMatchObject({ rate: 1, successes: 1, n: 1 });
    expect(claude.sentiment).toMatchObject({ value: -0.5, n: 1 });
    expect(claude.citation_rate).toMatchObject({ rate: 0, successes: 0, n: 3 });
    expect(claude.prompt_coverage).toMatchObject({ successes: 1, n: 3 });
    // previous period, claude: valid 11 (Globex only) → 0 of 1
    expect(claude.visibility.previous).toMatchObject({ rate: 0, successes: 0, n: 1 });
  });

  test("engine and tag filters narrow every figure", async () => {
    const gptOnly = await visibilityOverview(app, await filter({ engine: "gpt" }));
    expect(gptOnly.visibility).toMatchObject({ successes: 2, n: 3 });
    expect(gptOnly.by_engine.map((e) => e.engine)).toEqual(["gpt"]);
    // tag pricing: P3 only, answers 6, 7, 8
    const pricing = await visibilityOverview(app, await filter({ tag: "Pricing" }));
    expect(pricing.filter.tag).toBe("pricing");
    expect(pricing.answers).toEqual({ total: 3, valid: 2, no_answer: 1 });
    expect(pricing.visibility).toMatchObject({ rate: 0.5, successes: 1, n: 2 });
    expect(pricing.share_of_voice).toMatchObject({ rate: 1, successes: 1, n: 1 });
    expect(pricing.prompt_coverage).toMatchObject({ rate: 1, successes: 1, n: 1 });
  });

  test("share of voice is null when nothing on the roster is mentioned", async () => {
    // 2025-03-05 with claude: answers 7 (refusal) and 8 (no mention)
    const o = await visibilityOverview(
      app,
      await resolveFilter(app, s.brandId, { start_date: "2025-03-05", end_date: "2025-03-05", engine: "claude" }),
    );
    expect(o.share_of_voice).toMatchObject({ rate: null, n: 0, low: null, high: null });
    expect(o.visibility).toMatchObject({ rate: 0, successes: 0, n: 1 });
  });

  test("a period without data has n = 0 and null rates, never 0%", async () => {
    const o = await visibilityOverview(app, await resolveFilter(app, s.brandId, { start_date: "2024-01-01", end_date: "2024-01-31" }));
    expect(o.visibility).toMatchObject({ rate: null, n: 0, change_pp: null, within_noise: null });
  });
});

describe("trend, ranking, prompts, sources, gaps", () => {
  test("daily trend points carry their own n", async () => {
    const t = await visibilityTrend(app, await filter(), "day");
    expect(t.points).toHaveLength(10);
    expect(t.points[0]).toMatchObject({ date: "2025-03-01", answers: { total: 4, valid: 4 }, visibility: { rate: 0.5, n: 4 } });
    expect(t.points[0]!.share_of_voice).toMatchObject({ successes: 2, n: 7 });
    expect(t.points[0]!.avg_position).toEqual({ value: 1.5, n: 2 });
    expect(t.points[4]).toMatchObject({ date: "2025-03-05", answers: { total: 4, valid: 2 }, visibility: { rate: 0.5, n: 2 } });
    expect(t.points[1]).toMatchObject({ date: "2025-03-02", visibility: { rate: null, n: 0 } });
    // ISO weeks: 03-01 is a Saturday, so the first week holds 03-01..03-02, the second 03-03..03-09
    const w = await visibilityTrend(app, await filter(), "week");
    expect(w.points.map((p) => p.date)).toEqual(["2025-03-01", "2025-03-03", "2025-03-10"]);
    expect(w.points[1]!.visibility).toMatchObject({ successes: 1, n: 2 });
    // Each point's weekday and days: 03-01 is a Saturday; the weeks hold 2, 7 and 1 of the period's days.
    expect(t.points.slice(0, 3).map((p) => [p.weekday, p.days])).toEqual([
      ["Saturday", 1],
      ["Sunday", 1],
      ["Monday", 1],
    ]);
    expect(w.points.map((p) => [p.weekday, p.days])).toEqual([
      ["Saturday", 2],
      ["Monday", 7],
      ["Monday", 1],
    ]);
    // Visibility's change from the previous point: none for the first (02-28 has no answer); none against an empty day; 03-05
    // (1 of 2) against 03-04 (no answers) has no change either; week 2 (1 of 2) against week 1 (2 of 4): 0 points, within noise.
    expect(t.points[0]!.visibility_change).toEqual({ change_pp: null, within_noise: null });
    expect(t.points[1]!.visibility_change).toEqual({ change_pp: null, within_noise: null });
    expect(t.points[4]!.visibility_change).toEqual({ change_pp: null, within_noise: null });
    expect(w.points[1]!.visibility_change).toEqual({ change_pp: 0, within_noise: true });
    // The first point's change is from the bucket before the period: 02-21 (0 of 1) against 02-20 (1 of 2);
    // the week of 03-03 (1 of 2) against the whole week before (03-01: 2 of 4).
    const fromDay = await visibilityTrend(app, await filter({ start_date: "2025-02-21", end_date: "2025-02-22" }), "day");
    expect(fromDay.points[0]!.visibility_change).toEqual({ change_pp: -50, within_noise: true });
    const fromWeek = await visibilityTrend(app, await filter({ start_date: "2025-03-03", end_date: "2025-03-10" }), "week");
    expect(fromWeek.points[0]!.visibility_change).toEqual({ change_pp: 0, within_noise: true });
    // A period that starts mid-week: its first point holds its own days only (03-02, a Sunday: none
    // of 03-01's four answers, which are before the period).
    const fromSunday = await visibilityTrend(app, await filter({ start_date: "2025-03-02", end_date: "2025-03-10" }), "week");
    expect(fromSunday.points[0]).toMatchObject({ date: "2025-03-02", days: 1, answers: { total: 0, valid: 0 } });
    expect(fromSunday.points[0]!.visibility_change).toEqual({ change_pp: null, within_noise: null });
    // The week of 03-03 against the day of 03-02 before it (no answer): no change either.
    expect(fromSunday.points[1]).toMatchObject({ date: "2025-03-03", answers: { total: 4, valid: 2 } });
  });

  test("competitor ranking: each member on the same valid answers", async () => {
    const r = await competitorRanking(app, await filter());
    expect(r.valid_answers).toBe(6);
    expect(r.ranking.map((m) => m.name)).toEqual(["Acme", "Globex", "Initech"]);
    const [acme, globex, initech] = r.ranking;
    expect(acme).toMatchObject({ is_brand: true, visibility: { rate: 0.5, successes: 3, n: 6 }, share_of_voice: { rate: 0.375, n: 8 } });
    expect(globex).toMatchObject({ is_brand: false, visibility: { rate: 0.5, successes: 3 }, share_of_voice: { rate: 0.375 } });
    expect(globex!.avg_position.value).toBeCloseTo(4 / 3, 4);
    expect(globex!.avg_position.top1_rate).toMatchObject({ successes: 2, n: 3 });
    expect(initech).toMatchObject({
      visibility: { successes: 2, n: 6 },
      share_of_voice: { rate: 0.25 },
      avg_position: { value: 1.5, n: 2 },
    });
    expect(acme!.sentiment).toMatchObject({ value: 0, n: 3, low: -1, high: 1, change: -1, within_noise: null });
    // Globex's positions 1, 2, 1 (as the brand's in the overview), against one answer before.
    expect(globex!.avg_position).toMatchObject({ n: 3, low: 1, previous: { n: 1 }, within_noise: null });
    expect(globex!.avg_position.high!).toBeCloseTo(2.7676, 4);
    // The previous period: valid answers 9, 10, 11; Acme in 9, Globex in 11, Initech in none; 2 roster mentions.
    expect(acme!.visibility.previous).toMatchObject({ successes: 1, n: 3 });
    expect(acme!.visibility.change_pp).toBeCloseTo(16.67, 2);
    expect(acme!.visibility.within_noise).toBe(true);
    expect(acme!.share_of_voice.previous).toMatchObject({ rate: 0.5, successes: 1, n: 2 });
    expect(acme!.share_of_voice.change_pp).toBe(-12.5);
    expect(globex!.visibility.previous).toMatchObject({ successes: 1, n: 3 });
    expect(initech!.visibility.previous).toMatchObject({ rate: 0, successes: 0, n: 3 });
    expect(initech!.visibility.change_pp).toBeCloseTo(33.33, 2);
    expect(initech!.share_of_voice.previous).toMatchObject({ rate: 0, successes: 0, n: 2 });
    // The same figures as the overview's for the brand.
    const o = await visibilityOverview(app, await filter());
    expect(acme!.visibility).toEqual(o.visibility);
    expect(acme!.share_of_voice).toEqual(o.share_of_voice);
  });

  test("prompt performance, best first, with the top competitor", async () => {
    const p = await promptPerformance(app, await filter(), { limit: 2, offset: 0, order: "visibility_desc" });
    expect(p.prompts.map((x) => x.text)).toEqual(["best crm", "crm pricing"]);
    expect(p.prompts[0]).toMatchObject({
      visibility: { rate: 1, n: 2 },
      avg_position: { value: 1.5, n: 2 },
      top_competitor: { name: "Globex", answers: 2 },
    });
    expect(p.prompts[1]).toMatchObject({ visibility: { rate: 0.5, n: 2 }, answers: { total: 3, valid: 2 }, top_competitor: null });
    expect(p.next_cursor).not.toBeNull();
    const worst = await promptPerformance(app, await filter(), { limit: 5, offset: 0, order: "visibility_asc" });
    expect(worst.prompts[0]).toMatchObject({
      text: "crm for agencies",
      visibility: { rate: 0, n: 2 },
      top_competitor: { name: "Initech", answers: 2 },
    });
    expect(worst.next_cursor).toBeNull();
  });

  test("top sources: citation share of all 7 citations, owned = the brand's site", async () => {
    const d = await topSources(app, await filter(), { level: "domain", limit: 10, offset: 0 });
    expect(d.total_citations).toBe(7);
    expect(d.sources.map((x) => [x.domain, x.citations, x.answers, x.owned])).toEqual([
      ["g2.com", 3, 3, false],
      ["acme.com", 2, 2, true],
      ["reddit.com", 1, 1, false],
      ["wikipedia.org", 1, 1, false],
    ]);
    expect(d.sources[0]!.citation_share).toMatchObject({ successes: 3, n: 7 });
    expect(d.sources[0]!.citation_share.rate).toBeCloseTo(3 / 7, 4);
    expect(d.sources[0]!.answer_rate).toMatchObject({ rate: 0.5, successes: 3, n: 6 });
    const u = await topSources(app, await filter(), { level: "url", limit: 2, offset: 0 });
    expect(u.sources.map((x) => [x.url, x.owned])).toEqual([
      ["https://g2.com/crm", false],
      ["https://acme.com/pricing", true],
    ]);
    expect(u.next_cursor).not.toBeNull();
  });

  test("content gaps: P2 only, with its competitors and the domains cited in those answers", async () => {
    const g = await contentGaps(app, await filter(), { limit: 10, offset: 0 });
    expect(g.total_gaps).toBe(1);
    expect(g.gaps).toHaveLength(1);
    const gap = g.gaps[0]!;
    expect(gap).toMatchObject({ prompt_id: s.prompts.P2, text: "crm for agencies", competitor_answers: 2, valid_answers: 2 });
    expect(gap.competitors.map((c) => [c.name, c.answers])).toEqual([
      ["Initech", 2],
      ["Globex", 1],
    ]);
    expect(gap.top_domains).toEqual([
      { domain: "g2.com", citations: 1, owned: false, competitor: null },
      { domain: "reddit.com", citations: 1, owned: false, competitor: null },
    ]);
    // In the previous period P2 (answer 11, Globex) was a gap as well; P1 was not (answer 9)
    const prev = await contentGaps(app, await resolveFilter(app, s.brandId, { start_date: "2025-02-19", end_date: "2025-02-28" }), {
      limit: 10,
      offset: 0,
    });
    expect(prev.gaps.map((x) => x.prompt_id)).toEqual([s.prompts.P2!]);
    expect(gap.archived).toBe(false);
  });

  test("an archived prompt keeps its figures, and its gap and performance row say it is archived", async () => {
    await archivePrompt(app.db, s.brandId, s.prompts.P2!);
    try {
      const g = await contentGaps(app, await filter(), { limit: 10, offset: 0 });
      expect(g.gaps.map((x) => [x.prompt_id, x.archived])).toEqual([[s.prompts.P2!, true]]);
      const rows = (await promptPerformance(app, await filter(), { limit: 10, offset: 0, order: "visibility_desc" })).prompts;
      expect(rows.some((r) => r.id === s.prompts.P2)).toBe(true);
      expect(rows.every((r) => r.archived === (r.id === s.prompts.P2))).toBe(true);
    } finally {
      await createPrompts(app.db, s.brandId, [{ text: "crm for agencies" }]);
    }
  });
});

/** The stored key behind an answer id, which clients see as ans_<key>. */
function keyOf(answerId: string): number {
  expect(answerId).toMatch(/^ans_\d+$/);
  return Number(answerId.slice("ans_".length));
}

describe("a prompt filter", () => {
  test("prompt_id narrows every figure to one prompt: overview and trend agree with that prompt's performance row", async () => {
    const narrowed = await resolveFilter(app, s.brandId, { ...PERIOD, prompt_id: s.prompts.P1! });
    const row = (
      await promptPerformance(app, await resolveFilter(app, s.brandId, PERIOD), {
        limit: 50,
        offset: 0,
        order: "visibility_desc",
      })
    ).prompts.find((p) => p.id === s.prompts.P1)!;
    const overview = await visibilityOverview(app, narrowed);
    expect(overview.filter.prompt_id).toBe(s.prompts.P1!);
    expect([overview.visibility.successes, overview.visibility.n]).toEqual([row.visibility.successes, row.visibility.n]);
    const trend = await visibilityTrend(app, narrowed, "day");
    expect(trend.points.reduce((n, p) => n + p.visibility.successes, 0)).toBe(row.visibility.successes);
    expect(trend.points.reduce((n, p) => n + p.visibility.n, 0)).toBe(row.visibility.n);
    const whole = await visibilityOverview(app, await resolveFilter(app, s.brandId, PERIOD));
    expect(whole.visibility.n).toBeGreaterThan(overview.visibility.n);
  });

  test("another brand's prompt, or one that does not exist, is not found", async () => {
    const other = await addBrand(app, { name: "Other prompts" });
    await expect(resolveFilter(app, other.brandId, { prompt_id: s.prompts.P1! })).rejects.toThrow(
      "Prompt not found; list_prompts shows the brand's prompts and their ids.",
    );
    await expect(resolveFilter(app, s.brandId, { prompt_id: "prm_nope" })).rejects.toThrow(
      "Prompt not found; list_prompts shows the brand's prompts and their ids.",
    );
  });
});

describe("answers", () => {
  test("list_answers filters and pages newest first", async () => {
    const first = await listAnswers(app, s.brandId, { mentioned: true, start_date: "2025-03-01", end_date: "2025-03-10", limit: 2 });
    expect(first.answers.map((a) => keyOf(a.id))).toEqual([ids[5]!, ids[1]!]);
    // Each with its prompt's text beside its id.
    const textOf = new Map([
      [s.prompts.P1!, "best crm"],
      [s.prompts.P2!, "crm for agencies"],
      [s.prompts.P3!, "crm pricing"],
    ]);
    for (const a of first.answers) expect(a.prompt_text).toBe(textOf.get(a.prompt_id)!);
    const second = await listAnswers(app, s.brandId, {
      mentioned: true,
      start_date: "2025-03-01",
      end_date: "2025-03-10",
      limit: 2,
      cursor: first.next_cursor!,
    });
    expect(second.answers.map((a) => keyOf(a.id))).toEqual([ids[0]!]);
    expect(second.next_cursor).toBeNull();
    const notMentioned = await listAnswers(app, s.brandId, { mentioned: false, limit: 50 });
    // valid answers without Acme: 3, 4, 8, 10, 11 (the error, refusal and empty ones are not "not mentioned")
    expect(notMentioned.answers.map((a) => keyOf(a.id)).sort((a, b) => a - b)).toEqual([ids[2]!, ids[3]!, ids[7]!, ids[9]!, ids[10]!]);
    expect((await listAnswers(app, s.brandId, { status: "refusal", limit: 5 })).answers.map((a) => keyOf(a.id))).toEqual([ids[6]!]);
  });

  test("list_answers with include_text gives each answer's text, as get_answer has it; without, none", async () => {
    const plain = await listAnswers(app, s.brandId, { limit: 3 });
    for (const a of plain.answers) expect("text" in a).toBe(false);
    const full = await listAnswers(app, s.brandId, { limit: 3, include_text: true });
    expect(full.answers.map((a) => a.id)).toEqual(plain.answers.map((a) => a.id));
    for (const a of full.answers) expect(a.text).toBe((await getAnswer(app, s.brandId, a.id)).answer.text);
    expect(full.answers.some((a) => (a.text ?? "").length > 0)).toBe(true);
  });

  test("list_answers by tag: the answers to the tag's prompts; an unknown tag or prompt, or reversed dates, are refused", async () => {
    // tag pricing: P3 only, answers 6, 7, 8 (newest first, the three of 2025-03-05)
    const pricing = await listAnswers(app, s.brandId, { tag: "Pricing", limit: 50 });
    expect(pricing.answers.map((a) => keyOf(a.id))).toEqual([ids[7]!, ids[6]!, ids[5]!]);
    expect(new Set(pricing.answers.map((a) => a.prompt_id))).toEqual(new Set([s.prompts.P3!]));
    await expect(listAnswers(app, s.brandId, { tag: "nope", limit: 5 })).rejects.toThrow(
      'Tag "nope" not found; list_tags shows the brand\'s tags.',
    );
    const other = await addBrand(app, { name: "Other answers" });
    for (const promptId of ["prm_nope", s.prompts.P1!]) {
      await expect(listAnswers(app, other.brandId, { prompt_id: promptId, limit: 5 })).rejects.toThrow(
        "Prompt not found; list_prompts shows the brand's prompts and their ids.",
      );
    }
    await expect(listAnswers(app, s.brandId, { start_date: "2025-03-10", end_date: "2025-03-01", limit: 5 })).rejects.toThrow(
      "start_date must be on or before end_date.",
    );
    // Without an end_date the period ends today, which the refusal of a later start_date says (the
    // AI-client walk was told about an end_date it had not given).
    await expect(resolveFilter(app, s.brandId, { start_date: "2025-03-10" }, Date.parse("2025-03-05T12:00:00Z"))).rejects.toThrow(
      "start_date must be on or before end_date (end_date, not given, is today: 2025-03-05).",
    );
    // Before 1970 (a review sent year 0: the period came back as "-000001-12").
    await expect(listAnswers(app, s.brandId, { end_date: "0000-01-01", limit: 5 })).rejects.toThrow(
      "end_date: give a date from 1970-01-01 on.",
    );
    await expect(resolveFilter(app, s.brandId, { start_date: "1969-12-31", end_date: "1970-01-05" })).rejects.toThrow(
      "start_date: give a date from 1970-01-01 on.",
    );
  });

  test("list_answers by cited domain: the answers citing it, of this brand only", async () => {
    const g2 = await listAnswers(app, s.brandId, { cited_domain: "g2.com", limit: 50 });
    expect(g2.answers.map((a) => keyOf(a.id)).sort((a, b) => a - b)).toEqual([ids[0]!, ids[1]!, ids[2]!]);
    // Case does not matter; a domain nobody cites lists nothing; paging works as for any filter.
    expect((await listAnswers(app, s.brandId, { cited_domain: "G2.COM", limit: 50 })).answers).toHaveLength(3);
    expect((await listAnswers(app, s.brandId, { cited_domain: "example.org", limit: 50 })).answers).toEqual([]);
    const page = await listAnswers(app, s.brandId, { cited_domain: "acme.com", limit: 1 });
    expect(page.answers).toHaveLength(1);
    const rest = await listAnswers(app, s.brandId, { cited_domain: "acme.com", limit: 1, cursor: page.next_cursor! });
    expect(
      rest.answers
        .map((a) => keyOf(a.id))
        .concat(page.answers.map((a) => keyOf(a.id)))
        .sort((a, b) => a - b),
    ).toEqual([ids[0]!, ids[5]!]);
    // Another brand's answers are not reachable through the filter.
    const other = await addBrand(app, { name: "Other cited" });
    expect((await listAnswers(app, other.brandId, { cited_domain: "g2.com", limit: 50 })).answers).toEqual([]);
  });

  test("list_answers by cited URL: the answers citing that page exactly, not the rest of its domain", async () => {
    const pricing = await listAnswers(app, s.brandId, { cited_url: "https://acme.com/pricing", limit: 50 });
    expect(pricing.answers.map((a) => keyOf(a.id))).toEqual([ids[0]!]);
    // acme.com is cited by two answers, on two pages.
    expect((await listAnswers(app, s.brandId, { cited_domain: "acme.com", limit: 50 })).answers).toHaveLength(2);
    expect((await listAnswers(app, s.brandId, { cited_url: "https://g2.com/crm", limit: 50 })).answers).toHaveLength(3);
    expect((await listAnswers(app, s.brandId, { cited_url: "https://g2.com/other", limit: 50 })).answers).toEqual([]);
    // As a client has it (get_answer's link, the answer's text): normalised as citations are; a host is its domain.
    for (const link of ["https://www.g2.com/crm/", "HTTPS://G2.com/crm?utm_source=chatgpt.com#top", "www.g2.com/crm"]) {
      expect([link, (await listAnswers(app, s.brandId, { cited_url: link, limit: 50 })).answers.length]).toEqual([link, 3]);
    }
    for (const host of ["www.g2.com", "blog.g2.com"]) {
      expect([host, (await listAnswers(app, s.brandId, { cited_domain: host, limit: 50 })).answers.length]).toEqual([host, 3]);
    }
    // Not an address at all: said, where it listed nothing.
    await expect(listAnswers(app, s.brandId, { cited_url: "not a url", limit: 5 })).rejects.toThrow(
      'cited_url: "not a url" is not an http(s) address; give one from get_top_sources (level url) or from get_answer\'s citations.',
    );
  });

  test("get_answer returns text, mentions by name and citations", async () => {
    const { answer } = await getAnswer(app, s.brandId, `ans_${ids[0]}`);
    expect(answer.id).toBe(`ans_${ids[0]}`);
    expect(answer).toMatchObject({
      status: "ok",
      engine: "gpt",
      mentioned: true,
      position: 1,
      cited: true,
      prompt_text: "best crm",
      text: "answer 1",
    });
    expect(answer.mentions.map((m) => [m.name, m.position, m.sentiment])).toEqual([
      ["Acme", 1, 0.5],
      ["Globex", 2, 0],
    ]);
    expect(answer.citations).toEqual([
      { url: "https://acme.com/pricing", link: "https://acme.com/pricing", domain: "acme.com", owned: true },
      { url: "https://g2.com/crm", link: "https://g2.com/crm", domain: "g2.com", owned: false },
    ]);
  });

  test("get_answer's citations link the address as the answer gave it: a site served only at www. needs its www.", async () => {
    const brand = await addBrand(app, { name: "Links", domain: "links.example.com", prompts: [{ key: "P", text: "where to buy" }] });
    await writeAnswers(app.db, brand.brandId, [
      {
        promptId: brand.prompts.P!,
        engine: "gpt",
        // The provider's citation with www., tracking and a fragment; the text's own link to the same
        // page without www. (the first given is the link); a bare www. address; credentials dropped.
        citations: ["https://www.Shop.example.org/Buy/?utm_source=chatgpt#top"],
        text: "See [the shop](https://shop.example.org/Buy) or www.reviews.example.net/best, and https://user:secret@www.files.example.com/list.",
        daysAgo: 1,
      },
    ]);
    const { answers } = await listAnswers(app, brand.brandId, { limit: 5 });
    const { answer } = await getAnswer(app, brand.brandId, answers[0]!.id);
    expect(answer.citations.map((c) => [c.url, c.link])).toEqual([
      ["https://shop.example.org/Buy", "https://www.shop.example.org/Buy/?utm_source=chatgpt#top"],
      ["https://reviews.example.net/best", "https://www.reviews.example.net/best"],
      ["https://files.example.com/list", "https://www.files.example.com/list"],
    ]);
  });

  test("another brand's answer is not found", async () => {
    const other = await addBrand(app, { name: "Other" });
    await expect(getAnswer(app, other.brandId, `ans_${ids[0]}`)).rejects.toThrow(
      "Answer not found; list_answers gives the brand's answers and their ids.",
    );
  });

  test("an answer id shown before ids had a prefix still finds its answer; a malformed one is not found", async () => {
    expect((await getAnswer(app, s.brandId, String(ids[0]))).answer.id).toBe(`ans_${ids[0]}`);
    // As copied: the prefix's case and spaces around it are not another id.
    for (const copied of [`ANS_${ids[0]}`, ` ans_${ids[0]}\n`])
      expect((await getAnswer(app, s.brandId, copied)).answer.id).toBe(`ans_${ids[0]}`);
    for (const bad of ["ans_", "ans_x1", `ans_${ids[0]}x`, "1".repeat(16)]) {
      await expect(getAnswer(app, s.brandId, bad)).rejects.toThrow(
        "Answer not found: an answer id looks like ans_7192; list_answers gives the brand's answers and their ids.",
      );
    }
    // Another record's id, as a model passes a prompt's: named, with the way to its answers.
    await expect(getAnswer(app, s.brandId, s.prompts.P1!)).rejects.toThrow(
      `Answer not found: an answer id looks like ans_7192 (${s.prompts.P1} is a prompt's id; list_answers with prompt_id lists its answers); list_answers gives the brand's answers and their ids.`,
    );
  });
});
