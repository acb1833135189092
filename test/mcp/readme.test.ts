// The README's "Connect an AI client" configurations are exact: each snippet parses, points at the
// tool server's path and sends the key as a bearer Authorization header.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { TOOLS } from "../../src/catalogue/tools";
import { MCP_PATH } from "../../src/mcp/routes";

const readme = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");
const section = readme.slice(
  readme.indexOf("## Connect an AI client"),
  readme.indexOf("\n## ", readme.indexOf("## Connect an AI client") + 5),
);
const blocks = [...section.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1]!, body: m[2]! }));
const json = blocks.filter((b) => b.lang === "json").map((b) => JSON.parse(b.body) as Record<string, any>);

function serverOf(config: Record<string, any>, key: "mcpServers" | "servers"): Record<string, any> {
  const server = config[key]?.spyglass;
  if (!server) throw new Error(`no ${key}.spyglass in ${JSON.stringify(config)}`);
  return server;
}

function expectToolServerUrl(url: string): void {
  const parsed = new URL(url);
  expect(parsed.protocol).toBe("https:");
  expect(parsed.pathname).toBe(MCP_PATH);
}

describe("README: Connect an AI client", () => {
  test("the section has the six clients' snippets", () => {
    expect(blocks.map((b) => b.lang)).toEqual(["sh", "json", "json", "json", "toml", "json"]);
    for (const name of ["Claude Code", "Cursor", "VS Code", "Windsurf", "Codex", "Claude Desktop"])
      expect(section).toContain(`**${name}**`);
  });

  test("Claude Code: claude mcp add --transport http with a bearer header", () => {
    const command = blocks[0]!.body.trim();
    const match = /^claude mcp add --transport http spyglass (\S+) --header "Authorization: Bearer svc_live_…"$/.exec(command);
    expect(match).not.toBeNull();
    expectToolServerUrl(match![1]!);
  });

  test("Cursor: mcpServers url and headers", () => {
    const server = serverOf(json[0]!, "mcpServers");
    expectToolServerUrl(server.url);
    expect(server.headers).toEqual({ Authorization: "Bearer svc_live_…" });
  });

  test("VS Code: type http, url, and the key from a password input", () => {
    const config = json[1]!;
    const server = serverOf(config, "servers");
    expect(server.type).toBe("http");
    expectToolServerUrl(server.url);
    expect(server.headers).toEqual({ Authorization: "Bearer ${input:spyglass-key}" });
    expect(config.inputs).toEqual([expect.objectContaining({ type: "promptString", id: "spyglass-key", password: true })]);
  });

  test("Windsurf: serverUrl and headers", () => {
    const server = serverOf(json[2]!, "mcpServers");
    expectToolServerUrl(server.serverUrl);
    expect(server.headers).toEqual({ Authorization: "Bearer svc_live_…" });
  });

  test("Codex: url and bearer_token_env_var in config.toml", () => {
    const config = parseToml(blocks[4]!.body) as { mcp_servers: { spyglass: { url: string; bearer_token_env_var: string } } };
    expectToolServerUrl(config.mcp_servers.spyglass.url);
    expect(config.mcp_servers.spyglass.bearer_token_env_var).toMatch(/^[A-Z_]+$/);
  });

  test("Claude Desktop: npx mcp-remote URL --header Authorization:${AUTH}, AUTH a bearer value", () => {
    const server = serverOf(json[3]!, "mcpServers");
    expect(server.command).toBe("npx");
    const [yes, bridge, url, flag, header] = server.args as string[];
    expect([yes, bridge, flag, header]).toEqual(["-y", "mcp-remote", "--header", "Authorization:${AUTH}"]);
    expectToolServerUrl(url!);
    expect(server.env.AUTH).toMatch(/^Bearer svc_live_/);
  });
});

describe("README: Tools", () => {
  const tools = readme.slice(readme.indexOf("## Tools"), readme.indexOf("\n## ", readme.indexOf("## Tools") + 5));
  const rows = [...tools.matchAll(/^\| (`[^|]+) \| (Visibility|Autopilot) \|/gm)].flatMap((m) =>
    [...m[1]!.matchAll(/`([a-z_]+)`/g)].map((name) => [name[1]!, m[2]!.toLowerCase()] as const),
  );

  test("lists every tool of the catalogue once, with its plan, and nothing else", () => {
    const listed = rows.map(([name]) => name).sort();
    expect(listed).toEqual(TOOLS.map((t) => t.name).sort());
    for (const [name, plan] of rows) expect(`${name} ${plan}`).toBe(`${name} ${TOOLS.find((t) => t.name === name)!.plan}`);
  });
});
