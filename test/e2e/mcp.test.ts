// The tool server of the compiled binary, driven as AI clients drive it: the official SDK Client over
// Streamable HTTP with a bearer key, on a loopback port, against a seeded data directory.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { TOOLS } from "../../src/catalogue/tools";
import { createApiKey, revokeApiKey } from "../../src/keys/service";
import { type Sandbox, type ServerProcess, sandbox } from "../support/binary";
import { seedToolServerDb, type ToolServerSeed } from "../support/fixtures";
import { expectBrandIsolation, ISOLATION } from "../support/isolation";
import { call, connect, raw, rpc } from "../support/mcp";

// Real processes on a shared machine: give each step room.
setDefaultTimeout(60_000);

// One engine, so that run_tracking validates its prompt ids (nothing is ever sent to it here).
const TOML = `
[tracking]
enabled = false

[[engines]]
id = "fake"
label = "Fake engine"
api = "openai"
base_url = "http://127.0.0.1:9/v1"
model = "fake-1"

[writer]
api = "openai"
base_url = "http://127.0.0.1:9/v1"
model = "fake-writer"
`;

const WWW_AUTHENTICATE = 'Bearer realm="spyglass", error="invalid_token"';

let box: Sandbox;
let server: ServerProcess;
let seed: ToolServerSeed;
const clients: Client[] = [];

async function client(key: string): Promise<Client> {
  const c = await connect(server.url, key);
  clients.push(c);
  return c;
}

/** The server still answers: health, and a tools/list over a fresh connection. */
async function stillServing(): Promise<void> {
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  const c = await client(seed.b.key);
  expect((await c.listTools()).tools.length).toBeGreaterThan(0);
}

/** An account's plan changed in the database by another process than the server (as the CLI changes it). */
function setPlan(accountId: string, plan: "none" | "visibility"): Promise<number> {
  return box.withDb((db) => db.run("UPDATE accounts SET plan = ? WHERE id = ?", [plan, accountId]));
}

beforeAll(async () => {
  box = await sandbox({ toml: TOML });
  seed = await box.withDb(seedToolServerDb);
  server = await box.serve();
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await server?.stop();
  box?.cleanup();
}, 60_000);

describe("connecting with the SDK client", () => {
  test("initialize negotiates 2025-11-25 and names the server and the key's brand", async () => {
    const c = await client(seed.a.key);
    expect(c.getServerVersion()?.name).toBe("spyglass");
    expect(c.getServerCapabilities()?.tools).toBeDefined();
    expect(c.getInstructions()).toContain("Acme Analytics");
    const init = await raw(server.url, {
      headers: { authorization: `Bearer ${seed.a.key}` },
      body: rpc("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } }),
    });
    expect(init.json.result.protocolVersion).toBe("2025-11-25");
    expect(init.headers.get("mcp-session-id")).toBeNull();
  });

  test("an older protocol version is negotiated as the SDK does", async () => {
    const init = await raw(server.url, {
      headers: { authorization: `Bearer ${seed.a.key}` },
      body: rpc("initialize", { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "t", version: "1" } }),
    });
    expect(init.status).toBe(200);
    expect(init.json.result.protocolVersion).toBe("2025-03-26");
  });

  test("tools/list gives every tool a title, a when-to-use description, schemas and annotations", async () => {
    const { tools } = await (await client(seed.a.key)).listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS.map((t) => t.name).sort());
    for (const tool of tools) {
      expect(tool.name).toMatch(/^[a-z][a-z0-9_]{0,63}$/);
      expect(tool.title?.length).toBeGreaterThan(0);
      expect(tool.description).toMatch(/^Use /);
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(Object.keys(tool.annotations ?? {}).sort()).toEqual(
        ["destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint", "title"].sort(),
      );
    }
  });
});

describe("the configuration tools, with the brand's own key", () => {
  let c: Client;
  beforeAll(async () => {
    c = await client(seed.a.key);
    await c.listTools(); // caches the output validators: every structuredContent below is checked against its schema
  }, 30_000);

  test("get_brand shows the brand, plan, competitors, engines and schedule, and never a provider key", async () => {
    const { data, text } = await call(c, "get_brand");
    expect(data.brand).toMatchObject({ id: seed.a.brandId, name: "Acme Analytics", domain: "acme-analytics.com", aliases: [] });
    expect(data.brand.site_key).toMatch(/^pk_[0-9a-f]{32}$/);
    expect(data.plan).toBe("autopilot");
    expect(data.competitors.map((x: { id: string }) => x.id)).toEqual([seed.a.ids.competitorId]);
    expect(data.engines).toEqual([{ id: "fake", label: "Fake engine", model: "fake-1", configured: true, demo: false }]);
    expect(data.tracking).toEqual({ schedule: "0 6 * * *", timezone: "UTC", samples: 1, enabled: false });
    expect(JSON.parse(text)).toEqual(data);
    expect(text).not.toContain("base_url");
    expect(text).not.toContain("api_key");
  });

  test("update_brand changes name, domain and aliases and returns the brand as it stands", async () => {
    const { data } = await call(c, "update_brand", { domain: "https://www.Acme-Analytics.com/pricing", aliases: ["Acme", "ACME Inc"] });
    expect(data.brand).toMatchObject({ domain: "acme-analytics.com", aliases: ["Acme", "ACME Inc"] });
    const cleared = await call(c, "update_brand", { domain: null, aliases: [] });
    expect(cleared.data.brand).toMatchObject({ domain: null, aliases: [] });
    const bad = await call(c, "update_brand", { aliases: ["ab"] });
    expect(bad.error).toContain("aliases[0] must be at least 3 characters");
    await call(c, "update_brand", { domain: "acme-analytics.com" });
  });

  test("list_prompts lists active prompts, filters by tag name (any case) or id, text, and archived", async () => {
    const active = await call(c, "list_prompts");
    expect(active.data.prompts.map((p: { id: string }) => p.id)).toEqual([seed.a.ids.promptId]);
    expect(active.data.prompts[0]).toMatchObject({ tags: ["Acme launch"], country: "US", language: "en", archived: false });
    expect(active.data.next_cursor).toBeNull();
    const all = await call(c, "list_prompts", { include_archived: true });
    expect(all.data.prompts).toHaveLength(2);
    expect((await call(c, "list_prompts", { tag: "ACME LAUNCH" })).data.prompts).toHaveLength(1);
    expect((await call(c, "list_prompts", { tag: seed.a.ids.tagId })).data.prompts).toHaveLength(1);
    expect((await call(c, "list_prompts", { query: "SMALL   teams" })).data.prompts).toHaveLength(1);
    expect((await call(c, "list_prompts", { query: "100%_" })).data.prompts).toHaveLength(0);
    expect((await call(c, "list_prompts", { tag: "no such tag" })).error).toMatch(/not found/);
  });

  test("create_prompts creates, reports duplicates (case, spaces, within the call) and creates unknown tags", async () => {
    const { data } = await call(c, "create_prompts", {
      prompts: [
        { text: "  Best ACME software   for small teams ", tags: ["x"] },
        { text: "which analytics tool do agencies use?", tags: ["Agencies", "agencies"], country: "de", language: "DE" },
        { text: "Which analytics tool do  agencies use?" },
        { text: "top dashboards for startups" },
      ],
    });
    expect(data.duplicates).toEqual(["  Best ACME software   for small teams ", "Which analytics tool do  agencies use?"]);
    expect(data.created.map((p: { text: string }) => p.text)).toEqual([
      "which analytics tool do agencies use?",
      "top dashboards for startups",
    ]);
    expect(data.created[0]).toMatchObject({ tags: ["Agencies"], country: "DE", language: "de", archived: false });
    const tags = await call(c, "list_tags");
    expect(tags.data.tags.map((t: { name: string }) => t.name)).toContain("Agencies");
    expect(tags.data.tags.map((t: { name: string }) => t.name)).not.toContain("x");
  });

  test("create_prompts restores an archived prompt with the same text, keeping its id", async () => {
    const { data } = await call(c, "create_prompts", { prompts: [{ text: "IS ACME WORTH IT" }] });
    expect(data.created).toHaveLength(1);
    expect(data.created[0]).toMatchObject({ id: seed.a.ids.archivedPromptId, archived: false });
    await call(c, "delete_prompt", { prompt_id: seed.a.ids.archivedPromptId });
  });

  test("create_prompts validates count and length, naming the field", async () => {
    expect((await call(c, "create_prompts", { prompts: [] })).error).toBe(
      "Invalid input for create_prompts: prompts must have at least 1 item.",
    );
    const many = Array.from({ length: 101 }, (_, i) => ({ text: `prompt number ${i}` }));
    expect((await call(c, "create_prompts", { prompts: many })).error).toContain("prompts must have at most 100 items");
    expect((await call(c, "create_prompts", { prompts: [{ text: "ok prompt" }, { text: "no" }] })).error).toContain(
      "prompts[1].text must be at least 3 characters",
    );
    expect((await call(c, "create_prompts", { prompts: [{ text: "x".repeat(501) }] })).error).toContain(
      "prompts[0].text must be at most 500 characters",
    );
    expect((await call(c, "create_prompts", { prompts: [{ text: "   a   " }] })).error).toContain(
      "prompts[0].text: a prompt must be 3 to 500 characters",
    );
    expect((await call(c, "create_prompts", { prompts: [{ text: "fine text", country: "USA" }] })).error).toContain(
      "prompts[0].country must be a two-letter country code",
    );
    expect((await call(c, "create_prompts", {})).error).toBe("Invalid input for create_prompts: prompts is required.");
    expect((await call(c, "create_prompts", { prompts: "one" })).error).toBe("Invalid input for create_prompts: prompts must be a list.");
  });

  test("list_prompts pages with an opaque cursor and a limit of 1 to 200", async () => {
    await call(c, "create_prompts", { prompts: Array.from({ length: 7 }, (_, i) => ({ text: `paging prompt ${i}`, tags: ["paging"] })) });
    const seen: string[] = [];
    let cursor: string | null | undefined;
    let pages = 0;
    do {
      const { data } = await call(c, "list_prompts", { tag: "paging", limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...data.prompts.map((p: { text: string }) => p.text));
      cursor = data.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 7 }, (_, i) => `paging prompt ${i}`));
    expect((await call(c, "list_prompts", { limit: 201 })).error).toContain("limit must be at most 200");
    expect((await call(c, "list_prompts", { limit: 0 })).error).toContain("limit must be at least 1");
    expect((await call(c, "list_prompts", { cursor: "not-a-cursor" })).error).toContain("cursor: pass back the next_cursor");
  });

  test("update_prompt rewords, retags, relocates; a text another prompt has is a conflict", async () => {
    const created = await call(c, "create_prompts", { prompts: [{ text: "prompt to edit", tags: ["old"] }] });
    const id = created.data.created[0].id;
    const { data } = await call(c, "update_prompt", {
      prompt_id: id,
      text: "prompt  edited",
      tags: ["New", "Other"],
      country: "fr",
      language: "fr",
    });
    expect(data.prompt).toMatchObject({ id, text: "prompt edited", tags: ["New", "Other"], country: "FR", language: "fr" });
    const cleared = await call(c, "update_prompt", { prompt_id: id, tags: [], country: null });
    expect(cleared.data.prompt).toMatchObject({ tags: [], country: null, language: "fr" });
    const clash = await call(c, "update_prompt", { prompt_id: id, text: "TOP dashboards for startups" });
    expect(clash.error).toContain("already has this text");
    expect((await call(c, "update_prompt", { prompt_id: "prm_doesnotexist00" })).error).toBe(
      "Prompt not found; list_prompts shows the brand's prompts and their ids.",
    );
    expect((await call(c, "update_prompt", { text: "no id given" })).error).toBe("Invalid input for update_prompt: prompt_id is required.");
  });

  test("delete_prompt archives: hidden from the list, history kept, archiving twice is harmless", async () => {
    const created = await call(c, "create_prompts", { prompts: [{ text: "prompt to archive" }] });
    const id = created.data.created[0].id;
    const { data } = await call(c, "delete_prompt", { prompt_id: id });
    expect(data.prompt).toMatchObject({ id, archived: true });
    expect((await call(c, "delete_prompt", { prompt_id: id })).data.prompt.archived).toBe(true);
    expect((await call(c, "list_prompts", { query: "prompt to archive" })).data.prompts).toHaveLength(0);
    expect((await call(c, "list_prompts", { query: "prompt to archive", include_archived: true })).data.prompts).toHaveLength(1);
    // The seeded prompt's answer stays readable after archiving.
    await call(c, "delete_prompt", { prompt_id: seed.a.ids.promptId });
    expect((await call(c, "get_answer", { answer_id: seed.a.ids.answerId })).error).toBeNull();
    await call(c, "create_prompts", { prompts: [{ text: "best Acme software for small teams" }] });
  });

  test("a trend over more than 92 days is weekly unless days are asked for; up to 92 days it is daily", async () => {
    const day = (ago: number) => new Date(Date.now() - ago * 86_400_000).toISOString().slice(0, 10);
    const long = await call(c, "get_visibility_trend", { start_date: day(199), end_date: day(0) });
    expect(long.error).toBeNull();
    expect(long.data.interval).toBe("week");
    expect(long.data.points.length).toBeLessThanOrEqual(30);
    const days = await call(c, "get_visibility_trend", { start_date: day(199), end_date: day(0), interval: "day" });
    expect({ interval: days.data.interval, points: days.data.points.length }).toEqual({ interval: "day", points: 200 });
    const short = await call(c, "get_visibility_trend", { start_date: day(91), end_date: day(0) });
    expect({ interval: short.data.interval, points: short.data.points.length }).toEqual({ interval: "day", points: 92 });
  });

  test("an unknown engine is an error naming the brand's engines, in every tool that takes one", async () => {
    const sentence = 'engine: "ChatGPT" is not an engine of this brand; use one of fake.';
    for (const tool of [
      "get_visibility_overview",
      "get_visibility_trend",
      "get_competitor_ranking",
      "get_prompt_performance",
      "get_top_sources",
      "get_content_gaps",
      "list_answers",
    ]) {
      expect({ tool, error: (await call(c, tool, { engine: "ChatGPT" })).error }).toEqual({
        tool,
        error: expect.stringContaining(sentence),
      });
    }
    expect((await call(c, "run_tracking", { engines: ["ChatGPT"] })).error).toContain(
      'engines: "ChatGPT" is not a configured engine; use one of fake.',
    );
    expect((await call(c, "get_visibility_overview", { engine: "fake" })).error).toBeNull();
  });

  test("tags: create, unique per brand ignoring case, rename, recolour, delete (prompts keep going)", async () => {
    const created = await call(c, "create_tag", { name: "Enterprise", color: "#AABBCC" });
    expect(created.data.tag).toMatchObject({ name: "Enterprise", color: "#aabbcc", prompt_count: 0 });
    const id = created.data.tag.id;
    expect((await call(c, "create_tag", { name: "enterprise" })).error).toContain('A tag named "enterprise" already exists');
    expect((await call(c, "create_tag", { name: "Bad", color: "red" })).error).toContain("color must be a colour as #rrggbb");
    expect((await call(c, "update_tag", { tag_id: id, name: "ACME LAUNCH" })).error).toContain("already exists");
    const renamed = await call(c, "update_tag", { tag_id: id, name: "Enterprise deals", color: null });
    expect(renamed.data.tag).toMatchObject({ id, name: "Enterprise deals", color: null });
    const prompt = await call(c, "create_prompts", { prompts: [{ text: "enterprise analytics vendors", tags: ["enterprise deals"] }] });
    expect(prompt.data.created[0].tags).toEqual(["Enterprise deals"]);
    expect((await call(c, "list_tags")).data.tags.find((t: { id: string }) => t.id === id).prompt_count).toBe(1);
    const deleted = await call(c, "delete_tag", { tag_id: id });
    expect(deleted.data.tag).toMatchObject({ id, name: "Enterprise deals" });
    expect((await call(c, "list_prompts", { query: "enterprise analytics" })).data.prompts[0].tags).toEqual([]);
    expect((await call(c, "delete_tag", { tag_id: id })).error).toContain("Tag not found");
    const page = await call(c, "list_tags", { limit: 1 });
    expect(page.data.tags).toHaveLength(1);
    expect(typeof page.data.next_cursor).toBe("string");
  });

  test("competitors: names and aliases of 3+ characters, domains normalised, unique names, edit and delete", async () => {
    const created = await call(c, "create_competitor", {
      name: "Contoso",
      aliases: ["Contoso Ltd", "contoso"],
      domains: ["HTTPS://www.Contoso.com/pricing?x=1", "contoso.co.uk"],
    });
    expect(created.data.competitor).toMatchObject({ name: "Contoso", aliases: ["Contoso Ltd"], domains: ["contoso.com", "contoso.co.uk"] });
    const id = created.data.competitor.id;
    expect((await call(c, "create_competitor", { name: "CONTOSO" })).error).toContain("already exists");
    expect((await call(c, "create_competitor", { name: "AB" })).error).toBe(
      "name: a competitor's name must be 3 to 100 characters, or 2 in Chinese, Japanese or Korean script (shorter names match too much text).",
    );
    expect((await call(c, "create_competitor", { name: "Fabrikam", aliases: ["FB"] })).error).toContain(
      "aliases[0] must be at least 3 characters",
    );
    expect((await call(c, "create_competitor", { name: "Fabrikam", domains: ["not a domain"] })).error).toContain(
      'domains[0]: "not a domain" is not a domain name',
    );
    expect((await call(c, "create_competitor", { name: "Fabrikam", domains: ["192.168.1.1"] })).error).toContain("is not a domain name");
    const updated = await call(c, "update_competitor", { competitor_id: id, name: "Contoso Group", domains: ["www.contoso-group.com"] });
    expect(updated.data.competitor).toMatchObject({ id, name: "Contoso Group", aliases: ["Contoso Ltd"], domains: ["contoso-group.com"] });
    const listed = await call(c, "list_competitors");
    expect(listed.data.competitors.map((x: { name: string }) => x.name)).toEqual(["Acme Rival", "Contoso Group"]);
    const deleted = await call(c, "delete_competitor", { competitor_id: id });
    expect(deleted.data.competitor.id).toBe(id);
    expect((await call(c, "update_competitor", { competitor_id: id, name: "Again" })).error).toContain("Competitor not found");
    expect((await call(c, "get_brand")).data.competitors).toHaveLength(1);
  });

  test("unknown fields are refused by name: no tool takes a brand id", async () => {
    const { error } = await call(c, "list_prompts", { brand_id: seed.b.brandId });
    expect(error).toBe(
      'Invalid input for list_prompts: Unknown field "brand_id" (each key or sign-in acts for one brand: no tool takes a brand id).',
    );
  });

  test("an unknown tool is a JSON-RPC invalid-params error", async () => {
    const error = await c.callTool({ name: "no_such_tool", arguments: {} }).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(error).toBe('MCP error -32602: Unknown tool "no_such_tool"; tools/list shows the tools this credential can use.');
  });
});

describe("brand isolation", () => {
  test("every registered tool has a row in the isolation matrix", async () => {
    const listed = (await (await client(seed.b.key)).listTools()).tools.map((t) => t.name);
    const registered = [...new Set([...TOOLS.map((t) => t.name), ...listed])];
    expect(registered.filter((name) => !ISOLATION[name])).toEqual([]);
  });

  test("brand B's key gets 'not found' or only its own data for each of brand A's ids", async () => {
    const b = await client(seed.b.key);
    await b.listTools();
    const a = seed.a;
    await expectBrandIsolation(b, a);
  });

  test("brand A's records are untouched by brand B's calls", async () => {
    const a = await client(seed.a.key);
    const prompts = await call(a, "list_prompts", { tag: seed.a.ids.tagId });
    expect(prompts.data.prompts.map((p: { text: string }) => p.text)).toContain("best Acme software for small teams");
    const tags = await call(a, "list_tags");
    expect(tags.data.tags.find((t: { id: string }) => t.id === seed.a.ids.tagId)?.name).toBe("Acme launch");
    const competitors = await call(a, "list_competitors");
    expect(competitors.data.competitors.find((x: { id: string }) => x.id === seed.a.ids.competitorId)?.name).toBe("Acme Rival");
    expect((await call(a, "get_brand")).data.brand.aliases).toEqual([]);
    const article = await call(a, "get_article", { article_id: seed.a.ids.articleId });
    expect(article.data.article).toMatchObject({ status: "published", title: "Why Acme for small teams" });
  });
});

describe("plans", () => {
  test("a Visibility key lists no Autopilot tool, and calling one names the plan", async () => {
    const v = await client(seed.visibility.key);
    const listed = new Set((await v.listTools()).tools.map((t) => t.name));
    for (const tool of TOOLS) expect(listed.has(tool.name)).toBe(tool.plan === "visibility");
    for (const tool of TOOLS.filter((t) => t.plan === "autopilot")) {
      const { result, error } = await call(v, tool.name, {});
      expect(error).toContain("requires the Autopilot plan");
      expect(result.structuredContent).toEqual({ error: { code: "plan_required", required_plan: "autopilot" } });
    }
  });

  test("an account on plan none gets 403 plan_required on every request", async () => {
    for (const method of ["POST", "GET", "DELETE"]) {
      const res = await raw(server.url, {
        method,
        headers: { authorization: `Bearer ${seed.none.key}` },
        body: method === "POST" ? rpc("tools/list") : undefined,
      });
      expect(res.status).toBe(403);
      expect(res.json).toMatchObject({ code: "plan_required" });
      expect(res.json.error).toContain("Visibility or Autopilot");
    }
  });

  test("a plan change on the account applies to its keys on the next request", async () => {
    await setPlan(seed.visibility.accountId, "none");
    const refused = await raw(server.url, { headers: { authorization: `Bearer ${seed.visibility.key}` }, body: rpc("tools/list") });
    expect(refused.status).toBe(403);
    await setPlan(seed.visibility.accountId, "visibility");
    const allowed = await raw(server.url, { headers: { authorization: `Bearer ${seed.visibility.key}` }, body: rpc("tools/list") });
    expect(allowed.status).toBe(200);
    expect(allowed.json.result.tools.length).toBe(TOOLS.filter((t) => t.plan === "visibility").length);
  });
});

describe("HTTP-level refusals, each leaving the server serving", () => {
  const list = rpc("tools/list");

  test("401 with WWW-Authenticate and a JSON body for a missing, malformed or unknown key", async () => {
    const cases: Record<string, Record<string, string>> = {
      missing: {},
      "not bearer": { authorization: `Basic ${btoa("a:b")}` },
      malformed: { authorization: "Bearer svc_live_short" },
      "wrong prefix": { authorization: `Bearer sk_live_${"a".repeat(43)}` },
      unknown: { authorization: `Bearer svc_live_${"A".repeat(43)}` },
    };
    for (const [name, headers] of Object.entries(cases)) {
      const res = await raw(server.url, { headers, body: list });
      if (res.status !== 401) throw new Error(`${name}: ${res.status} ${res.text}`);
      expect(res.headers.get("www-authenticate")).toBe(WWW_AUTHENTICATE);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(res.json).toMatchObject({ code: "unauthorized" });
      expect(res.json.jsonrpc).toBeUndefined();
    }
    await stillServing();
  });

  test("a near miss of the tool server's URL is told the right one", async () => {
    for (const path of ["/mcp", "/api/mcp"]) {
      const res = await fetch(`${server.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: list });
      expect({ path, status: res.status, body: await res.json() }).toEqual({
        path,
        status: 404,
        body: { error: `The tool server's URL ends in /api/mcp/mcp: ${server.url}/api/mcp/mcp`, code: "not_found" },
      });
    }
    // Any other unknown path stays a plain not found.
    expect(await (await fetch(`${server.url}/api/nope`, { method: "POST" })).json()).toEqual({ error: "Not found", code: "not_found" });
  });

  test("the SDK client fails to connect with a bad key", async () => {
    await expect(connect(server.url, `svc_live_${"B".repeat(43)}`)).rejects.toThrow();
  });

  test("a revoked key gets 401 on the very next request", async () => {
    const before = await raw(server.url, { headers: { authorization: `Bearer ${seed.spareKeyOfA.key}` }, body: list });
    expect(before.status).toBe(200);
    await box.withDb((db) => revokeApiKey(db, seed.a.accountId, seed.spareKeyOfA.keyId));
    const after = await raw(server.url, { headers: { authorization: `Bearer ${seed.spareKeyOfA.key}` }, body: list });
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toBe(WWW_AUTHENTICATE);
    await stillServing();
  });

  test("a write tool called with a revoked or a malformed key is 401 before it runs: nothing is written", async () => {
    const revoked = await box.withDb(async (db) => {
      const created = await createApiKey(db, seed.a.accountId, { name: "revoked before it writes", brandId: seed.a.brandId });
      await revokeApiKey(db, seed.a.accountId, created.key.id);
      return created.plaintext;
    });
    const create = (text: string) => rpc("tools/call", { name: "create_prompts", arguments: { prompts: [{ text }] } });
    for (const [name, key] of [
      ["revoked", revoked],
      ["malformed", "svc_live_short"],
    ]) {
      const res = await raw(server.url, { headers: { authorization: `Bearer ${key}` }, body: create(`refused write with a ${name} key`) });
      expect({ name, status: res.status, code: res.json?.code }).toEqual({ name, status: 401, code: "unauthorized" });
      expect(res.headers.get("www-authenticate")).toBe(WWW_AUTHENTICATE);
    }
    // The brand's own key sees none of them; the same call with it writes (the query would have found them).
    const c = await client(seed.a.key);
    const written = async () =>
      (await call(c, "list_prompts", { query: "write with a", include_archived: true })).data.prompts.map((p: { text: string }) => p.text);
    expect(await written()).toEqual([]);
    const allowed = await call(c, "create_prompts", { prompts: [{ text: "allowed write with a valid key" }] });
    expect(await written()).toEqual(["allowed write with a valid key"]);
    expect((await call(c, "delete_prompt", { prompt_id: allowed.data.created[0].id })).error).toBeNull();
  });

  test("403 for a foreign Origin with a valid key, 401 without one (authentication first); loopback and absent origins pass", async () => {
    for (const origin of ["https://evil.example.com", "null", "http://localhost.evil.com", "http://127.0.0.1.nip.io:3000"]) {
      const withKey = await raw(server.url, { headers: { authorization: `Bearer ${seed.a.key}`, origin }, body: list });
      if (withKey.status !== 403) throw new Error(`${origin}: ${withKey.status}`);
      expect(withKey.json.code).toBe("forbidden_origin");
    }
    const without = await raw(server.url, { headers: { origin: "https://evil.example.com" }, body: list });
    expect(without.status).toBe(401);
    expect(without.headers.get("www-authenticate")).toBe(WWW_AUTHENTICATE);
    const badKey = await raw(server.url, { headers: { authorization: "Bearer garbage", origin: "https://evil.example.com" }, body: list });
    expect(badKey.status).toBe(401);
    for (const origin of ["http://localhost:6274", "http://127.0.0.1", "https://[::1]:8443", server.url]) {
      const ok = await raw(server.url, { headers: { authorization: `Bearer ${seed.a.key}`, origin }, body: list });
      if (ok.status !== 200) throw new Error(`${origin}: ${ok.status}`);
    }
    await stillServing();
  });

  test("413 for a body over 1 MiB, declared or streamed without a length", async () => {
    const auth = { authorization: `Bearer ${seed.a.key}` };
    const big = rpc("tools/call", { name: "create_prompts", arguments: { prompts: [{ text: "x".repeat(1024 * 1024) }] } });
    const declared = await raw(server.url, { headers: auth, body: big });
    expect(declared.status).toBe(413);
    expect(declared.json.error.message).toContain("1048576 bytes");
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    // 1.25 MiB, then 12.5 MiB (past the socket's own 8 MiB cap), each followed by a normal request.
    for (const chunks of [20, 200, 20]) {
      let sent = 0;
      const stream = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < chunks) controller.enqueue(chunk);
          else controller.close();
        },
      });
      const streamed = await raw(server.url, { headers: auth, body: stream });
      expect(streamed.status).toBe(413);
      const next = rpc("tools/call", { name: "list_prompts", arguments: { query: "y".repeat(400) } });
      expect((await raw(server.url, { headers: auth, body: next })).status).toBe(200);
    }
    await stillServing();
  });

  test("400 with a JSON-RPC parse error for malformed JSON", async () => {
    const res = await raw(server.url, { headers: { authorization: `Bearer ${seed.a.key}` }, body: '{"jsonrpc":"2.0","id":1,"method":' });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      jsonrpc: "2.0",
      error: { code: -32700, message: "Parse error: the request body is not valid JSON." },
      id: null,
    });
    const notRpc = await raw(server.url, { headers: { authorization: `Bearer ${seed.a.key}` }, body: '{"hello":"world"}' });
    expect(notRpc.status).toBe(400);
    await stillServing();
  });

  test("-32601 for a method the server does not offer (resource subscriptions)", async () => {
    const res = await raw(server.url, {
      headers: { authorization: `Bearer ${seed.a.key}` },
      body: rpc("resources/subscribe", { uri: "ui://spyglass/overview.html" }, 7),
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32601 } });
    await stillServing();
  });

  test("GET, DELETE and any other method but POST: 405 in this stateless server, after authentication", async () => {
    for (const method of ["GET", "DELETE", "PUT", "PATCH", "OPTIONS"]) {
      const unauth = await raw(server.url, { method, headers: { accept: "text/event-stream" } });
      expect(unauth.status).toBe(401);
      const res = await raw(server.url, { method, headers: { authorization: `Bearer ${seed.a.key}`, accept: "text/event-stream" } });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(res.json.error.code).toBe(-32000);
    }
    await stillServing();
  });

  test("no OAuth discovery documents: a JSON 404", async () => {
    for (const path of [
      "/.well-known/oauth-protected-resource",
      "/.well-known/oauth-protected-resource/api/mcp/mcp",
      "/.well-known/oauth-authorization-server",
      "/.well-known/openid-configuration",
    ]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(await res.json()).toMatchObject({ code: "not_found" });
    }
  });

  test("requests carry a request id and are logged without the key", async () => {
    const res = await raw(server.url, { headers: { authorization: `Bearer ${seed.a.key}` }, body: list });
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.logs()).not.toContain(seed.a.key);
  });
});
