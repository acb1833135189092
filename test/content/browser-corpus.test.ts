// The attack corpora in a real browser: first proof that the harness sees attacks (raw payloads
// fire), then proof that nothing fires once a payload has been through the article pipeline.

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { renderArticle } from "../../src/content/render";
import { sanitizeArticleHtml, UnsafeHtmlError } from "../../src/content/sanitize";
import { CORPUS_DIR, launchXssHarness, loadVectors, mapConcurrent, type XssHarness } from "../support/xss-harness";

interface DompurifyFixture {
  /** About half of the fixtures have none. */
  title?: string;
  payload: string;
}

interface H5scItem {
  id: number;
  name: string;
  data: string;
  trigger: string | null;
}

interface Vector {
  label: string;
  html: string;
  trigger: string | null;
}

const dompurify = (await Bun.file(join(CORPUS_DIR, "dompurify-expect.json")).json()) as DompurifyFixture[];
const h5sc = (await Bun.file(join(CORPUS_DIR, "h5sc-items.json")).json()) as H5scItem[];

// Known mXSS and markdown-specific vectors beyond the two corpora: past DOMPurify bypasses built on
// namespace confusion and parser differentials, and link/image syntax that only markdown has.
const EXTRA_VECTORS: readonly Vector[] = [
  ["mXSS svg/p/style (DOMPurify 2.0.0)", '<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">'],
  [
    "mXSS math/mtext/mglyph/style comment",
    '<math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;/mglyph&gt;&lt;img&Tab;src=1&Tab;onerror=alert(1)&gt;">',
  ],
  [
    "mXSS nested form (DOMPurify 2.2.2)",
    '<form><math><mtext></form><form><mglyph><svg><mtext><textarea><path id="</textarea><img onerror=alert(1) src=1>">',
  ],
  ["mXSS mi/mglyph/svg/textarea", '<math><mi><mglyph><svg><mtext><textarea><a title="</textarea><img src=x onerror=alert(1)>">'],
  ["mXSS annotation-xml", '<svg><annotation-xml encoding="text/html"><style><img src=x onerror=alert(1)></style></annotation-xml></svg>'],
  ["mXSS noscript attribute", '<noscript><p title="</noscript><img src=x onerror=alert(1)>">'],
  ["mXSS select/template/style", '<select><template><style><!--</style><a rel="--></template></select><img src=x onerror=alert(1)>">'],
  ["mXSS svg style comment", "<svg><style><!--</style><img src=x onerror=alert(1)>--></style></svg>"],
  ["declarative shadow DOM", '<div><template shadowrootmode="open"><img src=x onerror=alert(1)></template></div>'],
  ["markdown javascript: link", "[click](javascript:alert(1))"],
  ["markdown entity javascript: link", "[click](&#106;avascript&#58;alert(1))"],
  ["markdown angle-bracket javascript: link", "[click](<javascript:alert(1)>)"],
  ["markdown reference javascript: link", "[click][x]\n\n[x]: javascript:alert(1)"],
  ["markdown image attribute breakout", '![a](x" onerror="alert(1))'],
  ["markdown autolink with script scheme", "<javascript:alert(1)>"],
  ["markdown html block with handler", '<div onmouseover="alert(1)">\n\n*hover*\n\n</div>'],
].map(([label, html]) => ({ label: label as string, html: html as string, trigger: null }));

const corpusVectors: Vector[] = [
  ...dompurify.map((fixture, index) => ({
    label: `DOMPurify #${index}: ${fixture.title ?? fixture.payload.slice(0, 60)}`,
    html: fixture.payload,
    trigger: null,
  })),
  ...h5sc.map((item) => ({ label: `H5SC #${item.id}: ${item.name}`, html: item.data, trigger: item.trigger })),
  ...EXTRA_VECTORS,
];

// Parallel pages in one browser; process starts dominate, so more than this only queues on 2 cores.
const CONCURRENCY = 6;

let harness: XssHarness;

beforeAll(async () => {
  harness = await launchXssHarness({ settleMs: 200 });
}, 60_000);

afterAll(async () => {
  await harness?.close();
});

describe("attack corpora in headless Chromium", () => {
  test("the harness sees each kind of signal, and nothing on a plain page", async () => {
    const [hooked, request, navigation, interaction, plain] = await mapConcurrent(
      [
        "<img src=x onerror=alert(1)>",
        '<script src="https://evil.example/x.js"></script>',
        '<meta http-equiv="refresh" content="0;url=/next">',
        '<button onclick="confirm(1)">b</button>',
        '<p>plain <a href="https://example.com">link</a> <img src="https://example.com/a.png"></p>',
      ],
      CONCURRENCY,
      (html) => harness.loadVector(html),
    );
    expect(hooked?.evidence).toContain("called alert(1)");
    expect(request?.evidence.some((line) => line.startsWith("request for script https://evil.example/x.js"))).toBe(true);
    expect(navigation?.evidence.some((line) => line.startsWith("request for document http://xss-harness.invalid/next"))).toBe(true);
    expect(interaction?.evidence).toContain("called confirm(1)");
    expect(plain).toMatchObject({ executed: false, evidence: [], leftovers: [] });
    expect(plain?.requests).toEqual(["image https://example.com/a.png"]);
  }, 60_000);

  test("raw payloads fire in the harness, so a zero after sanitizing means something", async () => {
    // DOMPurify's payloads that call alert, plus every H5SC vector with its trigger.
    const raw: Vector[] = [
      ...dompurify
        .filter((fixture) => fixture.payload.includes("alert"))
        .map((fixture) => ({
          label: fixture.title ?? fixture.payload,
          html: fixture.payload,
          trigger: null,
        })),
      ...h5sc.map((item) => ({ label: item.name, html: item.data, trigger: item.trigger })),
    ];
    const started = performance.now();
    const results = await loadVectors(harness, raw, CONCURRENCY);
    const fired = results.filter((result) => result.executed).length;
    console.log(
      `raw payloads: ${fired} of ${raw.length} fired, ${results.filter((r) => r.leftovers.length > 0).length} left executable markup (${Math.round(performance.now() - started)} ms)`,
    );
    // Measured: 84 of 290 (50 of DOMPurify's 141 alert payloads, 34 of H5SC's 149; most of the
    // rest target other browsers or need a gesture the generic interaction does not make).
    expect(fired).toBeGreaterThanOrEqual(70);
    expect(results.find((result) => result.executed)?.evidence.length).toBeGreaterThan(0);
  }, 300_000);

  test("every corpus payload, as an article body or as raw HTML, runs nothing once sanitized", async () => {
    // The shared corpora as article bodies (the markdown pipeline) are loaded end to end, through the
    // compiled server's tools and public API, by test/e2e/xss-publish.test.ts; here the browser gets
    // every other output: the sanitizer on raw HTML, and the extra vectors as article bodies. All of
    // them must be fixed points of the sanitizer.
    const coveredEndToEnd = new Set<string>();
    const sanitized = new Map<string, Vector & { sources: string[] }>();
    const unstable: string[] = [];
    let refused = 0;
    const add = (vector: Vector, via: string, produce: () => string, endToEnd = false): void => {
      let html: string;
      try {
        html = produce();
      } catch (error) {
        // Refusing a body is a safe outcome; anything else thrown is a bug.
        if (!(error instanceof UnsafeHtmlError)) throw error;
        refused++;
        return;
      }
      if (sanitizeArticleHtml(html) !== html) unstable.push(`${via} ${vector.label}`);
      const key = `${vector.trigger ?? ""}\u0000${html}`;
      if (endToEnd) {
        coveredEndToEnd.add(key);
        return;
      }
      const seen = sanitized.get(key);
      if (seen) seen.sources.push(`${via} ${vector.label}`);
      else sanitized.set(key, { label: vector.label, html, trigger: vector.trigger, sources: [`${via} ${vector.label}`] });
    };
    for (const vector of corpusVectors) {
      const shared = !EXTRA_VECTORS.includes(vector);
      add(vector, "markdown", () => renderArticle({ title: "t", markdown: vector.html }), shared);
    }
    for (const vector of corpusVectors) add(vector, "html", () => sanitizeArticleHtml(vector.html));
    expect(unstable).toEqual([]);

    // Identical output under an identical trigger behaves identically: load each distinct one once.
    const distinct = [...sanitized.entries()].filter(([key]) => !coveredEndToEnd.has(key)).map(([, vector]) => vector);
    expect(distinct.length).toBeGreaterThan(50);
    const started = performance.now();
    const results = await loadVectors(harness, distinct, CONCURRENCY);
    const failures = results.flatMap((result, index) => {
      const vector = distinct[index];
      if (!vector || (!result.executed && result.leftovers.length === 0)) return [];
      return [{ from: vector.sources, html: vector.html, evidence: result.evidence, leftovers: result.leftovers }];
    });
    console.log(
      `sanitized: ${corpusVectors.length} vectors × 2 pipelines → ${distinct.length} distinct outputs not loaded end to end, ${refused} refused, ` +
        `${failures.length} unsafe (${Math.round(performance.now() - started)} ms)`,
    );
    expect(failures).toEqual([]);
  }, 300_000);
});
