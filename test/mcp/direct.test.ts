// The tool server answers a single tools/list or tools/call itself (src/mcp/direct.ts), without an
// SDK server per request. A client must not be able to tell: every answer here is compared byte for
// byte with what the SDK server (createToolServer, as the route builds it for every other message)
// sends for the same request, and the key is still checked on every request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { setAccountPlan } from "../../src/accounts/service";
import { buildCatalog, type Principal } from "../../src/catalogue/registry";
import { TOOLS } from "../../src/catalogue/tools";
import { authenticateBearerKey, revokeApiKey } from "../../src/keys/service";
import { keptListingAnswers } from "../../src/mcp/direct";
import { createToolServer } from "../../src/mcp/server";
import { secondConnection } from "../support/database";
import { testCatalog } from "../support/http";
import { type SeededToolServer, seededToolServer } from "../support/tool-server";

const catalog = buildCatalog(TOOLS);
let s: SeededToolServer;

beforeAll(async () => {
  // A file on SQLite: the last tests change it through a second connection, as the CLI does.
  s = await seededToolServer({ file: true });
});
afterAll(() => s.close());

const HEADERS = { "content-type": "application/json", "mcp-protocol-version": "2025-11-25" };

/** The SDK server's answer to `body` for `key`, built exactly as the route builds it. */
async function viaSdk(key: string, body: string): Promise<{ status: number; text: string; contentType: string | null }> {
  const verified = await authenticateBearerKey(s.t.ctx, `Bearer ${key}`);
  if (!verified.ok) throw new Error(`key not valid: ${verified.reason}`);
  const v = verified.value;
  const principal: Principal = {
    account: { id: v.account.id },
    brand: { id: v.brand.id, name: v.brand.name, domain: v.brand.domain },
    plan: v.plan,
  };
  const server = createToolServer(catalog, s.t.ctx, principal, "req_test");
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const request = new Request("http://spyglass.test/api/mcp/mcp", {
      method: "POST",
      headers: { ...HEADERS, accept: "application/json, text/event-stream", authorization: `Bearer ${key}` },
      body,
    });
    const response = await transport.handleRequest(request, { parsedBody: JSON.parse(body) });
    return { status: response.status, text: await response.text(), contentType: response.headers.get("content-type") };
  } finally {
    await server.close();
  }
}

async function viaRoute(key: string, body: string) {
  const res = await s.post({ ...HEADERS, authorization: `Bearer ${key}` }, body);
  return { status: res.status, text: res.text, contentType: res.headers.get("content-type") };
}

const rpc = (id: number | string, method: string, params?: object) =>
  JSON.stringify(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });

describe("answers identical to the SDK server's", () => {
  const cases: Array<[string, () => string, (seed: SeededToolServer["seed"]) => string]> = [
    ["tools/list on Autopilot", () => rpc(1, "tools/list", {}), (seed) => seed.a.key],
    ["tools/list on Visibility, a string id and no params", () => rpc("list-1", "tools/list"), (seed) => seed.visibility.key],
    ["tools/list with a cursor and _meta", () => rpc(7, "tools/list", { cursor: "x", _meta: { progressToken: 3 } }), (seed) => seed.a.key],
    ["a tool's result", () => rpc(2, "tools/call", { name: "list_prompts", arguments: { limit: 50 } }), (seed) => seed.a.key],
    ["a tool called without arguments", () => rpc(3, "tools/call", { name: "list_tags" }), (seed) => seed.a.key],
    ["a tool's invalid input", () => rpc(4, "tools/call", { name: "list_prompts", arguments: { limit: "many" } }), (seed) => seed.a.key],
    [
      "a tool above the key's plan",
      () => rpc("call-5", "tools/call", { name: "generate_article", arguments: {} }),
      (seed) => seed.visibility.key,
    ],
    [
      "a result with resource links after its text",
      () => rpc(8, "tools/call", { name: "get_article", arguments: { article_id: s.seed.a.ids.articleId } }),
      (seed) => seed.a.key,
    ],
    ["a not-found error", () => rpc(6, "tools/call", { name: "get_answer", arguments: { answer_id: "ans_nope" } }), (seed) => seed.a.key],
    // Object.prototype's member names are fields like any other: unknown (with null: once an HTTP 500
    // here, and the engine's TypeError through the SDK).
    [
      "an argument named constructor, null",
      () => rpc(9, "tools/call", { name: "list_tags", arguments: { constructor: null } }),
      (seed) => seed.a.key,
    ],
    ["an argument named toString, 1", () => rpc(10, "tools/call", { name: "list_tags", arguments: { toString: 1 } }), (seed) => seed.a.key],
  ];
  for (const [name, body, key] of cases) {
    test(name, async () => {
      const ours = await viaRoute(key(s.seed), body());
      const sdk = await viaSdk(key(s.seed), body());
      expect(ours.status).toBe(200);
      expect(ours).toEqual(sdk);
      if (name.includes("resource links")) expect(ours.text).toContain('"type":"resource_link"');
    });
  }

  test("the Autopilot listing has every tool, the Visibility one fewer", async () => {
    const autopilot = JSON.parse((await viaRoute(s.seed.a.key, rpc(1, "tools/list"))).text).result.tools;
    const visibility = JSON.parse((await viaRoute(s.seed.visibility.key, rpc(1, "tools/list"))).text).result.tools;
    expect(autopilot.length).toBe(TOOLS.length);
    expect(visibility.length).toBeLessThan(autopilot.length);
  });

  test("each listing answers with its own request's id, past the ids whose answers are kept", async () => {
    // Answers are kept per plan and id (64 of them): the 65th id onwards is answered fresh, and a
    // kept answer of one plan is never another plan's.
    const ids: Array<number | string> = [...Array.from({ length: 70 }, (_, i) => i), "a", "b", 1, 0, 69];
    for (const id of ids) {
      const ours = await viaRoute(s.seed.a.key, rpc(id, "tools/list"));
      expect(ours).toEqual(await viaSdk(s.seed.a.key, rpc(id, "tools/list")));
    }
    const visibility = await viaRoute(s.seed.visibility.key, rpc(1, "tools/list"));
    expect(visibility).toEqual(await viaSdk(s.seed.visibility.key, rpc(1, "tools/list")));
  });

  test("requests with ids never seen before, sent together, each get the listing with their own id", async () => {
    // Past the kept ids, every answer is written into one buffer per plan: each must be its own.
    const expected = JSON.parse((await viaSdk(s.seed.a.key, rpc(1, "tools/list"))).text);
    const ids = Array.from({ length: 40 }, (_, i) => (i % 2 ? 100_000 + i : `fresh-${i}-${"é".repeat(i)}`));
    const answers = await Promise.all(ids.map((id) => viaRoute(s.seed.a.key, rpc(id, "tools/list"))));
    for (const [i, answer] of answers.entries()) {
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.text)).toEqual({ ...expected, id: ids[i] });
    }
  });
});

describe("the kept listing answers", () => {
  test("an id longer than a client's is answered, not kept (64 ids of a megabyte held 130 MB for the life of the process)", async () => {
    const listing = testCatalog().listFor("visibility");
    const before = keptListingAnswers(listing);
    const long = `id-${"x".repeat(5_000)}`;
    const answer = await viaRoute(s.seed.visibility.key, rpc(long, "tools/list"));
    expect(answer).toEqual(await viaSdk(s.seed.visibility.key, rpc(long, "tools/list")));
    expect(keptListingAnswers(listing)).toBe(before);
    await viaRoute(s.seed.visibility.key, rpc("a-short-id", "tools/list"));
    expect(keptListingAnswers(listing)).toBe(before + 1);
  });
});

describe("left to the SDK server", () => {
  test("a tools/list whose params its schema refuses gets the refusal, not the listing", async () => {
    // A listing without params is answered before any check (nothing to check); these are not.
    await viaRoute(s.seed.a.key, rpc(1, "tools/list"));
    const refusals: Array<[object | unknown[], string]> = [
      [{ cursor: 5 }, "Invalid params: params.cursor must be a string."],
      [{ _meta: { progressToken: {} } }, "Invalid params: params._meta.progressToken"],
      [[], "Invalid params: params must be an object."],
      [{ cursor: "\ud800" }, "Invalid params: params.cursor"],
    ];
    for (const [params, message] of refusals) {
      const res = await viaRoute(s.seed.a.key, rpc(9, "tools/list", params));
      const answer = JSON.parse(res.text);
      expect(answer.result).toBeUndefined();
      expect(answer.error.code).toBe(-32602);
      expect(answer.error.message).toStartWith(message);
    }
  });

  test("an unknown tool is its protocol error", async () => {
    const res = await viaRoute(s.seed.a.key, rpc(1, "tools/call", { name: "no_such_tool", arguments: {} }));
    expect(JSON.parse(res.text).error.code).toBe(-32602);
    expect(res).toEqual(await viaSdk(s.seed.a.key, rpc(1, "tools/call", { name: "no_such_tool", arguments: {} })));
  });

  test("a batch of a tools/list and a tools/call", async () => {
    const body = `[${rpc(1, "tools/list")},${rpc(2, "tools/call", { name: "list_tags", arguments: {} })}]`;
    const res = await viaRoute(s.seed.a.key, body);
    const answers = JSON.parse(res.text);
    expect(answers.map((a: { id: number }) => a.id).sort()).toEqual([1, 2]);
    expect(answers.find((a: { id: number }) => a.id === 1).result.tools.length).toBe(TOOLS.length);
  });

  test("an unsupported protocol version is refused as the SDK refuses it", async () => {
    const res = await s.post(
      { ...HEADERS, authorization: `Bearer ${s.seed.a.key}`, "mcp-protocol-version": "1999-01-01" },
      rpc(1, "tools/list"),
    );
    expect(res.status).toBe(400);
    expect(res.json.error.message).toContain("Unsupported protocol version");
  });

  test("a client that does not accept an event stream is refused as the SDK refuses it", async () => {
    const res = await s.t.call("POST", "/api/mcp/mcp", {
      rawBody: rpc(1, "tools/list"),
      headers: { ...HEADERS, authorization: `Bearer ${s.seed.a.key}`, accept: "application/json" },
    });
    expect(res.status).toBe(406);
  });
});

test("a revoked key gets no listing on its very next request", async () => {
  const { key, keyId } = s.seed.spareKeyOfA;
  expect((await viaRoute(key, rpc(1, "tools/list"))).status).toBe(200);
  await revokeApiKey(s.t.db, s.seed.a.accountId, keyId);
  const after = await viaRoute(key, rpc(1, "tools/list"));
  expect(after.status).toBe(401);
  expect(after.text).not.toContain("get_brand");
});

describe("changes made by another process apply on the very next request", () => {
  // A second connection to the same database, as the CLI (spyglass key revoke, account plan) opens one.
  test("a plan change", async () => {
    const before = JSON.parse((await viaRoute(s.seed.b.key, rpc(1, "tools/list"))).text).result.tools;
    expect(before.length).toBe(TOOLS.length);
    const cli = await secondConnection(s.t.db);
    try {
      await setAccountPlan(cli, s.seed.b.email, "visibility");
    } finally {
      await cli.close();
    }
    const after = JSON.parse((await viaRoute(s.seed.b.key, rpc(1, "tools/list"))).text).result.tools;
    expect(after.length).toBeLessThan(TOOLS.length);
    expect(after.map((t: { name: string }) => t.name)).not.toContain("generate_article");
  });

  test("a revocation", async () => {
    expect((await viaRoute(s.seed.b.key, rpc(1, "tools/list"))).status).toBe(200);
    const cli = await secondConnection(s.t.db);
    try {
      await revokeApiKey(cli, s.seed.b.accountId, s.seed.b.keyId);
    } finally {
      await cli.close();
    }
    const after = await viaRoute(s.seed.b.key, rpc(2, "tools/call", { name: "list_tags", arguments: {} }));
    expect(after.status).toBe(401);
  });
});
