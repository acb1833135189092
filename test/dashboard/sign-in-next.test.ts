// Sign-in's ?next= (the consent page sends a signed-out visitor there and back) only ever leads to a
// path of this dashboard: nothing that a browser would read as another site.
import { describe, expect, test } from "bun:test";
import { nextPath } from "../../src/dashboard/web/pages/sign-in";

describe("sign-in's next path", () => {
  test("a path of the dashboard, query included, is followed", () => {
    expect(nextPath("/oauth/consent?client_id=x&state=y")).toBe("/oauth/consent?client_id=x&state=y");
    expect(nextPath("/brands/brd_1/keys")).toBe("/brands/brd_1/keys");
  });

  test("another site, in any spelling, leads home instead", () => {
    for (const next of [
      "https://evil.example/",
      "//evil.example/x",
      "/\\evil.example",
      "/\t/evil.example",
      "/\n/evil.example",
      "javascript:alert(1)",
      "",
      undefined,
    ]) {
      expect(nextPath(next)).toBe("/");
    }
  });
});
