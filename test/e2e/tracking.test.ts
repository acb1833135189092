// The whole loop against the compiled binary: spyglass.toml pointing four engines (chat
// completions answering as Perplexity does, Anthropic Messages with web search, the OpenAI
// Responses API with web search, Gemini with Google Search grounding) at stand-in providers on
// loopback (keys in env vars) → `spyglass track --dry-run` → `spyglass track` → `spyglass serve` →
// MCP analytics tools via the SDK client → run_tracking → SIGTERM mid-run marks the run
// interrupted → the next run resumes it.

import { afterAll, beforeAll, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { baseEnv, SANDBOX_DATABASE, type Sandbox, type ServerProcess, sandbox } from "../support/binary";
import {
  answer,
  type FakeProvider,
  hang,
  refusal,
  startFakeAnthropic,
  startFakeGemini,
  startFakeOpenAI,
  startFakeResponses,
} from "../support/fake-providers";

const ENV = {
  E2E_OPENAI_KEY: "sk-e2e-openai",
  E2E_ANTHROPIC_KEY: "sk-ant-e2e",
  E2E_RESPONSES_KEY: "sk-e2e-responses",
  E2E_GEMINI_KEY: "gemini-e2e-key",
};
let hanging = false;
let openai: FakeProvider;
let anthropic: FakeProvider;
let responses: FakeProvider;
let gemini: FakeProvider;
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
  "crm pricing": answer("Acme and Initech both have free plans.", { queries: ["crm free plans"] }),
  "crm for agencies": answer("Agencies usually pick Globex."),
};
const RESPONSES_SCRIPT: Record<string, ReturnType<typeof answer>> = {
  "best crm": answer("Acme leads.", {
    queries: ["best crm 2025"],
    citations: [{ url: "https://acme.com/crm", title: "Acme CRM", quote: "Acme leads." }],
    searchResults: ["https://acme.com/crm", "https://g2.com/best-crm"],
  }),
  // Retrieves the brand's page without citing it: counts in the retrieval rate, not the citation rate.
  "crm pricing": answer("Pricing varies.", { queries: ["crm pricing comparison"], searchResults: ["https://www.acme.com/pricing"] }),
  "crm for agencies": answer("Agencies like Globex.", { queries: ["best crm 2025"], citations: ["https://globex.com/agencies"] }),
};
const GEMINI_SCRIPT: Record<string, ReturnType<typeof answer>> = {
  // The stand-in wraps the source in a vertexaisearch grounding redirect titled "g2.com", as Gemini does.
  "best crm": answer("Globex and Acme both work.", { queries: ["best crm 2025"], citations: ["https://g2.com/crm-reviews"] }),
  "crm pricing": answer("It depends.", { queries: ["crm pricing"] }),
  "crm for agencies": refusal(),
};

// The daily schedule's hour, twelve hours from now: a scheduled run never starts during the tests.
const HOUR = (new Date().getUTCHours() + 12) % 24;

beforeAll(async () => {
  openai = startFakeOpenAI({ apiKey: ENV.E2E_OPENAI_KEY, script: (p) => (hanging ? hang() : (OPENAI_SCRIPT[p] ?? answer("?"))) });
  anthropic = startFakeAnthropic({
    apiKey: ENV.E2E_ANTHROPIC_KEY,
    script: (p) => (hanging ? hang() : (ANTHROPIC_SCRIPT[p] ?? answer("?"))),
  });
  responses = startFakeResponses({
    apiKey: ENV.E2E_RESPONSES_KEY,
    script: (p) => (hanging ? hang() : (RESPONSES_SCRIPT[p] ?? answer("?"))),
  });
  gemini = startFakeGemini({ apiKey: ENV.E2E_GEMINI_KEY, script: (p) => (hanging ? hang() : (GEMINI_SCRIPT[p] ?? answer("?"))) });
  box = await sandbox({
    env: ENV,
    toml: `
[tracking]
schedule = "0 ${HOUR} * * *"
concurrency = 2

[[engines]]
id = "gpt"
label = "GPT stand-in"
api = "openai"
base_url = "${openai.url}"
model = "gpt-test"
api_key_env = "E2E_OPENAI_KEY"
max_retries = 1
price_per_request = 0.005

[[engines]]
id = "claude"
api = "anthropic"
base_url = "${anthropic.url}"
model = "claude-test"
api_key_env = "E2E_ANTHROPIC_KEY"
max_retries = 1

[[engines]]
id = "chatgpt"
api = "openai-responses"
base_url = "${responses.url}"
model = "gpt-responses-test"
api_key_env = "E2E_RESPONSES_KEY"
max_retries = 1
price_per_million_input_tokens = 2.5
price_per_million_output_tokens = 10

[[engines]]
id = "gemini"
api = "gemini"
base_url = "${gemini.url}"
model = "gemini-test"
api_key_env = "E2E_GEMINI_KEY"
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
  await box.withDb(async (db) => {
    const now = Date.now();
    await db.run(
      "INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES ('cmp_globex', ?, 'Globex', '[]', '[\"globex.com\"]', ?)",
      [brandId, now],
    );
    await db.run(
      "INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES ('cmp_initech', ?, 'Initech', '[]', '[]', ?)",
      [brandId, now + 1],
    );
    for (const [i, text] of ["best crm", "crm pricing", "crm for agencies"].entries()) {
      await db.run("INSERT INTO prompts (id, brand_id, text, text_key, created_at) VALUES (?, ?, ?, ?, ?)", [
        `prm_e2e${i}`,
        brandId,
        text,
        text,
        now + i,
      ]);
    }
  });
}, 60_000);

afterAll(async () => {
  box?.cleanup();
  await openai?.stop();
  await anthropic?.stop();
  await responses?.stop();
  await gemini?.stop();
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

test("spyglass track --dry-run forecasts the requests and cost without asking any engine", async () => {
  const dry = await box.cli(["track", "--dry-run"]);
  expect(dry.stderr).toBe("");
  expect(dry.code).toBe(0);
  expect(dry.stdout).toContain(`Acme (${brandId}): 3 prompts × 4 engines × 1 sample = 12 requests per run`);
  expect(dry.stdout).toContain(`schedule "0 ${HOUR} * * *" (UTC): 30 runs in the next 30 days → 360 requests per month (12 a day)`);
  // gpt is priced per request (0.005 × 3 per run); chatgpt per token, with no answers yet to measure.
  expect(dry.stdout).toContain("estimated cost: ~0.0150 per run, ~0.4500 per month (not counted: claude, chatgpt, gemini)");
  expect(dry.stdout).toContain("Dry run: nothing was sent to any engine.");
  expect(openai.requests.length + anthropic.requests.length + responses.requests.length + gemini.requests.length).toBe(0);
}, 60_000);

test("spyglass track asks every prompt × engine and prints one summary line (and records with --json)", async () => {
  const plain = await box.cli(["track"]);
  expect(plain.stderr).toBe("");
  expect(plain.code).toBe(0);
  const lines = plain.stdout.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^run_\w+ Acme \(brd_\w+\): completed, 12\/12 answers \(ok 10, empty 0, refusal 2, error 0\) in \d+\.\d s$/);

  const runs = await box.cliJson<Array<{ status: string; answers: Record<string, number>; engines: string[] }>>([
    "track",
    "--brand",
    brandId,
  ]);
  expect(runs).toHaveLength(1);
  expect(runs[0]).toMatchObject({
    status: "completed",
    engines: ["gpt", "claude", "chatgpt", "gemini"],
    answers: { ok: 10, empty: 0, refusal: 2, error: 0 },
  });
  expect(openai.requests.every((r) => r.headers.authorization === `Bearer ${ENV.E2E_OPENAI_KEY}`)).toBe(true);
  expect(responses.requests.every((r) => r.headers.authorization === `Bearer ${ENV.E2E_RESPONSES_KEY}`)).toBe(true);
  expect(gemini.requests.every((r) => r.headers["x-goog-api-key"] === ENV.E2E_GEMINI_KEY)).toBe(true);
  // Web search is on by default where the API has a search tool.
  expect(responses.requests[0]!.body).toMatchObject({ tools: [{ type: "web_search" }] });
  expect(anthropic.requests[0]!.body).toMatchObject({ tools: [{ name: "web_search" }] });
  expect(gemini.requests[0]!.body).toMatchObject({ tools: [{ google_search: {} }] });
  expect(responses.requests).toHaveLength(6);
  expect(gemini.requests).toHaveLength(6);
}, 60_000);

test("the MCP analytics tools report the expected figures from the stored answers", async () => {
  const server = await box.serve();
  const client = await connect(server);
  try {
    // Two runs, each: 12 answers, 10 valid (claude and gemini each refuse one). Acme is mentioned in
    // gpt "best crm" (1st), claude "crm pricing" (1st), chatgpt "best crm" (1st), gemini "best crm" (2nd).
    const o = await call(client, "get_visibility_overview");
    expect(o.answers).toEqual({ total: 24, valid: 20, no_answer: 4 });
    expect(o.visibility).toMatchObject({ rate: 0.4, successes: 8, n: 20 });
    // roster mentions per run: gpt 2+1+1, claude 2+1, chatgpt 1+0+1, gemini 2+0 = 11; Acme 4
    expect(o.share_of_voice).toMatchObject({ successes: 8, n: 22 });
    expect(o.avg_position).toMatchObject({ value: 1.25, n: 8 });
    // Cited on acme.com: gpt "best crm" (its annotation) and chatgpt "best crm" (url_citation).
    expect(o.citation_rate).toMatchObject({ rate: 0.2, successes: 4, n: 20 });
    // Retrieved from acme.com: those two, and chatgpt "crm pricing" (searched, not cited).
    expect(o.retrieval_rate).toMatchObject({ rate: 0.3, successes: 6, n: 20 });
    expect(o.prompt_coverage).toMatchObject({ successes: 2, n: 3 });
    expect(o.no_answer_rate).toMatchObject({ successes: 4, n: 24 });
    expect(o.visibility.previous).toMatchObject({ n: 0 });
    const gpt = o.by_engine.find((e: { engine: string }) => e.engine === "gpt");
    expect(gpt).toMatchObject({ label: "GPT stand-in", visibility: { successes: 2, n: 6 } });
    const byEngine = Object.fromEntries(
      o.by_engine.map((e: { engine: string; retrieval_rate: { successes: number; n: number } }) => [
        e.engine,
        [e.retrieval_rate.successes, e.retrieval_rate.n],
      ]),
    );
    expect(byEngine).toEqual({ chatgpt: [4, 6], claude: [0, 4], gemini: [0, 4], gpt: [2, 6] });

    const ranking = await call(client, "get_competitor_ranking");
    expect(ranking.ranking.map((r: { name: string; visibility: { successes: number } }) => [r.name, r.visibility.successes])).toEqual([
      ["Globex", 12],
      ["Acme", 8],
      ["Initech", 2],
    ]);

    const gaps = await call(client, "get_content_gaps");
    expect(gaps.gaps).toHaveLength(1);
    expect(gaps.gaps[0]).toMatchObject({ text: "crm for agencies", competitor_answers: 6, competitors: [{ name: "Globex", answers: 6 }] });
    expect(gaps.gaps[0].top_domains).toHaveLength(2);
    expect(gaps.gaps[0].top_domains).toContainEqual({ domain: "g2.com", citations: 2, owned: false, competitor: null });
    // globex.com is the site of the competitor Globex (its domain on the roster).
    expect(gaps.gaps[0].top_domains).toContainEqual({
      domain: "globex.com",
      citations: 2,
      owned: false,
      competitor: { id: "cmp_globex", name: "Globex" },
    });

    // Gemini's grounding redirect counts as the site it names (g2.com), never as google.com.
    const sources = await call(client, "get_top_sources");
    expect(sources.sources.map((s: { domain: string; citations: number; owned: boolean }) => [s.domain, s.citations, s.owned])).toEqual([
      ["acme.com", 4, true],
      ["g2.com", 4, false],
      ["globex.com", 2, false],
    ]);

    // The queries the assistants searched, recurring across prompts first.
    const queries = await call(client, "get_search_queries");
    expect(queries.queries[0]).toMatchObject({ query: "best crm 2025", answers: 6, prompt_count: 2, engines: ["chatgpt", "gemini"] });
    expect(queries.queries.map((q: { query: string }) => q.query).sort()).toEqual([
      "best crm 2025",
      "crm free plans",
      "crm pricing",
      "crm pricing comparison",
    ]);

    const pricing = await call(client, "list_answers", { prompt_id: "prm_e2e1", engine: "chatgpt", limit: 1 });
    const chatgptPricing = await call(client, "get_answer", { answer_id: pricing.answers[0].id });
    expect(chatgptPricing.answer).toMatchObject({
      search_queries: ["crm pricing comparison"],
      cited_sources: [],
      retrieved_sources: [{ url: "https://www.acme.com/pricing", domain: "acme.com", title: null, owned: true }],
      citations: [],
    });
    const best = await call(client, "list_answers", { prompt_id: "prm_e2e0", engine: "gemini", limit: 1 });
    const geminiBest = await call(client, "get_answer", { answer_id: best.answers[0].id });
    expect(geminiBest.answer).toMatchObject({
      search_queries: ["best crm 2025"],
      cited_sources: [
        { url: "https://g2.com", domain: "g2.com", title: "g2.com", start: 0, end: "Globex and Acme both work.".length, owned: false },
      ],
      citations: [{ url: "https://g2.com", domain: "g2.com", owned: false }],
    });

    const list = await call(client, "list_answers", { mentioned: true, limit: 3 });
    expect(list.answers).toHaveLength(3);
    expect(list.next_cursor).not.toBeNull();
    const one = await call(client, "get_answer", { answer_id: list.answers[0].id });
    expect(one.answer.mentions.map((m: { name: string }) => m.name)).toContain("Acme");

    const status = await call(client, "get_tracking_status");
    expect(status).toMatchObject({
      schedule: { cron: `0 ${HOUR} * * *`, timezone: "UTC" },
      last_run: { status: "completed", trigger: "cli" },
      running: false,
    });
    expect(status.engines.map((e: { id: string; api: string; api_key_set: boolean }) => [e.id, e.api, e.api_key_set])).toEqual([
      ["gpt", "openai", true],
      ["claude", "anthropic", true],
      ["chatgpt", "openai-responses", true],
      ["gemini", "gemini", true],
    ]);
    expect(status.forecast).toMatchObject({ requests_per_run: 12, requests_per_month: 360, unestimated_engines: ["claude", "gemini"] });
    const forecastOf = Object.fromEntries(status.forecast.by_engine.map((e: { id: string }) => [e.id, e]));
    expect(forecastOf.gpt).toMatchObject({ cost_per_run: 0.015, cost_per_month: 0.45 });
    // chatgpt's stand-in counts words: prompts of 2, 2 and 3 words, answers of 2, 2 and 3 words.
    expect(forecastOf.chatgpt).toMatchObject({ token_sample: 6, avg_tokens_in: 2.3, avg_tokens_out: 2.3 });
    expect(forecastOf.chatgpt.cost_per_request).toBeCloseTo(((7 / 3) * (2.5 + 10)) / 1_000_000, 6);
    expect(new Date(status.next_run).getUTCHours()).toBe(HOUR);

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

test("SIGTERM during a run aborts in-flight requests and marks the run interrupted; a restart keeps it so until the next run resumes it", async () => {
  hanging = true;
  const server = await box.serve();
  const client = await connect(server);
  let runId: string;
  try {
    const started = await call(client, "run_tracking");
    runId = started.run.id;
    const deadline = performance.now() + 20_000;
    while (openai.inFlight + anthropic.inFlight + responses.inFlight + gemini.inFlight < 8 && performance.now() < deadline)
      await Bun.sleep(10);
    expect(openai.inFlight + anthropic.inFlight + responses.inFlight + gemini.inFlight).toBe(8);
  } finally {
    await client.close();
  }
  const t0 = performance.now();
  const code = await server.stop("SIGTERM");
  // A failure shows the server's last words (CI once saw exit 1 here on PostgreSQL, not reproduced since).
  expect({ code, last: code === 0 ? "" : server.logs().trimEnd().split("\n").slice(-15).join("\n") }).toEqual({ code: 0, last: "" });
  // Well within the 30 s grace a stop gives requests that are not aborted (a loaded machine took seconds).
  expect(performance.now() - t0).toBeLessThan(15_000);
  hanging = false;
  const again = await box.serve();
  const client2 = await connect(again);
  try {
    const status = await call(client2, "get_tracking_status");
    expect(status.last_run).toMatchObject({ id: runId!, status: "interrupted", answers_done: 0 });
    expect(status.last_run.error).toBe("stopped before it finished (the server stopped); the answers stored so far are kept");
    // The next run is the interrupted one, resumed, and it completes.
    const resumed = await call(client2, "run_tracking");
    expect(resumed.run).toMatchObject({ id: runId!, answers_planned: 12 });
    let last = resumed.run;
    for (let i = 0; i < 300 && last.status === "running"; i++) {
      await Bun.sleep(20);
      last = (await call(client2, "get_tracking_status")).last_run;
    }
    expect(last).toMatchObject({ id: runId!, status: "completed", answers_done: 12 });
  } finally {
    await client2.close();
    await again.stop();
  }
}, 60_000);

test("Ctrl-C during spyglass track stops its run, which says so, and exits 130", async () => {
  hanging = true;
  try {
    const inFlight = () => openai.inFlight + anthropic.inFlight + responses.inFlight + gemini.inFlight;
    const before = inFlight();
    const env = baseEnv({ ...ENV, ...(box.databaseUrl ? { SPYGLASS_DATABASE_URL: box.databaseUrl } : {}) });
    const proc = Bun.spawn([box.binary, "track"], { cwd: box.dir, env, stdout: "pipe", stderr: "pipe" });
    // Its run under way: requests of its own at the stand-ins.
    const deadline = performance.now() + 20_000;
    while (inFlight() < before + 2 && performance.now() < deadline) await Bun.sleep(10);
    expect(inFlight()).toBeGreaterThanOrEqual(before + 2);
    proc.kill("SIGINT");
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    expect(code).toBe(130);
    expect(stderr).toContain('"msg":"tracking run interrupted"');
    expect(stderr).toContain("stopped before it finished (spyglass track was stopped)");
  } finally {
    hanging = false;
  }
  const server = await box.serve();
  const client = await connect(server);
  try {
    const status = await call(client, "get_tracking_status");
    // The record says what stopped it (it said "(shutdown)", as for a server's stop).
    expect(status.last_run).toMatchObject({
      status: "interrupted",
      trigger: "cli",
      error: "stopped before it finished (spyglass track was stopped); the answers stored so far are kept",
    });
  } finally {
    await client.close();
    expect(await server.stop()).toBe(0);
  }
}, 60_000);

test.if(SANDBOX_DATABASE === "sqlite")(
  "the database file deleted during spyglass track: the run stops, exit 1, and the database is written back with the run in it",
  async () => {
    hanging = true;
    const file = join(box.dataDir, "spyglass.db");
    try {
      const inFlight = () => openai.inFlight + anthropic.inFlight + responses.inFlight + gemini.inFlight;
      const before = inFlight();
      const env = baseEnv({ ...ENV, SPYGLASS_FILE_CHECK_MS: "300" });
      const proc = Bun.spawn([box.binary, "track"], { cwd: box.dir, env, stdout: "pipe", stderr: "pipe" });
      const deadline = performance.now() + 20_000;
      while (inFlight() < before + 2 && performance.now() < deadline) await Bun.sleep(10);
      expect(inFlight()).toBeGreaterThanOrEqual(before + 2);
      rmSync(file);
      const [code, stderr] = await Promise.all([
        Promise.race([proc.exited, Bun.sleep(20_000).then(() => "still running")]),
        new Response(proc.stderr).text(),
      ]);
      expect(code).toBe(1);
      expect(stderr).toContain(`the database file ${file} was deleted while Spyglass had it open`);
      expect(stderr).toContain(`is written back to ${file}`);
    } finally {
      hanging = false;
    }
    // Back at its path with everything, the stopped run included (it says why it stopped; the run it
    // resumed, the one Ctrl-C stopped, when run with the tests above).
    const runs = await box.withDb((db) =>
      db.all<{ status: string; error: string }>("SELECT status, error FROM tracking_runs WHERE error LIKE '%was deleted%'"),
    );
    expect(runs).toEqual([
      {
        status: "interrupted",
        error: `stopped before it finished (the database file ${file} was deleted while Spyglass had it open); the answers stored so far are kept`,
      },
    ]);
  },
  60_000,
);
