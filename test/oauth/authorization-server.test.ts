// The authorization server and the tool server's OAuth door, in process (app.handle), with the
// service's clock moved instead of waiting: metadata and when OAuth is on, registration (DCR and
// client metadata documents), authorization with PKCE S256, the token endpoint with rotation and
// reuse detection, revocation (RFC 7009 and the dashboard), and every refusal with its OAuth error.
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { sessionCookieName } from "../../src/accounts/guard";
import { createSession } from "../../src/accounts/sessions";
import { MAX_ACTIVE_KEYS } from "../../src/keys/service";
import { MAX_CLIENT_URI_LENGTH, MAX_REDIRECT_URI_LENGTH, MAX_REDIRECT_URIS_TOTAL, UNUSED_CLIENT_MS } from "../../src/oauth/clients";
import { ALL_REGISTRATIONS_PER_HOUR, DOCUMENT_CLIENT_REQUESTS_PER_HOUR, REGISTRATIONS_PER_HOUR } from "../../src/oauth/routes";
import { revokeAccountGrants } from "../../src/oauth/service";
import { secondConnection } from "../support/database";
import { seedToolServerDb, type ToolServerSeed } from "../support/fixtures";
import { BASE, type TestApp, testApp } from "../support/http";
import { MCP_PATH, rpc } from "../support/mcp";
import { authorizeQuery, consent, documentHost, pkce, RESOURCE, registerClient, tokenRequest } from "../support/oauth";

const PUBLIC_URL = "https://spyglass.test";
const REDIRECT = "http://127.0.0.1:7777/callback";

let t: TestApp;
let seed: ToolServerSeed;
let cookieA: string;

async function setUp(
  publicUrl: string | null = PUBLIC_URL,
  options: { file?: boolean; refreshReuseGraceSeconds?: number } = {},
): Promise<void> {
  t = await testApp({ ...(publicUrl ? { publicUrl } : {}), ...options });
  seed = await seedToolServerDb(t.db);
  cookieA = await sessionCookieFor(seed.a.accountId);
}

async function sessionCookieFor(accountId: string): Promise<string> {
  return `${sessionCookieName(t.config)}=${(await createSession(t.db, accountId)).token}`;
}

afterEach(async () => {
  await t?.close();
});

/** The whole happy path to a token pair for brand A. */
function tokensForA(): Promise<{ access: string; refresh: string; clientId: string }> {
  return tokensFor(cookieA, seed.a.brandId);
}

async function tokensFor(cookie: string, brandId: string): Promise<{ access: string; refresh: string; clientId: string }> {
  const client = await registerClient(t, [REDIRECT]);
  const pair = pkce();
  const back = await consent(t, cookie, authorizeQuery(client, pair), brandId);
  const code = back.searchParams.get("code")!;
  const res = await tokenRequest(t, {
    grant_type: "authorization_code",
    code,
    code_verifier: pair.verifier,
    client_id: client.id,
    redirect_uri: REDIRECT,
    resource: RESOURCE,
  });
  expect(res.status).toBe(200);
  return { access: res.json.access_token, refresh: res.json.refresh_token, clientId: client.id };
}

function mcp(token: string, body = rpc("tools/list")) {
  return t.call("POST", MCP_PATH, {
    rawBody: body,
    headers: { authorization: `Bearer ${token}`, accept: "application/json, text/event-stream" },
  });
}

/**
 * The error an authorize request is refused with, for its client: on a page (400, no Location), as
 * the link back to the client's redirect URI. Never an automatic redirect: anyone may register a
 * client with any https redirect URI, which would make /oauth/authorize an open redirect (a review
 * found it one).
 */
function backLink(res: { status: number; headers: Headers; text: string }): URL {
  expect(res.status).toBe(400);
  expect(res.headers.get("location")).toBeNull();
  expect(res.headers.get("content-type")).toStartWith("text/html");
  const href = /<a href="([^"]+)">Return to /.exec(res.text)?.[1];
  expect(href).toBeDefined();
  // The page escapes the URL's & (and any quote) as numeric character references.
  return new URL(href!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code))));
}

/** A refusal sent back at once to an app on this device (a loopback redirect URI): where it goes. */
function sentBack(res: { status: number; headers: Headers }): URL {
  expect(res.status).toBe(302);
  expect(res.headers.get("cache-control")).toBe("no-store");
  return new URL(res.headers.get("location")!);
}

describe("when OAuth is on", () => {
  test("it is on with an https public_url or http on a loopback host, and off otherwise (the documents are then a JSON 404)", async () => {
    for (const [url, on] of [
      ["https://spyglass.test", true],
      ["http://127.0.0.1:3000", true],
      ["http://localhost:3000", true],
      ["http://visibility.example.com", false],
      [null, false],
    ] as const) {
      await setUp(url);
      for (const path of [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/api/mcp/mcp",
        "/.well-known/oauth-authorization-server",
      ]) {
        const res = await t.call("GET", path);
        expect(res.status).toBe(on ? 200 : 404);
        if (!on) expect(res.json.code).toBe("not_found");
      }
      const unauth = await t.call("POST", MCP_PATH, {
        rawBody: rpc("tools/list"),
        headers: { accept: "application/json, text/event-stream" },
      });
      expect(unauth.status).toBe(401);
      if (on) {
        expect(unauth.headers.get("www-authenticate")).toBe(
          `Bearer realm="spyglass", error="invalid_token", resource_metadata="${new URL(url!).origin}/.well-known/oauth-protected-resource/api/mcp/mcp"`,
        );
        expect(unauth.json.error).toContain("signs in with OAuth (Claude.ai, Claude Desktop, ChatGPT)");
      } else {
        expect(unauth.headers.get("www-authenticate")).toBe('Bearer realm="spyglass", error="invalid_token"');
        expect(unauth.json.error).toContain(
          "OAuth sign-in is off on this server (it needs public_url set to the address clients reach it at: https, or http on localhost)",
        );
      }
      await t.close();
    }
  });

  test("an endpoint's address with a trailing slash is the endpoint (its body is its own to read)", async () => {
    await setUp();
    const client = await registerClient(t, [REDIRECT]);
    const form = await t.app.handle(
      new Request(`${BASE}/oauth/token/`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "sgo_rt_unknown", client_id: client.id }).toString(),
      }),
    );
    expect([form.status, ((await form.json()) as { error: string }).error]).toEqual([400, "invalid_grant"]);
    const registered = await t.app.handle(
      new Request(`${BASE}/oauth/register/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "Slash", redirect_uris: [REDIRECT] }),
      }),
    );
    expect(registered.status).toBe(201);
    await t.close();
  });

  test("another method on an OAuth endpoint is 405 with Allow while OAuth is on, and the endpoint's 404 while it is off", async () => {
    const cases = [
      ["GET", "/oauth/token", "POST, OPTIONS"],
      ["PUT", "/oauth/revoke", "POST, OPTIONS"],
      ["DELETE", "/oauth/register", "POST, OPTIONS"],
      ["POST", "/.well-known/oauth-authorization-server", "GET, OPTIONS"],
      ["POST", "/.well-known/oauth-protected-resource/api/mcp/mcp", "GET, OPTIONS"],
      ["POST", "/oauth/authorize", "GET"],
    ] as const;
    for (const url of [PUBLIC_URL, null]) {
      await setUp(url);
      for (const [method, path, allow] of cases) {
        const res = await t.call(method, path);
        if (url) {
          expect([path, res.status, res.headers.get("allow"), res.json.code]).toEqual([path, 405, allow, "method_not_allowed"]);
          // With the endpoints' CORS, so that a client in a web page reads the refusal.
          expect([path, res.headers.get("access-control-allow-origin")]).toEqual([path, "*"]);
        } else {
          expect([path, res.status, res.json.code]).toEqual([path, 404, "not_found"]);
        }
      }
      await t.close();
    }
  });

  test("the discovery addresses this issuer does not serve (OpenID's, a path-suffixed one) are a JSON 404 a web page can read", async () => {
    await setUp();
    for (const path of [
      "/.well-known/openid-configuration",
      "/.well-known/oauth-authorization-server/api/mcp/mcp",
      "/.well-known/openid-configuration/api/mcp/mcp",
    ]) {
      const res = await t.call("GET", path);
      expect([path, res.status, res.json.code, res.headers.get("access-control-allow-origin")]).toEqual([path, 404, "not_found", "*"]);
    }
  });

  test("the metadata names Spyglass as the resource's authorization server, S256 only, CIMD and DCR", async () => {
    await setUp();
    const prm = await t.call("GET", "/.well-known/oauth-protected-resource/api/mcp/mcp");
    expect(prm.json).toMatchObject({ resource: RESOURCE, authorization_servers: [PUBLIC_URL] });
    const as = await t.call("GET", "/.well-known/oauth-authorization-server");
    expect(as.json).toMatchObject({
      issuer: PUBLIC_URL,
      authorization_endpoint: `${PUBLIC_URL}/oauth/authorize`,
      token_endpoint: `${PUBLIC_URL}/oauth/token`,
      registration_endpoint: `${PUBLIC_URL}/oauth/register`,
      revocation_endpoint: `${PUBLIC_URL}/oauth/revoke`,
      code_challenge_methods_supported: ["S256"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      response_types_supported: ["code"],
      client_id_metadata_document_supported: true,
    });
  });
});

describe("the whole flow, in process", () => {
  beforeEach(() => setUp());

  test("a token acts for the granted brand with the SDK client, is stored only as a hash, and is not an API key", async () => {
    const { access, refresh } = await tokensForA();
    expect(access).toMatch(/^sgo_at_[A-Za-z0-9_-]{43}$/);
    expect(refresh).toMatch(/^sgo_rt_[A-Za-z0-9_-]{43}$/);
    const dump = JSON.stringify(await t.db.all("SELECT * FROM oauth_tokens"));
    expect(dump).not.toContain(access);
    expect(dump).not.toContain(refresh);
    const client = new Client({ name: "oauth-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${BASE}${MCP_PATH}`), {
        requestInit: { headers: { Authorization: `Bearer ${access}` } },
        fetch: async (url, init) => t.app.handle(new Request(url, init)),
      }),
    );
    const brand = await client.callTool({ name: "get_brand", arguments: {} });
    expect((brand.structuredContent as { brand: { id: string } }).brand.id).toBe(seed.a.brandId);
    await client.close();
    // Grants are not API keys.
    const keys = await t.call("GET", "/api/mcp/keys", { cookie: cookieA });
    expect(keys.json.keys.length).toBe(2);
    const grants = await t.call("GET", "/api/oauth/grants", { cookie: cookieA });
    expect(grants.json).toMatchObject({ enabled: true, grants: [{ client_name: "Test Client", brand_id: seed.a.brandId }] });
    expect(grants.json.grants[0].last_used_at).not.toBeNull();
  });

  test("grants are not counted among the 20 API keys: a grant beside 19 keys leaves room for the 20th, and one is issued beside 20", async () => {
    const keyCount = async () => (await t.call("GET", "/api/mcp/keys", { cookie: cookieA })).json.keys.length as number;
    const newKey = (name: string) => t.call("POST", "/api/mcp/keys", { cookie: cookieA, body: { name } });
    for (let n = await keyCount(); n < MAX_ACTIVE_KEYS - 1; n++) expect((await newKey(`key ${n + 1}`)).status).toBe(201);
    const first = await tokensForA();
    expect((await mcp(first.access)).status).toBe(200);
    expect((await newKey("the twentieth key")).status).toBe(201);
    expect(await keyCount()).toBe(MAX_ACTIVE_KEYS);
    const second = await tokensForA();
    expect((await mcp(second.access)).status).toBe(200);
    const refused = await newKey("one key too many");
    expect({ status: refused.status, code: refused.json.code }).toEqual({ status: 409, code: "key_limit" });
    expect((await t.call("GET", "/api/oauth/grants", { cookie: cookieA })).json.grants).toHaveLength(2);
  });

  test("an access token expires after one hour; refresh rotates, and a reused refresh token ends the grant", async () => {
    const start = Date.now();
    t.ctx.oauth.now = () => start;
    const { access, refresh, clientId } = await tokensForA();
    t.ctx.oauth.now = () => start + 59 * 60 * 1000;
    expect((await mcp(access)).status).toBe(200);
    t.ctx.oauth.now = () => start + 60 * 60 * 1000;
    const expired = await mcp(access);
    expect(expired.status).toBe(401);
    expect(expired.json.error).toContain("This access token is not valid");
    expect(expired.headers.get("www-authenticate")).toContain('error="invalid_token", resource_metadata=');

    const rotated = await tokenRequest(t, { grant_type: "refresh_token", refresh_token: refresh, client_id: clientId, resource: RESOURCE });
    expect(rotated.status).toBe(200);
    expect(rotated.json.refresh_token).not.toBe(refresh);
    expect(rotated.json.expires_in).toBe(3600);
    expect((await mcp(rotated.json.access_token)).status).toBe(200);

    const reused = await tokenRequest(t, { grant_type: "refresh_token", refresh_token: refresh, client_id: clientId });
    expect(reused.status).toBe(400);
    expect(reused.json.error).toBe("invalid_grant");
    // The grant is dead: the new access token and the new refresh token stop too.
    expect((await mcp(rotated.json.access_token)).status).toBe(401);
    const next = await tokenRequest(t, { grant_type: "refresh_token", refresh_token: rotated.json.refresh_token, client_id: clientId });
    expect(next.json.error).toBe("invalid_grant");
    expect((await t.call("GET", "/api/oauth/grants", { cookie: cookieA })).json.grants).toEqual([]);
  });

  test("with refresh_reuse_grace_seconds, a refresh token presented again at once gets a pair of its own; later, it ends the grant", async () => {
    // MCP hosts (Claude.ai, Codex) refresh once per tool call in flight when the hour is up: with
    // CONTRACT's rule alone, all but one of them ended the connection.
    await t.close();
    await setUp(PUBLIC_URL, { refreshReuseGraceSeconds: 60 });
    const start = Date.now();
    t.ctx.oauth.now = () => start;
    const { refresh, clientId } = await tokensForA();
    const again = () => tokenRequest(t, { grant_type: "refresh_token", refresh_token: refresh, client_id: clientId });
    t.ctx.oauth.now = () => start + 60 * 60 * 1000;
    // Three at once: each gets a pair, and every pair works.
    const pairs = await Promise.all([again(), again(), again()]);
    expect(pairs.map((p) => p.status)).toEqual([200, 200, 200]);
    expect(new Set(pairs.map((p) => p.json.refresh_token)).size).toBe(3);
    for (const p of pairs) expect((await mcp(p.json.access_token)).status).toBe(200);
    // A retry 59 seconds after the first use too, up to ten pairs in all; past them, that request
    // alone is refused and the connection stays.
    t.ctx.oauth.now = () => start + 60 * 60 * 1000 + 59_000;
    const retries = [];
    for (let i = 0; i < 8; i++) retries.push(await again());
    expect(retries.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 400]);
    expect(retries[7]!.json.error).toBe("invalid_grant");
    expect((await mcp(pairs[0]!.json.access_token)).status).toBe(200);
    // A newer refresh token rotates as ever.
    const newer = await tokenRequest(t, { grant_type: "refresh_token", refresh_token: pairs[1]!.json.refresh_token, client_id: clientId });
    expect(newer.status).toBe(200);
    // After the grace, the old token again is a copy: the grant ends, with every pair it gave.
    t.ctx.oauth.now = () => start + 60 * 60 * 1000 + 61_000;
    const late = await again();
    expect({ status: late.status, error: late.json.error }).toEqual({ status: 400, error: "invalid_grant" });
    expect((await mcp(newer.json.access_token)).status).toBe(401);
    expect((await mcp(pairs[2]!.json.access_token)).status).toBe(401);
    expect((await t.call("GET", "/api/oauth/grants", { cookie: cookieA })).json.grants).toEqual([]);
  });

  test("with refresh_reuse_grace_seconds, the pairs an app did not keep are retired when it renews: one presented later ends the grant", async () => {
    await t.close();
    await setUp(PUBLIC_URL, { refreshReuseGraceSeconds: 60 });
    const start = Date.now();
    t.ctx.oauth.now = () => start;
    const { refresh, clientId } = await tokensForA();
    const renew = (token: string) => tokenRequest(t, { grant_type: "refresh_token", refresh_token: token, client_id: clientId });
    t.ctx.oauth.now = () => start + 60 * 60 * 1000;
    const [kept, dropped] = await Promise.all([renew(refresh), renew(refresh)]);
    expect([kept!.status, dropped!.status]).toEqual([200, 200]);
    // The app kept one pair and renews with it an hour later.
    t.ctx.oauth.now = () => start + 2 * 60 * 60 * 1000;
    const next = await renew(kept!.json.refresh_token);
    expect(next.status).toBe(200);
    // The other pair's refresh token, never used, was retired then: presented after the grace, it is a copy.
    t.ctx.oauth.now = () => start + 2 * 60 * 60 * 1000 + 61_000;
    const copy = await renew(dropped!.json.refresh_token);
    expect({ status: copy.status, error: copy.json.error }).toEqual({ status: 400, error: "invalid_grant" });
    expect((await mcp(next.json.access_token)).status).toBe(401);
    expect((await t.call("GET", "/api/oauth/grants", { cookie: cookieA })).json.grants).toEqual([]);
  });

  test("a token answered without being read again still expires on time, and its connection's last use is still written each minute", async () => {
    // On SQLite a verified token is remembered until the database changes (rememberedAccessToken):
    // neither the hour nor the last-use minute is a change of the database.
    const start = Date.now();
    const at = (minutes: number) => {
      t.ctx.oauth.now = () => start + minutes * 60_000;
    };
    at(0);
    const { access } = await tokensForA();
    const lastUse = async () => (await t.call("GET", "/api/oauth/grants", { cookie: cookieA })).json.grants[0].last_used_at;
    for (const minutes of [1, 1.2, 1.5]) {
      at(minutes);
      expect((await mcp(access)).status).toBe(200);
    }
    expect(await lastUse()).toBe(new Date(start + 60_000).toISOString());
    at(30);
    expect((await mcp(access)).status).toBe(200);
    expect(await lastUse()).toBe(new Date(start + 30 * 60_000).toISOString());
    for (const minutes of [59.5, 59.7, 59.9]) {
      at(minutes);
      expect((await mcp(access)).status).toBe(200);
    }
    at(60);
    expect((await mcp(access)).status).toBe(401);
  });

  test("revoking the connection in the dashboard refuses the next request and the next refresh", async () => {
    const { access, refresh, clientId } = await tokensForA();
    expect((await mcp(access)).status).toBe(200);
    const grant = (await t.call("GET", "/api/oauth/grants", { cookie: cookieA })).json.grants[0];
    const other = await sessionCookieFor(seed.b.accountId);
    expect((await t.call("DELETE", `/api/oauth/grants/${grant.id}`, { cookie: other })).status).toBe(404);
    expect((await mcp(access)).status).toBe(200);
    expect((await t.call("DELETE", `/api/oauth/grants/${grant.id}`, { cookie: cookieA })).status).toBe(204);
    expect((await mcp(access)).status).toBe(401);
    const res = await tokenRequest(t, { grant_type: "refresh_token", refresh_token: refresh, client_id: clientId });
    expect(res.json.error).toBe("invalid_grant");
  });

  test("a password reset disconnects every app of the account, and no other account's (spyglass account password)", async () => {
    const first = await tokensForA();
    const second = await tokensForA();
    const theirs = await tokensFor(await sessionCookieFor(seed.b.accountId), seed.b.brandId);
    expect(await revokeAccountGrants(t.db, seed.a.accountId, Date.now())).toBe(2);
    for (const { access, refresh, clientId } of [first, second]) {
      expect((await mcp(access)).status).toBe(401);
      const res = await tokenRequest(t, { grant_type: "refresh_token", refresh_token: refresh, client_id: clientId });
      expect(res.json.error).toBe("invalid_grant");
    }
    expect((await mcp(theirs.access)).status).toBe(200);
    expect(await revokeAccountGrants(t.db, seed.a.accountId, Date.now())).toBe(0);
  });

  test("RFC 7009: revoking the refresh token ends the grant; an unknown token is answered 200 and changes nothing", async () => {
    const { access, refresh, clientId } = await tokensForA();
    const form = (params: Record<string, string>) =>
      t.call("POST", "/oauth/revoke", {
        rawBody: new URLSearchParams(params).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded" },
      });
    expect((await form({ token: "sgo_rt_unknown", client_id: clientId })).status).toBe(200);
    expect((await mcp(access)).status).toBe(200);
    expect((await form({ token: refresh, client_id: clientId, token_type_hint: "refresh_token" })).status).toBe(200);
    expect((await mcp(access)).status).toBe(401);
  });

  test("the plan gate applies as for keys: the account's current plan, 403 plan_required on plan none", async () => {
    const { access } = await tokensForA();
    await t.db.run("UPDATE accounts SET plan = 'none' WHERE id = ?1", [seed.a.accountId]);
    const res = await mcp(access);
    expect(res.status).toBe(403);
    expect(res.json.code).toBe("plan_required");
    await t.db.run("UPDATE accounts SET plan = 'visibility' WHERE id = ?1", [seed.a.accountId]);
    const list = await mcp(access);
    const names = list.json.result.tools.map((tool: { name: string }) => tool.name);
    expect(names).toContain("get_brand");
    expect(names).not.toContain("publish_to_site");
  });

  test("an access token is a tool-server credential only: the dashboard's routes refuse it", async () => {
    const { access } = await tokensForA();
    for (const path of ["/api/brands", "/api/mcp/keys", "/api/oauth/grants", `/api/brands/${seed.a.brandId}/tools`]) {
      const res = await t.call("GET", path, { headers: { authorization: `Bearer ${access}` } });
      expect({ path, status: res.status }).toEqual({ path, status: 401 });
    }
  });

  test("API keys keep working beside tokens, with their own sentences", async () => {
    expect((await mcp(seed.a.key)).status).toBe(200);
    const bad = await mcp(`svc_live_${"A".repeat(43)}`);
    expect(bad.status).toBe(401);
    expect(bad.json.error).toContain("This API key is not valid");
  });
});

describe("another process's writes", () => {
  beforeEach(() => setUp(PUBLIC_URL, { file: true }));

  test("a password reset made by another process (the CLI) refuses the very next request of a token answered from memory", async () => {
    const mine = await tokensForA();
    const theirs = await tokensFor(await sessionCookieFor(seed.b.accountId), seed.b.brandId);
    for (let i = 0; i < 3; i++) expect((await mcp(mine.access)).status).toBe(200);
    const cli = await secondConnection(t.db);
    try {
      expect(await revokeAccountGrants(cli, seed.a.accountId, Date.now())).toBe(1);
    } finally {
      await cli.close();
    }
    expect((await mcp(mine.access)).status).toBe(401);
    expect((await mcp(theirs.access)).status).toBe(200);
  });

  test("a plan changed by another process applies to the very next request", async () => {
    const { access } = await tokensForA();
    for (let i = 0; i < 3; i++) expect((await mcp(access)).status).toBe(200);
    const cli = await secondConnection(t.db);
    try {
      await cli.run("UPDATE accounts SET plan = 'none' WHERE id = ?1", [seed.a.accountId]);
    } finally {
      await cli.close();
    }
    const res = await mcp(access);
    expect({ status: res.status, code: res.json.code }).toEqual({ status: 403, code: "plan_required" });
  });
});

describe("refusals, each with its OAuth error", () => {
  beforeEach(() => setUp());

  async function freshCode(extra: Record<string, string> = {}) {
    const client = await registerClient(t, [REDIRECT]);
    const pair = pkce();
    const back = await consent(t, cookieA, authorizeQuery(client, pair, extra), seed.a.brandId);
    return { client, pair, code: back.searchParams.get("code")!, back };
  }

  test("a missing PKCE verifier is invalid_request; a wrong one is invalid_grant, and the code is spent", async () => {
    const { client, pair, code } = await freshCode();
    const base = { grant_type: "authorization_code", code, client_id: client.id, redirect_uri: REDIRECT };
    const missing = await tokenRequest(t, base);
    expect(missing.status).toBe(400);
    expect(missing.json.error).toBe("invalid_request");
    const wrong = await tokenRequest(t, { ...base, code_verifier: pkce().verifier });
    expect(wrong.json.error).toBe("invalid_grant");
    const right = await tokenRequest(t, { ...base, code_verifier: pair.verifier });
    expect(right.json.error).toBe("invalid_grant");
    // It granted nothing, and says so (not "the access it granted is revoked").
    expect(right.json.error_description).toBe(
      "The authorization code was already presented once, in an exchange that was refused; start the sign-in again.",
    );
  });

  test("a reused code is invalid_grant and revokes what the first exchange granted", async () => {
    const { client, pair, code } = await freshCode();
    const params = { grant_type: "authorization_code", code, code_verifier: pair.verifier, client_id: client.id, redirect_uri: REDIRECT };
    const first = await tokenRequest(t, params);
    expect(first.status).toBe(200);
    expect((await mcp(first.json.access_token)).status).toBe(200);
    const again = await tokenRequest(t, params);
    expect(again.json.error).toBe("invalid_grant");
    expect(again.json.error_description).toBe("The authorization code was already used; the access it granted is revoked.");
    expect((await mcp(first.json.access_token)).status).toBe(401);
  });

  test("a code exchanged twice at once issues one token pair, and the other exchange revokes it", async () => {
    const { client, pair, code } = await freshCode();
    const params = { grant_type: "authorization_code", code, code_verifier: pair.verifier, client_id: client.id, redirect_uri: REDIRECT };
    const both = await Promise.all([tokenRequest(t, params), tokenRequest(t, params)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
    const issued = both.find((r) => r.status === 200)!;
    expect((await mcp(issued.json.access_token)).status).toBe(401);
    expect(await t.db.get("SELECT count(*) AS n FROM oauth_grants")).toEqual({ n: 1 });
  });

  test("a refresh with a client's credentials that fail is invalid_client (401) before the token is looked at, and changes nothing", async () => {
    const client = await registerClient(t, [REDIRECT]);
    const pair = pkce();
    const code = (await consent(t, cookieA, authorizeQuery(client, pair), seed.a.brandId)).searchParams.get("code")!;
    const first = await tokenRequest(t, {
      grant_type: "authorization_code",
      code,
      code_verifier: pair.verifier,
      client_id: client.id,
      redirect_uri: REDIRECT,
    });
    for (const [authorization, refresh] of [
      [`Basic ${btoa("nope:secret")}`, "junk"],
      [`Basic ${btoa("nope:secret")}`, first.json.refresh_token],
    ] as const) {
      const res = await t.call("POST", "/oauth/token", {
        rawBody: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refresh }).toString(),
        headers: { "content-type": "application/x-www-form-urlencoded", authorization },
      });
      expect([res.status, res.json.error]).toEqual([401, "invalid_client"]);
    }
    // The token was not spent: it still refreshes once.
    const renewed = await tokenRequest(t, { grant_type: "refresh_token", refresh_token: first.json.refresh_token, client_id: client.id });
    expect(renewed.status).toBe(200);
  });

  test("a refresh token presented twice at once rotates once, and the reuse ends the grant", async () => {
    const { refresh, clientId } = await tokensForA();
    const params = { grant_type: "refresh_token", refresh_token: refresh, client_id: clientId };
    const both = await Promise.all([tokenRequest(t, params), tokenRequest(t, params)]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
    expect((await mcp(both.find((r) => r.status === 200)!.json.access_token)).status).toBe(401);
  });

  test("an expired code is invalid_grant", async () => {
    const start = Date.now();
    t.ctx.oauth.now = () => start;
    const { client, pair, code } = await freshCode();
    t.ctx.oauth.now = () => start + 5 * 60 * 1000;
    const res = await tokenRequest(t, {
      grant_type: "authorization_code",
      code,
      code_verifier: pair.verifier,
      client_id: client.id,
      redirect_uri: REDIRECT,
    });
    expect(res.json.error).toBe("invalid_grant");
  });

  test("the plain method, and no method, are refused at authorization with invalid_request: at once to an app on this device, by a page's link to a web site", async () => {
    const client = await registerClient(t, [REDIRECT]);
    const site = await registerClient(t, ["https://app.example/callback"]);
    const pair = pkce();
    for (const extra of [{ code_challenge_method: "plain", code_challenge: pair.verifier }, { code_challenge_method: "" }] as Record<
      string,
      string
    >[]) {
      // A loopback listener (mcp-remote, an editor) waits for the answer: it gets it at once.
      const back = sentBack(await t.call("GET", `/oauth/authorize?${authorizeQuery(client, pair, extra)}`));
      expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
      expect(back.searchParams.get("error")).toBe("invalid_request");
      expect(back.searchParams.get("state")).toBe("st-123");
      expect(back.searchParams.get("iss")).toBe(PUBLIC_URL);
      // Anyone may register a web site's redirect URI: it is a link on a page, never a redirect.
      const query = authorizeQuery(site, pair, { ...extra, redirect_uri: "https://app.example/callback" });
      const link = backLink(await t.call("GET", `/oauth/authorize?${query}`));
      expect(`${link.origin}${link.pathname}`).toBe("https://app.example/callback");
      expect(link.searchParams.get("error")).toBe("invalid_request");
    }
    // A private scheme too (a browser's own opens any site: microsoft-edge:https://…), named as an app.
    for (const uri of ["microsoft-edge:https://evil.example/login", "com.example.app:/oauth2redirect"]) {
      const app = await registerClient(t, [uri]);
      const page = await t.call(
        "GET",
        `/oauth/authorize?${authorizeQuery(app, pair, { redirect_uri: uri, code_challenge_method: "plain" })}`,
      );
      expect(backLink(page).protocol).toBe(new URL(uri).protocol);
      expect(page.text).toContain(`Return to the app that handles ${new URL(uri).protocol}`);
    }
    const good = await t.call("GET", `/oauth/authorize?${authorizeQuery(client, pair)}`);
    expect(good.status).toBe(302);
    expect(good.headers.get("location")).toBe(`/oauth/consent?${authorizeQuery(client, pair)}`);
  });

  test("a redirect URI that differs by one character is refused on a page, never redirected to; at the token endpoint it is invalid_grant", async () => {
    const client = await registerClient(t, [REDIRECT]);
    const pair = pkce();
    for (const uri of ["http://127.0.0.1:7777/callbacK", "http://127.0.0.1:7777/callback/", "https://evil.example/callback"]) {
      const res = await t.call("GET", `/oauth/authorize?${authorizeQuery(client, pair, { redirect_uri: uri })}`);
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.text).toContain("not one that this client registered");
      const page = await t.call("GET", `/api/oauth/authorization?${authorizeQuery(client, pair, { redirect_uri: uri })}`, {
        cookie: cookieA,
      });
      expect(page.status).toBe(400);
      const post = await t.call("POST", "/api/oauth/authorization", {
        cookie: cookieA,
        body: { request: authorizeQuery(client, pair, { redirect_uri: uri }), decision: "approve", brand_id: seed.a.brandId },
      });
      expect(post.status).toBe(400);
      expect(post.json.redirect).toBeUndefined();
    }
    const { code } = await freshCode();
    const res = await tokenRequest(t, {
      grant_type: "authorization_code",
      code,
      code_verifier: pair.verifier,
      client_id: client.id,
      redirect_uri: "http://127.0.0.1:7777/callbacK",
    });
    expect(res.json.error).toBe("invalid_grant");
  });

  test("a loopback redirect URI matches whatever its port (RFC 8252 §7.3); its host, path and an https address's port must match", async () => {
    const client = await registerClient(t, [REDIRECT]);
    const pair = pkce();
    const elsewhere = "http://127.0.0.1:8888/callback";
    const back = await consent(t, cookieA, authorizeQuery(client, pair, { redirect_uri: elsewhere }), seed.a.brandId);
    expect(`${back.origin}${back.pathname}`).toBe(elsewhere);
    // The code is bound to the port the request named.
    const code = back.searchParams.get("code")!;
    const wrongPort = await tokenRequest(t, {
      grant_type: "authorization_code",
      code,
      code_verifier: pair.verifier,
      client_id: client.id,
      redirect_uri: REDIRECT,
    });
    expect(wrongPort.json.error).toBe("invalid_grant");
    for (const uri of ["http://127.0.0.1:8888/other", "http://[::1]:8888/callback", "http://127.0.0.1:8888/callback\\@evil.example"]) {
      const res = await t.call("GET", `/oauth/authorize?${authorizeQuery(client, pkce(), { redirect_uri: uri })}`);
      expect(res.status).toBe(400);
      expect(res.text).toContain("not one that this client registered");
    }
    const web = await registerClient(t, ["https://app.example:8443/cb"]);
    const res = await t.call("GET", `/oauth/authorize?${authorizeQuery(web, pkce(), { redirect_uri: "https://app.example:9443/cb" })}`);
    expect(res.status).toBe(400);
  });

  test("a client with one redirect URI may leave it out of both requests; with several, the token request must name it", async () => {
    const one = await registerClient(t, [REDIRECT]);
    const pair = pkce();
    const query = new URLSearchParams(authorizeQuery(one, pair));
    query.delete("redirect_uri");
    const back = await consent(t, cookieA, query.toString(), seed.a.brandId);
    const res = await tokenRequest(t, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      code_verifier: pair.verifier,
      client_id: one.id,
    });
    expect(res.status).toBe(200);
    const two = await registerClient(t, [REDIRECT, "http://127.0.0.1:7777/other"]);
    const twoPair = pkce();
    const twoBack = await consent(t, cookieA, authorizeQuery(two, twoPair), seed.a.brandId);
    const refused = await tokenRequest(t, {
      grant_type: "authorization_code",
      code: twoBack.searchParams.get("code")!,
      code_verifier: twoPair.verifier,
      client_id: two.id,
    });
    expect(refused.json).toMatchObject({
      error: "invalid_grant",
      error_description: `redirect_uri is required: the code was issued for ${REDIRECT}.`,
    });
  });

  test("state cannot redirect elsewhere: it comes back verbatim as one parameter of the registered redirect URI", async () => {
    const client = await registerClient(t, [REDIRECT]);
    const state = "x&redirect_uri=https://evil.example/&code=forged#https://evil.example";
    const back = await consent(t, cookieA, authorizeQuery(client, pkce(), { state }), seed.a.brandId);
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
    expect(back.searchParams.get("state")).toBe(state);
    expect(back.searchParams.getAll("code").length).toBe(1);
    expect(back.searchParams.get("code")).toMatch(/^sgo_ac_/);
    expect(back.hash).toBe("");
  });

  test("a token for another resource is refused (invalid_target) at authorization and at the token endpoint", async () => {
    const client = await registerClient(t, [REDIRECT]);
    const pair = pkce();
    const res = await t.call("GET", `/oauth/authorize?${authorizeQuery(client, pair, { resource: "https://other.example/mcp" })}`);
    expect(sentBack(res).searchParams.get("error")).toBe("invalid_target");
    const { code } = await freshCode();
    const token = await tokenRequest(t, {
      grant_type: "authorization_code",
      code,
      code_verifier: pair.verifier,
      client_id: client.id,
      redirect_uri: REDIRECT,
      resource: "https://other.example/mcp",
    });
    expect(token.json.error).toBe("invalid_target");
  });

  test("a token issued for another resource (the server's public_url changed) is refused by the tool server", async () => {
    const { access } = await tokensForA();
    await t.db.run("UPDATE oauth_grants SET resource = 'https://old.example/api/mcp/mcp'");
    expect((await mcp(access)).status).toBe(401);
  });

  test("implicit and password grants do not exist", async () => {
    const client = await registerClient(t, [REDIRECT]);
    const res = await t.call("GET", `/oauth/authorize?${authorizeQuery(client, pkce(), { response_type: "token" })}`);
    expect(sentBack(res).searchParams.get("error")).toBe("unsupported_response_type");
    const pw = await tokenRequest(t, { grant_type: "password", username: "a@example.com", password: "x", client_id: client.id });
    expect(pw.json.error).toBe("unsupported_grant_type");
  });

  test("a consent POST from another origin is 403 and issues nothing", async () => {
    const client = await registerClient(t, [REDIRECT]);
    const body = { request: authorizeQuery(client, pkce()), decision: "approve", brand_id: seed.a.brandId };
    for (const headers of [{ origin: "https://evil.example" }, { "sec-fetch-site": "cross-site" }] as Record<string, string>[]) {
      const res = await t.call("POST", "/api/oauth/authorization", { cookie: cookieA, body, headers });
      expect(res.status).toBe(403);
    }
    expect(await t.db.get("SELECT count(*) AS n FROM oauth_codes")).toEqual({ n: 0 });
  });

  test("an approval without a brand is 400 naming brand_id, and issues nothing", async () => {
    const client = await registerClient(t, [REDIRECT]);
    const res = await t.call("POST", "/api/oauth/authorization", {
      cookie: cookieA,
      body: { request: authorizeQuery(client, pkce()), decision: "approve" },
    });
    expect([res.status, res.json.code, res.json.error]).toEqual([400, "invalid_input", "brand_id: choose one of your brands for the app."]);
    expect(await t.db.get("SELECT count(*) AS n FROM oauth_codes")).toEqual({ n: 0 });
  });

  test("consent is for one brand of the account: another account's brand is 404; Deny sends access_denied", async () => {
    const client = await registerClient(t, [REDIRECT]);
    const res = await t.call("POST", "/api/oauth/authorization", {
      cookie: cookieA,
      body: { request: authorizeQuery(client, pkce()), decision: "approve", brand_id: seed.b.brandId },
    });
    expect(res.status).toBe(404);
    const denied = await consent(t, cookieA, authorizeQuery(client, pkce()), seed.a.brandId, "deny");
    expect(denied.searchParams.get("error")).toBe("access_denied");
    expect(denied.searchParams.get("code")).toBeNull();
    const none = await sessionCookieFor(seed.none.accountId);
    const plan = await t.call("POST", "/api/oauth/authorization", {
      cookie: none,
      body: { request: authorizeQuery(client, pkce()), decision: "approve", brand_id: seed.none.brandId },
    });
    expect(plan.status).toBe(403);
    expect(plan.json.code).toBe("plan_required");
  });

  test("DCR refuses redirect URIs that would leak codes, with invalid_redirect_uri (RFC 7591 §3.2.2)", async () => {
    for (const uris of [["http://evil.example/cb"], ["javascript:alert(1)"], ["https://ok.example/cb#frag"], []]) {
      const res = await t.call("POST", "/oauth/register", { body: { client_name: "x", redirect_uris: uris } });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe("invalid_redirect_uri");
    }
    // Other metadata it refuses is invalid_client_metadata.
    const other = await t.call("POST", "/oauth/register", {
      body: { client_name: "x", redirect_uris: [REDIRECT], response_types: ["token"] },
    });
    expect(other.json.error).toBe("invalid_client_metadata");
  });

  test("DCR refuses redirect URIs that read as one host and lead to another (the consent page shows the address)", async () => {
    for (const [uri, why] of [
      ["https://claude.ai@evil.example/api/mcp/auth_callback", "user name or password"],
      ["https://claude.ai:x@evil.example/cb", "user name or password"],
      ["https://evil.example\\@claude.ai/api/mcp/auth_callback", "backslash"],
      ["https://app.example/c b", "backslash, a space or a control character"],
      ["https://app.example/cb\tx", "control character"],
    ] as const) {
      const res = await t.call("POST", "/oauth/register", { body: { client_name: "Claude", redirect_uris: [uri] } });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe("invalid_redirect_uri");
      expect(res.json.error_description).toContain(why);
    }
    expect(await t.db.get("SELECT count(*) AS n FROM oauth_clients")).toEqual({ n: 0 });
  });

  test("the consent decision counts toward an address's metadata-document lookups, as the authorization page does", async () => {
    // Each decision resolves the client again, which for a document client is a fetch.
    const query = authorizeQuery({ id: "https://10.0.0.8/client.json", redirectUri: REDIRECT }, pkce());
    for (let i = 0; i < DOCUMENT_CLIENT_REQUESTS_PER_HOUR; i++) {
      const res = await t.call("POST", "/api/oauth/authorization", { cookie: cookieA, body: { request: query, decision: "deny" } });
      expect(res.status).toBe(400);
    }
    const res = await t.call("POST", "/api/oauth/authorization", { cookie: cookieA, body: { request: query, decision: "deny" } });
    expect(res.status).toBe(429);
    expect(res.json.error).toContain("Too many sign-in requests from this address");
  });

  test("a client metadata document on a private or loopback address is not fetched outside the test mode", async () => {
    for (const clientId of [
      "https://10.0.0.8/client.json",
      "https://127.0.0.1:9/client.json",
      "https://[::1]/client.json",
      "https://169.254.169.254/latest",
    ]) {
      const query = authorizeQuery({ id: clientId, redirectUri: REDIRECT }, pkce());
      const res = await t.call("GET", `/oauth/authorize?${query}`);
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(res.text).toContain("private or loopback address");
    }
  });
});

describe("client metadata documents in the test mode", () => {
  const host = documentHost((origin) => ({
    "/client.json": {
      client_id: `${origin}/client.json`,
      client_name: "Doc Client",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
    },
    "/liar.json": { client_id: "https://elsewhere.example/liar.json", client_name: "Liar", redirect_uris: [REDIRECT] },
    "/secret.json": { client_id: `${origin}/secret.json`, client_name: "Secret", redirect_uris: [REDIRECT], client_secret: "s3cret" },
  }));
  afterAll(() => host.stop());

  test("a document is fetched once, cached, names the client, and its redirect URIs are the only ones", async () => {
    // The test mode (env SPYGLASS_OAUTH_TEST_LOOPBACK_CLIENTS=1 for the binary).
    t = await testApp({ publicUrl: PUBLIC_URL, oauthLoopbackClients: true });
    seed = await seedToolServerDb(t.db);
    cookieA = await sessionCookieFor(seed.a.accountId);
    const client = { id: `${host.origin}/client.json`, redirectUri: REDIRECT };
    const page = await t.call("GET", `/api/oauth/authorization?${authorizeQuery(client, pkce())}`, { cookie: cookieA });
    expect(page.status).toBe(200);
    expect(page.json).toEqual({
      client: { id: client.id, name: "Doc Client", uri: null, kind: "cimd", verified: false },
      redirect_uri: REDIRECT,
    });
    // Nothing is stored for a request that no one has approved (anyone may send one).
    const stored = () => t.db.get<{ n: number }>("SELECT count(*) AS n FROM oauth_clients WHERE id = ?", [client.id]);
    expect(await stored()).toEqual({ n: 0 });
    const pair = pkce();
    const back = await consent(t, cookieA, authorizeQuery(client, pair), seed.a.brandId);
    expect(await stored()).toEqual({ n: 1 });
    const res = await tokenRequest(t, {
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      code_verifier: pair.verifier,
      client_id: client.id,
      redirect_uri: REDIRECT,
    });
    expect(res.status).toBe(200);
    expect(host.fetched.filter((p) => p === "/client.json").length).toBe(1);
    const liar = await t.call(
      "GET",
      `/oauth/authorize?${authorizeQuery({ id: `${host.origin}/liar.json`, redirectUri: REDIRECT }, pkce())}`,
    );
    expect(liar.status).toBe(400);
    expect(liar.text).toContain("client_id is not its own URL");
    const secret = await t.call(
      "GET",
      `/oauth/authorize?${authorizeQuery({ id: `${host.origin}/secret.json`, redirectUri: REDIRECT }, pkce())}`,
    );
    expect(secret.status).toBe(400);
    expect(secret.text).toContain("holds a client_secret");
    expect(secret.text).not.toContain("s3cret");
  });

  test("an address may send 60 requests an hour naming a metadata document; the 61st gets 429 and nothing is fetched or stored", async () => {
    t = await testApp({ publicUrl: PUBLIC_URL, oauthLoopbackClients: true });
    const before = host.fetched.length;
    const rowsBefore = await t.db.get<{ n: number }>("SELECT count(*) AS n FROM oauth_clients");
    for (let i = 0; i < DOCUMENT_CLIENT_REQUESTS_PER_HOUR; i++) {
      const res = await t.call(
        "GET",
        `/oauth/authorize?${authorizeQuery({ id: `${host.origin}/missing-${i}.json`, redirectUri: REDIRECT }, pkce())}`,
      );
      expect(res.status).toBe(400);
    }
    expect(host.fetched.length - before).toBeLessThanOrEqual(DOCUMENT_CLIENT_REQUESTS_PER_HOUR);
    const fetchedSoFar = host.fetched.length;
    const res = await t.call(
      "GET",
      `/oauth/authorize?${authorizeQuery({ id: `${host.origin}/one-more.json`, redirectUri: REDIRECT }, pkce())}`,
    );
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(res.text).toContain("Too many sign-in requests from this address");
    expect(host.fetched.length).toBe(fetchedSoFar);
    expect(await t.db.get<{ n: number }>("SELECT count(*) AS n FROM oauth_clients")).toEqual(rowsBefore);
    expect(DOCUMENT_CLIENT_REQUESTS_PER_HOUR).toBe(60);
    // The consent page's route shares the count: a signed-in visitor cannot go around it.
    seed = await seedToolServerDb(t.db);
    cookieA = await sessionCookieFor(seed.a.accountId);
    const viaPage = await t.call(
      "GET",
      `/api/oauth/authorization?${authorizeQuery({ id: `${host.origin}/client.json`, redirectUri: REDIRECT }, pkce())}`,
      {
        cookie: cookieA,
      },
    );
    expect(viaPage.status).toBe(429);
    expect(viaPage.json.error).toContain("Too many sign-in requests from this address");
    expect(host.fetched.length).toBe(fetchedSoFar);
  });
});

describe("registration", () => {
  beforeEach(() => setUp());

  test("an address may register 100 clients an hour; the 101st gets 429 with Retry-After and nothing is stored", async () => {
    for (let i = 0; i < REGISTRATIONS_PER_HOUR; i++) await registerClient(t, [REDIRECT], `Client ${i}`);
    const res = await t.call("POST", "/oauth/register", { body: { client_name: "One too many", redirect_uris: [REDIRECT] } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(res.json.error_description).toContain("Too many client registrations");
    expect(REGISTRATIONS_PER_HOUR).toBe(100);
    expect(await t.db.get("SELECT count(*) AS n FROM oauth_clients")).toEqual({ n: 100 });
  });

  test("an address's refused registrations do not count toward its 100 (they store nothing); a body over 64 KiB is 413", async () => {
    const big = await t.call("POST", "/oauth/register", {
      rawBody: JSON.stringify({ client_name: "x".repeat(70_000), redirect_uris: [REDIRECT] }),
      headers: { "content-type": "application/json" },
    });
    expect([big.status, big.json.error]).toEqual([413, "invalid_request"]);
    for (let i = 0; i < 30; i++) {
      const refused = await t.call("POST", "/oauth/register", { body: { client_name: "Bad", redirect_uris: ["http://evil.example/cb"] } });
      expect(refused.status).toBe(400);
    }
    for (let i = 0; i < REGISTRATIONS_PER_HOUR; i++) await registerClient(t, [REDIRECT], `Client ${i}`);
    expect(await t.db.get("SELECT count(*) AS n FROM oauth_clients")).toEqual({ n: REGISTRATIONS_PER_HOUR });
    expect((await t.call("POST", "/oauth/register", { body: { client_name: "One more", redirect_uris: [REDIRECT] } })).status).toBe(429);
  });

  test("what one registration may store is bounded: the redirect URIs together, and client_uri", async () => {
    const uris = Array.from({ length: 3 }, (_, i) => `https://app.example/${i}?${"x".repeat(1500)}`);
    const many = await t.call("POST", "/oauth/register", { body: { client_name: "Many", redirect_uris: uris } });
    expect(many.status).toBe(400);
    expect(many.json.error_description).toBe(`redirect_uris may be at most ${MAX_REDIRECT_URIS_TOTAL} characters long together.`);
    const site = await t.call("POST", "/oauth/register", {
      body: { client_name: "Site", redirect_uris: [REDIRECT], client_uri: `https://app.example/${"b".repeat(MAX_CLIENT_URI_LENGTH)}` },
    });
    expect(site.status).toBe(400);
    expect(site.json.error_description).toBe(`client_uri may be at most ${MAX_CLIENT_URI_LENGTH} characters long.`);
    expect(await t.db.get("SELECT count(*) AS n FROM oauth_clients")).toEqual({ n: 0 });
  });

  test("a registration nobody signs in with is deleted a week later; one ever signed in with stays, even once its grants are gone", async () => {
    const start = Date.now();
    t.ctx.oauth.now = () => start;
    const unused = await registerClient(t, [REDIRECT], "Unused");
    const { clientId: used } = await tokensForA();
    const coded = await registerClient(t, [REDIRECT], "Coded");
    await consent(t, cookieA, authorizeQuery(coded, pkce()), seed.a.brandId);
    // Its grant goes with the brand (deleting a brand cascades to its grants and codes); the client
    // keeps its client_id and will sign in with it again.
    await t.db.run("DELETE FROM oauth_codes WHERE client_id = ?", [coded.id]);
    // Within the week, and an hour after the last check: nothing goes.
    t.ctx.oauth.now = () => start + UNUSED_CLIENT_MS - 1000;
    await registerClient(t, [REDIRECT], "Later");
    const ids = async () => (await t.db.all<{ id: string }>("SELECT id FROM oauth_clients ORDER BY id")).map((r) => r.id);
    expect(await ids()).toContain(unused.id);
    t.ctx.oauth.now = () => start + UNUSED_CLIENT_MS + 2 * 60 * 60 * 1000;
    const latest = await registerClient(t, [REDIRECT], "Latest");
    const left = await ids();
    expect(left).not.toContain(unused.id);
    for (const id of [used, coded.id, latest.id]) expect(left).toContain(id);
    const gone = await t.call("GET", `/oauth/authorize?${authorizeQuery(unused, pkce())}`);
    expect(gone.status).toBe(400);
  });

  test("every address together may register 500 clients an hour; refused registrations do not count", async () => {
    expect(ALL_REGISTRATIONS_PER_HOUR).toBe(500);
    // Junk does not use up everyone's hour (it counts only toward its own address's 100).
    for (let i = 0; i < 20; i++) {
      const junk = await t.call("POST", "/oauth/register", { rawBody: "{", headers: { "x-forwarded-for": "203.0.113.1" } });
      expect(junk.status).toBe(400);
    }
    // Five addresses' worth, from behind the loopback proxy (X-Forwarded-For names each client).
    for (let i = 0; i < ALL_REGISTRATIONS_PER_HOUR; i++) {
      const res = await t.call("POST", "/oauth/register", {
        body: { client_name: `C${i}`, redirect_uris: [REDIRECT] },
        headers: { "x-forwarded-for": `198.51.100.${Math.floor(i / REGISTRATIONS_PER_HOUR)}` },
      });
      expect(res.status).toBe(201);
    }
    const res = await t.call("POST", "/oauth/register", {
      body: { client_name: "One more", redirect_uris: [REDIRECT] },
      headers: { "x-forwarded-for": "203.0.113.9" },
    });
    expect(res.status).toBe(429);
    expect(res.json.error_description).toContain("Too many client registrations on this server in the last hour");
  });

  test("a burst of registrations at once from many addresses stores no more than the 500 of the hour", async () => {
    const results = await Promise.all(
      Array.from({ length: 600 }, (_, i) =>
        t.call("POST", "/oauth/register", {
          body: { client_name: `Burst ${i}`, redirect_uris: [REDIRECT] },
          headers: { "x-forwarded-for": `198.51.100.${i % 6}` },
        }),
      ),
    );
    expect(results.filter((r) => r.status === 201).length).toBe(ALL_REGISTRATIONS_PER_HOUR);
    expect(results.filter((r) => r.status === 429).length).toBe(100);
    expect(await t.db.get("SELECT count(*) AS n FROM oauth_clients")).toEqual({ n: ALL_REGISTRATIONS_PER_HOUR });
  });

  test("a redirect URI over 2048 characters is refused", async () => {
    const long = `https://app.example/cb?${"x".repeat(MAX_REDIRECT_URI_LENGTH)}`;
    const res = await t.call("POST", "/oauth/register", { body: { client_name: "Long", redirect_uris: [long] } });
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({ error: "invalid_redirect_uri" });
    expect(res.json.error_description).toContain(`at most ${MAX_REDIRECT_URI_LENGTH} characters`);
  });

  test("a public client gets no secret, and the consent page names it as it registered", async () => {
    const res = await t.call("POST", "/oauth/register", { body: { client_name: "<b>Claude</b>", redirect_uris: [REDIRECT] } });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ client_name: "<b>Claude</b>", token_endpoint_auth_method: "none", redirect_uris: [REDIRECT] });
    expect(res.json.client_secret).toBeUndefined();
    const page = await t.call(
      "GET",
      `/api/oauth/authorization?${authorizeQuery({ id: res.json.client_id, redirectUri: REDIRECT }, pkce())}`,
      {
        cookie: cookieA,
      },
    );
    expect(page.json.client).toMatchObject({ name: "<b>Claude</b>", kind: "dcr", verified: false });
  });

  test("metadata that could not be stored as sent (a NUL, a lone surrogate, bytes that are not UTF-8) is refused naming the field; nothing is registered", async () => {
    for (const [body, words] of [
      [{ client_name: "a\u0000b", redirect_uris: [REDIRECT] }, "client_name: contains a NUL character"],
      [
        { client_name: "ok", client_uri: "https://a.example/\ud800", redirect_uris: [REDIRECT] },
        "client_uri: contains a lone UTF-16 surrogate",
      ],
    ] as const) {
      const res = await t.call("POST", "/oauth/register", { body });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe("invalid_client_metadata");
      expect(res.json.error_description).toStartWith(words);
    }
    const bytes = new TextEncoder().encode(JSON.stringify({ client_name: "Claude XX", redirect_uris: [REDIRECT] }));
    const at = bytes.indexOf(0x58);
    bytes.set([0xff, 0xfe], at);
    const notUtf8 = await t.app.handle(
      new Request(`${BASE}/oauth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: bytes }),
    );
    expect(notUtf8.status).toBe(400);
    expect(((await notUtf8.json()) as { error_description: string }).error_description).toContain("not valid UTF-8");
    const deep = await t.call("POST", "/oauth/register", { rawBody: `{"client_name":${"[".repeat(100)}${"]".repeat(100)}}` });
    expect(deep.status).toBe(400);
    expect(deep.json.error_description).toContain("nested more than 64 deep");
    expect(await t.db.all("SELECT id FROM oauth_clients")).toEqual([]);
  });

  test("a name's control and format characters are dropped: a right-to-left override cannot reverse the consent page's text", async () => {
    const res = await t.call("POST", "/oauth/register", {
      body: { client_name: "Claude\u202e evil\u200b\n\u2066app\u0007", redirect_uris: [REDIRECT] },
    });
    expect(res.status).toBe(201);
    expect(res.json.client_name).toBe("Claude evil app");
    const page = await t.call(
      "GET",
      `/api/oauth/authorization?${authorizeQuery({ id: res.json.client_id, redirectUri: REDIRECT }, pkce())}`,
      {
        cookie: cookieA,
      },
    );
    expect(page.json.client.name).toBe("Claude evil app");
    // A name stored before (straight in the table) is shown the same way, on the consent page and in the grants.
    await t.db.run("UPDATE oauth_clients SET name = ? WHERE id = ?", ["Old\u202eName", res.json.client_id]);
    const client = { id: res.json.client_id as string, redirectUri: REDIRECT };
    const again = await t.call("GET", `/api/oauth/authorization?${authorizeQuery(client, pkce())}`, { cookie: cookieA });
    expect(again.json.client.name).toBe("Old Name");
    const pair = pkce();
    const code = (await consent(t, cookieA, authorizeQuery(client, pair), seed.a.brandId)).searchParams.get("code")!;
    const token = await tokenRequest(t, {
      grant_type: "authorization_code",
      code,
      code_verifier: pair.verifier,
      redirect_uri: REDIRECT,
      client_id: client.id,
    });
    expect(token.status).toBe(200);
    const grants = await t.call("GET", "/api/oauth/grants", { cookie: cookieA });
    expect(grants.json.grants.map((g: { client_name: string }) => g.client_name)).toContain("Old Name");
  });

  test("metadata the schema refuses is named by its field and what it must be", async () => {
    // The redirect URIs have a code of their own (RFC 7591 §3.2.2); the rest is invalid_client_metadata.
    const refusal = async (body: unknown, code = "invalid_client_metadata") => {
      const res = await t.call("POST", "/oauth/register", { body: body as Record<string, unknown> });
      expect(res.status).toBe(400);
      expect(res.json.error).toBe(code);
      return res.json.error_description as string;
    };
    expect(await refusal({ client_name: "Bad" }, "invalid_redirect_uri")).toBe(
      "redirect_uris is required: the list of addresses the client receives its authorization code at.",
    );
    expect(await refusal({ redirect_uris: [REDIRECT], grant_types: "authorization_code" })).toBe(
      "grant_types must be a list (a JSON array).",
    );
    expect(await refusal({ redirect_uris: ["not a url"] }, "invalid_redirect_uri")).toBe('redirect_uris[0]: "not a url" is not a URL.');
    expect(await refusal({ redirect_uris: [REDIRECT], client_name: 5 })).toBe("client_name must be a string.");
    expect(await refusal([])).toBe("The registration must be a JSON object of client metadata (RFC 7591), with at least redirect_uris.");
    expect(await t.db.get("SELECT count(*) AS n FROM oauth_clients")).toEqual({ n: 0 });
  });

  test("a confidential client gets a secret once, stored only as a hash, and must present it (Basic or in the body) at the token endpoint", async () => {
    for (const method of ["client_secret_post", "client_secret_basic"] as const) {
      const reg = await t.call("POST", "/oauth/register", {
        body: { client_name: "Confidential", redirect_uris: [REDIRECT], token_endpoint_auth_method: method },
      });
      expect(reg.status).toBe(201);
      expect(reg.json.token_endpoint_auth_method).toBe(method);
      const secret = reg.json.client_secret as string;
      expect(secret).toMatch(/^sgo_cs_/);
      expect(JSON.stringify(await t.db.all("SELECT * FROM oauth_clients"))).not.toContain(secret);
      const client = { id: reg.json.client_id as string, redirectUri: REDIRECT };
      const exchange = async (auth: { body?: string; basic?: string }) => {
        const pair = pkce();
        const code = (await consent(t, cookieA, authorizeQuery(client, pair), seed.a.brandId)).searchParams.get("code")!;
        const params: Record<string, string> = {
          grant_type: "authorization_code",
          code,
          code_verifier: pair.verifier,
          redirect_uri: REDIRECT,
        };
        if (auth.basic === undefined) params.client_id = client.id;
        if (auth.body !== undefined) params.client_secret = auth.body;
        return t.call("POST", "/oauth/token", {
          rawBody: new URLSearchParams(params).toString(),
          headers: {
            "content-type": "application/x-www-form-urlencoded",
            ...(auth.basic !== undefined ? { authorization: `Basic ${Buffer.from(`${client.id}:${auth.basic}`).toString("base64")}` } : {}),
          },
        });
      };
      for (const refused of [await exchange({}), await exchange({ body: "sgo_cs_wrong" }), await exchange({ basic: "sgo_cs_wrong" })]) {
        expect(refused.status).toBe(401);
        expect(refused.json.error).toBe("invalid_client");
      }
      const viaBody = await exchange({ body: secret });
      expect(viaBody.status).toBe(200);
      const viaBasic = await exchange({ basic: secret });
      expect(viaBasic.status).toBe(200);
      const refresh = (extra: Record<string, string>) =>
        tokenRequest(t, { grant_type: "refresh_token", refresh_token: viaBody.json.refresh_token, client_id: client.id, ...extra });
      expect((await refresh({})).json.error).toBe("invalid_client");
      expect((await refresh({ client_secret: secret })).status).toBe(200);
    }
  });

  test("private_key_jwt and other methods Spyglass does not verify are refused at registration", async () => {
    const res = await t.call("POST", "/oauth/register", {
      body: { client_name: "JWT", redirect_uris: [REDIRECT], token_endpoint_auth_method: "private_key_jwt" },
    });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe("invalid_client_metadata");
  });
});
