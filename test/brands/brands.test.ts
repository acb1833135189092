import { afterEach, describe, expect, test } from "bun:test";
import { findAccountByEmail } from "../../src/accounts/service";
import { normalizeDomain } from "../../src/brands/domain";
import { createBrand, getBrand, resolveBrandRef, updateBrand } from "../../src/brands/service";
import { buildCatalog } from "../../src/catalogue/registry";
import { TOOLS } from "../../src/catalogue/tools";
import { type TestApp, testApp } from "../support/http";

let t: TestApp;
afterEach(() => t?.close());

describe("normalizeDomain", () => {
  test("reduces what people type to the bare host", () => {
    expect(normalizeDomain("https://www.Example.com/pricing?x=1#top")).toBe("example.com");
    expect(normalizeDomain("  EXAMPLE.com.  ")).toBe("example.com");
    expect(normalizeDomain("blog.example.co.uk:8443")).toBe("blog.example.co.uk");
    expect(normalizeDomain("//user@shop.example.org/")).toBe("shop.example.org");
    expect(normalizeDomain("bücher.de")).toBe("xn--bcher-kva.de");
    expect(normalizeDomain("me.github.io")).toBe("me.github.io");
  });

  test("rejects what is not a host under a public suffix, naming the field", () => {
    for (const bad of ["", "localhost", "co.uk", "1.2.3.4", "[::1]", "exa mple.com", "-x.com", "host.notarealtld", "http://"]) {
      expect(() => normalizeDomain(bad)).toThrow(/^domain: /);
    }
    expect(() => normalizeDomain("nope", "domains[1]")).toThrow(/^domains\[1\]: "nope" is not a domain name/);
    // A well-formed name outside the public web (a reserved or mistyped ending) says so.
    for (const reserved of ["roadrunner.example", "shop.test", "intranet.local", "acme.comm"]) {
      expect(() => normalizeDomain(`https://www.${reserved}/path`, "domains[0]")).toThrow(
        `domains[0]: "https://www.${reserved}/path" does not end in a public domain ending (such as .com or .co.uk): AI answers cite sites on the public web; give a host such as example.com.`,
      );
    }
  });
});

describe("brands service (used by the tool server)", () => {
  test("getBrand and updateBrand return the {id,name,domain,aliases,site_key} view", async () => {
    t = await testApp();
    await t.signIn("a@example.com");
    const account = (await findAccountByEmail(t.db, "a@example.com"))!;
    const brand = await createBrand(t.db, account.id, { name: "Acme", domain: "acme.com" });
    expect(await getBrand(t.db, brand.id)).toEqual(brand);
    const updated = await updateBrand(t.ctx, brand.id, { name: "Acme Corp", aliases: ["ACME", "acme", "Acme Co"] });
    expect(updated).toEqual({
      id: brand.id,
      name: "Acme Corp",
      domain: "acme.com",
      aliases: ["ACME", "Acme Co"],
      site_key: brand.site_key,
    });
    // An alias that is the name itself (case and spacing aside) says nothing more: dropped, as a
    // competitor's is, when the aliases are given and when the name becomes one of them.
    expect((await updateBrand(t.ctx, brand.id, { aliases: ["acme  corp", "ACME", "Acme Co"] })).aliases).toEqual(["ACME", "Acme Co"]);
    expect((await updateBrand(t.ctx, brand.id, { name: "Acme Co" })).aliases).toEqual(["ACME"]);
    await updateBrand(t.ctx, brand.id, { name: "Acme Corp", aliases: ["ACME", "Acme Co"] });
    expect((await createBrand(t.db, account.id, { name: "Globex", aliases: ["GLOBEX", "Globex Inc"] })).aliases).toEqual(["Globex Inc"]);
    expect((await updateBrand(t.ctx, brand.id, { domain: null })).domain).toBeNull();
    expect((await updateBrand(t.ctx, brand.id, { domain: "https://www.acme.io/" })).domain).toBe("acme.io");
    expect(await updateBrand(t.ctx, brand.id, {})).toEqual(await getBrand(t.db, brand.id));
    await expect(updateBrand(t.ctx, brand.id, { name: "" })).rejects.toThrow(/^name: /);
    await expect(updateBrand(t.ctx, brand.id, { aliases: ["ab"] })).rejects.toThrow(/^aliases: /);
    await expect(updateBrand(t.ctx, brand.id, { domain: "nope" })).rejects.toThrow(/^domain: /);
    await expect(getBrand(t.db, "brd_missing")).rejects.toThrow("Brand not found.");
    await expect(updateBrand(t.ctx, "brd_missing", { name: "X" })).rejects.toThrow("Brand not found.");
    // Another brand of the account keeps its name to itself; a brand may change its own name's case.
    const beta = await createBrand(t.db, account.id, { name: "Beta" });
    await expect(updateBrand(t.ctx, beta.id, { name: "acme corp" })).rejects.toThrow(
      `The account already has a brand named "Acme Corp" (${brand.id}); give this brand another name.`,
    );
    expect((await updateBrand(t.ctx, brand.id, { name: "ACME CORP" })).name).toBe("ACME CORP");
  });
});

describe("--brand on the command line: an id or a name", () => {
  test("a brand is found by its id or its name (any case, any width), within the account when one is given", async () => {
    t = await testApp();
    await t.signIn("a@example.com");
    await t.signIn("b@example.com");
    const a = (await findAccountByEmail(t.db, "a@example.com"))!.id;
    const b = (await findAccountByEmail(t.db, "b@example.com"))!.id;
    const acme = await createBrand(t.db, a, { name: "Acme CRM" });
    const beta = await createBrand(t.db, a, { name: "Beta" });
    const othersAcme = await createBrand(t.db, b, { name: "acme crm" });
    expect(await resolveBrandRef(t.db, acme.id, a)).toBe(acme.id);
    expect(await resolveBrandRef(t.db, "acme crm", a)).toBe(acme.id);
    expect(await resolveBrandRef(t.db, "ＡＣＭＥ CRM", a)).toBe(acme.id);
    expect(await resolveBrandRef(t.db, "acme crm", b)).toBe(othersAcme.id);
    // Without an account (spyglass track), among every brand: a name two share is refused with their ids.
    expect(await resolveBrandRef(t.db, "BETA", null)).toBe(beta.id);
    expect(await resolveBrandRef(t.db, othersAcme.id, null)).toBe(othersAcme.id);
    const ambiguous = await resolveBrandRef(t.db, "Acme CRM", null).then(
      () => "",
      (error: Error) => error.message,
    );
    // Oldest first (made within a millisecond, the two may come in either order).
    expect([
      `2 brands are named "Acme CRM": give one's id with --brand (${acme.id}, ${othersAcme.id}).`,
      `2 brands are named "Acme CRM": give one's id with --brand (${othersAcme.id}, ${acme.id}).`,
    ]).toContain(ambiguous);
    // Another account's brand, by id, is not this account's; nor is a name nobody has.
    await expect(resolveBrandRef(t.db, othersAcme.id, a)).rejects.toThrow(`No brand of this account has the id "${othersAcme.id}".`);
    await expect(resolveBrandRef(t.db, "Gamma", a)).rejects.toThrow(
      'No brand of this account has the id or name "Gamma" (spyglass brand list --email E shows the account\'s brands).',
    );
    await expect(resolveBrandRef(t.db, "Gamma", null)).rejects.toThrow('No brand has the id or name "Gamma"');
    // A brand named after another brand's id is not found by that id (a review deleted the wrong brand).
    const impostor = await createBrand(t.db, b, { name: acme.id });
    expect(await resolveBrandRef(t.db, acme.id, null)).toBe(acme.id);
    await expect(resolveBrandRef(t.db, acme.id, b)).rejects.toThrow(`No brand of this account has the id "${acme.id}".`);
    expect(await resolveBrandRef(t.db, impostor.id, b)).toBe(impostor.id);
  });
});

describe("re-analysis after a change of the brand's roster", () => {
  test("update_brand and updateBrand with the values the brand already has re-analyse nothing", async () => {
    t = await testApp();
    await t.signIn("a@example.com", { plan: "visibility" });
    const account = (await findAccountByEmail(t.db, "a@example.com"))!;
    const brand = await createBrand(t.db, account.id, { name: "Acme", domain: "acme.com", aliases: ["Acme Co"] });
    const reanalyses = () => t.ctx.tracking.reanalysis.rosterVersion(brand.id);
    const before = reanalyses();

    expect(await updateBrand(t.ctx, brand.id, { name: "Acme", domain: "https://www.acme.com/", aliases: ["Acme Co"] })).toEqual(brand);
    expect(await updateBrand(t.ctx, brand.id, {})).toEqual(brand);
    const catalogue = buildCatalog(TOOLS);
    const principal = {
      account: { id: account.id },
      brand: { id: brand.id, name: brand.name, domain: brand.domain },
      plan: "visibility" as const,
    };
    const result = await catalogue.call(t.ctx, principal, "test", "update_brand", {
      name: "Acme",
      domain: "acme.com",
      aliases: ["Acme Co"],
    });
    expect(result).toEqual({ ok: true, value: { brand } });
    expect(reanalyses()).toBe(before);

    await catalogue.call(t.ctx, principal, "test", "update_brand", { aliases: ["Acme Company"] });
    expect(reanalyses()).toBe(before + 1);
    await updateBrand(t.ctx, brand.id, { domain: null });
    expect(reanalyses()).toBe(before + 2);
  });
});

describe("GET/POST /api/brands", () => {
  test("creates a brand with a normalised domain, deduplicated aliases and a pk_ site key", async () => {
    t = await testApp();
    const cookie = await t.signIn("a@example.com");
    expect((await t.call("GET", "/api/brands", { cookie })).json).toEqual({ brands: [] });
    const res = await t.call("POST", "/api/brands", {
      cookie,
      body: { name: "  Acme  ", domain: "https://www.ACME.com/about", aliases: ["Acme Inc", "ACME INC", " Acme Co "] },
    });
    expect(res.status).toBe(201);
    expect(res.json.brand).toEqual({
      id: expect.stringMatching(/^brd_/),
      name: "Acme",
      domain: "acme.com",
      aliases: ["Acme Inc", "Acme Co"],
      site_key: expect.stringMatching(/^pk_[0-9a-f]{32}$/),
    });
    const second = await t.call("POST", "/api/brands", { cookie, body: { name: "Beta" } });
    expect(second.json.brand.domain).toBeNull();
    expect(second.json.brand.site_key).not.toBe(res.json.brand.site_key);
    const list = await t.call("GET", "/api/brands", { cookie });
    expect(list.json.brands.map((b: { name: string }) => b.name)).toEqual(["Acme", "Beta"]);
  });

  test("a second brand of the same name (any case, any width) in one account is a 409 brand_exists", async () => {
    t = await testApp();
    const cookie = await t.signIn("a@example.com", { plan: "visibility" });
    const acme = (await t.call("POST", "/api/brands", { cookie, body: { name: "Acme" } })).json.brand;
    const dup = await t.call("POST", "/api/brands", { cookie, body: { name: " ACME " } });
    expect(dup.status).toBe(409);
    expect(dup.json).toEqual({
      error: `The account already has a brand named "Acme" (${acme.id}); give this brand another name.`,
      code: "brand_exists",
    });
    // Compatibility forms are the letters they stand for: a full-width "Ａcme" is Acme too.
    expect((await t.call("POST", "/api/brands", { cookie, body: { name: "Ａcme" } })).json.code).toBe("brand_exists");
    const beta = (await t.call("POST", "/api/brands", { cookie, body: { name: "Beta" } })).json.brand;
    const renamed = await t.call("POST", `/api/brands/${beta.id}/tools/update_brand`, { cookie, body: { name: "ＡＣＭＥ" } });
    expect([renamed.status, renamed.json.code]).toEqual([409, "brand_exists"]);
    const other = await t.signIn("b@example.com");
    expect((await t.call("POST", "/api/brands", { cookie: other, body: { name: "Acme" } })).status).toBe(201);
  });

  test("each invalid field is a 400 whose sentence names it", async () => {
    t = await testApp();
    const cookie = await t.signIn("a@example.com");
    const cases: Array<[unknown, string]> = [
      [{}, "name"],
      [{ name: "" }, "name"],
      [{ name: "x".repeat(101) }, "name"],
      [{ name: "Acme", domain: "not a domain" }, "domain"],
      [{ name: "Acme", domain: 42 }, "domain"],
      [{ name: "Acme", aliases: "Acme" }, "aliases"],
      [{ name: "Acme", aliases: ["ok alias", "ab"] }, "aliases"],
      [{ name: "Acme", aliases: Array.from({ length: 21 }, (_, i) => `alias ${i}`) }, "aliases"],
      [[], "JSON object"],
    ];
    for (const [body, field] of cases) {
      const res = await t.call("POST", "/api/brands", { cookie, body });
      expect(res.status).toBe(400);
      expect(res.json.error).toContain(field);
      expect(typeof res.json.code).toBe("string");
    }
    const invalidJson = await t.call("POST", "/api/brands", { cookie, rawBody: "{nope" });
    expect(invalidJson.status).toBe(400);
    expect(invalidJson.json.code).toBe("invalid_json");
    expect((await t.call("GET", "/api/brands", { cookie })).json.brands).toHaveLength(0);
  });

  test("another account's brands are not listed", async () => {
    t = await testApp();
    const alice = await t.signIn("alice@example.com");
    const bob = await t.signIn("bob@example.com");
    expect((await t.call("POST", "/api/brands", { cookie: alice, body: { name: "Alice Co" } })).status).toBe(201);
    expect((await t.call("GET", "/api/brands", { cookie: alice })).json.brands.map((b: { name: string }) => b.name)).toEqual(["Alice Co"]);
    expect((await t.call("GET", "/api/brands", { cookie: bob })).json.brands).toEqual([]);
  });

  test("no session, a bearer key, cross-site and a non-JSON body are refused", async () => {
    t = await testApp();
    const cookie = await t.signIn("a@example.com");
    expect((await t.call("GET", "/api/brands")).status).toBe(401);
    const bearer = await t.call("POST", "/api/brands", {
      body: { name: "X" },
      headers: { authorization: `Bearer svc_live_${"A".repeat(43)}` },
    });
    expect(bearer.status).toBe(401);
    expect(bearer.json).toEqual({ error: "Unauthorized", code: "unauthorized" });
    const cross = await t.call("POST", "/api/brands", { cookie, body: { name: "X" }, headers: { "sec-fetch-site": "cross-site" } });
    expect(cross.status).toBe(403);
    expect(cross.json).toEqual({ error: "Forbidden", code: "cross_site" });
    const text = await t.call("POST", "/api/brands", { cookie, rawBody: '{"name":"X"}', headers: { "content-type": "text/plain" } });
    expect(text.status).toBe(415);
    expect((await t.call("GET", "/api/brands", { cookie })).json.brands).toHaveLength(0);
  });
});
