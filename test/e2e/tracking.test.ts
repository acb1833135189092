// The whole loop against the compiled binary: spyglass.toml pointing engines at stand-in providers
// on loopback (keys in env vars) → `spyglass track` → `spyglass serve` → MCP analytics tools via the
// SDK client → run_tracking → SIGTERM mid-run marks the run interrupted.

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Sandbox, type ServerProcess, sandbox } from "../support/binary";
import { answer, type FakeProvider, hang, refusal, startFakeAnthropic, startFakeOpenAI } from "../support/fake-providers";

const ENV = { E2E_OPENAI_KEY: "sk-e2e-openai", E2E_ANTHROPIC_KEY: "sk-ant-e2e" };
let hanging = false;
let openai: FakeProvider;
let anthropic: FakeProvider;
let box: Sandbox;
let brandId: string;
let apiKey: string;

const OPENAI_SCRIPT: Record<string, ReturnType<typeof answer>> = {
  "best crm": answer("Acme is the best CRM here, and Globex is a solid second.", {
    citations: ["https://www.acme.com/pricing?utm_source=x"],
  }),
  "crm pricing": answer("Globex is the cheapest option."),
  "crm for agencies": answer("Globex is best for agencies, see https://g2.com/agency-crm."),
};
const ANTHROPIC_SCRIPT: Record<string, ReturnType<typeof answer>> = {
  "best crm": refusal("I can't recommend vendors."),
  "crm pricing": answer("Acme and Initech both have free plans."),
  "crm for agencies": answer("Agencies usually pick Globex."),
};

beforeAll(async () => {
  openai = startFakeOpenAI({ apiKey: ENV.E2E_OPENAI_KEY, script: (p) => (hanging ? hang() : (OPENAI_SCRIPT[p] ?? answer("?"))) });
  anthropic = startFakeAnthropic({
    apiKey: ENV.E2E_ANTHROPIC_KEY,
    script: (p) => (hanging ? hang() : (ANTHROPIC_SCRIPT[p] ?? answer("?"))),
  });
  box = await sandbox({
    env: ENV,
    toml: `
[tracking]
schedule = "0 6 * * *"
concurrency = 2

[[engines]]
id = "gpt"
label = "GPT stand-in"
api = "openai"
base_url = "${openai.url}"
model = "gpt-test"
api_key_env = "E2E_OPENAI_KEY"
max_retries = 1

[[engines]]
id = "claude"
api = "anthropic"
base_url = "${anthropic.url}"
model = "claude-test"
api_key_env = "E2E_ANTHROPIC_KEY"
max_retries = 1
`,
  });
  await box.cliJson(["account", "create", "--email", "e2e@example.com", "--password", "long enough pw", "--plan", "visibility"]);
  const brand = await box.cliJson<{ id: string }>([
    "brand",
    "create",
    "--email",
    "e2e@example.com",
    "--name",
    "Acme",
    "--domain",
    "acme.com",
  ]);
  brandId = brand.id;
  const key = await box.cliJson<{ plaintext: string }>([
    "key",
    "create",
    "--email",
    "e2e@example.com",
    "--brand",
    brandId,
    "--name",
    "e2e",
  ]);
  apiKey = key.plaintext;
  // Competitors and prompts go straight into the database: their tools are tested with the MCP server.
  const db = new Database(join(box.dataDir, "spyglass.db"));
  const now = Date.now();
  db.query(
    "INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES ('cmp_globex', ?, 'Globex', '[]', '[\"globex.com\"]', ?)",
  ).run(brandId, now);
  db.query(
    "INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES ('cmp_initech', ?, 'Initech', '[]', '[]', ?)",
  ).run(brandId, now + 1);
  ["best crm", "crm pricing", "crm for agencies"].forEach((text, i) => {
    db.query("INSERT INTO prompts (id, brand_id, text, text_key, created_at) VALUES (?, ?, ?, ?, ?)").run(
      `prm_e2e${i}`,
      brandId,
      text,
      text,
      now + i,
    );
  });
  db.close();
}, 60_000);

afterAll(async () => {
  box?.cleanup();
  await openai?.stop();
  await anthropic?.stop();
});

async function connect(server: ServerProcess): Promise<Client> {
  const client = new Client({ name: "spyglass-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/api/mcp/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${apiKey}` } },
    }),
  );
  return client;
}

async function call<T = any>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as T;
}

test("spyglass track asks every prompt × engine and prints one summary line (and records with --json)", async () => {
  const plain = await box.cli(["track"]);
  expect(plain.stderr).toBe("");
  expect(plain.code).toBe(0);
  const lines = plain.stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^run_\w+ Acme \(brd_\w+\): completed, 6\/6 answers \(ok 5, empty 0, refusal 1, error 0\) in \d+\.\d s$/);

  const runs = await box.cliJson<Array<{ status: string; answers: Record<string, number>; engines: string[] }>>([
    "track",
    "--brand",
    brandId,
  ]);
  expect(runs).toHaveLength(1);
  expect(runs[0]).toMatchObject({ status: "completed", engines: ["gpt", "claude"], answers: { ok: 5, empty: 0, refusal: 1, error: 0 } });
  expect(openai.requests.every((r) => r.headers.authorization === `Bearer ${ENV.E2E_OPENAI_KEY}`)).toBe(true);
}, 60_000);

test("the MCP analytics tools report the expected figures from the stored answers", async () => {
  const server = await box.serve();
  const client = await connect(server);
  try {
    // Two runs, each: 6 answers, 5 valid; Acme in gpt "best crm" and claude "crm pricing".
    const o = await call(client, "get_visibility_overview");
    expect(o.answers).toEqual({ total: 12, valid: 10, no_answer: 2 });
    expect(o.visibility).toMatchObject({ rate: 0.4, successes: 4, n: 10 });
    // roster mentions per run: best crm/gpt 2, pricing/gpt 1, pricing/claude 2, agencies 1 + 1 = 7; Acme 2
    expect(o.share_of_voice).toMatchObject({ successes: 4, n: 14 });
    expect(o.avg_position).toMatchObject({ value: 1, n: 4 });
    expect(o.citation_rate).toMatchObject({ rate: 0.2, successes: 2, n: 10 });
    expect(o.prompt_coverage).toMatchObject({ successes: 2, n: 3 });
    expect(o.no_answer_rate).toMatchObject({ successes: 2, n: 12 });
    expect(o.visibility.previous).toMatchObject({ n: 0 });
    const gpt = o.by_engine.find((e: { engine: string }) => e.engine === "gpt");
    expect(gpt).toMatchObject({ label: "GPT stand-in", visibility: { successes: 2, n: 6 } });

    const ranking = await call(client, "get_competitor_ranking");
    expect(ranking.ranking.map((r: { name: string; visibility: { successes: number } }) => [r.name, r.visibility.successes])).toEqual([
      ["Globex", 8],
      ["Acme", 4],
      ["Initech", 2],
    ]);

    const gaps = await call(client, "get_content_gaps");
    expect(gaps.gaps).toHaveLength(1);
    expect(gaps.gaps[0]).toMatchObject({
      text: "crm for agencies",
      competitor_answers: 4,
      competitors: [{ name: "Globex", answers: 4 }],
      top_domains: [{ domain: "g2.com", citations: 2 }],
    });

    const sources = await call(client, "get_top_sources");
    expect(sources.sources.map((s: { domain: string; owned: boolean }) => [s.domain, s.owned])).toEqual([
      ["acme.com", true],
      ["g2.com", false],
    ]);

    const list = await call(client, "list_answers", { mentioned: true, limit: 3 });
    expect(list.answers).toHaveLength(3);
    expect(list.next_cursor).not.toBeNull();
    const one = await call(client, "get_answer", { answer_id: list.answers[0].id });
    expect(one.answer.mentions[0]).toMatchObject({ name: "Acme" });

    const status = await call(client, "get_tracking_status");
    expect(status).toMatchObject({
      schedule: { cron: "0 6 * * *", timezone: "UTC" },
      last_run: { status: "completed", trigger: "cli" },
      running: false,
    });
    expect(status.engines.map((e: { id: string; api_key_set: boolean }) => [e.id, e.api_key_set])).toEqual([
      ["gpt", true],
      ["claude", true],
    ]);
    expect(new Date(status.next_run).getUTCHours()).toBe(6);

    // run_tracking returns at once; the run goes on in the background.
    const started = await call(client, "run_tracking", { engines: ["gpt"] });
    expect(started.run).toMatchObject({ status: "running", answers_planned: 3 });
    let last = started.run;
    for (let i = 0; i < 200 && last.status === "running"; i++) {
      await Bun.sleep(20);
      last = (await call(client, "get_tracking_status")).last_run;
    }
    expect(last).toMatchObject({ id: started.run.id, status: "completed", answers_done: 3, trigger: "tool" });
  } finally {
    await client.close();
    expect(await server.stop()).toBe(0);
  }
}, 60_000);

test("SIGTERM during a run aborts in-flight requests and marks the run interrupted; a restart keeps it so", async () => {
  hanging = true;
  const server = await box.serve();
  const client = await connect(server);
  let runId: string;
  try {
    const started = await call(client, "run_tracking");
    runId = started.run.id;
    for (let i = 0; i < 200 && openai.inFlight + anthropic.inFlight < 4; i++) await Bun.sleep(10);
    expect(openai.inFlight + anthropic.inFlight).toBe(4);
  } finally {
    await client.close();
  }
  const t0 = performance.now();
  expect(await server.stop("SIGTERM")).toBe(0);
  expect(performance.now() - t0).toBeLessThan(5_000);
  hanging = false;
  const again = await box.serve();
  const client2 = await connect(again);
  try {
    const status = await call(client2, "get_tracking_status");
    expect(status.last_run).toMatchObject({ id: runId!, status: "interrupted", answers_done: 0 });
    expect(status.last_run.error).toContain("stopped before it finished");
  } finally {
    await client2.close();
    await again.stop();
  }
}, 60_000);
