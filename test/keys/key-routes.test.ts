import { afterEach, describe, expect, test } from "bun:test";
import { verifyBearerKey } from "../../src/keys/service";
import { type TestApp, testApp } from "../support/http";

let t: TestApp;
afterEach(() => t?.close());

async function withBrand(email: string, plan: "none" | "visibility" | "autopilot" = "visibility") {
  const cookie = await t.signIn(email, { plan });
  const brand = (await t.call("POST", "/api/brands", { cookie, body: { name: `${email} brand` } })).json.brand;
  return { cookie, brandId: brand.id as string };
}

describe("POST /api/mcp/keys", () => {
  test("creates a key on the account's first brand and shows the plaintext once", async () => {
    t = await testApp();
    const { cookie, brandId } = await withBrand("a@example.com");
    await t.call("POST", "/api/brands", { cookie, body: { name: "Second" } });
    const res = await t.call("POST", "/api/mcp/keys", { cookie, body: { name: "Claude Desktop" } });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      key: {
        id: expect.stringMatching(/^key_/),
        name: "Claude Desktop",
        key_prefix: expect.stringMatching(/^svc_live_[A-Za-z0-9_-]{4}$/),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
        brand_id: brandId,
      },
      plaintext: expect.stringMatching(/^svc_live_[A-Za-z0-9_-]{43}$/),
    });
    expect(res.json.plaintext.startsWith(res.json.key.key_prefix)).toBe(true);
    const list = await t.call("GET", "/api/mcp/keys", { cookie });
    expect(list.text).not.toContain(res.json.plaintext);
  });

  test("brand_id picks one of the account's brands; another account's brand is 404", async () => {
    t = await testApp();
    const alice = await withBrand("alice@example.com");
    const second = (await t.call("POST", "/api/brands", { cookie: alice.cookie, body: { name: "Second" } })).json.brand.id;
    const bob = await withBrand("bob@example.com");
    const res = await t.call("POST", "/api/mcp/keys", { cookie: alice.cookie, body: { name: "k", brand_id: second } });
    expect(res.json.key.brand_id).toBe(second);
    const foreign = await t.call("POST", "/api/mcp/keys", { cookie: alice.cookie, body: { name: "k", brand_id: bob.brandId } });
    expect(foreign.status).toBe(404);
    expect(foreign.json.code).toBe("brand_not_found");
    const unknown = await t.call("POST", "/api/mcp/keys", { cookie: alice.cookie, body: { name: "k", brand_id: "brd_nope" } });
    expect(unknown.status).toBe(404);
    expect((await t.call("POST", "/api/mcp/keys", { cookie: alice.cookie, body: { name: "k", brand_id: 7 } })).status).toBe(400);
  });

  test("no brand is 409 no_brand; plan none is 403 plan_required", async () => {
    t = await testApp();
    const noBrand = await t.signIn("a@example.com", { plan: "visibility" });
    const res = await t.call("POST", "/api/mcp/keys", { cookie: noBrand, body: { name: "k" } });
    expect(res.status).toBe(409);
    expect(res.json.code).toBe("no_brand");
    const free = await withBrand("free@example.com", "none");
    const plan = await t.call("POST", "/api/mcp/keys", { cookie: free.cookie, body: { name: "k" } });
    expect(plan.status).toBe(403);
    expect(plan.json.code).toBe("plan_required");
  });

  test("the 21st active key is 409 key_limit; revoking one makes room", async () => {
    t = await testApp();
    const { cookie } = await withBrand("a@example.com", "autopilot");
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) {
      const res = await t.call("POST", "/api/mcp/keys", { cookie, body: { name: `key ${i}` } });
      expect(res.status).toBe(201);
      ids.push(res.json.key.id);
    }
    const over = await t.call("POST", "/api/mcp/keys", { cookie, body: { name: "one too many" } });
    expect(over.status).toBe(409);
    expect(over.json.code).toBe("key_limit");
    expect((await t.call("DELETE", `/api/mcp/keys/${ids[0]}`, { cookie })).status).toBe(204);
    expect((await t.call("POST", "/api/mcp/keys", { cookie, body: { name: "replacement" } })).status).toBe(201);
  });

  test("a name must be 1 to 100 characters", async () => {
    t = await testApp();
    const { cookie } = await withBrand("a@example.com");
    // Characters, not UTF-16 units: 100 emoji are 100 characters (a review found them refused).
    for (const name of [undefined, "", "   ", "x".repeat(101), "🔑".repeat(101), 5]) {
      const res = await t.call("POST", "/api/mcp/keys", { cookie, body: { name } });
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: expect.stringContaining("name"), code: "invalid_name" });
    }
    expect((await t.call("POST", "/api/mcp/keys", { cookie, body: { name: "x".repeat(100) } })).status).toBe(201);
    const emoji = await t.call("POST", "/api/mcp/keys", { cookie, body: { name: "🔑".repeat(100) } });
    expect(emoji.status).toBe(201);
    expect(emoji.json.key.name).toBe("🔑".repeat(100));
  });
});

describe("GET /api/mcp/keys", () => {
  test("lists active keys newest first with last_used_at, never the plaintext", async () => {
    t = await testApp();
    const { cookie } = await withBrand("a@example.com");
    const first = (await t.call("POST", "/api/mcp/keys", { cookie, body: { name: "first" } })).json;
    const second = (await t.call("POST", "/api/mcp/keys", { cookie, body: { name: "second" } })).json;
    expect((await verifyBearerKey(t.ctx, `Bearer ${first.plaintext}`)).ok).toBe(true);
    await t.ctx.keys.flush();
    const res = await t.call("GET", "/api/mcp/keys", { cookie });
    expect(res.status).toBe(200);
    expect(res.json.keys.map((k: { name: string }) => k.name)).toEqual(["second", "first"]);
    expect(Object.keys(res.json.keys[0]).sort()).toEqual(["brand_id", "created_at", "id", "key_prefix", "last_used_at", "name"]);
    expect(res.json.keys[0].last_used_at).toBeNull();
    expect(res.json.keys[1].last_used_at).toMatch(/Z$/);
    expect(res.text).not.toContain(first.plaintext);
    expect(res.text).not.toContain(second.plaintext);
  });

  test("another account's keys are not listed", async () => {
    t = await testApp();
    const alice = await withBrand("alice@example.com");
    const bob = await withBrand("bob@example.com");
    expect((await t.call("POST", "/api/mcp/keys", { cookie: alice.cookie, body: { name: "alice key" } })).status).toBe(201);
    expect((await t.call("GET", "/api/mcp/keys", { cookie: alice.cookie })).json.keys.map((k: { name: string }) => k.name)).toEqual([
      "alice key",
    ]);
    expect((await t.call("GET", "/api/mcp/keys", { cookie: bob.cookie })).json).toEqual({ keys: [] });
  });
});

describe("DELETE /api/mcp/keys/:id", () => {
  test("a revoked key gets refused on the very next verification and disappears from the list", async () => {
    t = await testApp();
    const { cookie } = await withBrand("a@example.com");
    const created = (await t.call("POST", "/api/mcp/keys", { cookie, body: { name: "k" } })).json;
    expect((await verifyBearerKey(t.ctx, `Bearer ${created.plaintext}`)).ok).toBe(true);
    const res = await t.call("DELETE", `/api/mcp/keys/${created.key.id}`, { cookie });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(await verifyBearerKey(t.ctx, `Bearer ${created.plaintext}`)).toEqual({ ok: false, reason: "revoked" });
    expect((await t.call("GET", "/api/mcp/keys", { cookie })).json.keys).toEqual([]);
    const again = await t.call("DELETE", `/api/mcp/keys/${created.key.id}`, { cookie });
    expect(again.status).toBe(404);
    expect(again.json.code).toBe("key_not_found");
  });

  test("an unknown key or another account's key is 404 and stays active", async () => {
    t = await testApp();
    const alice = await withBrand("alice@example.com");
    const bob = await withBrand("bob@example.com");
    const created = (await t.call("POST", "/api/mcp/keys", { cookie: alice.cookie, body: { name: "k" } })).json;
    expect((await t.call("DELETE", "/api/mcp/keys/key_unknown", { cookie: alice.cookie })).status).toBe(404);
    const foreign = await t.call("DELETE", `/api/mcp/keys/${created.key.id}`, { cookie: bob.cookie });
    expect(foreign.status).toBe(404);
    expect((await verifyBearerKey(t.ctx, `Bearer ${created.plaintext}`)).ok).toBe(true);
  });
});

describe("security of the key endpoints", () => {
  test("no session, a bearer key instead of the cookie, cross-site and non-JSON are refused", async () => {
    t = await testApp();
    const { cookie } = await withBrand("a@example.com");
    const created = (await t.call("POST", "/api/mcp/keys", { cookie, body: { name: "k" } })).json;
    const bearer = { authorization: `Bearer ${created.plaintext}` };
    for (const [method, path, body] of [
      ["GET", "/api/mcp/keys", undefined],
      ["POST", "/api/mcp/keys", { name: "x" }],
      ["DELETE", `/api/mcp/keys/${created.key.id}`, undefined],
    ] as const) {
      expect((await t.call(method, path, { body })).status).toBe(401);
      const withBearer = await t.call(method, path, { body, headers: bearer });
      expect(withBearer.status).toBe(401);
      expect(withBearer.json).toEqual({ error: "Unauthorized", code: "unauthorized" });
    }
    for (const [method, path, body] of [
      ["POST", "/api/mcp/keys", { name: "x" }],
      ["DELETE", `/api/mcp/keys/${created.key.id}`, undefined],
    ] as const) {
      const cross = await t.call(method, path, { cookie, body, headers: { origin: "https://evil.example" } });
      expect(cross.status).toBe(403);
      expect(cross.json).toEqual({ error: "Forbidden", code: "cross_site" });
    }
    const form = await t.call("POST", "/api/mcp/keys", {
      cookie,
      rawBody: "name=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
    expect((await t.call("GET", "/api/mcp/keys", { cookie })).json.keys).toHaveLength(1);
    expect((await verifyBearerKey(t.ctx, `Bearer ${created.plaintext}`)).ok).toBe(true);
  });
});
