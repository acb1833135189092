// Sanitized HTML must parse in a browser as it was checked: serialised, re-parsed in standards
// (no-quirks) mode as the host page's parser would, and serialised again, it is unchanged. A
// difference is the raw material of mutation XSS (issue 18, finding 10).
import { describe, expect, test } from "bun:test";
import { JSDOM } from "jsdom";
import { renderArticle } from "../../src/content/render";
import { sanitizeArticleHtml, UnsafeHtmlError } from "../../src/content/sanitize";
import { ATTACK_VECTORS } from "../../src/content/sanitizer-self-test";
import { loadOwnCorpus, loadSharedCorpus, ownVectors, sharedVectors } from "../support/corpus";

const page = new JSDOM("<!DOCTYPE html><html><head></head><body></body></html>").window.document;

/** How a browser's parser sees `html` inside a standards-mode page: the body's serialisation. */
function reparsed(html: string): string {
  page.body.innerHTML = html;
  return page.body.innerHTML;
}

// Markup whose tree differs between quirks and standards mode, or that the parser repairs.
const STRUCTURAL: readonly string[] = [
  "<p>x<table><tr><td>1</td></tr></table></p>",
  "<p>before<table><caption>c</caption></table>after",
  "<b><p>x</b>y</p>",
  "<a href=/a><table><tr><td><a href=/b>x</a></td></tr></table></a>",
  "<ul><li>a<li>b</ul><p><div>block in p</div></p>",
  "<table><tr><td>1<table><tr><td>2</td></tr></table></td></tr></table>",
  "<p>1<hr>2</p><p><pre>code</pre></p>",
  "<i><table><tr><td>x</td></tr></table></i>",
  "<h1>a<h2>b</h2></h1>",
];

const own = ownVectors(await loadOwnCorpus());
const shared = sharedVectors(await loadSharedCorpus());

function vectors(): Array<{ label: string; html: string }> {
  return [
    ...STRUCTURAL.map((html) => ({ label: `structural: ${html}`, html })),
    ...ATTACK_VECTORS.map((vector) => ({ label: `self-test: ${vector.name}`, html: vector.html })),
    ...own,
    ...shared,
  ];
}

describe("sanitized HTML round-trips through a standards-mode parse", () => {
  test("<p>x<table>…</table></p> is served as a browser will parse it", () => {
    const out = sanitizeArticleHtml("<p>x<table><tbody><tr><td>1</td></tr></tbody></table></p>");
    expect(out).toBe("<p>x</p><table><tbody><tr><td>1</td></tr></tbody></table><p></p>");
  });

  test("every vector (in-repo, and ../shared/corpus when present), as HTML and as an article body", () => {
    const differing: string[] = [];
    let checked = 0;
    for (const { label, html } of vectors()) {
      for (const [pipeline, run] of [
        ["html", () => sanitizeArticleHtml(html)],
        ["markdown", () => renderArticle({ title: "", markdown: html })],
      ] as const) {
        let out: string;
        try {
          out = run();
        } catch (error) {
          if (error instanceof UnsafeHtmlError) continue;
          throw error;
        }
        checked++;
        const again = reparsed(out);
        if (again !== out || reparsed(again) !== again) differing.push(`${label} (${pipeline}): ${out.slice(0, 120)}`);
      }
    }
    expect(differing).toEqual([]);
    expect(checked).toBeGreaterThan(STRUCTURAL.length + ATTACK_VECTORS.length);
  });
});
