// The brand isolation matrix of prompts, completion and resources: what a credential of brand B sends
// with brand A's records and URIs, and what it must get ("not found", or B's own data), never a name,
// id, figure or article text of A's. Run with B's API key (test/e2e/mcp-prompts-resources.test.ts);
// the OAuth door hands the same principal to the same server, so it can run it with a token too.
import { expect } from "bun:test";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { PROMPTS } from "../../src/catalogue/prompts";
import { type BrandRecords, type SeededBrand } from "./fixtures";

type Expectation = "not_found" | "own";
type Brand = SeededBrand & { ids: BrandRecords };

// For each prompt: the arguments B sends, made of A's records.
export const PROMPT_ISOLATION: Record<string, { args: (a: BrandRecords) => Record<string, string>; expect: Expectation }> = {
  weekly_visibility_review: { args: (a) => ({ tag: a.tagName }), expect: "not_found" },
  competitor_deep_dive: { args: (a) => ({ competitor: a.competitorId }), expect: "not_found" },
  audit_cited_sources: { args: () => ({}), expect: "own" },
  close_content_gap: { args: (a) => ({ prompt: a.promptId }), expect: "not_found" },
};

// For each kind of resource A lists (by its URI): what B gets reading A's URI. Views hold no brand
// data: the same document for every credential of their plan.
export const RESOURCE_KINDS: Array<{ kind: string; matches: (uri: string) => boolean; expect: Expectation }> = [
  { kind: "article (Markdown)", matches: (uri) => uri.startsWith("spyglass://articles/") && !uri.endsWith("/html"), expect: "not_found" },
  { kind: "article (HTML)", matches: (uri) => uri.startsWith("spyglass://articles/") && uri.endsWith("/html"), expect: "not_found" },
  { kind: "MCP Apps view", matches: (uri) => uri.startsWith("ui://spyglass/"), expect: "own" },
];

function leaks(a: Brand, shown: string, sent: string): string[] {
  const secrets = [
    a.brandId,
    a.brandName,
    a.email,
    a.ids.promptId,
    a.ids.tagId,
    a.ids.competitorId,
    a.ids.articleId,
    a.ids.articleSlug,
    "Small teams pick Acme",
  ];
  return secrets.filter((s) => !sent.includes(s) && shown.includes(s));
}

async function outcomeOf(promise: Promise<unknown>): Promise<{ shown: string; error: string | null }> {
  return promise.then(
    (r) => ({ shown: JSON.stringify(r), error: null }),
    (e: Error) => ({ shown: e.message, error: e.message }),
  );
}

/** Fails for a declared prompt, or a kind of resource A lists, that has no row above. */
export async function expectEveryPromptAndResourceHasARow(aClient: Client): Promise<void> {
  const listed = (await aClient.listPrompts()).prompts.map((p) => p.name);
  const declared = [...new Set([...PROMPTS.map((p) => p.name), ...listed])];
  expect(declared.filter((name) => !PROMPT_ISOLATION[name])).toEqual([]);
  const uris = (await aClient.listResources()).resources.map((r) => r.uri);
  expect(uris.filter((uri) => !RESOURCE_KINDS.some((k) => k.matches(uri)))).toEqual([]);
}

/** Every prompt with A's records, every resource A lists, and the completions, as B. */
export async function expectPromptAndResourceIsolation(b: Client, aClient: Client, a: Brand, bBrand: Brand): Promise<void> {
  for (const prompt of PROMPTS) {
    const row = PROMPT_ISOLATION[prompt.name]!;
    const args = row.args(a.ids);
    const outcome = await outcomeOf(b.getPrompt({ name: prompt.name, arguments: args }));
    const leaked = leaks(a, outcome.shown, JSON.stringify(args));
    if (leaked.length) throw new Error(`${prompt.name} showed brand A's ${leaked.join(", ")} to brand B: ${outcome.shown.slice(0, 300)}`);
    if (row.expect === "not_found") {
      if (!outcome.error || !/not found/i.test(outcome.error))
        throw new Error(`${prompt.name}: expected not found, got ${outcome.shown.slice(0, 300)}`);
    } else {
      expect(outcome.error).toBeNull();
      expect(outcome.shown).toContain(bBrand.brandName);
    }
  }
  expect(leaks(a, JSON.stringify(await b.listResources()), "")).toEqual([]);
  for (const { uri } of (await aClient.listResources()).resources) {
    const kind = RESOURCE_KINDS.find((k) => k.matches(uri))!;
    const outcome = await outcomeOf(b.readResource({ uri }));
    expect(leaks(a, outcome.shown, uri)).toEqual([]);
    if (kind.expect === "not_found") expect(outcome.error ?? "").toContain("Resource not found");
    else expect(outcome.error).toBeNull();
  }
  const slugs = await b.complete({
    ref: { type: "ref/resource", uri: "spyglass://articles/{slug}" },
    argument: { name: "slug", value: "" },
  });
  expect(slugs.completion.values).toContain(bBrand.ids.articleSlug);
  expect(slugs.completion.values).not.toContain(a.ids.articleSlug);
  for (const [name, argument] of [
    ["competitor_deep_dive", "competitor"],
    ["weekly_visibility_review", "tag"],
    ["close_content_gap", "prompt"],
  ] as const) {
    const values = (await b.complete({ ref: { type: "ref/prompt", name }, argument: { name: argument, value: "" } })).completion.values;
    expect(leaks(a, JSON.stringify(values), "")).toEqual([]);
    expect(values.length).toBeGreaterThan(0);
  }
}
