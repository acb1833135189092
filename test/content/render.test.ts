import { beforeAll, describe, expect, test } from "bun:test";
import markedFootnote from "marked-footnote";
import { gfmHeadingId } from "marked-gfm-heading-id";
import { articleMarkdown, renderArticle } from "../../src/content/render";
import { sanitizeArticleHtml } from "../../src/content/sanitize";
import { findUnsafeMarkup } from "../../src/content/sanitizer-self-test";

// Loading jsdom and building its window takes seconds on a busy machine; keep it out of test timings.
beforeAll(() => {
  sanitizeArticleHtml("");
}, 30_000);

describe("renderArticle", () => {
  test("renders GFM: tables with alignment, lists, fenced code with its language", () => {
    const html = renderArticle({
      title: "T",
      markdown: "Intro **bold**\n\n| a | b |\n|:-:|---|\n| 1 | 2 |\n\n- one\n- two\n\n```ts\nconst x = 1 < 2;\n```\n",
    });
    expect(html).toContain("<strong>bold</strong>");
    expect(html).toContain('<th align="center">a</th>');
    expect(html).toContain("<td>2</td>");
    expect(html).toContain("<li>one</li>");
    expect(html).toContain('<code class="language-ts">const x = 1 &lt; 2;\n</code>');
  });

  test("removes a leading H1 that repeats the title", () => {
    expect(renderArticle({ title: "Hello World", markdown: "# Hello World\n\nBody" })).toBe("<p>Body</p>\n");
  });

  test("compares the title case-, whitespace- and entity-insensitively", () => {
    expect(renderArticle({ title: "Tom &amp; Jerry", markdown: "#   tom   &  JERRY\n\nBody" })).toBe("<p>Body</p>\n");
    expect(renderArticle({ title: "Tom & Jerry", markdown: "# Tom &amp; Jerry\n\nBody" })).toBe("<p>Body</p>\n");
    expect(renderArticle({ title: "a <b> c", markdown: "<h1>A &lt;b&gt;\n c</h1>\n\nBody" })).toBe("<p>Body</p>\n");
  });

  test("keeps an H1 that differs from the title, is not first, or when the title is empty", () => {
    expect(renderArticle({ title: "Other", markdown: "# Hello\n\nBody" })).toContain('<h1 id="user-content-hello">Hello</h1>');
    expect(renderArticle({ title: "Hello", markdown: "Intro\n\n# Hello" })).toContain('<h1 id="user-content-hello">Hello</h1>');
    expect(renderArticle({ title: "", markdown: "# Hello" })).toContain('<h1 id="user-content-hello">Hello</h1>');
    expect(renderArticle({ title: "  ", markdown: "#  \n\nBody" })).toContain("<p>Body</p>");
    expect(renderArticle({ title: "Hello", markdown: "## Hello" })).toContain('<h2 id="user-content-hello">Hello</h2>');
  });

  test("removes a leading H1 that renders the title written in markdown", () => {
    expect(renderArticle({ title: "My *Great* Title", markdown: "# My *Great* Title\n\nBody" })).toBe("<p>Body</p>\n");
    expect(
      renderArticle({ title: "Use `git` & [Acme](https://acme.com)", markdown: "# Use `git` &amp; [Acme](https://acme.com)\n\nBody" }),
    ).toBe("<p>Body</p>\n");
  });

  test("footnotes and a table of contents work on the site: ids under user-content-, links to them", () => {
    const html = renderArticle({
      title: "Guide",
      markdown:
        "- [Why](#why)\n- [Über uns](#über-uns)\n\n## Why\n\nA claim.[^src] Another.[^über]\n\n## Über uns\n\nUs, [pricing](/pricing).\n\n## Footnote src\n\n[^src]: Where it comes from.\n\n[^über]: A note with an umlaut.",
    });
    expect(html).toBe(
      [
        "<ul>",
        '<li><a href="#user-content-why">Why</a></li>',
        '<li><a href="#user-content-über-uns">Über uns</a></li>',
        "</ul>",
        '<h2 id="user-content-why">Why</h2>',
        '<p>A claim.<sup><a id="user-content-fnref-src" href="#user-content-fn-src" aria-describedby="user-content-footnote-label">1</a></sup> Another.<sup><a id="user-content-fnref-über" href="#user-content-fn-über" aria-describedby="user-content-footnote-label">2</a></sup></p>',
        '<h2 id="user-content-über-uns">Über uns</h2>',
        '<p>Us, <a href="/pricing">pricing</a>.</p>',
        // A heading's id is no footnote's (marked-footnote's "footnote-src" was both).
        '<h2 id="user-content-footnote-src">Footnote src</h2>',
        "<hr>",
        "",
        '<h2 id="user-content-footnote-label">Footnotes</h2>',
        "<ol>",
        '<li id="user-content-fn-src">',
        '<p>Where it comes from. <a href="#user-content-fnref-src" aria-label="Back to the text">↩</a></p>',
        "</li>",
        '<li id="user-content-fn-über">',
        '<p>A note with an umlaut. <a href="#user-content-fnref-über" aria-label="Back to the text">↩</a></p>',
        "</li>",
        "</ol>",
        "",
        "",
      ].join("\n"),
    );
    // Each article starts its footnotes and headings afresh.
    expect(renderArticle({ title: "t", markdown: "## Why\n\nB.[^1]\n\n[^1]: x" })).toContain('<h2 id="user-content-why">Why</h2>');
    expect(findUnsafeMarkup(html)).toEqual([]);
  });

  test("every id is unique, so each link reaches what it names: footnotes keep GitHub's ids, anything else met again gets a suffix", () => {
    const html = renderArticle({
      title: "t",
      markdown: [
        "## Fn 1",
        "",
        "## Footnote label",
        "",
        '<div id="why">raw</div>',
        "",
        "## Why",
        "",
        "One.[^1] Label.[^label] X.[^x] Again.[^x] Ref.[^ref-x] Tricky.[^x-2]",
        "",
        "[^1]: one",
        "[^label]: label",
        "[^x]: x",
        "[^ref-x]: ref-x",
        "[^x-2]: x-2",
      ].join("\n"),
    });
    const ids = [...html.matchAll(/ id="([^"]*)"/g)].map((match) => match[1]);
    expect(ids.length).toBeGreaterThan(12);
    expect(new Set(ids).size).toBe(ids.length);
    // Every in-page link leads to an id of the article, and the footnotes' to the footnotes.
    for (const [, target] of html.matchAll(/href="#([^"]*)"/g)) expect(ids).toContain(target);
    expect(html).toContain('<li id="user-content-fn-1">');
    expect(html).toContain('<h2 id="user-content-fn-1-1">Fn 1</h2>');
    expect(html).toContain('<h2 id="user-content-footnote-label">Footnotes</h2>');
    expect(html).toContain('<h2 id="user-content-footnote-label-1">Footnote label</h2>');
    expect(html).toContain('<li id="user-content-fn-label">');
    expect(html).toContain('<div id="user-content-why">raw</div>');
    expect(html).toContain('<h2 id="user-content-why-1">Why</h2>');
    expect(html).toContain('<a id="user-content-fnref-x" href="#user-content-fn-x"');
    expect(html).toContain('<a id="user-content-fnref-x-2" href="#user-content-fn-x"');
    expect(html).toContain('<a id="user-content-fnref-ref-x" href="#user-content-fn-ref-x"');
    expect(html).toContain('<li id="user-content-fn-ref-x">');
    // [^x-2]'s reference met the second of [^x]'s: renamed, with its note's back-link.
    expect(html).toContain('<a id="user-content-fnref-x-2-1" href="#user-content-fn-x-2"');
    expect(html).toMatch(/<li id="user-content-fn-x-2">\n<p>x-2 <a href="#user-content-fnref-x-2-1"/);
    expect(findUnsafeMarkup(html)).toEqual([]);
    // An id written with the prefix the sanitizer adds is the same id; a long one keeps its suffix within the limit.
    const long = "a".repeat(100);
    const more = renderArticle({
      title: "t",
      markdown: `## Why\n\n<div id="user-content-why">x</div>\n\n## ${long}\n\n<p id="${long}">y</p>`,
    });
    const moreIds = [...more.matchAll(/ id="([^"]*)"/g)].map((match) => match[1]);
    expect(moreIds).toEqual(["user-content-why", "user-content-why-1", `user-content-${long}`, `user-content-${"a".repeat(98)}-1`]);
  });

  test("task lists keep which items are done, as text", () => {
    expect(renderArticle({ title: "t", markdown: "- [ ] open\n- [x] done\n" })).toBe("<ul>\n<li>☐ open</li>\n<li>☑ done</li>\n</ul>\n");
  });

  test("removes only the first H1", () => {
    expect(renderArticle({ title: "A", markdown: "# A\n\n# A" })).toBe('<h1 id="user-content-a-1">A</h1>\n');
  });

  test("raw HTML in the markdown is sanitized, not escaped", () => {
    const html = renderArticle({
      title: "t",
      markdown: "Text <mark>kept</mark> <img src=x onerror=alert(1)>\n\n<div><script>alert(1)</script><p>para</p></div>",
    });
    expect(html).toContain("<mark>kept</mark>");
    expect(html).toContain('<img src="x">');
    expect(html).toContain("<p>para</p>");
    expect(findUnsafeMarkup(html)).toEqual([]);
  });

  test("markdown links and images cannot smuggle script URLs or handlers", () => {
    const html = renderArticle({
      title: "t",
      markdown:
        "[a](javascript:alert(1)) [b](&#106;avascript:alert(1)) [c](<javascript:alert(1)>) [d](https://e.com)\n\n" +
        '![i](x" onerror="alert(1)) ![j](data:image/svg+xml,<svg/onload=alert(1)>)',
    });
    expect(findUnsafeMarkup(html)).toEqual([]);
    expect(html).not.toMatch(/=\s*"?\s*(javascript|data):/i);
    expect(html).toContain('<img alt="j">');
    expect(html).toContain('<a href="https://e.com" rel="noopener noreferrer">d</a>');
  });

  test("the output is a sanitizer fixed point", () => {
    const html = renderArticle({
      title: "X",
      markdown: '# X\n\n<svg><p>a</p></svg> <noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    });
    expect(sanitizeArticleHtml(html)).toBe(html);
  });
});

describe("setext headings (marked's rule, run on the text up to the underline)", () => {
  // Lines that start, end or interrupt a setext heading, or look like one, joined at random: the
  // bounded rule must give what marked's own rule gives on every document.
  const LINES = [
    "Title",
    "two words",
    "",
    "  ",
    "\t",
    "\u00a0",
    "===",
    "---",
    " --",
    "   ===  ",
    "    ---",
    "= =",
    "- - -",
    "***",
    "___",
    "- item",
    "1. item",
    "2) x",
    "# h",
    "####### x",
    "> q",
    "```",
    "~~~",
    "    code",
    "<div>",
    "</p>",
    "<!-- c -->",
    "| a | b |",
    "|---|---|",
    "text ===",
    "a\u2028b",
    "\\---",
    "Setext\n---",
    "  Title",
  ];

  function randomDocuments(count: number): string[] {
    let seed = 7;
    const next = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    return Array.from({ length: count }, () => {
      const lines = Array.from({ length: 1 + Math.floor(next() * 10) }, () => LINES[Math.floor(next() * LINES.length)]!);
      const lead = next() < 0.1 ? "\n" : "";
      const trail = next() < 0.5 ? "\n".repeat(Math.floor(next() * 3)) : "";
      return lead + lines.join("\n") + trail;
    });
  }

  test("give marked's own HTML on 4,000 random documents, headings among them", async () => {
    const { Marked } = await import("marked");
    // marked with the same extensions (heading ids, footnotes) and its own setext rule.
    const plain = new Marked({ gfm: true, breaks: false, async: false });
    plain.use(markedFootnote({ footnoteDivider: true, sectionClass: "", headingClass: "" }), gfmHeadingId());
    let headings = 0;
    for (const source of randomDocuments(4_000)) {
      const expected = plain.parse(source, { async: false });
      expect({ source, html: articleMarkdown.parse(source, { async: false }) }).toEqual({ source, html: expected });
      if (/<h[12][ >]/.test(expected) && !/^#/m.test(source)) headings++;
    }
    expect(headings).toBeGreaterThan(200);
  });

  test("a long paragraph, with or without an underline at its end", () => {
    const paragraph = Array.from({ length: 2_000 }, (_, i) => `line ${i}`).join("\n");
    expect(articleMarkdown.parse(`${paragraph}\n---\nafter`, { async: false }).replace(/ id="[^"]*"/, "")).toBe(
      `<h2>${paragraph}</h2>\n<p>after</p>\n`,
    );
    expect(articleMarkdown.parse(`${paragraph}\n\n---`, { async: false })).toBe(`<p>${paragraph}</p>\n<hr>\n`);
  });
});
