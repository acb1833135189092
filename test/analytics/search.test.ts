// Retrieval rate and get_search_queries over a hand-worked dataset: a real tracking run against
// the OpenAI Responses and Gemini stand-ins, read back through the tool catalogue.
//
//   prompt            chatgpt (Responses)                          gemini (generateContent)
//   best crm          q: "best crm 2025", "crm reviews"            q: "best crm 2025"
//                     cites review.io/a; retrieved acme.com/pricing cites globex.com/x
//   crm for startups  q: "Best CRM 2025" (same query, other case)  q: "crm for startups"
//                     cites acme.com/startups                      retrieved blog.acme.com/post (not cited)
//   cheap crm         empty answer (not valid)                     q: "crm reviews"; cites a redirect titled
//                                                                  "Cheap CRM roundup" (unresolvable)
//
//   valid answers: chatgpt 2, gemini 3 → 5
//   retrieved a URL on acme.com: chatgpt 2 (best crm, startups), gemini 1 (startups) → 3 / 5 = 0.6
//   cited acme.com (citation_rate, unchanged): chatgpt 1 → 1 / 5 = 0.2
//   queries: "best crm 2025" 3 answers, 2 prompts, both engines; "crm reviews" 2 answers, 2 prompts,
//   both engines; "crm for startups" 1 answer, 1 prompt, gemini.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildCatalog, type Principal } from "../../src/catalogue/registry";
import { TOOLS } from "../../src/catalogue/tools";
import { type AppContext } from "../../src/context";
import { runTracking } from "../../src/tracking/service";
import { answer, empty, type FakeProvider, startFakeGemini, startFakeResponses } from "../support/fake-providers";
import { addBrand, openApp, type SeededBrand } from "./dataset";

const catalog = buildCatalog(TOOLS);
let responses: FakeProvider;
let gemini: FakeProvider;
let app: AppContext;
let s: SeededBrand;
let principal: Principal;

async function call(name: string, args: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const outcome = await catalog.call(app, principal, "req-test", name, args);
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

beforeAll(async () => {
  responses = startFakeResponses({
    script: {
      "best crm": answer("Acme is great.", {
        queries: ["best crm 2025", "crm reviews"],
        // A script and a data URL from a faulty or hostile provider are no sources (a review saw them
        // become links on the answer's page): get_answer below shows neither.
        citations: [{ url: "https://review.io/a", title: "CRM reviews", quote: "great." }, { url: "javascript:alert(document.cookie)//" }],
        searchResults: ["https://review.io/a", "https://www.acme.com/pricing", "data:text/html,<script>alert(1)</script>"],
      }),
      "crm for startups": answer("Acme for startups.", {
        queries: ["Best CRM 2025"],
        // One page listed twice under two spellings (a review saw Perplexity do so): one source.
        citations: [
          { url: "https://acme.com/startups", title: "Acme for startups" },
          { url: "https://www.acme.com/startups/", title: "Acme for startups" },
        ],
        searchResults: ["https://acme.com/startups"],
      }),
      "cheap crm": empty(),
    },
  });
  gemini = startFakeGemini({
    script: {
      "best crm": answer("Globex wins.", { queries: ["best crm 2025"], citations: ["https://globex.com/x"] }),
      "crm for startups": answer("Globex.", { queries: ["crm for startups"], searchResults: ["https://blog.acme.com/post"] }),
      "cheap crm": answer("Zeta is cheap.", {
        queries: ["crm reviews"],
        citations: [{ url: "https://zeta.example/cheap", title: "Cheap CRM roundup" }],
      }),
    },
  });
  app = await openApp(`
[[engines]]
id = "chatgpt"
api = "openai-responses"
base_url = "${responses.url}"
model = "gpt-test"

[[engines]]
id = "gemini"
api = "gemini"
base_url = "${gemini.url}"
model = "gemini-test"
`);
  s = await addBrand(app, {
    name: "Acme",
    domain: "acme.com",
    competitors: [{ key: "G", name: "Globex", domains: ["globex.com"] }],
    prompts: [
      { key: "best", text: "best crm" },
      { key: "startups", text: "crm for startups" },
      { key: "cheap", text: "cheap crm" },
    ],
  });
  principal = { account: { id: s.accountId }, brand: { id: s.brandId, name: "Acme", domain: "acme.com" }, plan: "visibility" };
  const run = await runTracking(app, s.brandId, { trigger: "cli" });
  expect(run).toMatchObject({ status: "completed", answers_done: 6 });
});

afterAll(async () => {
  await app.db.close();
  await Promise.all([responses.stop(), gemini.stop()]);
});

describe("retrieval rate", () => {
  test("answers that retrieved a URL on the brand's domain ÷ valid answers, overall and by engine; citation rate stays on cited URLs", async () => {
    const overview = (await call("get_visibility_overview")) as {
      retrieval_rate: { successes: number; n: number; rate: number };
      citation_rate: { successes: number; n: number };
      by_engine: Array<{ engine: string; retrieval_rate: { successes: number; n: number } }>;
    };
    expect(overview.retrieval_rate).toMatchObject({ successes: 3, n: 5, rate: 0.6 });
    expect(overview.citation_rate).toMatchObject({ successes: 1, n: 5 });
    const byEngine = Object.fromEntries(overview.by_engine.map((e) => [e.engine, e.retrieval_rate]));
    expect(byEngine.chatgpt).toMatchObject({ successes: 2, n: 2 });
    expect(byEngine.gemini).toMatchObject({ successes: 1, n: 3 });
  });
});

describe("get_search_queries", () => {
  test("queries grouped case-insensitively, recurring across prompts first, with answers, engines and prompts", async () => {
    const result = (await call("get_search_queries")) as {
      queries: Array<{
        query: string;
        answers: number;
        prompt_count: number;
        engines: string[];
        prompts: Array<{ id: string; text: string }>;
      }>;
      next_cursor: string | null;
    };
    expect(result.queries.map((q) => [q.query.toLowerCase(), q.answers, q.prompt_count, q.engines])).toEqual([
      ["best crm 2025", 3, 2, ["chatgpt", "gemini"]],
      ["crm reviews", 2, 2, ["chatgpt", "gemini"]],
      ["crm for startups", 1, 1, ["gemini"]],
    ]);
    expect(result.queries[0]!.prompts.map((p) => p.text).sort()).toEqual(["best crm", "crm for startups"]);
    expect(result.queries[1]!.prompts.map((p) => p.text).sort()).toEqual(["best crm", "cheap crm"]);
    expect(result.next_cursor).toBeNull();
  });

  test("an engine filter keeps that engine's answers; a page of one has a cursor to the next", async () => {
    const gem = (await call("get_search_queries", { engine: "gemini" })) as { queries: Array<{ query: string; answers: number }> };
    expect(gem.queries.map((q) => [q.query, q.answers])).toEqual([
      ["best crm 2025", 1],
      ["crm for startups", 1],
      ["crm reviews", 1],
    ]);
    const first = (await call("get_search_queries", { limit: 1 })) as { queries: Array<{ query: string }>; next_cursor: string };
    expect(first.queries).toHaveLength(1);
    const second = (await call("get_search_queries", { limit: 1, cursor: first.next_cursor })) as { queries: Array<{ query: string }> };
    expect(second.queries[0]!.query).toBe("crm reviews");
  });
});

describe("list_answers by search query", () => {
  type Listed = { answers: Array<{ id: string; prompt_text: string; engine: string }>; next_cursor: string | null };
  const searched = async (query: string, more: Record<string, unknown> = {}) =>
    ((await call("list_answers", { searched: query, ...more })) as Listed).answers.map((a) => `${a.prompt_text} / ${a.engine}`).sort();

  test("the answers that ran a query, grouped as get_search_queries groups it (case and spacing aside)", async () => {
    // "best crm 2025": chatgpt and gemini on best crm, chatgpt on startups ("Best CRM 2025"); as many as get_search_queries counts.
    const expected = ["best crm / chatgpt", "best crm / gemini", "crm for startups / chatgpt"];
    expect(await searched("best crm 2025")).toEqual(expected);
    expect(await searched("  BEST   crm 2025 ")).toEqual(expected);
    expect(await searched("crm reviews")).toEqual(["best crm / chatgpt", "cheap crm / gemini"]);
    expect(await searched("crm reviews", { engine: "gemini" })).toEqual(["cheap crm / gemini"]);
    // A query nobody ran lists nothing; a page of one has a cursor to the rest, of the same filter.
    expect(await searched("crm pricing")).toEqual([]);
    const first = (await call("list_answers", { searched: "best crm 2025", limit: 2 })) as Listed;
    const rest = (await call("list_answers", { searched: "best crm 2025", limit: 2, cursor: first.next_cursor })) as Listed;
    expect(first.answers.length + rest.answers.length).toBe(3);
    expect(rest.next_cursor).toBeNull();
  });

  test("a blank query is refused, naming the field", async () => {
    const outcome = await catalog.call(app, principal, "req-test", "list_answers", { searched: "   " });
    expect(outcome.ok).toBe(false);
    if (!outcome.ok) expect(outcome.error.message).toBe("searched: give a query's id or text from get_search_queries; this one is blank.");
  });
});

describe("get_answer keeps queries, cited and retrieved sources apart", () => {
  test("a Responses answer: its queries, the cited passage, and the retrieved page it did not cite", async () => {
    const listed = (await call("list_answers", { prompt_id: s.prompts.best, engine: "chatgpt" })) as { answers: Array<{ id: string }> };
    const { answer: a } = (await call("get_answer", { answer_id: listed.answers[0]!.id })) as {
      answer: Record<string, unknown> & { text: string };
    };
    expect(a.search_queries).toEqual(["best crm 2025", "crm reviews"]);
    expect(a.cited_sources).toEqual([
      {
        url: "https://review.io/a",
        domain: "review.io",
        title: "CRM reviews",
        start: a.text.indexOf("great."),
        end: a.text.length,
        owned: false,
      },
    ]);
    // The brand's own page, read by the search and not cited: marked as the brand's.
    expect(a.retrieved_sources).toEqual([{ url: "https://www.acme.com/pricing", domain: "acme.com", title: null, owned: true }]);
    expect(a.citations).toEqual([{ url: "https://review.io/a", link: "https://review.io/a", domain: "review.io", owned: false }]);
  });

  test("a page the provider lists twice under two spellings is one cited source, as it is one citation", async () => {
    const listed = (await call("list_answers", { prompt_id: s.prompts.startups, engine: "chatgpt" })) as { answers: Array<{ id: string }> };
    const { answer: a } = (await call("get_answer", { answer_id: listed.answers[0]!.id })) as { answer: Record<string, unknown> };
    expect(a.citations).toEqual([{ url: "https://acme.com/startups", link: "https://acme.com/startups", domain: "acme.com", owned: true }]);
    expect((a.cited_sources as Array<{ url: string }>).map((c) => c.url)).toEqual(["https://acme.com/startups"]);
  });

  test("an answer that could not be read is neither mentioned nor not, cited nor not (METRICS.md)", async () => {
    const listed = (await call("list_answers", { prompt_id: s.prompts.cheap, engine: "chatgpt" })) as {
      answers: Array<{ id: string; status: string; mentioned: boolean | null; cited: boolean | null }>;
    };
    expect(listed.answers.map((x) => [x.status, x.mentioned, x.cited])).toEqual([["empty", null, null]]);
    const { answer: a } = (await call("get_answer", { answer_id: listed.answers[0]!.id })) as { answer: Record<string, unknown> };
    expect(a).toMatchObject({ status: "empty", mentioned: null, cited: null });
    // A valid answer without the brand is "not mentioned".
    const valid = (await call("list_answers", { prompt_id: s.prompts.cheap, engine: "gemini" })) as {
      answers: Array<{ mentioned: boolean | null }>;
    };
    expect(valid.answers.map((x) => x.mentioned)).toEqual([false]);
  });

  test("a Gemini answer whose redirect could not be resolved keeps it with its title and no domain, and no citation", async () => {
    const listed = (await call("list_answers", { prompt_id: s.prompts.cheap, engine: "gemini" })) as { answers: Array<{ id: string }> };
    const { answer: a } = (await call("get_answer", { answer_id: listed.answers[0]!.id })) as { answer: Record<string, unknown> };
    expect(a.citations).toEqual([]);
    const cited = a.cited_sources as Array<{ url: string; domain: string | null; title: string }>;
    expect(cited).toHaveLength(1);
    expect(cited[0]!.url).toStartWith("https://vertexaisearch.cloud.google.com/grounding-api-redirect/");
    expect(cited[0]).toMatchObject({ domain: null, title: "Cheap CRM roundup" });
  });
});
