// The brand isolation matrix: for every registered tool, what a credential of brand B sends with
// brand A's ids, and what it must get. Run with B's API key (test/e2e/mcp.test.ts) and with an OAuth
// access token granted for B (test/e2e/oauth.test.ts).
import { expect } from "bun:test";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { TOOLS } from "../../src/catalogue/tools";
import { type BrandRecords, type SeededBrand } from "./fixtures";
import { call } from "./mcp";

// For every registered tool: what brand B's key sends with brand A's ids, and what it must get.
// "not_found": the same not-found tool error as for an id that does not exist; "own": a success that
// shows B's data only. Adding a tool without a row here fails the test below.
type Expectation = "not_found" | "own";
export const ISOLATION: Record<string, { args: (a: BrandRecords) => Record<string, unknown>; expect: Expectation }> = {
  get_brand: { args: () => ({}), expect: "own" },
  update_brand: { args: () => ({ aliases: ["Borealis"] }), expect: "own" },
  list_prompts: { args: (a) => ({ tag: a.tagId }), expect: "not_found" },
  create_prompts: { args: () => ({ prompts: [{ text: "best Acme software for small teams", tags: ["borealis only"] }] }), expect: "own" },
  update_prompt: { args: (a) => ({ prompt_id: a.promptId, text: "taken over" }), expect: "not_found" },
  delete_prompt: { args: (a) => ({ prompt_id: a.promptId }), expect: "not_found" },
  list_tags: { args: () => ({}), expect: "own" },
  create_tag: { args: (a) => ({ name: a.tagName }), expect: "own" },
  update_tag: { args: (a) => ({ tag_id: a.tagId, name: "taken over" }), expect: "not_found" },
  delete_tag: { args: (a) => ({ tag_id: a.tagId }), expect: "not_found" },
  list_competitors: { args: () => ({}), expect: "own" },
  create_competitor: { args: () => ({ name: "Acme Rival" }), expect: "own" },
  update_competitor: { args: (a) => ({ competitor_id: a.competitorId, name: "taken over" }), expect: "not_found" },
  delete_competitor: { args: (a) => ({ competitor_id: a.competitorId }), expect: "not_found" },
  get_visibility_overview: { args: (a) => ({ tag: a.tagId }), expect: "not_found" },
  get_visibility_trend: { args: (a) => ({ tag: a.tagId }), expect: "not_found" },
  get_competitor_ranking: { args: (a) => ({ tag: a.tagId }), expect: "not_found" },
  get_prompt_performance: { args: (a) => ({ tag: a.tagId }), expect: "not_found" },
  get_top_sources: { args: (a) => ({ tag: a.tagId }), expect: "not_found" },
  get_content_gaps: { args: (a) => ({ tag: a.tagId }), expect: "not_found" },
  get_search_queries: { args: (a) => ({ tag: a.tagId }), expect: "not_found" },
  list_answers: { args: (a) => ({ prompt_id: a.promptId }), expect: "not_found" },
  get_answer: { args: (a) => ({ answer_id: a.answerId }), expect: "not_found" },
  get_article_impact: { args: (a) => ({ article_id: a.articleId }), expect: "not_found" },
  run_tracking: { args: (a) => ({ prompt_ids: [a.promptId] }), expect: "not_found" },
  get_tracking_status: { args: () => ({}), expect: "own" },
  create_article: { args: (a) => ({ markdown: "Small teams pick Borealis.", prompt_id: a.promptId }), expect: "not_found" },
  generate_article: { args: (a) => ({ prompt_id: a.promptId }), expect: "not_found" },
  list_articles: { args: () => ({}), expect: "own" },
  get_article: { args: (a) => ({ article_id: a.articleId }), expect: "not_found" },
  update_article: { args: (a) => ({ article_id: a.articleId, title: "taken over" }), expect: "not_found" },
  publish_to_site: { args: (a) => ({ article_id: a.articleId }), expect: "not_found" },
  unpublish_article: { args: (a) => ({ article_id: a.articleId }), expect: "not_found" },
};

/** Calls every tool as `b` with brand A's ids: a not-found error or B's own data, never anything of A's. */
export async function expectBrandIsolation(b: Client, a: SeededBrand & { ids: BrandRecords }): Promise<void> {
  const secrets = [
    a.brandId,
    a.brandName,
    a.email,
    a.ids.promptId,
    a.ids.archivedPromptId,
    a.ids.tagId,
    a.ids.competitorId,
    a.ids.articleId,
    a.ids.articleSlug,
  ];
  for (const tool of TOOLS) {
    const row = ISOLATION[tool.name]!;
    const outcome = await call(b, tool.name, row.args(a.ids));
    const shown = JSON.stringify(outcome.result);
    const sent = JSON.stringify(row.args(a.ids));
    // An id B itself sent may be echoed in the error; anything else of A's must never appear.
    for (const secret of secrets.filter((s) => !sent.includes(s))) {
      if (shown.includes(secret)) throw new Error(`${tool.name} showed brand A's "${secret}" to brand B: ${shown.slice(0, 300)}`);
    }
    if (row.expect === "not_found") {
      if (!outcome.error || !/not found/i.test(outcome.error))
        throw new Error(`${tool.name}: expected a not-found tool error, got ${shown.slice(0, 300)}`);
    } else if (outcome.error) {
      throw new Error(`${tool.name}: expected B's own data, got the error ${outcome.error}`);
    }
  }
  // Without a filter of A's, B's answers only.
  const own = (await call(b, "list_answers", { limit: 200 })).data.answers as Array<{ prompt_id: string }>;
  expect(own.some((answer) => answer.prompt_id === a.ids.promptId)).toBe(false);
}
