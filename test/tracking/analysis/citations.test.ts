import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { registrableDomain } from "../../../src/public-suffixes";
import { extractCitations, normalizeUrl } from "../../../src/tracking/analysis/citations";
import { findUrls } from "../../../src/tracking/analysis/urls";

describe("normalizeUrl", () => {
  test.each([
    ["HTTPS://WWW.Acme.COM/Path/", "https://acme.com/Path"],
    ["https://acme.com/", "https://acme.com"],
    ["https://acme.com:443/a", "https://acme.com/a"],
    ["http://acme.com:80/a", "http://acme.com/a"],
    ["http://acme.com:8080/a", "http://acme.com:8080/a"],
    ["https://acme.com/a/?utm_source=x&q=1&UTM_Medium=y&gclid=1&fbclid=2#top", "https://acme.com/a?q=1"],
    ["https://acme.com/?utm_campaign=z", "https://acme.com"],
    ["https://user:secret@acme.com/a", "https://acme.com/a"],
    ["www.acme.com/pricing", "https://acme.com/pricing"],
    ["https://acme.com./x", "https://acme.com/x"],
    ["https://www.com/x", "https://www.com/x"],
  ])("%s → %s", (input, expected) => {
    expect(normalizeUrl(input)).toBe(expected);
  });

  test("anything but http(s) is ignored", () => {
    for (const url of ["ftp://acme.com", "mailto:a@acme.com", "javascript:alert(1)", "acme.com", "not a url", ""]) {
      expect(normalizeUrl(url)).toBeNull();
    }
  });
});

describe("registrableDomain", () => {
  test("is public-suffix aware", () => {
    expect(registrableDomain("blog.acme.co.uk")).toBe("acme.co.uk");
    expect(registrableDomain("a.b.acme.com")).toBe("acme.com");
    expect(registrableDomain("www.acme.com")).toBe("acme.com");
    expect(registrableDomain("acme.github.io")).toBe("acme.github.io");
    expect(registrableDomain("127.0.0.1")).toBe("127.0.0.1");
    expect(registrableDomain("localhost")).toBe("localhost");
  });
});

describe("extractCitations", () => {
  test("reads provider fields, markdown links and bare URLs, once each", () => {
    const text = [
      "Acme is popular ([review](https://www.review.io/acme?utm_source=chatgpt.com)).",
      "See https://acme.com/pricing/ and https://Acme.com/pricing#plans.",
      'Also <https://blog.acme.co.uk/post>, and ![logo](https://cdn.acme.com/logo.png "Logo").',
    ].join("\n");
    expect(extractCitations(text, ["https://acme.com/pricing?utm_medium=x", "https://other.org"])).toEqual([
      { url: "https://acme.com/pricing", domain: "acme.com" },
      { url: "https://other.org", domain: "other.org" },
      { url: "https://review.io/acme", domain: "review.io" },
      { url: "https://blog.acme.co.uk/post", domain: "acme.co.uk" },
      { url: "https://cdn.acme.com/logo.png", domain: "acme.com" },
    ]);
  });

  test("trims trailing punctuation from bare URLs but keeps balanced parentheses", () => {
    expect(findUrls("x https://a.com). y").map((u) => u.url)).toEqual(["https://a.com"]);
    expect(findUrls("(see https://a.com/b?c=1)").map((u) => u.url)).toEqual(["https://a.com/b?c=1"]);
    expect(findUrls("**https://a.com/x**, then").map((u) => u.url)).toEqual(["https://a.com/x"]);
    expect(findUrls("https://en.wikipedia.org/wiki/Acme_(company).").map((u) => u.url)).toEqual([
      "https://en.wikipedia.org/wiki/Acme_(company)",
    ]);
    expect(findUrls("[wiki](https://en.wikipedia.org/wiki/Acme_(company))").map((u) => u.url)).toEqual([
      "https://en.wikipedia.org/wiki/Acme_(company)",
    ]);
  });

  test("a bare URL ends at CJK punctuation, so the text after it is neither the URL nor lost", () => {
    const text =
      "詳しくは公式サイト（https://www.sony.co.jp/products）をご覧ください。「ソニー」のテレビ。比較記事：https://kakaku.com/tv/ソニー、https://ja.wikipedia.org/wiki/ソニー」";
    expect(findUrls(text).map((u) => u.url)).toEqual([
      "https://www.sony.co.jp/products",
      "https://kakaku.com/tv/ソニー",
      "https://ja.wikipedia.org/wiki/ソニー",
    ]);
    expect(extractCitations(text, []).map((c) => c.url)).toEqual([
      "https://sony.co.jp/products",
      "https://kakaku.com/tv/%E3%82%BD%E3%83%8B%E3%83%BC",
      "https://ja.wikipedia.org/wiki/%E3%82%BD%E3%83%8B%E3%83%BC",
    ]);
  });

  test("an address written straight after Chinese or Japanese text is one, and ends where the text goes on", () => {
    expect(findUrls("詳細はhttps://www.sony.co.jp/tv/をご覧ください。パナソニックも人気です。").map((u) => u.url)).toEqual([
      "https://www.sony.co.jp/tv/",
    ]);
    expect(findUrls("详情请访问https://www.haier.com/cn/了解更多。").map((u) => u.url)).toEqual(["https://www.haier.com/cn/"]);
    // A Latin letter or a dot before it still glues (xhttp://, a.www.).
    expect(findUrls("xhttp://a.com and a.www.b.com").map((u) => u.url)).toEqual([]);
  });

  test("percent-escapes in either case are one page", () => {
    expect(
      extractCitations("https://pt.wikipedia.org/wiki/Ita%c3%ba_Unibanco and https://pt.wikipedia.org/wiki/Ita%C3%BA_Unibanco", []),
    ).toEqual([{ url: "https://pt.wikipedia.org/wiki/Ita%C3%BA_Unibanco", domain: "wikipedia.org" }]);
  });

  test("ignores non-http(s) links and relative targets", () => {
    expect(extractCitations("[mail](mailto:a@b.com) [rel](/docs) ftp://x.org/file", [])).toEqual([]);
  });
});

const host = fc.tuple(fc.constantFrom("", "www.", "WWW.", "blog."), fc.domain()).map(([prefix, domain]) => prefix + domain);
const trackingKey = fc.oneof(
  fc.stringMatching(/^[a-z]{1,8}$/).map((s) => `utm_${s}`),
  fc.constantFrom("UTM_Source", "utm_", "gclid", "fbclid", "utm%5Fsource"),
);
const plainKey = fc.stringMatching(/^[a-tv-z][a-z0-9]{0,6}$/).filter((k) => k !== "gclid" && k !== "fbclid");
const param = fc.tuple(fc.oneof(trackingKey, plainKey), fc.stringMatching(/^[A-Za-z0-9%._-]{0,6}$/)).map(([k, v]) => `${k}=${v}`);
const messyUrl = fc
  .tuple(
    fc.constantFrom("http://", "https://", "HTTPS://"),
    host,
    fc.constantFrom("", ":80", ":443", ":8080"),
    fc.webPath(),
    fc.constantFrom("", "/", "//"),
    fc.array(param, { maxLength: 5 }),
    fc.oneof(
      fc.constant(""),
      fc.webFragments().map((f) => `#${f}`),
    ),
  )
  .map(([scheme, h, port, path, slash, params, fragment]) => {
    const query = params.length > 0 ? `?${params.join("&")}` : "";
    return `${scheme}${h}${port}${path}${slash}${query}${fragment}`;
  });

describe("normalizeUrl properties", () => {
  test("is idempotent", () => {
    fc.assert(
      fc.property(fc.oneof(messyUrl, fc.webUrl({ withQueryParameters: true, withFragments: true })), (url) => {
        const once = normalizeUrl(url);
        if (once !== null) expect(normalizeUrl(once)).toBe(once);
      }),
      { numRuns: 500 },
    );
  });

  test("tracking parameters, fragments, www. and trailing slashes never survive", () => {
    fc.assert(
      fc.property(messyUrl, (url) => {
        const out = normalizeUrl(url);
        expect(out).not.toBeNull();
        const parsed = new URL(out!);
        for (const key of parsed.searchParams.keys()) {
          expect(key.toLowerCase().startsWith("utm_")).toBe(false);
          expect(["gclid", "fbclid"]).not.toContain(key.toLowerCase());
        }
        expect(out).not.toContain("#");
        // www. goes, except where what follows is a bare suffix ("www.com", or a generated "www.aa").
        if (parsed.hostname.startsWith("www.")) expect(parsed.hostname.slice(4)).not.toContain(".");
        expect(parsed.hostname).toBe(parsed.hostname.toLowerCase());
        expect(out!.split("?")[0]!.endsWith("/")).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  test("the same page with different tracking is one citation", () => {
    fc.assert(
      fc.property(fc.domain(), fc.array(trackingKey, { minLength: 1, maxLength: 3 }), (domain, keys) => {
        const tracked = `https://www.${domain}/page/?${keys.map((k) => `${k}=1`).join("&")}#x`;
        expect(extractCitations(`${tracked} and https://${domain}/page`, [])).toHaveLength(1);
      }),
    );
  });
});
