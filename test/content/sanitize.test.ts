import { beforeAll, describe, expect, test } from "bun:test";
import { sanitizeArticleHtml, UnsafeHtmlError, urlScheme } from "../../src/content/sanitize";
import { ATTACK_VECTORS, findUnsafeMarkup, selfTestSanitizer } from "../../src/content/sanitizer-self-test";

// Loading jsdom and building its window takes seconds on a busy machine; keep it out of test timings.
beforeAll(() => {
  sanitizeArticleHtml("");
}, 30_000);

describe("sanitizeArticleHtml", () => {
  test("keeps ordinary article markup", () => {
    const html =
      "<h2>Plan</h2><p>Read <strong>this</strong> and <em>that</em><sup>1</sup>.</p>" +
      '<blockquote cite="https://example.com/q"><p>quoted</p></blockquote>' +
      '<ol start="3" reversed=""><li>a</li></ol><table><thead><tr><th align="center">h</th></tr></thead>' +
      '<tbody><tr><td colspan="2">c</td></tr></tbody></table>' +
      '<figure><img src="https://example.com/a.png" alt="A" width="10" height="20"><figcaption>f</figcaption></figure>' +
      '<details open=""><summary>s</summary>d</details><p lang="fr" dir="rtl"><abbr title="t">x</abbr></p>';
    expect(sanitizeArticleHtml(html)).toBe(html);
  });

  test("links get rel=noopener noreferrer, keep nofollow-style tokens and lose target", () => {
    expect(sanitizeArticleHtml('<a href="https://e.com" target="_blank" rel="nofollow opener">x</a>')).toBe(
      '<a href="https://e.com" rel="nofollow noopener noreferrer">x</a>',
    );
    expect(sanitizeArticleHtml('<p rel="x">p</p>')).toBe("<p>p</p>");
  });

  test("allows http, https, mailto, fragment and relative URLs, nothing else", () => {
    const href = (url: string): string => sanitizeArticleHtml(`<a href="${url}">x</a>`);
    for (const url of ["https://e.com/", "http://e.com/", "mailto:a@e.com", "/docs/a", "../b", "//cdn.e.com/x"]) {
      expect(href(url)).toContain(`href="${url}"`);
    }
    // An in-page link leads to the article's prefixed ids.
    expect(href("#part")).toContain('href="#user-content-part"');
    for (const url of ["javascript:alert(1)", "vbscript:x", "data:text/html,x", "tel:123", "ftp://e.com", "blob:x", "file:///etc/passwd"]) {
      expect(href(url)).toBe("<a>x</a>");
    }
  });

  test("images load only over http(s) or a relative path: data: URIs are dropped", () => {
    expect(sanitizeArticleHtml('<img src="data:image/png;base64,iVBORw0KGgo=" alt="a">')).toBe('<img alt="a">');
    expect(sanitizeArticleHtml('<img src="mailto:a@e.com">')).toBe("<img>");
    expect(sanitizeArticleHtml('<img src="/a.png">')).toBe('<img src="/a.png">');
  });

  test("drops name, style, data-* and aria-* (but the footnotes' aria-label and aria-describedby), and keeps ids only under user-content- (the markup lands inside another site's page)", () => {
    expect(sanitizeArticleHtml('<p id="x" name="y" style="color:red" data-toggle="modal" aria-hidden="true">p</p>')).toBe(
      '<p id="user-content-x">p</p>',
    );
    // No id of the host page's can be named, nor a global clobbered; prefixed once, so a second pass changes nothing.
    expect(sanitizeArticleHtml('<img id="getElementById"><a id="location">x</a><form id="body"></form>')).toBe(
      '<img id="user-content-getElementById"><a id="user-content-location">x</a>',
    );
    expect(sanitizeArticleHtml('<p id="user-content-x">p</p>')).toBe('<p id="user-content-x">p</p>');
    // Ids that are not a word's characters go: quotes, spaces, markup.
    expect(sanitizeArticleHtml('<p id="a b">p</p><p id="x&quot;><img>">q</p>')).toBe("<p>p</p><p>q</p>");
    // An in-page link stays on the page: no rel; an id written percent-encoded is the one the link names.
    expect(sanitizeArticleHtml('<a href="#a b">x</a> <a href="#%C3%BCber">y</a> <p id="%C3%BCber">z</p>')).toBe(
      '<a>x</a> <a href="#user-content-über">y</a> <p id="user-content-über">z</p>',
    );
    // A link a browser reads as another host's (a backslash is a slash there) leaves the site: rel as for one.
    expect(sanitizeArticleHtml('<a href="/\\evil.example">a</a><a href="\\\\evil.example">b</a><a href="/pricing">c</a>')).toBe(
      '<a href="/\\evil.example" rel="noopener noreferrer">a</a><a href="\\\\evil.example" rel="noopener noreferrer">b</a><a href="/pricing">c</a>',
    );
    // aria-describedby names the article's own ids, prefixed; anything else in it drops it.
    expect(sanitizeArticleHtml('<a href="#n" aria-describedby="label" aria-label="Back">1</a><a aria-describedby="a &quot;b">2</a>')).toBe(
      '<a href="#user-content-n" aria-describedby="user-content-label" aria-label="Back">1</a><a>2</a>',
    );
  });

  test("class survives only as language-* on code and pre", () => {
    expect(sanitizeArticleHtml('<pre class="btn language-ts"><code class="language-ts js-x">x</code></pre>')).toBe(
      '<pre class="language-ts"><code class="language-ts">x</code></pre>',
    );
    expect(sanitizeArticleHtml('<p class="language-ts">x</p>')).toBe("<p>x</p>");
  });

  test("removes svg, math, template, forms and embedded content", () => {
    const html =
      '<svg><circle r="1"></circle></svg><math><mi>x</mi></math><template>t</template>' +
      '<form><input value="v"><button>b</button><select><option>o</option></select></form>' +
      '<iframe src="https://e.com"></iframe><video src="https://e.com/v.mp4"></video>';
    expect(findUnsafeMarkup(sanitizeArticleHtml(html))).toEqual([]);
    expect(sanitizeArticleHtml(html)).not.toMatch(/<(svg|math|template|form|input|button|select|iframe|video)/);
  });

  test("every built-in attack comes out safe and stable", () => {
    for (const vector of ATTACK_VECTORS) {
      const output = sanitizeArticleHtml(vector.html);
      expect({ vector: vector.name, problems: findUnsafeMarkup(output) }).toEqual({ vector: vector.name, problems: [] });
      expect(sanitizeArticleHtml(output)).toBe(output);
    }
  }, 30_000);

  test("the refusal for unstable HTML carries a stable code and a sentence the user can act on", () => {
    const error = new UnsafeHtmlError();
    expect(error.status).toBe(400);
    expect(error.code).toBe("unsafe_html");
    expect(error.message).toMatch(/cannot be made safe/);
  });
});

describe("urlScheme", () => {
  test("reads the scheme the way a browser would, ignoring whitespace and control characters", () => {
    expect(urlScheme(" java\tscript:alert(1)")).toBe("javascript");
    expect(urlScheme("\u0001JavaScript:x")).toBe("javascript");
    expect(urlScheme("/relative:path")).toBeNull();
    expect(urlScheme("#a:b")).toBeNull();
  });
});

describe("selfTestSanitizer", () => {
  test("passes the real sanitizer", () => {
    expect(selfTestSanitizer(sanitizeArticleHtml)).toEqual({ ok: true });
  }, 30_000);

  test("refuses an identity sanitizer, naming the script vector", () => {
    const result = selfTestSanitizer((html) => html);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain('"script element" attack');
  });

  test("refuses a sanitizer that only strips <script>, naming the img onerror vector", () => {
    const result = selfTestSanitizer((html) => html.replace(/<script[\s\S]*?<\/script>/gi, ""));
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.reason).toContain('"img onerror" attack');
      expect(result.reason).toContain("onerror handler on <img>");
    }
  });

  test("refuses a sanitizer that also strips handlers but keeps javascript: links", () => {
    const result = selfTestSanitizer((html) =>
      html
        .replace(/<script[\s\S]*?<\/script>/gi, "")
        .replace(/\son\w+=("[^"]*"|'[^']*'|[^\s>]+)/gi, "")
        .replace(/<svg[\s\S]*$/i, ""),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/javascript: URL in href/);
  });

  test("refuses a sanitizer that deletes everything", () => {
    const result = selfTestSanitizer(() => "");
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain("mangled ordinary markup");
  });

  test("refuses a sanitizer whose output changes when sanitized again", () => {
    let calls = 0;
    const result = selfTestSanitizer((html) => `${sanitizeArticleHtml(html)}${calls++ % 2 === 0 ? "" : "<p>x</p>"}`);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain("not stable");
  });
});
