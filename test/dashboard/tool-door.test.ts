// The dashboard's door onto the catalogue, in process: a session runs the same tools as an API key,
// for a brand its account owns, with the same plan gate, results and error sentences.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { findAccountByEmail } from "../../src/accounts/service";
import { noToolsFor } from "../../src/catalogue/registry";
import { TOOLS } from "../../src/catalogue/tools";
import { errorBody } from "../../src/errors";
import { createApiKey } from "../../src/keys/service";
import { type TestApp, testApp } from "../support/http";

let t: TestApp;
const cookie: Record<string, string> = {};
const brand: Record<string, string> = {};
let visibilityKey: string;

/** A tools/call through the MCP door with an API key, as an AI client would make it. */
async function viaKey(key: string, name: string, args: Record<string, unknown>) {
  const res = await t.call("POST", "/api/mcp/mcp", {
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } },
    headers: { authorization: `Bearer ${key}`, accept: "application/json, text/event-stream" },
  });
  return res.json.result as { structuredContent?: unknown; content: Array<{ text: string }>; isError?: boolean };
}

function runTool(who: string, brandId: string, name: string, body: unknown = {}) {
  return t.call("POST", `/api/brands/${brandId}/tools/${name}`, { cookie: cookie[who], body });
}

beforeAll(async () => {
  t = await testApp();
  for (const [who, plan] of [
    ["vis", "visibility"],
    ["auto", "autopilot"],
    ["free", "none"],
  ] as const) {
    cookie[who] = await t.signIn(`${who}@example.com`, { plan });
    const created = await t.call("POST", "/api/brands", { cookie: cookie[who], body: { name: `${who} brand` } });
    brand[who] = created.json.brand.id;
  }
  visibilityKey = (await createApiKey(t.db, (await findAccountByEmail(t.db, "vis@example.com"))!.id, { name: "k", brandId: brand.vis }))
    .plaintext;
});

afterAll(() => t.close());

describe("the session door onto the catalogue", () => {
  test("a session runs a tool for its own brand, and an API key of that brand sees the change", async () => {
    const res = await runTool("vis", brand.vis!, "create_tag", { name: "Pricing", color: "#3b82f6" });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      tag: { id: expect.stringMatching(/^tag_/), name: "Pricing", color: "#3b82f6", prompt_count: 0, created_at: expect.any(String) },
    });
    const listed = await viaKey(visibilityKey, "list_tags", {});
    expect(listed.structuredContent).toEqual({ tags: [res.json.tag], next_cursor: null });
    expect((await runTool("vis", brand.vis!, "list_tags")).json).toEqual(listed.structuredContent);
  });

  test("lists the tools the account's plan covers, as tools/list shows them to a key", async () => {
    const viaSession = await t.call("GET", `/api/brands/${brand.vis}/tools`, { cookie: cookie.vis });
    const viaMcp = await t.call("POST", "/api/mcp/mcp", {
      body: { jsonrpc: "2.0", id: 1, method: "tools/list" },
      headers: { authorization: `Bearer ${visibilityKey}`, accept: "application/json, text/event-stream" },
    });
    expect(viaSession.status).toBe(200);
    expect(viaSession.json).toEqual(viaMcp.json.result);
    expect(viaSession.json.tools.map((x: { name: string }) => x.name)).not.toContain("create_article");
  });

  test("invalid input is a 400 with the tool server's sentence", async () => {
    const res = await runTool("vis", brand.vis!, "create_tag", { name: "x", brand_id: brand.auto });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      error: 'Invalid input for create_tag: Unknown field "brand_id" (each key or sign-in acts for one brand: no tool takes a brand id).',
      code: "invalid_input",
    });
    expect((await viaKey(visibilityKey, "create_tag", { name: "x", brand_id: brand.auto })).content[0]!.text).toBe(res.json.error);
  });

  test("a service's own error keeps its sentence and status", async () => {
    const res = await runTool("vis", brand.vis!, "create_tag", { name: "pricing" });
    expect(res.status).toBe(409);
    expect(res.json.error).toBe((await viaKey(visibilityKey, "create_tag", { name: "pricing" })).content[0]!.text);
  });

  test("a tool above the account's plan is 403 plan_required naming the plan", async () => {
    const res = await runTool("vis", brand.vis!, "create_article", { markdown: "# Hi" });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({
      error:
        "create_article requires the Autopilot plan; this account is on the Visibility plan. To upgrade: the instance's owner sets it on the dashboard's Accounts page, or run spyglass account plan --email E --plan autopilot (E: the account's email).",
      code: "plan_required",
      required_plan: "autopilot",
    });
    // Plan none: the tool server's door refuses every request of such a key with one answer (the MCP
    // tests check it there), and so does the session door, for every tool and for the list (a review found the list answered
    // 200 with no tools and each tool its own plan sentence).
    const doorBody = errorBody(noToolsFor("none")!);
    for (const none of [
      await runTool("free", brand.free!, "get_brand"),
      await t.call("GET", `/api/brands/${brand.free}/tools`, { cookie: cookie.free }),
    ]) {
      expect(none.status).toBe(403);
      expect(none.json).toEqual(doorBody);
      expect(none.json.error).toStartWith("This account has no paid plan");
    }
    expect((await t.call("GET", `/api/brands/${brand.free}/export/list_tags.csv`, { cookie: cookie.free })).json).toEqual(doorBody);
    expect((await runTool("auto", brand.auto!, "create_article", { markdown: "# Hi" })).status).toBe(200);
  });

  test("another account's brand is 404, and nothing of it changes", async () => {
    const res = await runTool("auto", brand.vis!, "create_tag", { name: "Stolen" });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: "Brand not found.", code: "brand_not_found" });
    expect((await t.call("GET", `/api/brands/${brand.vis}/tools`, { cookie: cookie.auto })).status).toBe(404);
    expect((await runTool("auto", "brd_does_not_exist", "list_tags")).status).toBe(404);
    const names = ((await viaKey(visibilityKey, "list_tags", {})).structuredContent as { tags: Array<{ name: string }> }).tags;
    expect(names.map((x) => x.name)).toEqual(["Pricing"]);
  });

  test("an unknown tool is 404 unknown_tool", async () => {
    const res = await runTool("vis", brand.vis!, "drop_tables");
    expect(res.status).toBe(404);
    expect(res.json.code).toBe("unknown_tool");
  });

  test("a path whose percent-escape does not decode is 404, not a fault", async () => {
    // Elysia hands such a parameter to the route as null (a review found a 500 on both).
    for (const res of [
      await runTool("vis", brand.vis!, "%ZZ"),
      await t.call("GET", `/api/brands/${brand.vis}/export/%ZZ.csv`, { cookie: cookie.vis }),
      await t.call("GET", "/api/brands/%ZZ/tools", { cookie: cookie.vis }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.json.code).toBe("not_found");
    }
  });

  test("no session is 401, and an API key is not a session", async () => {
    const anonymous = await t.call("POST", `/api/brands/${brand.vis}/tools/list_tags`, { body: {} });
    expect(anonymous.status).toBe(401);
    const withKey = await t.call("POST", `/api/brands/${brand.vis}/tools/list_tags`, {
      body: {},
      headers: { authorization: `Bearer ${visibilityKey}` },
    });
    expect(withKey.status).toBe(401);
  });

  test("a cross-site request or a body that is not JSON is refused before the tool runs", async () => {
    const crossSite = await t.call("POST", `/api/brands/${brand.vis}/tools/create_tag`, {
      cookie: cookie.vis,
      body: { name: "Cross" },
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(crossSite.status).toBe(403);
    const form = await t.call("POST", `/api/brands/${brand.vis}/tools/create_tag`, {
      cookie: cookie.vis,
      rawBody: "name=Form",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    const names = ((await viaKey(visibilityKey, "list_tags", {})).structuredContent as { tags: Array<{ name: string }> }).tags;
    expect(names.map((x) => x.name)).toEqual(["Pricing"]);
  });
});

describe("every tool of the catalogue", () => {
  test("is reachable through the session door: each answers with its own result or its own sentence", async () => {
    for (const tool of TOOLS) {
      const res = await runTool("auto", brand.auto!, tool.name, { no_such_field: true });
      // A strict input refuses the stray field by name: the call reached the tool's declaration.
      expect([tool.name, res.status, res.json.code]).toEqual([tool.name, 400, "invalid_input"]);
      expect(res.json.error).toStartWith(`Invalid input for ${tool.name}: `);
      expect(res.json.error).toContain('Unknown field "no_such_field"');
    }
  });
});

describe("methods the session door does not serve", () => {
  test("are 405 with Allow, before the session is looked at", async () => {
    for (const [method, path, allow] of [
      ["PUT", `/api/brands/${"brd_x"}/tools/list_tags`, "POST"],
      ["GET", `/api/brands/${"brd_x"}/tools/list_tags`, "POST"],
      ["DELETE", `/api/brands/${"brd_x"}/tools`, "GET"],
      ["PATCH", "/api/accounts/acc_x/plan", "POST"],
      ["PUT", "/api/accounts", "GET, POST"],
      ["POST", "/api/auth/status", "GET"],
    ] as const) {
      const res = await t.call(method, path, { body: {} });
      expect([method, path, res.status, res.headers.get("allow")]).toEqual([method, path, 405, allow]);
    }
  });
});
