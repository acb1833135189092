// The attack corpora in process: the project's own corpus is well formed and covers the known
// techniques; every vector (own, and shared when present) comes out of both article pipelines with
// nothing the jsdom check calls unsafe, as a sanitizer fixed point; and the shared corpora are
// optional, loudly. The browser proof is test/content/browser-corpus.test.ts.
import { beforeAll, describe, expect, spyOn, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderArticle } from "../../src/content/render";
import { sanitizeArticleHtml, UnsafeHtmlError } from "../../src/content/sanitize";
import { findUnsafeMarkup } from "../../src/content/sanitizer-self-test";
import { loadOwnCorpus, loadSharedCorpus, ownVectors, SHARED_CORPUS_DIR, sharedVectors } from "../support/corpus";

const own = await loadOwnCorpus();
const shared = await loadSharedCorpus();

beforeAll(() => {
  sanitizeArticleHtml("");
}, 30_000);

describe("the project's own attack corpus", () => {
  test("has dozens of vectors with unique ids, names and payloads, each saying how Chromium runs it raw", () => {
    expect(own.length).toBeGreaterThanOrEqual(150);
    expect(own.map((vector) => vector.id)).toEqual(own.map((_, index) => index + 1));
    expect(new Set(own.map((vector) => `${vector.technique}/${vector.name}`)).size).toBe(own.length);
    expect(new Set(own.map((vector) => vector.html)).size).toBe(own.length);
    for (const vector of own) {
      expect([null, "script", "request"]).toContain(vector.fires);
      expect(vector.trigger === null || typeof vector.trigger === "string").toBe(true);
    }
    // Most of them must really be attacks in today's Chromium, or the corpus proves little.
    expect(own.filter((vector) => vector.fires !== null).length).toBeGreaterThanOrEqual(100);
  });

  test("covers each known technique with several vectors", () => {
    const byTechnique = Map.groupBy(own, (vector) => vector.technique);
    const techniques = [
      "script element",
      "event handler",
      "script URL",
      "form and formaction",
      "meta, base and link",
      "frames and plugins",
      "CSS",
      "namespace confusion (SVG, MathML)",
      "raw-text element mXSS",
      "comment and CDATA",
      "unclosed and malformed tags",
      "quotes and attribute breakout",
      "encoding and Unicode escapes",
      "DOM clobbering",
      "markdown",
    ];
    const thin = techniques.map((technique) => [technique, byTechnique.get(technique)?.length ?? 0] as const).filter(([, n]) => n < 5);
    expect(thin).toEqual([]);
    expect([...byTechnique.keys()].sort()).toEqual([...techniques].sort());
  });
});

describe("every corpus vector through the sanitizer (jsdom check)", () => {
  test("as raw HTML and as an article body: refused, or safe and a fixed point", () => {
    const vectors = [...ownVectors(own), ...sharedVectors(shared)];
    const problems: string[] = [];
    let checked = 0;
    for (const vector of vectors) {
      for (const [via, produce] of [
        ["html", () => sanitizeArticleHtml(vector.html)],
        ["markdown", () => renderArticle({ title: "t", markdown: vector.html })],
      ] as const) {
        let html: string;
        try {
          html = produce();
        } catch (error) {
          if (!(error instanceof UnsafeHtmlError)) throw error;
          continue;
        }
        checked++;
        // DOMPurify cannot remove an `is` attribute (it fixes the element's definition at creation)
        // and empties it instead; an empty `is` names no custom element, so it is the one leftover
        // allowed here (DOMPurify's fixture "proper handling of is attributes" expects it).
        const unsafe = findUnsafeMarkup(html.replaceAll(' is=""', ""));
        if (unsafe.length > 0) problems.push(`${via} ${vector.label}: ${unsafe.join(", ")}`);
        if (sanitizeArticleHtml(html) !== html) problems.push(`${via} ${vector.label}: not a fixed point`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(vectors.length);
  }, 60_000);

  test("clobbering ids and names never survive: no name, and an id only under user-content-", () => {
    for (const vector of own.filter((v) => v.technique === "DOM clobbering")) {
      const html = sanitizeArticleHtml(vector.html);
      expect(html).not.toMatch(/\sname=/i);
      for (const [, id] of html.matchAll(/\sid="([^"]*)"/gi)) expect(id).toMatch(/^user-content-[\p{L}\p{N}_-]+$/u);
    }
  });
});

describe("the shared corpora are optional", () => {
  test("an absent directory is reported in one line and loads as none", async () => {
    const empty = mkdtempSync(join(tmpdir(), "spyglass-corpus-"));
    const log = spyOn(console, "log").mockImplementation(() => {});
    try {
      expect(await loadSharedCorpus(empty)).toBeNull();
      expect(log.mock.calls).toEqual([[`shared attack corpora not found in ${empty}: running the project's own corpus only`]]);
    } finally {
      log.mockRestore();
      rmSync(empty, { recursive: true, force: true });
    }
    expect(sharedVectors(null)).toEqual([]);
  });

  test("a directory with only some of the files is an error, not an absent corpus", async () => {
    const partial = mkdtempSync(join(tmpdir(), "spyglass-corpus-"));
    try {
      await Bun.write(join(partial, "h5sc-items.json"), "[]");
      await expect(loadSharedCorpus(partial)).rejects.toThrow(`${partial} holds h5sc-items.json but not dompurify-expect.json`);
    } finally {
      rmSync(partial, { recursive: true, force: true });
    }
  });

  test("a present directory loads both corpora, labelled by source", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spyglass-corpus-"));
    try {
      await Bun.write(join(dir, "dompurify-expect.json"), JSON.stringify([{ payload: "<b>x</b>" }, { title: "t", payload: "<i>y</i>" }]));
      await Bun.write(
        join(dir, "h5sc-items.json"),
        JSON.stringify([{ id: 7, category: "c", name: "n", data: "<u>z</u>", trigger: "go()" }]),
      );
      const loaded = await loadSharedCorpus(dir);
      expect(sharedVectors(loaded)).toEqual([
        { label: "DOMPurify #0: <b>x</b>", html: "<b>x</b>", trigger: null },
        { label: "DOMPurify #1: t", html: "<i>y</i>", trigger: null },
        { label: "H5SC #7: n", html: "<u>z</u>", trigger: "go()" },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("this run's shared corpora, if any, are whole", () => {
    // CI has them (223 DOMPurify fixtures, 149 H5SC vectors); a clone alone, or a run with
    // SPYGLASS_SHARED_CORPUS pointing at an empty directory, has none.
    if (shared) expect([shared.dir, shared.dompurify.length, shared.h5sc.length]).toEqual([SHARED_CORPUS_DIR, 223, 149]);
    else expect(["dompurify-expect.json", "h5sc-items.json"].filter((file) => existsSync(join(SHARED_CORPUS_DIR, file)))).toEqual([]);
  });
});
