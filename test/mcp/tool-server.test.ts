// The tool server's own machinery, in process (app.handle, no ports): the plan gate, error mapping,
// the output guard, the catalogue's checks and the Origin rule. Tools declared here are test-only.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { z } from "zod";
import { findAccountByEmail } from "../../src/accounts/service";
import { createBrand } from "../../src/brands/service";
import { invalidInputMessage } from "../../src/catalogue/invalid-input";
import { type AnyTool, buildCatalog, defineTool } from "../../src/catalogue/registry";
import { TOOLS } from "../../src/catalogue/tools";
import { Conflict, NotFound } from "../../src/errors";
import { observability } from "../../src/http/observability";
import { createApiKey } from "../../src/keys/service";
import { configureLog } from "../../src/log";
import { checkJsonRpc } from "../../src/mcp/jsonrpc";
import { isAllowedOrigin, ownOrigins } from "../../src/mcp/origin";
import { mcpRoutes } from "../../src/mcp/routes";
import { type TestApp, testApp, testConfig } from "../support/http";
import { captureLog } from "../support/log";

const ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

const TEST_TOOLS = [
  defineTool({
    name: "echo_brand",
    title: "Echo the brand",
    description: "Use in tests: returns the key's brand id, and a field the output schema does not declare.",
    input: z.strictObject({ n: z.number().int().min(1).max(5).optional() }),
    output: z.object({ brand_id: z.string() }),
    annotations: ANNOTATIONS,
    plan: "visibility",
    handler: (_input, ctx) => ({ brand_id: ctx.brand.id, secret: "must not leave" }) as { brand_id: string },
  }),
  defineTool({
    name: "autopilot_only",
    title: "Autopilot only",
    description: "Use in tests: a tool of the Autopilot plan that always succeeds.",
    input: z.strictObject({}),
    output: z.object({ ok: z.boolean() }),
    annotations: ANNOTATIONS,
    plan: "autopilot",
    handler: () => ({ ok: true }),
  }),
  defineTool({
    name: "explodes",
    title: "Explodes",
    description: "Use in tests: throws an unexpected error carrying internal details.",
    input: z.strictObject({ kind: z.enum(["internal", "not_found", "conflict"]) }),
    output: z.object({ ok: z.boolean() }),
    annotations: ANNOTATIONS,
    plan: "visibility",
    handler: (input) => {
      if (input.kind === "not_found") throw new NotFound("Widget not found.");
      if (input.kind === "conflict") throw new Conflict("That name is taken.");
      throw new Error("SQLITE_CONSTRAINT: UNIQUE constraint failed: secret_table.secret_column");
    },
  }),
] as AnyTool[];

let t: TestApp;
let app: Elysia;
const keys: Record<string, string> = {};

async function post(key: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await app.handle(
    new Request("http://spyglass.test/api/mcp/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...headers,
      },
      body: JSON.stringify(body),
    }),
  );
  return { status: response.status, headers: response.headers, json: (await response.json()) as any };
}

async function callTool(key: string, name: string, args: Record<string, unknown> = {}) {
  const res = await post(key, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });
  expect(res.status).toBe(200);
  return { ...res.json.result, requestId: res.headers.get("x-request-id") };
}

beforeAll(async () => {
  t = await testApp();
  for (const plan of ["visibility", "autopilot"] as const) {
    await t.signIn(`${plan}@example.com`, { plan });
    const account = (await findAccountByEmail(t.db, `${plan}@example.com`))!;
    const brand = await createBrand(t.db, account.id, { name: `${plan} brand` });
    keys[plan] = (await createApiKey(t.db, account.id, { name: "k", brandId: brand.id })).plaintext;
  }
  app = new Elysia().use(observability()).use(mcpRoutes(t.ctx, buildCatalog(TEST_TOOLS))) as unknown as Elysia;
});

afterAll(() => t.close());

describe("plan gate", () => {
  test("tools/list shows a Visibility key only the Visibility tools", async () => {
    const res = await post(keys.visibility!, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(res.json.result.tools.map((x: { name: string }) => x.name)).toEqual(["echo_brand", "explodes"]);
    const auto = await post(keys.autopilot!, { jsonrpc: "2.0", id: 1, method: "tools/list" });
    expect(auto.json.result.tools.map((x: { name: string }) => x.name)).toEqual(["echo_brand", "autopilot_only", "explodes"]);
  });

  test("calling a higher plan's tool is a tool error naming the plan, with the contract's structuredContent", async () => {
    const result = await callTool(keys.visibility!, "autopilot_only");
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toBe(
      "autopilot_only requires the Autopilot plan; this account is on the Visibility plan. To upgrade: the instance's owner sets it on the dashboard's Accounts page, or run spyglass account plan --email E --plan autopilot (E: the account's email).",
    );
    expect(result.structuredContent).toEqual({ error: { code: "plan_required", required_plan: "autopilot" } });
    expect((await callTool(keys.autopilot!, "autopilot_only")).structuredContent).toEqual({ ok: true });
  });
});

describe("tool errors", () => {
  test("an unexpected exception becomes a generic sentence with the request id; details go to the log only", async () => {
    let result: any;
    const logs = await captureLog(async () => {
      result = await callTool(keys.visibility!, "explodes", { kind: "internal" });
    });
    configureLog({ quiet: true });
    expect(result.isError).toBe(true);
    expect(result.content[0].text).toBe(
      `Something went wrong on our side while running explodes (request ${result.requestId}); try again, and quote the request id if it persists.`,
    );
    expect(JSON.stringify(result)).not.toContain("SQLITE");
    expect(result.structuredContent).toBeUndefined();
    const logged = logs
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === "tool failed");
    expect(logged).toMatchObject({ request_id: result.requestId, tool: "explodes", message: expect.stringContaining("SQLITE_CONSTRAINT") });
  });

  test("AppError subclasses give their own sentence", async () => {
    expect((await callTool(keys.visibility!, "explodes", { kind: "not_found" })).content[0].text).toBe("Widget not found.");
    expect((await callTool(keys.visibility!, "explodes", { kind: "conflict" })).content[0].text).toBe("That name is taken.");
  });

  test("invalid input names the field and the problem", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ n: 9 }, "Invalid input for echo_brand: n must be at most 5."],
      [{ n: "two" }, "Invalid input for echo_brand: n must be a number."],
      [{ n: 1.5 }, "Invalid input for echo_brand: n must be a whole number."],
      [
        { brand_id: "x" },
        'Invalid input for echo_brand: Unknown field "brand_id" (each key or sign-in acts for one brand: no tool takes a brand id).',
      ],
    ];
    for (const [args, message] of cases) expect((await callTool(keys.visibility!, "echo_brand", args)).content[0].text).toBe(message);
    expect((await callTool(keys.visibility!, "explodes", { kind: "boom" })).content[0].text).toBe(
      'Invalid input for explodes: kind must be one of "internal", "not_found", "conflict".',
    );
  });

  test("a result is parsed through the output schema: undeclared fields never leave", async () => {
    const result = await callTool(keys.visibility!, "echo_brand");
    expect(result.structuredContent).toEqual({ brand_id: expect.stringMatching(/^brd_/) });
    expect(JSON.parse(result.content[0].text)).toEqual(result.structuredContent);
    expect(JSON.stringify(result)).not.toContain("must not leave");
  });

  test("invalidInputMessage names five problems in full and the fields of the rest, one problem per field", () => {
    const schema = z.object({
      a: z.string(),
      b: z.string(),
      c: z.string(),
      d: z.string(),
      e: z.string(),
      f: z.string(),
      list: z.array(z.object({ x: z.string() })),
    });
    const parsed = schema.safeParse({ list: [{ x: 1 }] }, { reportInput: true });
    expect(parsed.success).toBe(false);
    if (!parsed.success)
      expect(invalidInputMessage("t", parsed.error)).toBe(
        "Invalid input for t: a is required; b is required; c is required; d is required; e is required (and 2 more: f, list[0].x).",
      );
    // A huge whole number breaks zod's implicit safe-integer bound and the field's own: only the field's is named.
    const limit = z.object({ limit: z.number().int().min(1).max(200) }).safeParse({ limit: 1e308 }, { reportInput: true });
    if (!limit.success) expect(invalidInputMessage("t", limit.error)).toBe("Invalid input for t: limit must be at most 200.");
    expect(limit.success).toBe(false);
  });

  test("a text field of any tool in the wrong format is named in a sentence: <field> must be …", () => {
    // A review found "start_date a date as YYYY-MM-DD.": a format's message is the predicate itself.
    let checked = 0;
    for (const tool of TOOLS) {
      for (const field of Object.keys(tool.input.shape)) {
        const parsed = tool.input.safeParse({ [field]: "~ not valid ~" }, { reportInput: true });
        const issue = parsed.success ? undefined : parsed.error.issues.find((i) => i.path[0] === field && i.code === "invalid_format");
        if (!issue || parsed.success) continue;
        checked++;
        const sentence = invalidInputMessage(tool.name, new z.ZodError([issue]));
        expect(sentence).toMatch(new RegExp(`^Invalid input for ${tool.name}: ${field} must (be|have) .+[.]$`));
      }
    }
    expect(checked).toBeGreaterThan(3);
  });
});

describe("catalogue", () => {
  const base = TEST_TOOLS[0]!;
  test("refuses names that are not snake_case of at most 64 characters, and duplicates", () => {
    expect(() => buildCatalog([{ ...base, name: "Echo-Brand" }])).toThrow(/snake_case/);
    expect(() => buildCatalog([{ ...base, name: `a${"_b".repeat(40)}` }])).toThrow(/snake_case/);
    expect(() => buildCatalog([base, base])).toThrow(/declared twice/);
    expect(() => buildCatalog([{ ...base, description: "short" }])).toThrow(/description/);
  });

  test("refuses a tool whose input, or an object inside it, would accept fields it does not declare", () => {
    expect(() => buildCatalog([{ ...base, input: z.object({ n: z.number().optional() }) }])).toThrow(
      'tool "echo_brand": input must be a strict object (z.strictObject)',
    );
    expect(() => buildCatalog([{ ...base, input: z.strictObject({ items: z.array(z.object({ x: z.string() })) }) }])).toThrow(
      /input\.properties\.items\.items must be a strict object/,
    );
  });

  test("every tool of the real catalogue refuses a misspelt field by name", async () => {
    const catalog = buildCatalog(TOOLS);
    const account = (await findAccountByEmail(t.db, "autopilot@example.com"))!;
    const principal = {
      account: { id: account.id },
      brand: { id: "brd_nothing_here", name: "x", domain: null },
      plan: "autopilot" as const,
    };
    for (const name of catalog.byName.keys()) {
      const outcome = await catalog.call(t.ctx, principal, "req_test", name, { start_dat: "2025-01-01" });
      expect(outcome.ok).toBe(false);
      if (!outcome.ok) {
        expect(outcome.error.code).toBe("invalid_input");
        expect(outcome.error.message).toContain('Unknown field "start_dat"');
      }
    }
  });

  test("a call needs only a principal and a request id, not a credential", async () => {
    const catalog = buildCatalog(TEST_TOOLS);
    const principal = { account: { id: "acc_x" }, brand: { id: "brd_x", name: "X", domain: null }, plan: "visibility" as const };
    expect(await catalog.call(t.ctx, principal, "req_1", "echo_brand", {})).toEqual({ ok: true, value: { brand_id: "brd_x" } });
    const refused = await catalog.call(t.ctx, principal, "req_1", "autopilot_only", {});
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error).toMatchObject({ status: 403, code: "plan_required", requiredPlan: "autopilot" });
    const unknown = await catalog.call(t.ctx, principal, "req_1", "no_such_tool", {});
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.error).toMatchObject({ status: 404, code: "unknown_tool" });
  });

  test("a write whose brand was deleted meanwhile (by another instance, after the request's check) is the brand's 404, not a 500", async () => {
    const catalog = buildCatalog(TOOLS);
    const account = (await findAccountByEmail(t.db, "autopilot@example.com"))!;
    const principal = {
      account: { id: account.id },
      brand: { id: "brd_deleted_meanwhile", name: "Gone", domain: null },
      plan: "autopilot" as const,
    };
    const logs = await captureLog(async () => {
      for (const [name, input] of [
        ["create_tag", { name: "orphan" }],
        ["create_competitor", { name: "Orphan Corp" }],
      ] as const) {
        const outcome = await catalog.call(t.ctx, principal, "req_gone", name, input);
        expect({ name, ok: outcome.ok }).toEqual({ name, ok: false });
        if (!outcome.ok)
          expect({ name, status: outcome.error.status, code: outcome.error.code }).toEqual({ name, status: 404, code: "brand_not_found" });
      }
    });
    expect(logs).not.toContain('"msg":"tool failed"');
  });

  test("an unknown tool is a JSON-RPC invalid-params error whose message says so once", async () => {
    const res = await post(keys.visibility!, {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "no_such_tool", arguments: {} },
    });
    expect(res.json).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32602, message: 'Unknown tool "no_such_tool"; tools/list shows the tools this credential can use.' },
    });
  });

  test("renders the JSON once per plan (the same objects on every request)", () => {
    const catalog = buildCatalog(TEST_TOOLS);
    expect(catalog.listFor("visibility")).toBe(catalog.listFor("visibility"));
    expect(catalog.listFor("none").tools).toEqual([]);
  });
});

describe("Origin rule", () => {
  const config = testConfig("/tmp/unused", { publicUrl: "https://visibility.example.com", publicOrigin: "https://visibility.example.com" });
  const allowed = ownOrigins(config);
  test.each([
    [null, true],
    ["https://visibility.example.com", true],
    ["http://localhost:6274", true],
    ["http://127.0.0.1", true],
    ["https://[::1]:8443", true],
    ["https://evil.example.com", false],
    ["http://visibility.example.com", false],
    ["https://visibility.example.com.evil.com", false],
    ["http://localhost.evil.com", false],
    ["null", false],
    ["file://", false],
    ["not a url", false],
    ["https://visibility.example.com/path", false],
  ] as const)("%p allowed: %p", (origin, expected) => {
    expect(isAllowedOrigin(origin, allowed)).toBe(expected);
  });

  test("a configured host and port are the server's own origin; 0.0.0.0 is not", () => {
    expect([...ownOrigins({ ...config, publicOrigin: null, host: "10.0.0.5", port: 3000 })]).toEqual(["http://10.0.0.5:3000"]);
    expect([...ownOrigins({ ...config, publicOrigin: null, host: "0.0.0.0", port: 3000 })]).toEqual([]);
  });
});

describe("CORS for clients in a web page on an allowed origin", () => {
  const preflight = (origin: string | null, extra: Record<string, string> = {}) =>
    app.handle(
      new Request("http://spyglass.test/api/mcp/mcp", {
        method: "OPTIONS",
        headers: { ...(origin ? { origin } : {}), "access-control-request-method": "POST", ...extra },
      }),
    );

  test("a preflight from a loopback page is answered before any credential, with the protocol's headers", async () => {
    const asked = await preflight("http://localhost:6274", {
      "access-control-request-headers": "authorization, content-type, mcp-protocol-version",
    });
    expect(asked.status).toBe(204);
    expect(asked.headers.get("access-control-allow-origin")).toBe("http://localhost:6274");
    expect(asked.headers.get("access-control-allow-methods")).toBe("POST, GET, DELETE");
    expect(asked.headers.get("access-control-allow-headers")).toBe("authorization, content-type, mcp-protocol-version");
    expect(asked.headers.get("access-control-allow-credentials")).toBeNull();
    // Without a list asked for, the protocol's own headers.
    expect((await preflight("http://127.0.0.1:5173")).headers.get("access-control-allow-headers")).toContain("mcp-protocol-version");
  });

  test("a preflight from another origin, or an OPTIONS that is no preflight, is refused as before: 401 without a credential, no CORS", async () => {
    for (const response of [await preflight("https://evil.example.com"), await preflight(null)]) {
      expect(response.status).toBe(401);
      expect(response.headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  test("answers to an allowed page carry its origin and expose WWW-Authenticate (the way to sign in); other origins get none", async () => {
    const unsigned = await app.handle(
      new Request("http://spyglass.test/api/mcp/mcp", {
        method: "POST",
        headers: { origin: "http://localhost:6274", "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      }),
    );
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get("access-control-allow-origin")).toBe("http://localhost:6274");
    expect(unsigned.headers.get("access-control-expose-headers")).toContain("www-authenticate");
    expect(unsigned.headers.get("vary")).toContain("Origin");
    const listed = await post(keys.visibility!, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { origin: "http://localhost:6274" });
    expect(listed.status).toBe(200);
    expect(listed.headers.get("access-control-allow-origin")).toBe("http://localhost:6274");
    const refused = await post(keys.visibility!, { jsonrpc: "2.0", id: 1, method: "tools/list" }, { origin: "https://evil.example.com" });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    // A client with no Origin (every desktop and command-line one) gets no CORS header.
    expect(
      (await post(keys.visibility!, { jsonrpc: "2.0", id: 1, method: "tools/list" })).headers.get("access-control-allow-origin"),
    ).toBeNull();
  });
});

describe("JSON-RPC conventions", () => {
  const invalidParams = (res: { status: number; json: any }, id: number | string | null) => {
    expect(res.status).toBe(200);
    expect(res.json.id).toBe(id);
    expect(res.json.error.code).toBe(-32602);
    expect(res.json.error.message).toMatch(/^Invalid params: [A-Za-z].*\.$/);
    // A sentence, not a dump of the validator's issues.
    expect(res.json.error.message).not.toContain("[");
    expect(res.json.error.message).not.toContain("expected");
  };

  test("tools/call with a non-string name or without params, initialize without params, and bad params of the other methods are -32602 with a sentence", async () => {
    invalidParams(await post(keys.visibility!, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: 5 } }), 1);
    invalidParams(await post(keys.visibility!, { jsonrpc: "2.0", id: "b", method: "tools/call" }), "b");
    invalidParams(
      await post(keys.visibility!, { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "echo_brand", arguments: [1] } }),
      3,
    );
    invalidParams(await post(keys.visibility!, { jsonrpc: "2.0", id: 4, method: "initialize" }), 4);
    invalidParams(
      await post(keys.visibility!, { jsonrpc: "2.0", id: 5, method: "initialize", params: { protocolVersion: "2025-11-25" } }),
      5,
    );
    const cursor = await post(keys.visibility!, { jsonrpc: "2.0", id: 7, method: "tools/list", params: { cursor: 5 } });
    invalidParams(cursor, 7);
    expect(cursor.json.error.message).toBe("Invalid params: params.cursor must be a string.");
    // The other methods the server advertises (prompts, resources, completions) too: the SDK
    // answered these -32603 with a dump of zod's issues (found by a review).
    const others: Array<[string, object, string]> = [
      ["resources/read", { uri: 5 }, "Invalid params: params.uri must be a string."],
      ["resources/read", {}, "Invalid params: params.uri must be a string."],
      ["resources/list", { cursor: 1 }, "Invalid params: params.cursor must be a string."],
      ["prompts/get", {}, "Invalid params: params.name must be a string."],
      ["prompts/get", { name: "x", arguments: { x: 5 } }, "Invalid params: params.arguments.x must be a string."],
    ];
    for (const [i, [method, params, sentence]] of others.entries()) {
      const res = await post(keys.visibility!, { jsonrpc: "2.0", id: 10 + i, method, params });
      invalidParams(res, 10 + i);
      expect(res.json.error.message).toBe(sentence);
    }
    invalidParams(await post(keys.visibility!, { jsonrpc: "2.0", id: 20, method: "completion/complete", params: {} }), 20);
    // Well-formed requests still reach the SDK.
    const ok = await post(keys.visibility!, {
      jsonrpc: "2.0",
      id: 6,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } },
    });
    expect(ok.json.result.serverInfo.name).toBe("spyglass");
  });

  test("an empty batch is an Invalid Request error, not a bodiless 202", async () => {
    const res = await post(keys.visibility!, []);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: the batch is empty." } });
  });

  test("JSON that is no JSON-RPC message is -32600 Invalid Request (a parse error is for text that is no JSON)", async () => {
    for (const body of [
      { foo: 1 },
      { jsonrpc: "1.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: null, method: "ping" },
      "just a string",
      42,
    ]) {
      const res = await post(keys.visibility!, body);
      expect({ body, status: res.status, code: res.json.error?.code }).toEqual({ body, status: 400, code: -32600 });
      expect(res.json.error.message).toStartWith("Invalid Request: this is JSON but no JSON-RPC 2.0 message");
    }
    // A notification is a message still: the SDK takes it (202, no body).
    expect(checkJsonRpc({ jsonrpc: "2.0", method: "notifications/initialized" })).toBeNull();
    expect(checkJsonRpc({ jsonrpc: "2.0", id: 3, result: {} })).toBeNull();
  });

  test("a request with a member besides jsonrpc, id, method and params, or an id that is no integer, is -32600 with its id", async () => {
    for (const [body, id] of [
      [{ jsonrpc: "2.0", id: 7, method: "ping", x: 1 }, 7],
      [{ jsonrpc: "2.0", id: 3, method: "ping", result: {} }, 3],
      [{ jsonrpc: "2.0", id: 1.5, method: "ping" }, 1.5],
      [{ jsonrpc: "2.0", id: 2 ** 53, method: "ping" }, 2 ** 53],
      [{ jsonrpc: "2.0", method: "notifications/initialized", params: null }, null],
      [{ jsonrpc: "2.0", method: "notifications/initialized", extra: true }, null],
    ] as const) {
      const res = await post(keys.visibility!, body);
      expect({ body, status: res.status, id: res.json.id, code: res.json.error?.code }).toEqual({ body, status: 400, id, code: -32600 });
      expect(res.json.error.message).toStartWith("Invalid Request: this is JSON but no JSON-RPC 2.0 message");
    }
  });

  test("a batch in which two requests share an id is refused whole, and none of it runs", async () => {
    const res = await post(keys.visibility!, [
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "explodes", arguments: { kind: "internal" } } },
      { jsonrpc: "2.0", id: 1, method: "ping" },
    ]);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message: "Invalid Request: two requests of the batch have the id 1; each request needs an id of its own, and none was run.",
      },
    });
    // Distinct ids, and notifications (no id), are a batch like any other.
    const fine = await post(keys.visibility!, [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: "1", method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
    ]);
    expect(fine.json).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: "1", result: {} },
    ]);
  });

  test("arguments named after Object's members are unknown fields, whichever path answers (the direct one, or the SDK's)", async () => {
    for (const contentType of ["application/json", "application/json; charset=utf-8"]) {
      for (const key of ["constructor", "toString", "hasOwnProperty", "__proto__"]) {
        for (const value of ["null", "1", '{"n":1}']) {
          const raw = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo_brand","arguments":{"${key}":${value}}}}`;
          const response = await app.handle(
            new Request("http://spyglass.test/api/mcp/mcp", {
              method: "POST",
              headers: {
                authorization: `Bearer ${keys.visibility}`,
                "content-type": contentType,
                accept: "application/json, text/event-stream",
              },
              body: raw,
            }),
          );
          const json = (await response.json()) as any;
          expect({ raw, contentType, status: response.status, id: json.id, isError: json.result?.isError }).toEqual({
            raw,
            contentType,
            status: 200,
            id: 7,
            isError: true,
          });
          expect(json.result.content[0].text).toStartWith(`Invalid input for echo_brand: Unknown field "${key}"`);
        }
      }
    }
  });

  test("a body without a declared length is read as one with: a leading byte order mark is dropped", async () => {
    const bytes = new TextEncoder().encode('\ufeff{"jsonrpc":"2.0","id":4,"method":"ping"}');
    for (const body of [bytes, new Blob([bytes]).stream()]) {
      const response = await app.handle(
        new Request("http://spyglass.test/api/mcp/mcp", {
          method: "POST",
          headers: {
            authorization: `Bearer ${keys.visibility}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body,
        }),
      );
      expect(await response.json()).toEqual({ jsonrpc: "2.0", id: 4, result: {} });
    }
  });

  test("a batch of one request is answered with an array of one response (JSON-RPC 2.0 §6), as a longer batch is", async () => {
    const one = await post(keys.visibility!, [{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    expect(one.status).toBe(200);
    expect(one.json).toEqual([{ jsonrpc: "2.0", id: 1, result: {} }]);
    const two = await post(keys.visibility!, [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 2, method: "ping" },
    ]);
    expect(two.json).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 2, result: {} },
    ]);
  });
});

describe("text that cannot be stored as sent", () => {
  test("a lone surrogate or a NUL in a tool's arguments is a tool error naming the field; the tool does not run", async () => {
    for (const value of ["\ud800 lone", "trailing \udc00", "nul\u0000byte"]) {
      const result = await callTool(keys.visibility!, "explodes", { kind: value });
      expect(result.isError).toBe(true);
      expect(result.content[0].text).toStartWith("Invalid input for explodes: kind: contains");
    }
    const paired = await callTool(keys.visibility!, "explodes", { kind: "😀" });
    expect(paired.content[0].text).toContain("kind must be one of");
  });

  test("elsewhere in a request's params it is -32602", async () => {
    const res = await post(keys.visibility!, {
      jsonrpc: "2.0",
      id: 9,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "\ud800", version: "1" } },
    });
    expect(res.json.error.code).toBe(-32602);
    expect(res.json.error.message).toContain("params.clientInfo.name: contains a lone UTF-16 surrogate");
  });

  test("a dashboard JSON body with one (in a value or a key, at any depth) is 400 naming the field", async () => {
    const cookie = await t.signIn("text@example.com", { plan: "visibility" });
    for (const [body, field] of [
      [{ name: "Acme\u0000" }, "name"],
      [{ name: "\ud800 lone" }, "name"],
      [{ name: "Acme", aliases: ["ok", "bad\udfff"] }, "aliases[1]"],
    ] as const) {
      const res = await t.call("POST", "/api/brands", { cookie, body });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe("invalid_text");
      expect(res.json.error).toStartWith(`${field}: contains`);
    }
    expect((await t.call("GET", "/api/brands", { cookie })).json.brands).toEqual([]);
  });
});

describe("bodies refused before they are parsed (http/json-body.ts)", () => {
  const raw = (key: string, body: string | Uint8Array<ArrayBuffer>) =>
    app.handle(
      new Request("http://spyglass.test/api/mcp/mcp", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body,
      }),
    );
  const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
  const listWithMeta = (meta: string) => `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"_meta":{"x":${meta}}}}`;

  test("a message nested deeper than 64, or holding more than 10,000 values, is -32600 naming the limit; within them it is answered", async () => {
    for (const [body, words] of [
      [listWithMeta(nested(100)), "nested more than 64 deep"],
      [listWithMeta(nested(40_000)), "nested more than 64 deep"],
      [listWithMeta(`[${"1,".repeat(20_000)}1]`), "more than 10,000 values"],
      [`{"jsonrpc":"2.0","id":1,"result":{"x":${nested(40_000)}}}`, "nested more than 64 deep"],
    ] as const) {
      const res = await raw(keys.visibility!, body);
      expect(res.status).toBe(400);
      const json = (await res.json()) as any;
      expect(json.error.code).toBe(-32600);
      expect(json.error.message).toContain(words);
    }
    // Strings are not structure: brackets inside them count for nothing.
    const inText = await raw(keys.visibility!, listWithMeta(JSON.stringify("[".repeat(5_000))));
    expect(inText.status).toBe(200);
    const within = await raw(keys.visibility!, listWithMeta(nested(60)));
    expect(within.status).toBe(200);
    expect(((await within.json()) as any).result.tools.length).toBeGreaterThan(0);
  });

  test("a body whose bytes are not UTF-8 is -32700 saying so", async () => {
    const text = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "explodes", arguments: { kind: "XX" } } });
    const bytes = new TextEncoder().encode(text);
    const at = text.indexOf("XX");
    bytes[at] = 0xff;
    bytes[at + 1] = 0xfe;
    const res = await raw(keys.visibility!, bytes);
    expect(res.status).toBe(400);
    const json = (await res.json()) as any;
    expect(json.error.code).toBe(-32700);
    expect(json.error.message).toContain("not valid UTF-8");
  });

  test("a response that is not one (no id, a result that is no object, an error without a message) is -32600 saying what one is; a well-formed one is accepted", async () => {
    for (const body of [
      { jsonrpc: "2.0", id: 99, error: { code: 1 } },
      { jsonrpc: "2.0", id: 99, result: 1 },
      { jsonrpc: "2.0", result: {} },
      { jsonrpc: "2.0", id: 99, result: {}, extra: true },
    ]) {
      const res = await post(keys.visibility!, body);
      expect(res.status).toBe(400);
      expect(res.json.error.code).toBe(-32600);
      expect(res.json.error.message).toContain("this is no JSON-RPC 2.0 response");
    }
    const accepted = await raw(keys.visibility!, JSON.stringify({ jsonrpc: "2.0", id: 99, result: {} }));
    expect(accepted.status).toBe(202);
  });

  test("the dashboard's API: over 1 MiB is 413, too deep or too many values 400, bytes that are not UTF-8 400; nothing is stored", async () => {
    const cookie = await t.signIn("limits@example.com", { plan: "visibility" });
    const send = (path: string, body: string | Uint8Array<ArrayBuffer>, withCookie = true) =>
      t.app.handle(
        new Request(`http://spyglass.test${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", origin: "http://spyglass.test", ...(withCookie ? { cookie } : {}) },
          body,
        }),
      );
    // Without signing in: refused before the body is parsed, at any size up to the socket's cap.
    const deep = await send("/api/auth/login", nested(400_000), false);
    expect(deep.status).toBe(400);
    expect(((await deep.json()) as any).error).toContain("nested more than 64 deep");
    const large = await send("/api/auth/login", nested(1_000_000), false);
    expect(large.status).toBe(413);
    expect((await large.json()) as any).toEqual({
      error: "The request body is over the limit of 1,048,576 bytes.",
      code: "payload_too_large",
    });
    const many = await send("/api/brands", JSON.stringify({ name: "Many", aliases: Array.from({ length: 20_000 }, (_, i) => `a${i}`) }));
    expect(many.status).toBe(400);
    expect(((await many.json()) as any).error).toContain("more than 10,000 values");
    const bytes = new TextEncoder().encode(JSON.stringify({ name: "Acme XX" }));
    bytes.set([0xff, 0xfe], bytes.length - 4);
    const notUtf8 = await send("/api/brands", bytes);
    expect(notUtf8.status).toBe(400);
    expect((await notUtf8.json()) as any).toMatchObject({ code: "invalid_text" });
    expect((await t.call("GET", "/api/brands", { cookie })).json.brands).toEqual([]);
    // A body within the limits is taken, with the content type spelt any way the session guard takes
    // (a review found "application/json ; charset=utf-8" read as no body).
    const ok = await send("/api/brands", JSON.stringify({ name: "Fits", aliases: ["x".repeat(100)] }));
    expect(ok.status).toBe(201);
    for (const [type, name] of [
      ["application/json ; charset=utf-8", "Spaced"],
      ["Application/JSON", "Capitals"],
    ] as const) {
      const spelt = await t.app.handle(
        new Request("http://spyglass.test/api/brands", {
          method: "POST",
          headers: { "content-type": type, origin: "http://spyglass.test", cookie },
          body: JSON.stringify({ name }),
        }),
      );
      expect([type, spelt.status]).toEqual([type, 201]);
    }
    // An empty body sent in chunks (no Content-Length) to a route that takes none is no JSON error.
    const emptied = await t.app.handle(
      new Request("http://spyglass.test/api/auth/logout", {
        method: "POST",
        headers: { "content-type": "application/json", origin: "http://spyglass.test", cookie },
        body: new ReadableStream({ start: (controller) => controller.close() }),
      }),
    );
    expect(emptied.status).toBe(204);
  });
});
