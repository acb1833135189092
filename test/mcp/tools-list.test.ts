// What clients see: tools/list per plan, compared with the committed snapshots, so that any change
// to a tool's name, description, schemas or annotations is deliberate. After an intended change:
//   UPDATE_SNAPSHOTS=1 bun test test/mcp/tools-list.test.ts
// and review the diff of test/mcp/__snapshots__/.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";
import { findAccountByEmail } from "../../src/accounts/service";
import { createBrand } from "../../src/brands/service";
import { TOOLS } from "../../src/catalogue/tools";
import { loadToolsInTasks } from "../../src/catalogue/tools/load";
import { createApiKey } from "../../src/keys/service";
import { type TestApp, testApp } from "../support/http";
import { readSnapshot } from "../support/snapshot";

const SNAPSHOTS = join(import.meta.dir, "__snapshots__");
const PLANS = ["visibility", "autopilot"] as const;

let t: TestApp;
const keys: Record<string, string> = {};

async function toolsList(key: string): Promise<{ tools: Array<{ name: string; [k: string]: unknown }> }> {
  return listed("tools/list", key);
}

async function listed(method: string, key: string) {
  const res = await t.call("POST", "/api/mcp/mcp", {
    body: { jsonrpc: "2.0", id: 1, method, params: {} },
    headers: { authorization: `Bearer ${key}`, accept: "application/json, text/event-stream" },
  });
  expect(res.status).toBe(200);
  return res.json.result;
}

beforeAll(async () => {
  t = await testApp();
  for (const plan of PLANS) {
    await t.signIn(`${plan}@example.com`, { plan });
    const account = (await findAccountByEmail(t.db, `${plan}@example.com`))!;
    const brand = await createBrand(t.db, account.id, { name: `${plan} brand` });
    keys[plan] = (await createApiKey(t.db, account.id, { name: "k", brandId: brand.id })).plaintext;
  }
});

afterAll(() => t.close());

describe("tools/list snapshots", () => {
  for (const plan of PLANS) {
    test(`the ${plan} plan's tools/list matches its snapshot`, async () => {
      const listed = await toolsList(keys[plan]!);
      const file = join(SNAPSHOTS, `tools-list.${plan}.json`);
      // Through JSON, as a client receives it: undefined fields drop out on both sides.
      expect(JSON.parse(JSON.stringify(listed))).toEqual(readSnapshot(file, listed));
    });
  }

  // What slash-command menus and resource pickers show (prompts/list), and the views and article
  // templates (resources/list, resources/templates/list: the brands here have no article).
  for (const method of ["prompts/list", "resources/list", "resources/templates/list"]) {
    for (const plan of PLANS) {
      test(`the ${plan} plan's ${method} matches its snapshot`, async () => {
        const result = await listed(method, keys[plan]!);
        const file = join(SNAPSHOTS, `${method.replaceAll("/", "-")}.${plan}.json`);
        expect(JSON.parse(JSON.stringify(result))).toEqual(readSnapshot(file, result));
      });
    }
  }

  test("a missing snapshot file fails the comparison unless snapshots are being updated on purpose", () => {
    const dir = mkdtempSync(join(tmpdir(), "spyglass-snapshot-"));
    try {
      const file = join(dir, "tools-list.none.json");
      expect(() => readSnapshot(file, { tools: [] }, false)).toThrow(`${file} is missing: create it with UPDATE_SNAPSHOTS=1`);
      expect(existsSync(file)).toBe(false);
      expect(readSnapshot(file, { tools: [] }, true)).toEqual({ tools: [] });
      expect(readSnapshot(file, { tools: ["ignored"] }, false)).toEqual({ tools: [] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("each plan lists exactly the tools it covers, in registry order", async () => {
    const visibility = (await toolsList(keys.visibility!)).tools.map((x) => x.name);
    const autopilot = (await toolsList(keys.autopilot!)).tools.map((x) => x.name);
    expect(visibility).toEqual(TOOLS.filter((x) => x.plan === "visibility").map((x) => x.name));
    expect(autopilot).toEqual(TOOLS.map((x) => x.name));
  });

  test("the server's loader (a group a task) gives exactly the registry's tools, in its order", async () => {
    // The tests build their catalogues from TOOLS; `serve` from loadToolsInTasks (server.ts). A group
    // left out of load.ts, or put in another place, would change what clients see only there.
    const loaded = await loadToolsInTasks();
    expect(loaded.map((x) => x.name)).toEqual(TOOLS.map((x) => x.name));
    for (const [i, tool] of loaded.entries()) expect(tool).toBe(TOOLS[i] as (typeof loaded)[number]);
  });

  test("tool names follow the MCP name format (SEP-986) and CONTRACT §4: snake_case, at most 64 characters, unique", () => {
    const names = TOOLS.map((x) => x.name);
    for (const name of names) {
      expect(name).toMatch(/^[A-Za-z0-9_.-]{1,128}$/);
      expect(name).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(name.length).toBeLessThanOrEqual(64);
    }
    expect(new Set(names).size).toBe(names.length);
  });

  test("schemas are portable: objects at the top, no type arrays, descriptions on every tool", async () => {
    const listed = JSON.stringify((await toolsList(keys.autopilot!)).tools);
    expect(listed).not.toMatch(/"type":\[/);
    for (const tool of TOOLS) expect(tool.description.length).toBeGreaterThan(40);
  });

  test("input schemas are inline (no $ref: some clients map them onto a dialect without it); output schemas share their rates", async () => {
    const { tools } = await toolsList(keys.autopilot!);
    for (const tool of tools) expect(JSON.stringify(tool.inputSchema)).not.toContain("$ref");
    const overview = tools.find((x) => x.name === "get_visibility_overview")!.outputSchema as { definitions: Record<string, unknown> };
    expect(Object.keys(overview.definitions).sort()).toEqual(["mean_interval", "period_mean", "period_rate", "rate"]);
    // The overview repeated every rate inline: 20 KB of the 86 KB tools/list (6.1 KB now, with the means' intervals).
    expect(JSON.stringify(overview).length).toBeLessThan(6_500);
  });

  test("the SDK's own validator resolves the shared definitions: it accepts a real overview and rejects a broken one", async () => {
    const { tools } = await toolsList(keys.autopilot!);
    const schema = tools.find((x) => x.name === "get_visibility_overview")!.outputSchema as object;
    const res = await t.call("POST", "/api/mcp/mcp", {
      body: { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "get_visibility_overview", arguments: {} } },
      headers: { authorization: `Bearer ${keys.autopilot}`, accept: "application/json, text/event-stream" },
    });
    const output = res.json.result.structuredContent;
    const validate = new AjvJsonSchemaValidator().getValidator<unknown>(schema as never);
    expect(validate(output)).toMatchObject({ valid: true });
    // A rate nested two definitions deep (period_rate → previous: rate) with a wrong type.
    const broken = structuredClone(output);
    broken.by_engine = [];
    broken.visibility.previous.successes = "four";
    expect(validate(broken)).toMatchObject({ valid: false });
  });
});
