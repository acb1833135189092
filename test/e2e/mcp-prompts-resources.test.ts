// Prompts, completion and resources of the compiled binary, brand against brand and plan against plan:
// brand B's key sends brand A's names, ids and URIs and must get "not found" or its own data only,
// never a figure, name or text of A's. Every declared prompt and every kind of resource has a row;
// adding one without a row fails the first test.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { PROMPTS } from "../../src/catalogue/prompts";
import { openDatabase } from "../../src/db/client";
import { fortnightOfAnswers, writeAnswers } from "../support/answers";
import { type Sandbox, type ServerProcess, sandbox } from "../support/binary";
import { type BrandRecords, seedToolServerData, type ToolServerSeed } from "../support/fixtures";
import { connect } from "../support/mcp";

setDefaultTimeout(60_000);

let box: Sandbox;
let server: ServerProcess;
let seed: ToolServerSeed;
const clients: Client[] = [];

async function client(key: string): Promise<Client> {
  const c = await connect(server.url, key);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  box = await sandbox();
  seed = seedToolServerData(join(box.dataDir, "spyglass.db"));
  const db = openDatabase(join(box.dataDir, "spyglass.db"));
  writeAnswers(db, seed.a.brandId, fortnightOfAnswers(seed.a.ids.promptId, "Acme Analytics", "Acme Rival"));
  db.sqlite.close();
  server = await box.serve();
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await server?.stop();
  box?.cleanup();
}, 60_000);

type Expectation = "not_found" | "own";

// For each prompt: the arguments brand B's key sends, made of brand A's records.
const PROMPT_ISOLATION: Record<string, { args: (a: BrandRecords) => Record<string, string>; expect: Expectation }> = {
  weekly_visibility_review: { args: (a) => ({ tag: a.tagName }), expect: "not_found" },
  competitor_deep_dive: { args: () => ({ competitor: "Acme Rival" }), expect: "not_found" },
  audit_cited_sources: { args: () => ({}), expect: "own" },
  close_content_gap: { args: (a) => ({ prompt: a.promptId }), expect: "not_found" },
};

// For each kind of resource brand A lists (by its URI): what B gets reading A's URI. Views hold no
// brand data: the same document for every key of their plan.
const RESOURCE_KINDS: Array<{ kind: string; matches: (uri: string) => boolean; expect: Expectation }> = [
  { kind: "article (Markdown)", matches: (uri) => uri.startsWith("spyglass://articles/") && !uri.endsWith("/html"), expect: "not_found" },
  { kind: "article (HTML)", matches: (uri) => uri.startsWith("spyglass://articles/") && uri.endsWith("/html"), expect: "not_found" },
  { kind: "MCP Apps view", matches: (uri) => uri.startsWith("ui://spyglass/"), expect: "own" },
];

function secretsOf(): string[] {
  const a = seed.a;
  return [
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
}

function leaks(shown: string, sent: string): string[] {
  return secretsOf().filter((s) => !sent.includes(s) && shown.includes(s));
}

describe("brand isolation of prompts and resources", () => {
  test("every prompt and every kind of resource has a row", async () => {
    const a = await client(seed.a.key);
    const listed = (await a.listPrompts()).prompts.map((p) => p.name);
    const declared = [...new Set([...PROMPTS.map((p) => p.name), ...listed])];
    expect(declared.filter((name) => !PROMPT_ISOLATION[name])).toEqual([]);
    const uris = (await a.listResources()).resources.map((r) => r.uri);
    expect(uris.filter((uri) => !RESOURCE_KINDS.some((k) => k.matches(uri)))).toEqual([]);
  });

  test("brand B's key gets 'not found' or its own figures for each prompt given brand A's records", async () => {
    const b = await client(seed.b.key);
    for (const prompt of PROMPTS) {
      const row = PROMPT_ISOLATION[prompt.name]!;
      const args = row.args(seed.a.ids);
      const outcome = await b.getPrompt({ name: prompt.name, arguments: args }).then(
        (r) => ({ shown: JSON.stringify(r), error: null as string | null }),
        (e: Error) => ({ shown: e.message, error: e.message }),
      );
      const leaked = leaks(outcome.shown, JSON.stringify(args));
      if (leaked.length) throw new Error(`${prompt.name} showed brand A's ${leaked.join(", ")} to brand B: ${outcome.shown.slice(0, 300)}`);
      if (row.expect === "not_found") {
        if (!outcome.error || !/not found/i.test(outcome.error))
          throw new Error(`${prompt.name}: expected not found, got ${outcome.shown.slice(0, 300)}`);
      } else {
        expect(outcome.error).toBeNull();
        expect(outcome.shown).toContain("Borealis Tools");
      }
    }
  });

  test("brand B's key cannot read any of brand A's resources, and lists and completes none of them", async () => {
    const a = await client(seed.a.key);
    const b = await client(seed.b.key);
    const listedByB = JSON.stringify(await b.listResources());
    expect(leaks(listedByB, "")).toEqual([]);
    for (const { uri } of (await a.listResources()).resources) {
      const kind = RESOURCE_KINDS.find((k) => k.matches(uri))!;
      const outcome = await b.readResource({ uri }).then(
        (r) => ({ shown: JSON.stringify(r), error: null as string | null }),
        (e: Error) => ({ shown: e.message, error: e.message }),
      );
      expect(leaks(outcome.shown, uri)).toEqual([]);
      if (kind.expect === "not_found") expect(outcome.error ?? "").toContain("Resource not found");
      else expect(outcome.error).toBeNull();
    }
    const slugs = await b.complete({
      ref: { type: "ref/resource", uri: "spyglass://articles/{slug}" },
      argument: { name: "slug", value: "" },
    });
    expect(slugs.completion.values).toEqual([seed.b.ids.articleSlug]);
    for (const [name, argument] of [
      ["competitor_deep_dive", "competitor"],
      ["weekly_visibility_review", "tag"],
      ["close_content_gap", "prompt"],
    ] as const) {
      const values = (await b.complete({ ref: { type: "ref/prompt", name }, argument: { name: argument, value: "" } })).completion.values;
      expect(leaks(JSON.stringify(values), "")).toEqual([]);
      expect(values.length).toBeGreaterThan(0);
    }
  });
});

describe("plans", () => {
  test("a Visibility key sees no content prompt, no publish view, no article and no template", async () => {
    const v = await client(seed.visibility.key);
    expect((await v.listPrompts()).prompts.map((p) => p.name)).not.toContain("close_content_gap");
    const uris = (await v.listResources()).resources.map((r) => r.uri);
    expect(uris).toEqual(["ui://spyglass/visibility-trend.html", "ui://spyglass/competitor-ranking.html", "ui://spyglass/overview.html"]);
    expect((await v.listResourceTemplates()).resourceTemplates).toEqual([]);
    const refused = await v.getPrompt({ name: "close_content_gap", arguments: { prompt: "x" } }).then(
      () => "",
      (e: Error) => e.message,
    );
    expect(refused).toContain("requires the Autopilot plan");
    const view = await v.readResource({ uri: "ui://spyglass/publish.html" }).then(
      () => "",
      (e: Error) => e.message,
    );
    expect(view).toContain("Resource not found");
  });

  test("the compiled binary serves each view as one self-contained MCP App document", async () => {
    const a = await client(seed.a.key);
    for (const { uri, mimeType } of (await a.listResources()).resources.filter((r) => r.uri.startsWith("ui://"))) {
      expect(mimeType).toBe("text/html;profile=mcp-app");
      const content = (await a.readResource({ uri })).contents[0] as { text: string; _meta?: unknown };
      expect(content._meta).toEqual({ ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } });
      expect(content.text).toContain('<script type="module">');
      expect(content.text.length).toBeGreaterThan(20_000);
      expect(content.text).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
    }
  });
});
