// The official MCP conformance suite and the MCP Inspector's CLI against the compiled binary. Both
// run on Node 22 from .tools/ (installed by ./build.sh test). The conformance runner cannot send an
// Authorization header, so it talks to a loopback proxy that adds one, as a gateway would.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Sandbox, type ServerProcess, sandbox } from "../support/binary";
import { seedToolServerDb, type ToolServerSeed } from "../support/fixtures";
import { authProxy, MCP_PATH, requireMcpTools } from "../support/mcp";

// Real processes on a shared machine: give each step room.
setDefaultTimeout(60_000);

const SCENARIOS = ["server-initialize", "ping", "tools-list", "prompts-list", "resources-list", "dns-rebinding-protection"];

// Scenarios that ask for the reference server's own fixtures by name (a prompt test_simple_prompt, a
// resource test://static-text…): Spyglass has no such prompt or resource, and must not grow them. Each
// must fail for that reason only: the method is offered (no -32601) and answers with its not-found
// sentence. resources-subscribe/-unsubscribe are not run: Spyglass is stateless and does not offer
// subscriptions (capabilities.resources.subscribe is false).
const FIXTURE_SCENARIOS: Record<string, string> = {
  "completion-complete": 'Unknown prompt "test_prompt_with_arguments"',
  "prompts-get-simple": 'Unknown prompt "test_simple_prompt"',
  "prompts-get-with-args": 'Unknown prompt "test_prompt_with_arguments"',
  "prompts-get-embedded-resource": 'Unknown prompt "test_prompt_with_embedded_resource"',
  "prompts-get-with-image": 'Unknown prompt "test_prompt_with_image"',
  "resources-read-text": "Resource not found: test://static-text",
  "resources-read-binary": "Resource not found: test://static-binary",
  "resources-templates-read": "Resource not found: test://template/",
};

let box: Sandbox;
let server: ServerProcess;
let seed: ToolServerSeed;
let proxy: { url: string; stop(): void };
let tools: ReturnType<typeof requireMcpTools>;
let scratch: string;

async function node(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  // Output goes to files, not pipes: reading a short-lived child's pipes raced Bun's epoll
  // registration under load (EBADF from epoll_ctl) and left the child running.
  const id = crypto.randomUUID();
  const outFile = join(scratch, `${id}.out`);
  const errFile = join(scratch, `${id}.err`);
  const proc = Bun.spawn([tools.node, ...args], {
    cwd: scratch,
    env: { ...process.env, HOME: scratch, NO_COLOR: "1", ...env },
    stdin: "ignore",
    stdout: Bun.file(outFile),
    stderr: Bun.file(errFile),
  });
  const code = await proc.exited;
  return { code, stdout: readFileSync(outFile, "utf8"), stderr: readFileSync(errFile, "utf8") };
}

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

beforeAll(async () => {
  tools = requireMcpTools();
  scratch = mkdtempSync(join(tmpdir(), "spyglass-mcp-tools-"));
  box = await sandbox();
  seed = await box.withDb(seedToolServerDb);
  server = await box.serve();
  proxy = authProxy(server.url, seed.a.key);
}, 60_000);

afterAll(async () => {
  proxy?.stop();
  await server?.stop();
  box?.cleanup();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 60_000);

async function runScenario(scenario: string): Promise<{ run: { code: number; stdout: string; stderr: string }; checks: Check[] }> {
  const out = join(scratch, scenario);
  const run = await node([tools.conformance, "server", "--url", `${proxy.url}${MCP_PATH}`, "--scenario", scenario, "-o", out]);
  const files = readdirSync(out, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith("checks.json"));
  return { run, checks: files.flatMap((f) => JSON.parse(readFileSync(join(out, f), "utf8")) as Check[]) };
}

describe("MCP conformance suite (@modelcontextprotocol/conformance)", () => {
  for (const [scenario, sentence] of Object.entries(FIXTURE_SCENARIOS)) {
    test(`${scenario} reaches the method and fails only on the reference server's fixture name`, async () => {
      const { checks } = await runScenario(scenario);
      expect(checks.length).toBeGreaterThan(0);
      for (const check of checks.filter((c) => c.status !== "SUCCESS" && c.status !== "INFO")) {
        expect(check.errorMessage ?? "").toContain(sentence);
        expect(check.errorMessage ?? "").not.toContain("-32601");
      }
    }, 60_000);
  }

  for (const scenario of SCENARIOS) {
    test(`${scenario} passes`, async () => {
      const { run, checks } = await runScenario(scenario);
      const failed = checks.filter((c) => c.status !== "SUCCESS" && c.status !== "INFO");
      if (run.code !== 0 || checks.length === 0 || failed.length > 0) {
        throw new Error(`${scenario}: exit ${run.code}\n${JSON.stringify(failed, null, 1)}\n${run.stdout}\n${run.stderr}`.slice(0, 4000));
      }
      expect(checks.length).toBeGreaterThan(0);
      if (scenario === "dns-rebinding-protection") {
        expect(checks.map((c) => c.id).sort()).toEqual(["localhost-host-rebinding-rejected", "localhost-host-valid-accepted"]);
      }
    }, 60_000);
  }
});

describe("MCP Inspector CLI (@modelcontextprotocol/inspector --cli)", () => {
  async function inspect(key: string, method: string, ...extra: string[]) {
    const run = await node([
      tools.inspector,
      "--cli",
      `${server.url}${MCP_PATH}`,
      "--transport",
      "http",
      "--method",
      method,
      ...extra,
      "--header",
      `Authorization: Bearer ${key}`,
      // The Inspector's --strict checks tool schemas only, and refuses any other method.
      ...(method === "tools/list" ? ["--strict"] : []),
    ]);
    if (run.code !== 0 || run.stderr.trim() !== "") throw new Error(`inspector ${method} exit ${run.code}:\n${run.stderr.slice(0, 4000)}`);
    return JSON.parse(run.stdout);
  }

  test("tools/list in --strict mode reports no schema problem, for each plan", async () => {
    for (const key of [seed.a.key, seed.visibility.key]) {
      const listed = (await inspect(key, "tools/list")) as { tools: Array<{ name: string }> };
      expect(listed.tools.length).toBeGreaterThan(10);
    }
  }, 120_000);

  test("prompts and resources through the Inspector without a warning: listed per plan, a prompt with an argument, an article and a view read", async () => {
    expect((await inspect(seed.a.key, "prompts/list")).prompts).toHaveLength(4);
    expect((await inspect(seed.visibility.key, "prompts/list")).prompts).toHaveLength(3);
    const dive = await inspect(
      seed.a.key,
      "prompts/get",
      "--prompt-name",
      "competitor_deep_dive",
      "--prompt-args",
      "competitor=Acme Rival",
    );
    expect(dive.messages[0].content.text).toContain('"Acme Analytics" against "Acme Rival"');
    const resources = (await inspect(seed.a.key, "resources/list")).resources as Array<{ uri: string }>;
    expect(resources.map((r) => r.uri)).toContain(`spyglass://articles/${seed.a.ids.articleSlug}`);
    expect((await inspect(seed.visibility.key, "resources/list")).resources).toHaveLength(3);
    expect((await inspect(seed.a.key, "resources/templates/list")).resourceTemplates).toHaveLength(2);
    const article = await inspect(seed.a.key, "resources/read", "--uri", `spyglass://articles/${seed.a.ids.articleSlug}/html`);
    expect(article.contents[0]).toMatchObject({ mimeType: "text/html", text: "<p>Small teams pick Acme.</p>" });
    const view = await inspect(seed.a.key, "resources/read", "--uri", "ui://spyglass/visibility-trend.html");
    expect(view.contents[0].mimeType).toBe("text/html;profile=mcp-app");
  }, 180_000);

  test("a call through the Inspector reaches the key's brand", async () => {
    const run = await node([
      tools.inspector,
      "--cli",
      `${server.url}${MCP_PATH}`,
      "--transport",
      "http",
      "--method",
      "tools/call",
      "--tool-name",
      "get_brand",
      "--header",
      `Authorization: Bearer ${seed.a.key}`,
    ]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).structuredContent.brand.name).toBe("Acme Analytics");
  }, 60_000);
});
