// The official MCP conformance suite and the MCP Inspector's CLI against the compiled binary. Both
// run on Node 22 from .tools/ (installed by ./build.sh test). The conformance runner cannot send an
// Authorization header, so it talks to a loopback proxy that adds one, as a gateway would.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Sandbox, type ServerProcess, sandbox } from "../support/binary";
import { seedToolServerData, type ToolServerSeed } from "../support/fixtures";
import { authProxy, MCP_PATH, requireMcpTools } from "../support/mcp";

// Real processes on a shared machine: give each step room.
setDefaultTimeout(60_000);

const SCENARIOS = ["server-initialize", "ping", "tools-list", "dns-rebinding-protection"];

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
  seed = seedToolServerData(join(box.dataDir, "spyglass.db"));
  server = await box.serve();
  proxy = authProxy(server.url, seed.a.key);
}, 60_000);

afterAll(async () => {
  proxy?.stop();
  await server?.stop();
  box?.cleanup();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 60_000);

describe("MCP conformance suite (@modelcontextprotocol/conformance)", () => {
  for (const scenario of SCENARIOS) {
    test(`${scenario} passes`, async () => {
      const out = join(scratch, scenario);
      const run = await node([tools.conformance, "server", "--url", `${proxy.url}${MCP_PATH}`, "--scenario", scenario, "-o", out]);
      const files = readdirSync(out, { recursive: true })
        .map(String)
        .filter((f) => f.endsWith("checks.json"));
      const checks: Check[] = files.flatMap((f) => JSON.parse(readFileSync(join(out, f), "utf8")) as Check[]);
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
  test("tools/list in --strict mode reports no schema problem, for each plan", async () => {
    for (const key of [seed.a.key, seed.visibility.key]) {
      const run = await node([
        tools.inspector,
        "--cli",
        `${server.url}${MCP_PATH}`,
        "--transport",
        "http",
        "--method",
        "tools/list",
        "--header",
        `Authorization: Bearer ${key}`,
        "--strict",
      ]);
      if (run.code !== 0 || run.stderr.trim() !== "") throw new Error(`inspector exit ${run.code}:\n${run.stderr.slice(0, 4000)}`);
      const listed = JSON.parse(run.stdout) as { tools: Array<{ name: string }> };
      expect(listed.tools.length).toBeGreaterThan(10);
    }
  }, 120_000);

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
