// The competitor tools in process, through the MCP door (the SDK client on app.handle with a bearer
// key): the happy paths, the errors with their sentences, and the security cases side by side. The
// same tools against the compiled binary: test/e2e/mcp.test.ts.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { call, rpc } from "../support/mcp";
import { type SeededToolServer, seededToolServer } from "../support/tool-server";

const COMPETITOR_NOT_FOUND = "Competitor not found; list_competitors shows the brand's competitors and their ids.";

let s: SeededToolServer;
let a: Client;

beforeEach(async () => {
  s = await seededToolServer();
  a = await s.client(s.seed.a.key);
});
afterEach(() => s.close());

const names = async (client: Client): Promise<string[]> =>
  (await call(client, "list_competitors")).data.competitors.map((c: { name: string }) => c.name);

describe("creating and listing", () => {
  test("a competitor cannot be named like the brand itself (its name or an alias), on create or update", async () => {
    await call(a, "update_brand", { aliases: ["Acme"] });
    const rival = (await call(a, "list_competitors")).data.competitors[0];
    expect((await call(a, "create_competitor", { name: "acme  analytics" })).error).toBe(
      'name: "acme analytics" is the brand\'s own name; a competitor cannot have it, or every mention of the brand would count for both.',
    );
    expect((await call(a, "create_competitor", { name: "Contoso", aliases: ["Contoso Ltd", "ACME"] })).error).toBe(
      'aliases[1]: "ACME" is the brand\'s alias "Acme"; a competitor cannot have it, or every mention of the brand would count for both.',
    );
    expect((await call(a, "update_competitor", { competitor_id: rival.id, aliases: ["Acme"] })).error).toContain(
      'aliases[0]: "Acme" is the brand\'s alias "Acme"',
    );
    expect(await names(a)).toEqual(["Acme Rival"]);
    expect((await call(a, "list_competitors")).data.competitors[0]).toEqual(rival);
  });

  test("the brand cannot take a competitor's name, alias or domain, nor a competitor the brand's site; nothing changes", async () => {
    const brand = (await call(a, "get_brand")).data.brand;
    const rival = (await call(a, "list_competitors")).data.competitors[0];
    expect([rival.name, rival.aliases, rival.domains]).toEqual(["Acme Rival", ["AcmeR"], ["acme-rival.com"]]);
    // An alias that was a competitor's name counted every mention of it for both (visibility up by half on the demo).
    expect((await call(a, "update_brand", { aliases: ["Acme", "acme  rival"] })).error).toBe(
      `aliases[1]: "acme rival" is the name of the competitor Acme Rival (${rival.id}); the brand cannot have it, or every mention of that competitor would count for both.`,
    );
    expect((await call(a, "update_brand", { name: "ACMER" })).error).toBe(
      `name: "ACMER" is an alias of the competitor Acme Rival (${rival.id}); the brand cannot have it, or every mention of that competitor would count for both.`,
    );
    expect((await call(a, "update_brand", { domain: "https://www.acme-rival.com/pricing" })).error).toBe(
      `domain: acme-rival.com is a domain of the competitor Acme Rival (${rival.id}); take it off the competitor first (update_competitor), or its citations would count as the brand's.`,
    );
    // The same site either way round (at the domain level every citation of the brand's site is the brand's).
    await call(a, "update_competitor", { competitor_id: rival.id, domains: ["shop.acme-rival.com"] });
    for (const domain of ["acme-rival.com", "blog.acme-rival.com"]) {
      expect((await call(a, "update_brand", { domain })).error).toContain(
        `domain: ${domain} shares its site (acme-rival.com) with shop.acme-rival.com, which is a domain of the competitor Acme Rival`,
      );
    }
    // The other way: a competitor on the brand's own site (whose citations are always the brand's).
    expect((await call(a, "create_competitor", { name: "Zed Corp", domains: ["zed-corp.com", "ACME-analytics.com"] })).error).toBe(
      "domains[1]: acme-analytics.com is the brand's own domain (acme-analytics.com); its citations count as the brand's, never a competitor's.",
    );
    expect((await call(a, "update_competitor", { competitor_id: rival.id, domains: ["blog.acme-analytics.com"] })).error).toBe(
      "domains[0]: blog.acme-analytics.com shares its site (acme-analytics.com) with the brand's own domain (acme-analytics.com); its citations count as the brand's, never a competitor's.",
    );
    expect((await call(a, "get_brand")).data.brand).toEqual(brand);
    expect((await call(a, "list_competitors")).data.competitors).toEqual([{ ...rival, domains: ["shop.acme-rival.com"] }]);
    expect((await call(a, "update_brand", { aliases: ["Acme", "Acme Labs"] })).data.brand.aliases).toEqual(["Acme", "Acme Labs"]);
  });

  test("a clash stored before the checks does not block editing another field, on either side", async () => {
    const rival = (await call(a, "list_competitors")).data.competitors[0];
    // As an older build could store it: the competitor's alias is the brand's name.
    await s.t.db.run("UPDATE competitors SET aliases = ? WHERE id = ?", [JSON.stringify(["Acme Analytics"]), rival.id]);
    expect((await call(a, "update_competitor", { competitor_id: rival.id, domains: ["rival-shop.com"] })).data.competitor.domains).toEqual([
      "rival-shop.com",
    ]);
    expect((await call(a, "update_brand", { domain: "acme-labs.com" })).data.brand.domain).toBe("acme-labs.com");
    // Setting the clashing field again is refused, naming it.
    expect((await call(a, "update_competitor", { competitor_id: rival.id, aliases: ["Acme Analytics"] })).error).toStartWith(
      'aliases[0]: "Acme Analytics" is the brand\'s own name',
    );
  });

  test("create_competitor normalises domains to hosts and drops an alias that only repeats the name", async () => {
    const { data, error } = await call(a, "create_competitor", {
      name: "Contoso",
      aliases: ["Contoso Ltd", "contoso"],
      domains: ["HTTPS://www.Contoso.com/pricing?x=1", "contoso.co.uk"],
    });
    expect(error).toBeNull();
    expect(data.competitor).toMatchObject({ name: "Contoso", aliases: ["Contoso Ltd"], domains: ["contoso.com", "contoso.co.uk"] });
    expect(data.competitor.id).toMatch(/^cmp_/);
    expect(await names(a)).toEqual(["Acme Rival", "Contoso"]);
  });

  test("a competitor name that differs only in case is refused", async () => {
    expect((await call(a, "create_competitor", { name: "ACME RIVAL" })).error).toBe(
      'A competitor named "ACME RIVAL" already exists for this brand; update it instead.',
    );
    expect(await names(a)).toEqual(["Acme Rival"]);
  });

  test("names and aliases under 3 characters, and domains that are not domain names, are refused by field", async () => {
    const refusal = async (args: Record<string, unknown>) => (await call(a, "create_competitor", args)).error;
    expect(await refusal({ name: "AB" })).toBe(
      "name: a competitor's name must be 3 to 100 characters, or 2 in Chinese, Japanese or Korean script (shorter names match too much text).",
    );
    expect(await refusal({ name: "Fabrikam", aliases: ["FB"] })).toBe(
      "Invalid input for create_competitor: aliases[0] must be at least 3 characters.",
    );
    expect(await refusal({ name: "Fabrikam", domains: ["not a domain"] })).toBe(
      'domains[0]: "not a domain" is not a domain name; give a host such as example.com.',
    );
    expect(await refusal({ name: "Fabrikam", domains: ["192.168.1.1"] })).toBe(
      'domains[0]: "192.168.1.1" is not a domain name; give a host such as example.com.',
    );
    expect(await refusal({ name: "   ab   " })).toBe(
      "name: a competitor's name must be 3 to 100 characters, or 2 in Chinese, Japanese or Korean script (shorter names match too much text).",
    );
    expect(await names(a)).toEqual(["Acme Rival"]);
  });
});

describe("editing and deleting", () => {
  test("update_competitor replaces the fields it is given and keeps the others", async () => {
    const id = (await call(a, "create_competitor", { name: "Contoso", aliases: ["Contoso Ltd"] })).data.competitor.id;
    const { data } = await call(a, "update_competitor", { competitor_id: id, name: "Contoso Group", domains: ["www.contoso-group.com"] });
    expect(data.competitor).toMatchObject({ id, name: "Contoso Group", aliases: ["Contoso Ltd"], domains: ["contoso-group.com"] });
  });

  test("renaming onto another competitor's name is refused", async () => {
    const id = (await call(a, "create_competitor", { name: "Contoso" })).data.competitor.id;
    expect((await call(a, "update_competitor", { competitor_id: id, name: "acme rival" })).error).toBe(
      'A competitor named "acme rival" already exists for this brand; update it instead.',
    );
  });

  test("a name, alias or domain another competitor already has is refused, naming that competitor, on create and update", async () => {
    const fabrikam = (await call(a, "create_competitor", { name: "Fabrikam", aliases: ["Fabrikam Sales"], domains: ["fabrikam.com"] })).data
      .competitor;
    const before = (await call(a, "list_competitors")).data.competitors;
    expect((await call(a, "create_competitor", { name: "fabrikam  sales" })).error).toBe(
      `name: "fabrikam sales" is an alias of the competitor Fabrikam (${fabrikam.id}); add it there (update_competitor) rather than here, or each of its mentions would count for both.`,
    );
    expect((await call(a, "create_competitor", { name: "Contoso", aliases: ["Contoso Ltd", "FABRIKAM"] })).error).toContain(
      `aliases[1]: "FABRIKAM" is the name of the competitor Fabrikam (${fabrikam.id})`,
    );
    expect((await call(a, "create_competitor", { name: "Contoso", domains: ["www.fabrikam.com"] })).error).toBe(
      `domains[0]: fabrikam.com is already a domain of the competitor Fabrikam (${fabrikam.id}); a site belongs to one competitor.`,
    );
    const rival = before.find((c: { name: string }) => c.name === "Acme Rival");
    expect((await call(a, "update_competitor", { competitor_id: rival.id, aliases: ["Fabrikam Sales"] })).error).toContain(
      `aliases[0]: "Fabrikam Sales" is an alias of the competitor Fabrikam`,
    );
    expect((await call(a, "list_competitors")).data.competitors).toEqual(before);
    // A competitor's own fields are no clash with itself.
    expect(
      (await call(a, "update_competitor", { competitor_id: fabrikam.id, aliases: ["Fabrikam Sales", "Fabrikam Inc"] })).error,
    ).toBeNull();
  });

  test("delete_competitor removes it from the brand; it is then not found", async () => {
    const { data } = await call(a, "delete_competitor", { competitor_id: s.seed.a.ids.competitorId });
    expect(data.competitor).toMatchObject({ id: s.seed.a.ids.competitorId, name: "Acme Rival" });
    expect(await names(a)).toEqual([]);
    expect((await call(a, "get_brand")).data.competitors).toEqual([]);
    expect((await call(a, "update_competitor", { competitor_id: s.seed.a.ids.competitorId, name: "Again" })).error).toBe(
      COMPETITOR_NOT_FOUND,
    );
    expect((await call(a, "delete_competitor", { competitor_id: s.seed.a.ids.competitorId })).error).toBe(COMPETITOR_NOT_FOUND);
  });
});

describe("security", () => {
  test("another brand's competitor is not found, in the same words as one that never existed, and stays as it was", async () => {
    const b = await s.client(s.seed.b.key);
    const theirs = s.seed.a.ids.competitorId;
    expect((await call(b, "update_competitor", { competitor_id: theirs, name: "taken over" })).error).toBe(COMPETITOR_NOT_FOUND);
    expect((await call(b, "delete_competitor", { competitor_id: theirs })).error).toBe(COMPETITOR_NOT_FOUND);
    expect((await call(b, "update_competitor", { competitor_id: "cmp_doesnotexist00", name: "x y z" })).error).toBe(COMPETITOR_NOT_FOUND);
    expect((await call(a, "list_competitors")).data.competitors).toMatchObject([
      { id: theirs, name: "Acme Rival", aliases: ["AcmeR"], domains: ["acme-rival.com"] },
    ]);
  });

  test("another brand may track a competitor of the same name: names are unique per brand", async () => {
    const b = await s.client(s.seed.b.key);
    expect((await call(b, "create_competitor", { name: "Acme Rival" })).error).toBeNull();
    expect(await names(b)).toEqual(["Borealis Rival", "Acme Rival"]);
    expect(await names(a)).toEqual(["Acme Rival"]);
  });

  test("no credential and a revoked-looking key get 401; an account without a paid plan gets 403; nothing is stored", async () => {
    const create = rpc("tools/call", { name: "create_competitor", arguments: { name: "Sneaked In" } });
    const missing = await s.post({}, create);
    expect([missing.status, missing.json.code]).toEqual([401, "unauthorized"]);
    expect(missing.headers.get("www-authenticate")).toBe('Bearer realm="spyglass", error="invalid_token"');
    const malformed = await s.post({ authorization: "Basic YTpi" }, create);
    expect([malformed.status, malformed.json.code]).toEqual([401, "unauthorized"]);
    const none = await s.post({ authorization: `Bearer ${s.seed.none.key}` }, create);
    expect([none.status, none.json.code]).toEqual([403, "plan_required"]);
    expect(await s.t.db.all("SELECT * FROM competitors WHERE name = ?", ["Sneaked In"])).toEqual([]);
  });
});
