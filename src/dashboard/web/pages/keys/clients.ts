// Ready-to-paste configurations of the AI clients for one key, exactly as README.md's "Connect an
// AI client" shows them (test/dashboard/keys-clients.test.ts holds the two together), with this
// server's tool-server URL and the new key in place of the README's examples.

export interface ClientSetup {
  id: string;
  label: string;
  /** Where the text goes: a file, or a terminal. */
  where: string;
  /** What else to know, in a sentence, or null. */
  note: string | null;
  blocks: Array<{ label: string; text: string }>;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** The tool server's URL for a dashboard served at `origin`. */
export function mcpUrl(origin: string): string {
  return `${origin.replace(/\/+$/, "")}/api/mcp/mcp`;
}

/**
 * The name a client's configuration gives the server, "spyglass-<brand>": one client connected to
 * two brands (an agency's) would otherwise get two servers of one name, the second pasted replacing
 * the first. Letters and digits of the brand's name (accents dropped), or of its id when it has none
 * (a Japanese name): what every client takes as a server's name, a VS Code input id and a TOML key.
 */
export function serverNameFor(brand: { id: string; name: string }, brands: ReadonlyArray<{ id: string; name: string }> = []): string {
  const name = baseServerName(brand);
  // Two of the account's brands whose names make one ("Acme" and "Acme!"): each its id's too.
  const shared = brands.some((other) => other.id !== brand.id && baseServerName(other) === name);
  return shared ? `${name}-${idWord(brand)}` : name;
}

/** The brand's id without its prefix, a few characters of it. */
function idWord(brand: { id: string }): string {
  return brand.id.replace(/^brd_/, "").slice(0, 8);
}

function baseServerName(brand: { id: string; name: string }): string {
  const all = brand.name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  // At most 24 characters, cut after a whole word where there is one.
  const words = all.length <= 24 ? all : (/^(.{1,24})-/.exec(all.slice(0, 25))?.[1] ?? all.slice(0, 24));
  return `spyglass-${words || idWord(brand)}`;
}

/** `name`: the server's name in the configurations (serverNameFor); README.md's examples use "spyglass". */
export function clientSetups(url: string, key: string, name = "spyglass"): ClientSetup[] {
  const n = JSON.stringify(name);
  const input = `${name}-key`;
  const envVar = `${name.toUpperCase().replace(/-/g, "_")}_API_KEY`;
  const u = JSON.stringify(url);
  const bearer = JSON.stringify(`Bearer ${key}`);
  // mcp-remote refuses plain HTTP other than on localhost unless told (README: "Trying it on your own machine").
  const { protocol, hostname } = new URL(url);
  const allowHttp = protocol === "http:" && !LOOPBACK.has(hostname) ? `, "--allow-http"` : "";
  return [
    {
      id: "claude-code",
      label: "Claude Code",
      where: "Run in a terminal",
      note: null,
      blocks: [
        { label: "Claude Code command", text: `claude mcp add --transport http ${name} ${url} --header "Authorization: Bearer ${key}"` },
      ],
    },
    {
      id: "cursor",
      label: "Cursor",
      where: "~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
      note: null,
      blocks: [
        {
          label: "Cursor configuration",
          text: `{
  "mcpServers": {
    ${n}: {
      "url": ${u},
      "headers": { "Authorization": ${bearer} }
    }
  }
}`,
        },
      ],
    },
    {
      id: "vscode",
      label: "VS Code",
      where: ".vscode/mcp.json",
      note: "VS Code asks for the key once and keeps it in its secret storage: paste the key when it asks.",
      blocks: [
        {
          label: "VS Code configuration",
          text: `{
  "inputs": [
    { "type": "promptString", "id": "${input}", "description": "Spyglass API key (svc_live_…)", "password": true }
  ],
  "servers": {
    ${n}: {
      "type": "http",
      "url": ${u},
      "headers": { "Authorization": "Bearer \${input:${input}}" }
    }
  }
}`,
        },
        { label: "Key to paste when VS Code asks", text: key },
      ],
    },
    {
      id: "windsurf",
      label: "Windsurf",
      where: "~/.codeium/windsurf/mcp_config.json",
      note: null,
      blocks: [
        {
          label: "Windsurf configuration",
          text: `{
  "mcpServers": {
    ${n}: {
      "serverUrl": ${u},
      "headers": { "Authorization": ${bearer} }
    }
  }
}`,
        },
      ],
    },
    {
      id: "codex",
      label: "Codex",
      where: "~/.codex/config.toml",
      note: "Codex reads the key from an environment variable: set it in the shell before starting Codex.",
      blocks: [
        {
          label: "Codex configuration",
          text: `[mcp_servers.${name}]
url = ${u}
bearer_token_env_var = "${envVar}"`,
        },
        { label: "Codex environment variable", text: `export ${envVar}=${key}` },
      ],
    },
    {
      id: "claude-desktop",
      label: "Claude Desktop (mcp-remote)",
      where: "claude_desktop_config.json (Settings → Developer → Edit Config)",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote's own ${AUTH}, as the README writes it.
      note: "Through the mcp-remote bridge, which needs Node.js. The header is passed as Authorization:${AUTH} without a space, which some platforms would otherwise split into two arguments.",
      blocks: [
        {
          label: "Claude Desktop configuration",
          text: `{
  "mcpServers": {
    ${n}: {
      "command": "npx",
      "args": ["-y", "mcp-remote", ${u}, "--header", "Authorization:\${AUTH}"${allowHttp}],
      "env": { "AUTH": ${bearer} }
    }
  }
}`,
        },
      ],
    },
  ];
}
