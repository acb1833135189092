/**
 * Finds URLs in an answer's text: markdown link targets and bare URLs, the latter being what
 * GitHub-flavoured markdown would autolink (`http(s)://…` and `www.…`). A plain "acme.com" in prose
 * is not a URL here, so it still counts as a mention of Acme.
 */
export interface UrlSpan {
  /** UTF-16 offsets into the text; for a markdown link, the `(…)` holding the target. */
  start: number;
  end: number;
  /** The URL as written (markdown: the target without `<>` or title). */
  url: string;
  kind: "markdown" | "bare";
}

// A bare URL ends at a space, at characters a URL cannot hold, and at the punctuation and the
// Chinese characters and hiragana of scripts written without spaces, whose text follows an address
// directly: "（https://a.jp/x）をご覧ください" and "https://a.jp/x/をご覧ください" cite https://a.jp/x and
// https://a.jp/x/, not the paragraph after them. Katakana and other letters stay in (an address
// written as an IRI: https://ja.wikipedia.org/wiki/ソニー); one with Chinese characters in its path is
// cut there (its site is still the one cited).
const BARE_URL =
  /(?:https?:\/\/|www\.)[^\s<>"'`|\\^{}\u3000-\u303f\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65\p{sc=Han}\p{sc=Hiragana}]+/giu;
/**
 * A URL does not start in the middle of a word or host ("xhttp://", "awww.", "a.www."); checked in
 * code, lookbehinds are slow. Chinese and Japanese text runs into an address without a space
 * ("詳細はhttps://…", "详情请访问https://…"): a letter of those scripts does not glue.
 */
const GLUED_BEFORE = /(?![\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Hangul}])[\p{L}\p{N}@./-]$/u;
/** Punctuation that ends a sentence rather than a URL: "see https://a.com)." → "https://a.com". */
const TRAILING_PUNCTUATION = new Set([...".,;:!?'\"*_~`’”»。，；：！？、"]);
const CLOSERS: Record<string, string> = { ")": "(", "]": "[", "}": "{", ">": "<" };

/** Every URL in the text, in order of appearance; markdown targets first claim their span. */
export function findUrls(text: string): UrlSpan[] {
  const spans = findMarkdownTargets(text);
  const masked = maskSpans(text, spans);
  for (const match of masked.matchAll(BARE_URL)) {
    if (GLUED_BEFORE.test(masked.slice(Math.max(0, match.index - 2), match.index))) continue;
    const url = trimTrailingPunctuation(match[0]);
    spans.push({ start: match.index, end: match.index + url.length, url, kind: "bare" });
  }
  return spans.sort((a, b) => a.start - b.start);
}

/** The text with every URL replaced by spaces of equal length, so offsets into it stay offsets into the original. */
export function maskUrls(text: string): string {
  return maskSpans(text, findUrls(text));
}

export function maskSpans(text: string, spans: ReadonlyArray<{ start: number; end: number }>): string {
  if (spans.length === 0) return text;
  const ordered = [...spans].sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const { start, end } of ordered) {
    const from = Math.max(at, start);
    if (end <= from) continue;
    // Line breaks survive so sentence splitting still sees list items.
    out += text.slice(at, from) + text.slice(from, end).replace(/[^\n]/g, " ");
    at = end;
  }
  return out + text.slice(at);
}

export function trimTrailingPunctuation(url: string): string {
  let out = url;
  for (;;) {
    const last = out.at(-1);
    if (last === undefined) return out;
    if (TRAILING_PUNCTUATION.has(last)) {
      out = out.slice(0, -1);
      continue;
    }
    const opener = CLOSERS[last];
    // Keep a closer that balances an opener inside the URL (Wikipedia's "Acme_(company)").
    if (opener !== undefined && count(out, opener) < count(out, last)) {
      out = out.slice(0, -1);
      continue;
    }
    return out;
  }
}

/** `[text](target "title")`, `[text](<target>)`, `![alt](target)`; parentheses in targets may nest. */
function findMarkdownTargets(text: string): UrlSpan[] {
  const spans: UrlSpan[] = [];
  let from = 0;
  for (;;) {
    const at = text.indexOf("](", from);
    if (at < 0) return spans;
    const open = at + 1;
    const close = matchingParen(text, open);
    from = open + 1;
    if (close < 0) continue;
    const inner = text.slice(open + 1, close).trim();
    const target = inner.startsWith("<")
      ? inner.slice(1, inner.indexOf(">") >= 0 ? inner.indexOf(">") : undefined)
      : (inner.split(/\s+/)[0] ?? "");
    if (target === "") continue;
    spans.push({ start: open, end: close + 1, url: target, kind: "markdown" });
    from = close + 1;
  }
}

function matchingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") return -1;
    if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}

function count(text: string, char: string): number {
  let n = 0;
  for (const c of text) if (c === char) n++;
  return n;
}
