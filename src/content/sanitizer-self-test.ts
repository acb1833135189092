// Start-up self-test of the article sanitizer. The server runs it before serving and refuses to
// start when it fails: a dependency upgrade, a bundling mistake (a jsdom that half-loads inside the
// binary) or a config edit that weakens the sanitizer must stop the server, not publish XSS.

import { ALLOWED_ATTR, ALLOWED_TAGS, ID_PREFIX, inertDocument, type Sanitizer, urlScheme } from "./sanitize";

export type SelfTestResult = { ok: true } | { ok: false; reason: string };

interface AttackVector {
  name: string;
  html: string;
}

/** Known attacks; each output is checked structurally, so a vector need not name what it expects. */
export const ATTACK_VECTORS: readonly AttackVector[] = [
  { name: "script element", html: "<script>alert(1)</script>" },
  { name: "img onerror", html: "<img src=x onerror=alert(1)>" },
  { name: "svg onload", html: "<svg onload=alert(1)>" },
  { name: "script inside svg", html: "<svg><script>alert(1)</script></svg>" },
  { name: "onclick on a link", html: '<a href="#" onclick="alert(1)">x</a>' },
  { name: "details ontoggle", html: "<details open ontoggle=alert(1)><summary>x</summary></details>" },
  { name: "javascript: href", html: '<a href="javascript:alert(1)">x</a>' },
  { name: "mixed-case javascript: href", html: '<a href="JaVaScRiPt:alert(1)">x</a>' },
  { name: "decimal-entity javascript: href", html: '<a href="&#106;&#97;vascript:alert(1)">x</a>' },
  { name: "hex-entity javascript: href", html: '<a href="&#x6A;avascript&colon;alert(1)">x</a>' },
  { name: "whitespace-split javascript: href", html: '<a href=" &#x09;java&#x0A;script&#x0D;:alert(1)">x</a>' },
  { name: "control-prefixed javascript: href", html: '<a href="&#x01;javascript:alert(1)">x</a>' },
  { name: "vbscript: href", html: '<a href="vbscript:msgbox(1)">x</a>' },
  { name: "data: href", html: '<a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a>' },
  { name: "data: img src", html: '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">' },
  { name: "javascript: img srcset", html: '<img srcset="javascript:alert(1)">' },
  { name: "iframe", html: '<iframe src="javascript:alert(1)"></iframe><iframe srcdoc="<script>alert(1)</script>"></iframe>' },
  { name: "object", html: '<object data="javascript:alert(1)"></object>' },
  { name: "embed", html: '<embed src="javascript:alert(1)">' },
  { name: "form action", html: '<form action="javascript:alert(1)"><input type=submit></form>' },
  { name: "button formaction", html: '<button formaction="javascript:alert(1)">x</button>' },
  { name: "base href", html: '<base href="javascript:alert(1)//">' },
  { name: "meta refresh", html: '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">' },
  { name: "style element", html: "<style>@import 'https://evil.example/x.css';</style>" },
  { name: "style attribute", html: '<p style="background:url(https://evil.example/track)">x</p>' },
  { name: "template", html: "<template><script>alert(1)</script></template>" },
  { name: "mXSS math/mglyph/style", html: "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>" },
  { name: "mXSS svg/p/style", html: '<svg></p><style><a id="</style><img src=1 onerror=alert(1)>">' },
  { name: "mXSS nested form", html: "<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>" },
  { name: "mXSS noscript", html: '<noscript><p title="</noscript><img src=x onerror=alert(1)>">' },
  { name: "mXSS title", html: '<title><img title="</title><img src=x onerror=alert(1)>">' },
  { name: "mXSS textarea", html: '<textarea><img title="</textarea><img src=x onerror=alert(1)>">' },
  { name: "mXSS xmp", html: '<xmp><p title="</xmp><img src=x onerror=alert(1)>">' },
  {
    name: "id clobbering",
    html: '<img id="getElementById" src="https://example.com/a.png"><a id="location" href="https://example.com">x</a>',
  },
  { name: "name clobbering", html: '<img name="cookie" src="https://example.com/a.png"><form name="body"></form>' },
];

/** Ordinary article markup that must survive: a sanitizer that deletes everything is broken too. */
const BENIGN: readonly { name: string; html: string; mustContain: string }[] = [
  {
    name: "https link",
    html: '<p><a href="https://example.com/a?b=1">link</a></p>',
    mustContain: 'href="https://example.com/a?b=1"',
  },
  { name: "https image", html: '<img src="https://example.com/a.png" alt="a">', mustContain: 'src="https://example.com/a.png"' },
  { name: "table", html: "<table><tbody><tr><td>1</td></tr></tbody></table>", mustContain: "<td>1</td>" },
];

const URL_ATTRIBUTES = new Set([
  "href",
  "src",
  "srcset",
  "cite",
  "action",
  "formaction",
  "xlink:href",
  "poster",
  "background",
  "data",
  "codebase",
  "lowsrc",
  "dynsrc",
  "ping",
]);
const EXECUTABLE_SCHEMES = new Set(["javascript", "vbscript", "data"]);
const FORBIDDEN_ATTRIBUTES = new Set(["name", "style"]);
// An id only under the article's prefix ("user-content-location" names no global of the host page).
const PREFIXED_ID = new RegExp(`^${ID_PREFIX}[\\p{L}\\p{N}_-]+$`, "u");
const allowedTags = new Set(ALLOWED_TAGS);
const allowedAttributes = new Set(ALLOWED_ATTR);

/** What is wrong with sanitized output, judged on the DOM a browser would build from it. */
export function findUnsafeMarkup(html: string): string[] {
  const container = inertDocument().createElement("div");
  container.innerHTML = html;
  const problems: string[] = [];
  for (const element of container.querySelectorAll("*")) {
    const tag = element.localName;
    if (!allowedTags.has(tag)) problems.push(`<${tag}> element`);
    // A <template>'s content is not in querySelectorAll's reach; the tag check above already fails it.
    for (const { name, value } of Array.from(element.attributes)) {
      const attr = name.toLowerCase();
      if (attr.startsWith("on")) problems.push(`${attr} handler on <${tag}>`);
      else if (FORBIDDEN_ATTRIBUTES.has(attr)) problems.push(`${attr} attribute on <${tag}>`);
      else if (attr === "id" && !PREFIXED_ID.test(value)) problems.push(`id attribute on <${tag}> without the ${ID_PREFIX} prefix`);
      else if (!allowedAttributes.has(attr)) problems.push(`unexpected ${attr} attribute on <${tag}>`);
      if (URL_ATTRIBUTES.has(attr)) {
        const scheme = urlScheme(value);
        if (scheme !== null && EXECUTABLE_SCHEMES.has(scheme)) problems.push(`${scheme}: URL in ${attr} of <${tag}>`);
      }
    }
  }
  return problems;
}

function excerpt(html: string): string {
  return JSON.stringify(html.length > 120 ? `${html.slice(0, 117)}...` : html);
}

export function selfTestSanitizer(sanitize: Sanitizer): SelfTestResult {
  for (const vector of ATTACK_VECTORS) {
    let output: string;
    try {
      output = sanitize(vector.html);
    } catch {
      // Refusing the input outright is a safe answer to an attack.
      continue;
    }
    const problems = findUnsafeMarkup(output);
    if (problems.length > 0) {
      return {
        ok: false,
        reason: `the article sanitizer let the "${vector.name}" attack through (${problems.join(", ")}; output ${excerpt(output)})`,
      };
    }
    let again: string;
    try {
      again = sanitize(output);
    } catch (error) {
      return { ok: false, reason: `the article sanitizer failed on its own output for "${vector.name}": ${String(error)}` };
    }
    if (again !== output) {
      return {
        ok: false,
        reason: `the article sanitizer's output for "${vector.name}" is not stable (${excerpt(output)} became ${excerpt(again)})`,
      };
    }
  }
  for (const sample of BENIGN) {
    let output: string;
    try {
      output = sanitize(sample.html);
    } catch (error) {
      return { ok: false, reason: `the article sanitizer rejected ordinary markup (${sample.name}): ${String(error)}` };
    }
    if (!output.includes(sample.mustContain)) {
      return {
        ok: false,
        reason: `the article sanitizer mangled ordinary markup (${sample.name}): ${excerpt(sample.html)} became ${excerpt(output)}`,
      };
    }
  }
  return { ok: true };
}
