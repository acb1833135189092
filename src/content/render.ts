// Markdown article → the sanitized HTML body served by the public content API.

import { Marked, type Token, Tokenizer, type Tokens } from "marked";
import markedFootnote from "marked-footnote";
import { gfmHeadingId } from "marked-gfm-heading-id";
import { inlineMarkdownText } from "./inline-text";
import { idName, inertDocument, MAX_ID_LENGTH, sanitizeArticleHtml } from "./sanitize";

// The first line break that ends a setext heading's search: a blank line (the paragraph ends there),
// or an underline of "=" or "-" with the newlines after it. Searched from index 1: the heading's text
// takes at least one character.
const SETEXT_STOP = /\n(?:[^\S\n]*\n| {0,3}(?:=+|-+)[ \t]*(?:\n+|$))/g;

/**
 * marked's setext-heading rule, tried at the start of every block, is one large regex that Bun's
 * engine (JavaScriptCore) runs in its interpreter: 1.5 s for a 200 KB paragraph, against 17 ms in
 * V8, and 3 s for a 200 KB line. It can only match up to the paragraph's first underline, so it
 * is run on the text up to there, and not at all when a blank line or the end comes first. Its
 * match is the same: nothing the regex looks at lies past that underline and its newlines.
 */
function boundedSetextHeading(this: Tokenizer, source: string): Tokens.Heading | undefined {
  SETEXT_STOP.lastIndex = 1;
  const stop = SETEXT_STOP.exec(source);
  if (stop === null || stop[0].trim() === "") return undefined;
  const end = stop.index + stop[0].length;
  return Tokenizer.prototype.lheading.call(this, end === source.length ? source : source.slice(0, end));
}

// Raw HTML in the markdown is kept and handed to the sanitizer rather than escaped: writers and
// imports use it for tables and figures, and the sanitizer is the one place that decides safety.
// Exported for the tests and the bench, which compare it with marked's own rules.
export const articleMarkdown = new Marked({ gfm: true, breaks: false, async: false });
// The block structure emphasisMarks counts in, without the extensions below: marked-footnote keeps
// state from its block pass to its inline one, which a block pass of its own would leave behind
// (the next article's footnotes then failed to render).
const blockMarkdown = new Marked({ gfm: true, breaks: false, async: false });
blockMarkdown.use({ tokenizer: { lheading: boundedSetextHeading } });

// Footnotes ("claim.[^1]" … "[^1]: source"), as GitHub renders them, after a rule under a visible
// "Footnotes" heading (the host page has no screen-reader-only class to hide it with); headings get
// GitHub's ids ("## Why" → "why"), so that a table of contents' "#why" leads somewhere. The sanitizer
// prefixes every id, and every in-page link, with "user-content-" (sanitize.ts).
// Footnote ids are GitHub's ("fn-1", "fn-ref-1" under the prefix), which a heading such as
// "## Footnote 1" no longer shares with them (it did with marked-footnote's "footnote-1").
articleMarkdown.use(
  markedFootnote({ footnoteDivider: true, sectionClass: "", headingClass: "", prefixId: "fn-", backRefLabel: "Back to the text" }),
  gfmHeadingId(),
);
articleMarkdown.use({
  tokenizer: { lheading: boundedSetextHeading },
  // A task list's box as text: marked's <input type="checkbox"> is a form control the sanitizer
  // removes, which left done and open items alike.
  renderer: { checkbox: ({ checked }) => (checked ? "☑ " : "☐ ") },
});

export interface ArticleSource {
  title: string;
  markdown: string;
}

// The cost of parsing and sanitizing grows much faster than the size of deeply nested markup
// (measured: 1,000 nested <div> took 10 s, 4,000 took 90 s; 30,000 nested <b>, nested table cells,
// or lines of "* * * … x" each ran past the 30 s limit), and marked recurses once per level (100,000
// ">" overflowed its stack). An article needs neither: the bounds below are checked before the
// expensive steps, and an article over them is the writer's to simplify, with a sentence saying so.
export const MAX_NESTING = 64;
export const MAX_ELEMENTS = 20_000;
/**
 * Emphasis markers (* and _) in one paragraph, heading, list item or table cell: marked pairs them
 * in time that grows with the square of their number ("*a_" 65,000 times took over 30 s; 1,000
 * markers take ~20 ms at worst), and prose uses a few.
 */
export const MAX_EMPHASIS_MARKS = 1_000;

/**
 * Lines in the Markdown. Rendering costs ~10–40 µs a line whatever their length, and more once one
 * paragraph runs to tens of thousands of them: 100 KB of "a\nb\n" (50,000 lines, one paragraph)
 * took over a minute where 40,000 lines took a second (marked's block rules are regular expressions
 * that JavaScriptCore stops compiling past some length), and 60,000 lines of a quote's lazy
 * continuation 14–23 s in the server's render worker, while every other account's saves waited. A
 * 200 KB article of prose or code has a few thousand lines: at most 20 bytes a line on average.
 */
export const MAX_LINES = 10_000;

function lineCount(source: string): number {
  let lines = 1;
  for (let at = source.indexOf("\n"); at >= 0; at = source.indexOf("\n", at + 1)) lines++;
  return lines;
}

/** An article whose structure is over the bounds above; the message says which, for the writer. */
export class ArticleTooComplexError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArticleTooComplexError";
  }
}

// The container markers a markdown line can open before its text: quotes and list items.
const CONTAINER_MARKER = /[ \t]*(?:>|[*+-](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$))/y;

/** The deepest run of quote and list markers at the start of a line (marked recurses once per marker). */
function markdownNesting(source: string): number {
  let deepest = 0;
  let lineStart = 0;
  while (lineStart <= source.length) {
    let depth = 0;
    CONTAINER_MARKER.lastIndex = lineStart;
    while (CONTAINER_MARKER.exec(source) !== null) {
      depth++;
      if (depth > MAX_NESTING) return depth;
    }
    deepest = Math.max(deepest, depth);
    const newline = source.indexOf("\n", lineStart);
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  return deepest;
}

const EMPHASIS_MARK = /[*_]/g;

/**
 * The most emphasis markers (* and _) in one inline run: counted on marked's own block tokens (the
 * runs its inline pass will go through: a paragraph, a heading, a tight list item's text, a table
 * cell), before that inline pass, whose cost grows with the square of their number. Code blocks and
 * raw HTML have no inline run.
 */
function emphasisMarks(source: string): number {
  const lexer = new blockMarkdown.Lexer(blockMarkdown.defaults);
  let most = 0;
  const count = (text: string) => {
    most = Math.max(most, text.match(EMPHASIS_MARK)?.length ?? 0);
  };
  const walk = (tokens: readonly Token[]): void => {
    for (const token of tokens) {
      switch (token.type) {
        case "paragraph":
        case "heading":
        case "text":
          count(token.text);
          break;
        case "table":
          for (const cell of token.header as Tokens.TableCell[]) count(cell.text);
          for (const row of token.rows as Tokens.TableCell[][]) for (const cell of row) count(cell.text);
          break;
        case "list":
          for (const item of token.items as Tokens.ListItem[]) walk(item.tokens);
          break;
        case "blockquote":
          walk(token.tokens ?? []);
          break;
      }
    }
  };
  walk(lexer.blockTokens(source, []));
  return most;
}

const VOID_ELEMENTS = new Set(["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"]);
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*?(\/?)>/g;

/** Elements and nesting depth of HTML, counted from its tags (an over-estimate where tags are left open). */
function htmlShape(html: string): { elements: number; depth: number } {
  let elements = 0;
  let depth = 0;
  let deepest = 0;
  for (const [, closing, name, selfClosing] of html.matchAll(TAG)) {
    const tag = name!.toLowerCase();
    if (closing) {
      depth = Math.max(0, depth - 1);
      continue;
    }
    elements++;
    if (VOID_ELEMENTS.has(tag) || selfClosing) continue;
    depth++;
    deepest = Math.max(deepest, depth);
  }
  return { elements, depth: deepest };
}

function tooDeep(depth: number): ArticleTooComplexError {
  return new ArticleTooComplexError(
    `markdown: the article nests quotes, lists or HTML elements ${depth > MAX_NESTING ? `more than ${MAX_NESTING}` : depth} levels deep; the limit is ${MAX_NESTING}. Flatten the nesting and try again.`,
  );
}

/** Markdown → HTML, refused before the costly steps when its structure is over the bounds. */
function boundedMarkdownToHtml(markdown: string): string {
  // Line breaks as marked reads them (it turns "\r\n" and "\r" into "\n" first): a bare "\r"
  // counted no line here (found by a review: 60,000 such lines passed the bound).
  const source = markdown.replace(/\r\n?/g, "\n");
  const lines = lineCount(source);
  if (lines > MAX_LINES) {
    throw new ArticleTooComplexError(
      `markdown: the article has ${lines.toLocaleString("en")} lines; the limit is ${MAX_LINES.toLocaleString("en")}. Join short lines into paragraphs, or split it into several articles.`,
    );
  }
  if (markdownNesting(source) > MAX_NESTING) throw tooDeep(MAX_NESTING + 1);
  const marks = emphasisMarks(source);
  if (marks > MAX_EMPHASIS_MARKS) {
    throw new ArticleTooComplexError(
      `markdown: a paragraph (or heading, list item or table cell) holds ${marks.toLocaleString("en")} * and _ characters; the limit is ${MAX_EMPHASIS_MARKS.toLocaleString("en")}. Split the paragraph, or put code and data in a fenced code block.`,
    );
  }
  let html: string;
  try {
    html = articleMarkdown.parse(source, { async: false });
  } catch (error) {
    // A structure deep enough to exhaust the stack is the input's, not a server fault.
    if (error instanceof RangeError) throw tooDeep(MAX_NESTING + 1);
    throw error;
  }
  const shape = htmlShape(html);
  if (shape.depth > MAX_NESTING) throw tooDeep(shape.depth);
  if (shape.elements > MAX_ELEMENTS) {
    throw new ArticleTooComplexError(
      `markdown: the article has ${shape.elements.toLocaleString("en")} HTML elements; the limit is ${MAX_ELEMENTS.toLocaleString("en")}. Split it into several articles.`,
    );
  }
  return html;
}

// marked-footnote's markup under prefixId "fn-": a reference's id, a back-link's target, and the
// Footnotes heading's id (which each reference names). Its scheme collides with itself: the note of
// [^label] and the heading are both "fn-label", the note of [^ref-x] and the reference of [^x] both
// "fn-ref-x". GitHub's own scheme ("fnref-", "footnote-label") cannot.
const FOOTNOTE_REF_ID = /(<sup><a id=")fn-ref-/g;
const FOOTNOTE_BACKREF = /(<a href="#)fn-ref-(?=[^"]*" data-fn-backref )/g;
const FOOTNOTE_LABEL = /(<h2 id="|aria-describedby=")fn-label"/g;
const ID_ATTRIBUTE = /\sid\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))/gi;

/**
 * Every id of the article unique, so that each link reaches what it names: footnotes take GitHub's
 * ids, which they then keep; any other id met again (a heading "Fn 1" beside note 1, a raw
 * `<div id="why">` beside "## Why") gets GitHub's "-1", "-2"… suffix, the first of the same id
 * keeping it, and a footnote's back-link following its reference. Other links are left as written:
 * a link to a shared id reached the first of them before too.
 * The document is parsed only when two ids are the same.
 */
function uniqueIds(html: string): string {
  const named = html
    .replace(FOOTNOTE_REF_ID, "$1fnref-")
    .replace(FOOTNOTE_BACKREF, "$1fnref-")
    .replace(FOOTNOTE_LABEL, '$1footnote-label"');
  const ids = [...named.matchAll(ID_ATTRIBUTE)].map((match) => idName(match[1] ?? match[2] ?? match[3] ?? ""));
  if (new Set(ids).size === ids.length) return named;
  const template = inertDocument().createElement("template");
  template.innerHTML = named;
  const elements = [...template.content.querySelectorAll("[id]")];
  const footnotes = elements.filter((element) =>
    element.matches("a[data-fn-ref], section[data-footnotes] > h2, section[data-footnotes] > ol > li"),
  );
  const every = new Set(elements.map((element) => idName(element.id)));
  const taken = new Set<string>();
  for (const element of [...footnotes, ...elements.filter((element) => !footnotes.includes(element))]) {
    const id = idName(element.id);
    if (!taken.has(id)) {
      taken.add(id);
      continue;
    }
    let suffix = 1;
    const named = (n: number) => `${[...id].slice(0, MAX_ID_LENGTH - `-${n}`.length).join("")}-${n}`;
    while (taken.has(named(suffix)) || every.has(named(suffix))) suffix++;
    const was = element.id;
    element.id = named(suffix);
    taken.add(element.id);
    // A reference renamed (the second of [^x], "fnref-x-2", met [^x-2]'s): its note's back-link follows it.
    if (footnotes.includes(element) && element.matches("a[data-fn-ref]")) {
      const note = template.content.getElementById((element.getAttribute("href") ?? "").slice(1));
      const back = [...(note?.querySelectorAll("a[data-fn-backref]") ?? [])].find((link) => link.getAttribute("href") === `#${was}`);
      back?.setAttribute("href", `#${element.id}`);
    }
  }
  return template.innerHTML;
}

/**
 * Renders an article body: markdown → HTML → sanitized HTML, without a leading H1 that repeats
 * the title (the client renders the title itself). Throws UnsafeHtmlError when the body cannot
 * be made safe, and ArticleTooComplexError when it is over the bounds above.
 */
export function renderArticle({ title, markdown: source }: ArticleSource): string {
  const html = sanitizeArticleHtml(uniqueIds(boundedMarkdownToHtml(source)));
  return removeLeadingTitleHeading(html, title);
}

function removeLeadingTitleHeading(html: string, title: string): string {
  const wantedTitle = comparableText(decodeEntities(title));
  if (wantedTitle === "") return html;
  // A title written in markdown ("My *Great* Title") matches the heading it renders as, too.
  const wantedText = comparableText(decodeEntities(inlineMarkdownText(title)));

  const container = inertDocument().createElement("div");
  container.innerHTML = html;
  const leading = firstMeaningfulChild(container);
  if (leading?.nodeName !== "H1") return html;
  const heading = comparableText(leading.textContent ?? "");
  if (heading !== wantedTitle && heading !== wantedText) return html;
  while (container.firstChild !== leading) container.firstChild?.remove();
  leading.remove();
  // Re-serialized markup is re-checked rather than trusted: cheap, and it keeps the output a
  // sanitizer fixed point whatever the edit did.
  return sanitizeArticleHtml(container.innerHTML.replace(/^\s+/, ""));
}

function firstMeaningfulChild(container: Element): ChildNode | null {
  for (const node of container.childNodes) {
    const blankText = node.nodeType === node.TEXT_NODE && (node.textContent ?? "").trim() === "";
    if (!blankText && node.nodeType !== node.COMMENT_NODE) return node;
  }
  return null;
}

// A textarea parses its content as RCDATA: character references are decoded, tags stay text, so
// "Tom &amp; Jerry" and "a <b> c" both come back as what a reader would see.
function decodeEntities(text: string): string {
  const textarea = inertDocument().createElement("textarea");
  textarea.innerHTML = text;
  return textarea.value;
}

function comparableText(text: string): string {
  return text.normalize("NFKC").replace(/\s+/g, " ").trim().toLocaleLowerCase("en");
}
