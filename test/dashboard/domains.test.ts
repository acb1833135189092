// The dashboard's readable forms of internationalised domains and addresses (components/domains.ts):
// decoded for people, kept as stored where a name could pass for another.
import { expect, test } from "bun:test";
import { readableDomain, readableUrl } from "../../src/dashboard/web/components/domains";

test("an internationalised domain reads as people write it, in Latin, CJK and other scripts alone", () => {
  expect(readableDomain("xn--mller-kchen-thbg.de")).toBe("müller-küchen.de");
  expect(readableDomain("xn--tckwe.jp")).toBe("コム.jp");
  expect(readableDomain("xn--mgbh0fb.xn--kgbechtv")).toBe("مثال.إختبار");
  expect(readableDomain("acme.com")).toBe("acme.com");
});

test("a name that could pass for another stays as stored: Cyrillic or Greek letters, or Latin mixed with another script", () => {
  // "аpple.com" with a Cyrillic а, and an all-Cyrillic look-alike.
  expect(readableDomain("xn--pple-43d.com")).toBe("xn--pple-43d.com");
  expect(readableDomain("xn--80ak6aa92e.com")).toBe("xn--80ak6aa92e.com");
  // Latin with Arabic in one label.
  expect(readableDomain("xn--acme-35fx0pf.com")).toBe("xn--acme-35fx0pf.com");
});

test("an address reads with its host and path decoded; anything else, or a broken escape, as given", () => {
  expect(readableUrl("https://xn--mller-kchen-thbg.de/k%C3%BCchen?x=%C3%A4#a")).toBe("https://müller-küchen.de/küchen?x=ä#a");
  expect(readableUrl("https://a.com/%E0%A4%A")).toBe("https://a.com/%E0%A4%A");
  expect(readableUrl("javascript:alert(1)")).toBe("javascript:alert(1)");
  expect(readableUrl("not a url")).toBe("not a url");
});
