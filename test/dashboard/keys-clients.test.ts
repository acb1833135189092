// The API keys page's client configurations are README.md's "Connect an AI client" snippets, to the
// character, with the server's URL and the new key in place of the README's examples.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { clientSetups, mcpUrl, serverNameFor } from "../../src/dashboard/web/pages/keys/clients";

const readme = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");
const start = readme.indexOf("## Connect an AI client");
const section = readme.slice(start, readme.indexOf("\n## ", start + 5));
const blocks = [...section.matchAll(/```\w+\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
const EXAMPLE_URL = "https://visibility.example.com/api/mcp/mcp";
const KEY = `svc_live_${"A".repeat(43)}`;

/** The README's snippet with the URL and the key put in, as a person following the README would. */
function filled(block: string, url: string): string {
  return block.replaceAll(EXAMPLE_URL, url).replaceAll("Bearer svc_live_…", `Bearer ${KEY}`);
}

describe("the API keys page's client configurations", () => {
  test("the tool server's URL is the origin's /api/mcp/mcp", () => {
    expect(mcpUrl("https://v.example.com")).toBe("https://v.example.com/api/mcp/mcp");
    expect(mcpUrl("http://127.0.0.1:3000/")).toBe("http://127.0.0.1:3000/api/mcp/mcp");
  });

  test("each of the six clients' configuration is the README's, filled in", () => {
    const url = "https://spyglass.example.org/api/mcp/mcp";
    const setups = clientSetups(url, KEY);
    expect(setups.map((s) => s.label)).toEqual(["Claude Code", "Cursor", "VS Code", "Windsurf", "Codex", "Claude Desktop (mcp-remote)"]);
    expect(blocks).toHaveLength(6);
    for (const [i, setup] of setups.entries())
      expect({ client: setup.label, text: setup.blocks[0]!.text }).toEqual({ client: setup.label, text: filled(blocks[i]!, url) });
  });

  test("where each configuration goes is the README's file", () => {
    for (const setup of clientSetups(EXAMPLE_URL, KEY)) {
      const path = setup.where.split(" ")[0]!;
      if (setup.id !== "claude-code") expect(section).toContain(`\`${path}\``);
    }
  });

  test("the key is in every client's set-up: VS Code's to paste when asked, Codex's in its environment variable", () => {
    for (const setup of clientSetups(EXAMPLE_URL, KEY)) expect(setup.blocks.map((b) => b.text).join("\n")).toContain(KEY);
    const codex = clientSetups(EXAMPLE_URL, KEY).find((s) => s.id === "codex")!;
    expect(codex.blocks[1]!.text).toBe(`export SPYGLASS_API_KEY=${KEY}`);
    expect(section).toContain("`export SPYGLASS_API_KEY=svc_live_…`");
  });

  test("the dashboard names each brand's server apart, so that one client holds several brands", () => {
    expect(serverNameFor({ id: "brd_x", name: "Acme" })).toBe("spyglass-acme");
    expect(serverNameFor({ id: "brd_x", name: "Müller Küchen GmbH & Co." })).toBe("spyglass-muller-kuchen-gmbh-co");
    expect(serverNameFor({ id: "brd_x", name: "A very long brand name, longer than most" })).toBe("spyglass-a-very-long-brand-name");
    expect(serverNameFor({ id: "brd_abcdefghij", name: "ソニー" })).toBe("spyglass-abcdefgh");
    // Two of the account's brands that would share a name: each gets its id's too.
    const acme = { id: "brd_aaaaaaaaaa", name: "Acme" };
    const shouting = { id: "brd_bbbbbbbbbb", name: "Acme!" };
    const globex = { id: "brd_cccccccccc", name: "Globex" };
    expect(serverNameFor(acme, [acme, shouting, globex])).toBe("spyglass-acme-aaaaaaaa");
    expect(serverNameFor(shouting, [acme, shouting, globex])).toBe("spyglass-acme-bbbbbbbb");
    expect(serverNameFor(globex, [acme, shouting, globex])).toBe("spyglass-globex");
    const setups = clientSetups(EXAMPLE_URL, KEY, "spyglass-globex");
    const text = (id: string) =>
      setups
        .find((s) => s.id === id)!
        .blocks.map((b) => b.text)
        .join("\n");
    expect(text("claude-code")).toContain("claude mcp add --transport http spyglass-globex ");
    for (const id of ["cursor", "windsurf", "claude-desktop"])
      expect(Object.keys(JSON.parse(text(id)).mcpServers)).toEqual(["spyglass-globex"]);
    const vscode = JSON.parse(setups.find((s) => s.id === "vscode")!.blocks[0]!.text);
    expect(vscode.inputs[0].id).toBe("spyglass-globex-key");
    expect(vscode.servers["spyglass-globex"].headers.Authorization).toBe("Bearer ${input:spyglass-globex-key}");
    // Codex: its table and its own variable, so that two brands' keys do not share one.
    expect(text("codex")).toBe(
      `[mcp_servers.spyglass-globex]\nurl = "${EXAMPLE_URL}"\nbearer_token_env_var = "SPYGLASS_GLOBEX_API_KEY"\nexport SPYGLASS_GLOBEX_API_KEY=${KEY}`,
    );
  });

  test("mcp-remote gets --allow-http for a plain-HTTP address other than localhost, and only then", () => {
    const desktop = (url: string) => clientSetups(url, KEY).find((s) => s.id === "claude-desktop")!.blocks[0]!.text;
    expect(desktop("http://10.0.0.5:3000/api/mcp/mcp")).toContain(`"Authorization:\${AUTH}", "--allow-http"]`);
    expect(desktop("http://localhost:3000/api/mcp/mcp")).not.toContain("--allow-http");
    expect(desktop("http://127.0.0.1:3000/api/mcp/mcp")).not.toContain("--allow-http");
    expect(desktop("https://v.example.com/api/mcp/mcp")).not.toContain("--allow-http");
    expect(JSON.parse(desktop("http://10.0.0.5:3000/api/mcp/mcp")).mcpServers.spyglass.args).toContain("--allow-http");
  });
});
