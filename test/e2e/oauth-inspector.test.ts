// The MCP Inspector's CLI (the client the issue saw fail with "Dynamic Client Registration rejected
// (HTTP 404)") signing in to the compiled binary with its own OAuth implementation, once by dynamic
// client registration and once by a client metadata document: it prints the authorization URL (its
// "browser" here is a script that records it), a person signs in and approves in headless Chromium,
// and the Inspector's own loopback callback finishes the flow and runs the tool.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Dashboard, openDashboard } from "../support/dashboard";
import { MCP_PATH, requireMcpTools } from "../support/mcp";
import { documentHost } from "../support/oauth";

setDefaultTimeout(120_000);

const OWNER = { email: "owner@example.com", password: "inspector password" };

let d: Dashboard;
let scratch: string;
let tools: ReturnType<typeof requireMcpTools>;
let docs: ReturnType<typeof documentHost>;
let cimdCallback: string;

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

beforeAll(async () => {
  tools = requireMcpTools();
  scratch = mkdtempSync(join(tmpdir(), "spyglass-inspector-oauth-"));
  const port = freePort();
  d = await openDashboard({
    toml: `public_url = "http://127.0.0.1:${port}"\n[tracking]\nenabled = false\n`,
    env: { SPYGLASS_OAUTH_TEST_LOOPBACK_CLIENTS: "1" },
    serve: { args: ["--port", String(port)] },
  });
  await d.box.cliJson(["account", "create", "--email", OWNER.email, "--password", OWNER.password, "--plan", "visibility"]);
  await d.box.cliJson(["brand", "create", "--email", OWNER.email, "--name", "Inspected Co"]);
  cimdCallback = `http://127.0.0.1:${freePort()}/oauth/callback`;
  docs = documentHost((origin) => ({
    "/inspector/client.json": {
      client_id: `${origin}/inspector/client.json`,
      client_name: "MCP Inspector (test document)",
      redirect_uris: [cimdCallback],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    },
  }));
}, 120_000);

afterAll(async () => {
  docs?.stop();
  await d?.close();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 60_000);

/** Runs the Inspector's CLI for get_brand; its "browser" writes the URL it opens to a file, which Chromium then visits. */
async function inspectorSignsIn(name: string, extraArgs: string[]): Promise<{ code: number; stdout: string; stderr: string; url: URL }> {
  const home = join(scratch, name);
  const urlFile = join(home, "opened-url.txt");
  const browser = join(scratch, `${name}-browser.sh`);
  writeFileSync(browser, `#!/bin/sh\nmkdir -p "${home}"\necho "$1" >> "${urlFile}"\n`, { mode: 0o755 });
  const out = join(scratch, `${name}.out`);
  const err = join(scratch, `${name}.err`);
  const proc = Bun.spawn(
    [
      tools.node,
      tools.inspector,
      "--cli",
      `${d.server.url}${MCP_PATH}`,
      "--transport",
      "http",
      "--method",
      "tools/call",
      "--tool-name",
      "get_brand",
      ...extraArgs,
    ],
    {
      cwd: scratch,
      env: {
        ...process.env,
        HOME: home,
        NO_COLOR: "1",
        BROWSER: browser,
        MCP_AUTO_OPEN_ENABLED: "true",
        MCP_INSPECTOR_SECRET_STORE: "memory",
      },
      stdin: "ignore",
      stdout: Bun.file(out),
      stderr: Bun.file(err),
    },
  );
  try {
    while (!existsSync(urlFile) || readFileSync(urlFile, "utf8").trim() === "") {
      if (proc.exitCode !== null)
        throw new Error(`the Inspector exited ${proc.exitCode} before asking to sign in:\n${readFileSync(err, "utf8")}`);
      await Bun.sleep(50);
    }
    const url = new URL(readFileSync(urlFile, "utf8").trim().split("\n")[0]!);
    const page = await d.page();
    await page.goto(url.toString());
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password").fill(OWNER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByText("You can close this window", { exact: false }).waitFor();
    const code = await proc.exited;
    return { code, stdout: readFileSync(out, "utf8"), stderr: readFileSync(err, "utf8"), url };
  } finally {
    proc.kill();
  }
}

describe("the MCP Inspector CLI signs in with OAuth", () => {
  test("by dynamic client registration, then calls a tool on the approved brand", async () => {
    const run = await inspectorSignsIn("dcr", ["--callback-url", `http://127.0.0.1:${freePort()}/oauth/callback`]);
    expect(run.url.searchParams.get("client_id")).toMatch(/^sgo_client_/);
    expect(run.url.searchParams.get("code_challenge_method")).toBe("S256");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).structuredContent.brand.name).toBe("Inspected Co");
  });

  test("by a client metadata document (served on loopback in the test mode)", async () => {
    const run = await inspectorSignsIn("cimd", [
      "--client-metadata-url",
      `${docs.origin}/inspector/client.json`,
      "--callback-url",
      cimdCallback,
    ]);
    expect(run.url.searchParams.get("client_id")).toBe(`${docs.origin}/inspector/client.json`);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).structuredContent.brand.name).toBe("Inspected Co");
    expect(docs.fetched).toContain("/inspector/client.json");
  });
});
