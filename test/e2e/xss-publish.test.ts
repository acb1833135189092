// Hostile article bodies, end to end: every vector of the shared attack corpora (DOMPurify's 223
// fixtures, the 149 HTML5 Security Cheatsheet vectors) and known mXSS strings goes through the
// compiled binary as an AI client would send it — create_article, publish_to_site — and comes back
// through the public content API as a site would read it. The served `html` is then loaded in
// headless Chromium (a fresh context per vector, network blocked, the vector's trigger run): nothing
// may execute, and no element or attribute that can execute may be in the DOM.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type Sandbox, type ServerProcess, sandbox } from "../support/binary";
import { seedToolServerData, type ToolServerSeed } from "../support/fixtures";
import { call, connect } from "../support/mcp";
import { CORPUS_DIR, launchXssHarness, loadVectors, mapConcurrent, type XssHarness } from "../support/xss-harness";

interface Vector {
  label: string;
  payload: string;
  trigger: string | null;
}

const dompurify = (await Bun.file(join(CORPUS_DIR, "dompurify-expect.json")).json()) as Array<{ title?: string; payload: string }>;
const h5sc = (await Bun.file(join(CORPUS_DIR, "h5sc-items.json")).json()) as Array<{
  id: number;
  name: string;
  data: string;
  trigger: string | null;
}>;

// Past DOMPurify bypasses built on namespace confusion and parser differentials.
const MXSS: Array<[string, string]> = [
  ["svg/p/style", '<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">'],
  [
    "math/mtext/mglyph/style comment",
    '<math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;/mglyph&gt;&lt;img&Tab;src=1&Tab;onerror=alert(1)&gt;">',
  ],
  ["nested form", '<form><math><mtext></form><form><mglyph><svg><mtext><textarea><path id="</textarea><img onerror=alert(1) src=1>">'],
  ["noscript attribute", '<noscript><p title="</noscript><img src=x onerror=alert(1)>">'],
  ["select/template/style", '<select><template><style><!--</style><a rel="--></template></select><img src=x onerror=alert(1)>">'],
  ["declarative shadow DOM", '<div><template shadowrootmode="open"><img src=x onerror=alert(1)></template></div>'],
  ["markdown javascript: link", "[click](javascript:alert(1))"],
  ["markdown reference javascript: link", "[click][x]\n\n[x]: javascript:alert(1)"],
];

const VECTORS: Vector[] = [
  ...dompurify.map((f, i) => ({ label: `DOMPurify #${i}: ${f.title ?? "(untitled)"}`, payload: f.payload, trigger: null })),
  ...h5sc.map((item) => ({ label: `H5SC #${item.id}: ${item.name}`, payload: item.data, trigger: item.trigger })),
  ...MXSS.map(([name, payload]) => ({ label: `mXSS: ${name}`, payload, trigger: null })),
];

// Refusals are safe outcomes; any other tool error is a bug.
const REFUSALS = [/cannot be made safe/, /the article body is empty/];
const TOOL_CONCURRENCY = 8;
// Pages in parallel in one browser: renderer starts dominate on a small machine.
const BROWSER_CONCURRENCY = 6;

/** A failure that names the vector and carries what the server logged above `info`. */
function failure(vector: Vector, what: string): Error {
  const problems = server
    .logs()
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.includes('"level":"info"'))
    .slice(-20);
  return new Error(`${vector.label}: ${what}${problems.length > 0 ? `\nthe server's warnings and errors:\n${problems.join("\n")}` : ""}`);
}

async function step<T>(vector: Vector, what: string, work: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } catch (error) {
    throw failure(vector, `${what} threw after ${Math.round(performance.now() - started)} ms: ${String(error)}`);
  }
}

let box: Sandbox;
let server: ServerProcess;
let seed: ToolServerSeed;
let client: Client;
let harness: XssHarness;
let siteKey: string;

beforeAll(async () => {
  box = await sandbox({ toml: "[tracking]\nenabled = false\n" });
  seed = seedToolServerData(join(box.dataDir, "spyglass.db"));
  server = await box.serve({ timeoutMs: 60_000 });
  client = await connect(server.url, seed.a.key);
  siteKey = (await call(client, "get_brand")).data.brand.site_key;
  harness = await launchXssHarness({ settleMs: 200 });
}, 120_000);

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await harness?.close();
  await server?.stop();
  box?.cleanup();
});

describe("hostile article bodies through the binary, the public API and Chromium", () => {
  test("the harness sees attacks: raw payloads fire in this browser", async () => {
    const raw = [
      "<img src=x onerror=alert(1)>",
      "<svg onload=alert(1)>",
      "<script>alert(1)</script>",
      '<details open ontoggle="alert(1)">',
      '<a href="javascript:alert(1)">x</a>',
    ];
    const results = await Promise.all(raw.map((html) => harness.loadVector(html)));
    expect(results.filter((r) => r.executed).length).toBeGreaterThanOrEqual(4);
    expect(results.every((r) => r.leftovers.length > 0)).toBe(true);
  }, 60_000);

  test(`all ${VECTORS.length} vectors: create_article → publish_to_site → GET /api/public/articles/:slug → nothing runs`, async () => {
    expect(dompurify).toHaveLength(223);
    expect(h5sc).toHaveLength(149);
    const started = performance.now();
    const refused: string[] = [];
    const served = await mapConcurrent(VECTORS, TOOL_CONCURRENCY, async (vector, index) => {
      const slug = `vector-${index}`;
      const created = await step(vector, "create_article", () =>
        call(client, "create_article", { title: `Vector ${index}`, slug, markdown: vector.payload }),
      );
      if (created.error) {
        if (!REFUSALS.some((r) => r.test(created.error!))) throw failure(vector, `unexpected tool error ${created.error}`);
        refused.push(vector.label);
        return null;
      }
      const published = await step(vector, "publish_to_site", () =>
        call(client, "publish_to_site", { article_id: created.data.article.id }),
      );
      if (published.error) throw failure(vector, `publish failed: ${published.error}`);
      const response = await step(vector, "GET of the article", () => fetch(`${server.url}/api/public/articles/${slug}?key=${siteKey}`));
      if (response.status !== 200) throw failure(vector, `public API answered ${response.status}`);
      const { article } = (await response.json()) as { article: { html: string } };
      if (article.html !== created.data.article.html) throw failure(vector, "served HTML differs from the stored one");
      return { ...vector, html: article.html };
    });
    const published = served.filter((v): v is Vector & { html: string } => v !== null);
    const apiMs = performance.now() - started;

    // The same HTML under the same trigger behaves the same: each distinct pair is loaded once.
    const distinct = new Map<string, Vector & { html: string; from: string[] }>();
    for (const vector of published) {
      const key = `${vector.trigger ?? ""}\u0000${vector.html}`;
      const seen = distinct.get(key);
      if (seen) seen.from.push(vector.label);
      else distinct.set(key, { ...vector, from: [vector.label] });
    }
    const pages = [...distinct.values()];
    // A page the harness could not observe (a loaded machine, a crashed renderer) is looked at
    // again, alone: an unobserved page is not a safe one, so it still fails if it never answers.
    const results = await loadVectors(harness, pages, BROWSER_CONCURRENCY);
    const unsafe = results.flatMap((result, i) =>
      result.executed || result.leftovers.length > 0
        ? [{ from: pages[i]!.from, html: pages[i]!.html.slice(0, 300), evidence: result.evidence, leftovers: result.leftovers }]
        : [],
    );
    console.log(
      `xss-publish: ${VECTORS.length} vectors, ${published.length} published, ${refused.length} refused, ${pages.length} distinct pages; ` +
        `tools + API ${Math.round(apiMs)} ms, browser ${Math.round(performance.now() - started - apiMs)} ms, ${unsafe.length} unsafe`,
    );
    expect(unsafe).toEqual([]);
    expect(published.length).toBeGreaterThan(VECTORS.length / 2);

    const list = (await (await fetch(`${server.url}/api/public/articles?key=${siteKey}`)).json()) as { articles: Array<{ slug: string }> };
    expect(list.articles.filter((a) => a.slug.startsWith("vector-"))).toHaveLength(published.length);
  }, 300_000);
});
