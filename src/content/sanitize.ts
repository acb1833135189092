// Article HTML sanitizer: DOMPurify on a jsdom window, configured for article bodies.
//
// The output is embedded in a brand's own site, inside a page we do not control, so the allowlist
// is stricter than DOMPurify's default: no name, and ids only under the prefix "user-content-", as
// GitHub does (DOM clobbering of the host page's globals and forms: no id of the host's can be
// named), with in-page links ("#why") pointed at the prefixed ids; no style (CSS overlays, exfiltration through url()), no class except `language-*` on code
// (host-page scripts select by class: a "gadget" class could wire an article node to host
// behaviour), no data-* (same gadget risk), no svg/math (namespace-confusion mXSS), no form
// controls, and URLs limited to http(s), mailto and relative ones.
//
// jsdom, not happy-dom: DOMPurify on happy-dom has been measured to leave executable markup on the
// attack corpora the tests run (test/corpus/README.md).

import createDOMPurify, { type Config, type DOMPurify, type WindowLike } from "dompurify";
import { type JSDOM as JSDOMClass } from "jsdom";
import { UnsafeHtmlError } from "./unsafe-html";

export { UnsafeHtmlError };

export type Sanitizer = (html: string) => string;

export const ALLOWED_TAGS: readonly string[] = [
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "p",
  "br",
  "hr",
  "strong",
  "b",
  "em",
  "i",
  "u",
  "s",
  "del",
  "ins",
  "sub",
  "sup",
  "mark",
  "small",
  "abbr",
  "cite",
  "q",
  "kbd",
  "code",
  "pre",
  "blockquote",
  "ul",
  "ol",
  "li",
  "dl",
  "dt",
  "dd",
  "table",
  "thead",
  "tbody",
  "tfoot",
  "tr",
  "th",
  "td",
  "caption",
  "a",
  "img",
  "figure",
  "figcaption",
  "details",
  "summary",
  "span",
  "div",
];

// No `target`: where a link opens is the host page's decision, and a named target could aim at
// one of its frames. `class` is listed but narrowed to `language-*` on code/pre by a hook.
export const ALLOWED_ATTR: readonly string[] = [
  "href",
  "title",
  "alt",
  "src",
  "width",
  "height",
  "colspan",
  "rowspan",
  "align",
  "start",
  "reversed",
  "open",
  "lang",
  "dir",
  "cite",
  "datetime",
  "rel",
  "class",
  "id",
  // The footnotes' own: a reference names the "Footnotes" heading, a back-link says where it leads.
  "aria-label",
  "aria-describedby",
];

/**
 * The prefix of every id in an article (and of the fragment of every in-page link): DOMPurify's own
 * SANITIZE_NAMED_PROPS prefixes again at every pass, which the fixed-point check below would refuse.
 */
export const ID_PREFIX = "user-content-";
/** The longest id the article keeps, after the prefix. */
export const MAX_ID_LENGTH = 100;
// What an id may hold after the prefix: letters, digits, "-" and "_" (heading slugs, footnote ids).
const ID_NAME = new RegExp(`^[\\p{L}\\p{N}_-]{1,${MAX_ID_LENGTH}}$`, "u");

/** An id (or a link's fragment) as the sanitizer reads it: decoded as fragments are, without the prefix it adds once. */
export function idName(value: string): string {
  const decoded = decodeFragment(value);
  return decoded.startsWith(ID_PREFIX) ? decoded.slice(ID_PREFIX.length) : decoded;
}

/** The id as the article keeps it (prefixed once), or null when it is not one to keep (empty, or not a word's characters). */
function articleId(value: string): string | null {
  const name = idName(value);
  return ID_NAME.test(name) ? ID_PREFIX + name : null;
}

/** Attributes whose value is a URL, and the schemes each may carry (no scheme = relative: allowed). */
const URL_SCHEMES: Readonly<Record<string, ReadonlySet<string>>> = {
  href: new Set(["http", "https", "mailto"]),
  src: new Set(["http", "https"]),
  cite: new Set(["http", "https"]),
};

// DOMPurify tests every attribute outside its URI-safe list against this, so it must accept plain
// values (widths, dates, "rtl") too: a listed scheme, or anything that does not start with a scheme.
const ALLOWED_URI_REGEXP = /^(?:(?:https?|mailto):|[^a-z]|[a-z+.-]+(?:[^a-z+.\-:]|$))/i;

// The characters DOMPurify and URL parsers ignore inside a scheme ("java\tscript:", "\u0001javascript:").
const URL_IGNORED_CHARS = /[\u0000-\u0020\u00A0\u1680\u180E\u2000-\u2029\u205F\u3000]/g;
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;

const LANGUAGE_CLASS = /^language-[a-z0-9_+#-]{1,40}$/i;
const AUTHOR_REL_TOKENS = new Set(["nofollow", "ugc", "sponsored", "external"]);

const CONFIG: Config = {
  ALLOWED_TAGS: [...ALLOWED_TAGS],
  ALLOWED_ATTR: [...ALLOWED_ATTR],
  ALLOWED_URI_REGEXP,
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  // An attribute value holding "/>" is a classic mXSS ingredient; articles never need one.
  ALLOW_SELF_CLOSE_IN_ATTR: false,
  SANITIZE_DOM: true,
  KEEP_CONTENT: true,
};

/** The scheme of a URL attribute value as a browser would read it, or null when relative. */
export function urlScheme(value: string): string | null {
  const match = SCHEME.exec(value.replace(URL_IGNORED_CHARS, ""));
  return match?.[1] ? match[1].toLowerCase() : null;
}

interface ArticleDom {
  purify: DOMPurify;
  document: Document;
}

function createArticleDom(): ArticleDom {
  // No `runScripts` and no resource loader: nothing parsed in this window can run or fetch.
  // Loaded here, not at module scope: evaluating jsdom's module graph costs a few hundred
  // milliseconds, which CLI commands that never sanitize should not pay.
  const { JSDOM } = require("jsdom") as { JSDOM: typeof JSDOMClass };
  const { window } = new JSDOM("<!DOCTYPE html>");
  const purify = createDOMPurify(window as unknown as WindowLike);
  purify.setConfig(CONFIG);

  purify.addHook("uponSanitizeAttribute", (node, data) => {
    // Ids as links name them: marked-footnote writes a label's letters percent-encoded
    // ("footnote-%C3%BCber"), which the links' decoded fragments then never reached.
    if (data.attrName === "id") {
      const id = articleId(data.attrValue);
      if (id === null) data.keepAttr = false;
      else data.attrValue = id;
    }
    // Names ids of the article, prefixed as they are; anything else is dropped.
    if (data.attrName === "aria-describedby") {
      const ids = data.attrValue.split(/\s+/).map((id) => articleId(id));
      if (ids.length === 0 || ids.includes(null)) data.keepAttr = false;
      else data.attrValue = ids.join(" ");
    }
    if (data.attrName === "class") {
      const tag = node.nodeName.toLowerCase();
      const kept = tag === "code" || tag === "pre" ? data.attrValue.split(/\s+/).filter((token) => LANGUAGE_CLASS.test(token)) : [];
      if (kept.length === 0) data.keepAttr = false;
      else data.attrValue = kept.join(" ");
    }
  });

  purify.addHook("afterSanitizeAttributes", (node) => {
    const element = node as Element;
    if (typeof element.getAttribute !== "function") return;
    // DOMPurify lets data: through on <img src> by default; article media must be fetched over http(s).
    for (const [attr, schemes] of Object.entries(URL_SCHEMES)) {
      const value = element.getAttribute(attr);
      if (value === null) continue;
      const scheme = urlScheme(value);
      if (scheme !== null && !schemes.has(scheme)) element.removeAttribute(attr);
    }
    // An in-page link leads to the prefixed id ("#why" → "#user-content-why").
    const href = element.nodeName === "A" ? element.getAttribute("href") : null;
    if (href?.startsWith("#") && href.length > 1) {
      const target = articleId(href.slice(1));
      if (target === null) element.removeAttribute("href");
      else element.setAttribute("href", `#${target}`);
    }
    // rel is ours to set: authors keep only the SEO tokens, and a link that leaves the site (an
    // address with a scheme or a host) gets noopener noreferrer. An in-page or relative link stays on
    // the brand's site, whose own analytics its Referer serves.
    const link = element.nodeName === "A" ? element.getAttribute("href") : null;
    if (link !== null) {
      const authored = (element.getAttribute("rel") ?? "").toLowerCase().split(/\s+/);
      // Browsers read a backslash as a slash ("/\\evil.example" is "//evil.example").
      const leaves = urlScheme(link) !== null || link.replace(URL_IGNORED_CHARS, "").replace(/\\/g, "/").startsWith("//");
      const tokens = [...new Set(authored.filter((token) => AUTHOR_REL_TOKENS.has(token))), ...(leaves ? ["noopener", "noreferrer"] : [])];
      if (tokens.length > 0) element.setAttribute("rel", tokens.join(" "));
      else element.removeAttribute("rel");
    } else {
      element.removeAttribute("rel");
    }
  });

  return { purify, document: window.document as unknown as Document };
}

/** A link's fragment as the id it names ("%C3%BCber" → "über"); as written when it does not decode. */
function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

let articleDom: ArticleDom | undefined;

// Created on first use: building a jsdom window costs tens of milliseconds, and most commands of
// the binary never render an article.
function lazyArticleDom(): ArticleDom {
  articleDom ??= createArticleDom();
  return articleDom;
}

/** The inert jsdom document the sanitizer works in, for callers that need to inspect its output. */
export function inertDocument(): Document {
  return lazyArticleDom().document;
}

const MAX_PASSES = 3;

// DOMPurify parses its input as a document of its own; without a doctype that document is in quirks
// mode, where `<p>x<table>` keeps the table inside the paragraph. The pages that embed an article
// are parsed in standards mode, where the table closes the paragraph: a tree checked in one mode and
// served to the other is the raw material of mutation XSS. The doctype puts DOMPurify's parse in
// standards mode too (its output is the body's children; the doctype never reaches it).
const STANDARDS_MODE = "<!DOCTYPE html>";

function purifyInStandardsMode(purify: DOMPurify, html: string): string {
  return purify.sanitize(STANDARDS_MODE + html);
}

/**
 * Sanitizes an article body. The result is a fixed point (sanitizing it again changes nothing):
 * an output that still changes on a second pass is one whose parse differs from what was checked,
 * the signature of mutation XSS, so it is refused rather than published.
 */
export function sanitizeArticleHtml(html: string): string {
  const { purify } = lazyArticleDom();
  let current = purifyInStandardsMode(purify, html);
  for (let pass = 1; pass < MAX_PASSES; pass++) {
    const next = purifyInStandardsMode(purify, current);
    if (next === current) return current;
    current = next;
  }
  throw new UnsafeHtmlError();
}
