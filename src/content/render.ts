// Markdown article → the sanitized HTML body served by the public content API.

import { Marked } from "marked";
import { inertDocument, sanitizeArticleHtml } from "./sanitize";

// Raw HTML in the markdown is kept and handed to the sanitizer rather than escaped: writers and
// imports use it for tables and figures, and the sanitizer is the one place that decides safety.
const markdown = new Marked({ gfm: true, breaks: false, async: false });

export interface ArticleSource {
  title: string;
  markdown: string;
}

/**
 * Renders an article body: markdown → HTML → sanitized HTML, without a leading H1 that repeats
 * the title (the client renders the title itself). Throws UnsafeHtmlError when the body cannot
 * be made safe.
 */
export function renderArticle({ title, markdown: source }: ArticleSource): string {
  const html = sanitizeArticleHtml(markdown.parse(source, { async: false }));
  return removeLeadingTitleHeading(html, title);
}

function removeLeadingTitleHeading(html: string, title: string): string {
  const wantedTitle = comparableText(decodeEntities(title));
  if (wantedTitle === "") return html;

  const container = inertDocument().createElement("div");
  container.innerHTML = html;
  const leading = firstMeaningfulChild(container);
  if (leading?.nodeName !== "H1" || comparableText(leading.textContent ?? "") !== wantedTitle) {
    return html;
  }
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
