// The first hour of a self-hoster (issue 18, findings 14-20), against the compiled binary: what the
// CLI prints and exits with, and what the server answers over HTTP.

import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json";
import { SANDBOX_DATABASE, type Sandbox, sandbox } from "../support/binary";
import { answer, startFakeOpenAI } from "../support/fake-providers";

// Child processes on a busy machine need more than the 5 s default.
setDefaultTimeout(30_000);

let box: Sandbox;

beforeAll(async () => {
  box = await sandbox();
});
afterAll(() => box?.cleanup());

describe("help and version", () => {
  test("spyglass --help, -h and help list every command with its usage, exit 0", async () => {
    for (const args of [["--help"], ["-h"], ["help"]]) {
      const result = await box.cli(args);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe("");
      for (const usage of [
        "spyglass serve [--host H] [--port N]",
        "spyglass account create --email E --password P",
        "spyglass account plan --email E --plan",
        "spyglass brand create --email E --name N",
        "spyglass key create --email E --brand ID --name N",
        "spyglass demo",
        "spyglass track [--brand ID]",
        "spyglass backup FILE",
        "spyglass help COMMAND",
        "--version",
      ]) {
        expect(result.stdout).toContain(usage);
      }
    }
  });

  test("spyglass help COMMAND prints that command's usage; help of an unknown command exits 2", async () => {
    const one = await box.cli(["help", "backup"]);
    expect(one.code).toBe(0);
    expect(one.stdout).toContain("usage: spyglass backup FILE");
    expect(one.stdout).not.toContain("spyglass serve");

    const group = await box.cli(["help", "account"]);
    expect(group.code).toBe(0);
    expect(group.stdout).toContain("spyglass account create --email E");
    expect(group.stdout).toContain("spyglass account plan --email E");
    expect(group.stdout).not.toContain("spyglass brand");

    expect((await box.cli(["help", "brand", "create"])).stdout).toContain("usage: spyglass brand create --email E --name N");
    expect((await box.cli(["brand", "create", "-h"])).stdout).toContain("usage: spyglass brand create --email E --name N");

    const unknown = await box.cli(["help", "nonsense"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.trim().split("\n")[0]).toBe('spyglass: unknown command "nonsense"; run "spyglass help" for the list');
  });

  test("spyglass --version prints the package's version, the same as GET /healthz", async () => {
    const result = await box.cli(["--version"]);
    expect(result.code).toBe(0);
    // The build is named by the commit it was built from (with the source stamp's mark when a source
    // differed from it), a commit of this repository; it is not compared with HEAD, which a commit
    // made after compiling moves.
    const build = /^spyglass (\S+) \(build ((?:[0-9a-f]{10})(?:\+[0-9a-f]{8})?|src\.[0-9a-f]{12})\)\n$/.exec(result.stdout);
    expect(build?.[1]).toBe(pkg.version);
    const commit = build![2]!.split("+")[0]!;
    if (!commit.startsWith("src.")) expect(Bun.spawnSync(["git", "cat-file", "-e", `${commit}^{commit}`]).exitCode).toBe(0);
    const server = await box.serve();
    try {
      const health = await fetch(`${server.url}/healthz`);
      expect(await health.json()).toEqual({ status: "ok", version: pkg.version, build: build![2] });
    } finally {
      await server.stop();
    }
  });

  test("a stray argument is a usage error, not a server started by 'spyglass --data DIR brand list'", async () => {
    const misplaced = await box.cli(["--host", "127.0.0.1", "--port", "0", "--data", "data", "brand", "list"]);
    expect(misplaced.code).toBe(2);
    expect(misplaced.stdout).toBe("");
    expect(misplaced.stderr.split("\n")[0]).toBe(
      'spyglass: serve: unexpected argument "brand" (the command comes first, then its options: "spyglass brand list [options]")',
    );
    // A flag before the command takes no value: the command after it is still found.
    const flagged = await box.cli(["--json", "brand", "list", "--email", "x@example.com"]);
    expect(flagged.code).toBe(2);
    expect(flagged.stderr.split("\n")[0]).toBe(
      'spyglass: serve: unknown option --email: the command comes first, then its options ("spyglass brand list [options]")',
    );
    // With an option of the command before it, the unknown option is the command's: said so.
    const early = await box.cli(["--data", "data", "account", "create", "--email", "x@example.com"]);
    expect(early.code).toBe(2);
    expect(early.stderr.split("\n")[0]).toBe(
      'spyglass: serve: unknown option --email: the command comes first, then its options ("spyglass account create [options]")',
    );
    const extra = await box.cli(["account", "plan", "free", "--email", "x@example.com", "--plan", "none"]);
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain('account plan: unexpected argument "free"');
  });

  test("spyglass account alone (or with only flags) prints the account commands' usage and exits 2", async () => {
    for (const args of [["account"], ["account", "--data", "elsewhere"]]) {
      const result = await box.cli(args);
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).not.toContain("unknown command");
      expect(result.stderr).toContain("spyglass account create --email E --password P");
      expect(result.stderr).toContain("spyglass account plan --email E --plan");
    }
    const wrong = await box.cli(["account", "remove"]);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('unknown command "account remove"');
    expect(wrong.stderr).toContain("spyglass account create --email E");
  });
});

describe("brands and keys from the CLI", () => {
  const OWNER = "owner@example.com";
  const OTHER = "other@example.com";

  test("brand list shows the account's brands; brand create refuses a second brand of the same name", async () => {
    await box.cliJson(["account", "create", "--email", OWNER, "--password", "a long password", "--plan", "visibility"]);
    await box.cliJson(["account", "create", "--email", OTHER, "--password", "a long password", "--plan", "visibility"]);
    const empty = await box.cli(["brand", "list", "--email", OWNER]);
    expect(empty).toEqual({ code: 0, stdout: 'No brands yet: create one with "spyglass brand create --email E --name N".\n', stderr: "" });

    const acme = await box.cliJson(["brand", "create", "--email", OWNER, "--name", "Acme", "--domain", "acme.com"]);
    const beta = await box.cliJson(["brand", "create", "--email", OWNER, "--name", "Beta"]);
    for (const name of ["Acme", "  acme "]) {
      const dup = await box.cli(["brand", "create", "--email", OWNER, "--name", name]);
      expect(dup.code).toBe(1);
      expect(dup.stdout).toBe("");
      expect(dup.stderr).toBe(`spyglass: The account already has a brand named "Acme" (${acme.id}); give this brand another name.\n`);
    }
    // Another account may use the name.
    await box.cliJson(["brand", "create", "--email", OTHER, "--name", "Acme"]);

    const listed = await box.cliJson(["brand", "list", "--email", OWNER]);
    expect(listed).toEqual({
      brands: [
        { id: acme.id, name: "Acme", domain: "acme.com", aliases: [], site_key: acme.site_key },
        { id: beta.id, name: "Beta", domain: null, aliases: [], site_key: beta.site_key },
      ],
    });
    const table = await box.cli(["brand", "list", "--email", OWNER]);
    expect(table.code).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^ID +NAME +DOMAIN +SITE KEY$/);
    expect(lines[1]).toMatch(new RegExp(`^${acme.id} +Acme +acme\\.com +${acme.site_key}$`));
    expect(lines[2]).toMatch(new RegExp(`^${beta.id} +Beta +- +${beta.site_key}$`));
  });

  test("key list shows active keys without their secret; key revoke revokes one of the account's keys", async () => {
    const { brands } = await box.cliJson(["brand", "list", "--email", OWNER]);
    const first = await box.cliJson(["key", "create", "--email", OWNER, "--brand", brands[0].id, "--name", "laptop"]);
    const second = await box.cliJson(["key", "create", "--email", OWNER, "--brand", brands[1].id, "--name", "ci"]);
    const listed = await box.cliJson(["key", "list", "--email", OWNER]);
    expect(listed).toEqual({
      keys: [
        { ...second.key, last_used_at: null },
        { ...first.key, last_used_at: null },
      ],
    });
    const table = await box.cli(["key", "list", "--email", OWNER]);
    expect(table.stdout.split("\n")[0]).toMatch(/^ID +NAME +KEY +BRAND +CREATED +LAST USED$/);
    expect(table.stdout).toMatch(new RegExp(`\n${second.key.id} +ci +${second.key.key_prefix}… +${brands[1].id} +\\S+ +never\n`));
    expect(table.stdout).not.toContain(first.plaintext.slice(13));

    // Another account's key is not found, as over HTTP.
    const foreign = await box.cli(["key", "revoke", "--email", OTHER, "--id", first.key.id]);
    expect(foreign).toEqual({ code: 1, stdout: "", stderr: "spyglass: API key not found.\n" });

    const revoked = await box.cli(["key", "revoke", "--email", OWNER, "--id", first.key.id]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe(
      `Revoked API key ${first.key.id} ("laptop", ${first.key.key_prefix}…): it stops working on the very next request.\n`,
    );
    expect(await box.cliJson(["key", "list", "--email", OWNER])).toEqual({ keys: [{ ...second.key, last_used_at: null }] });
    const again = await box.cli(["key", "revoke", "--email", OWNER, "--id", first.key.id]);
    expect(again).toEqual({ code: 1, stdout: "", stderr: "spyglass: API key not found.\n" });
    expect(await box.cliJson(["key", "revoke", "--email", OWNER, "--id", second.key.id])).toEqual({
      revoked: { ...second.key, last_used_at: null },
    });
    expect((await box.cli(["key", "list", "--email", OWNER])).stdout).toStartWith("No active API keys");
    const missing = await box.cli(["key", "revoke", "--email", OWNER]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--id is required");
  });
});

describe("the start-up log", () => {
  test("says where the server listens (0.0.0.0:PORT and the addresses it answers on) and warns while anyone can become the owner", async () => {
    const fresh = await sandbox();
    try {
      const server = await fresh.serve({ args: ["--host", "0.0.0.0"] });
      const logLines = (text: string) =>
        text
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l));
      const listening = logLines(server.logs()).find((l) => l.msg === "listening");
      expect(listening.listen).toBe(`0.0.0.0:${server.port}`);
      // Which database it uses, never with a password.
      expect(listening.database.kind).toBe(SANDBOX_DATABASE === "postgres" ? "postgresql" : "sqlite");
      expect(listening.database.at).toEqual(
        SANDBOX_DATABASE === "postgres" ? expect.stringMatching(/^postgres(ql)?:\/\/[^:@]+@/) : expect.stringMatching(/spyglass\.db$/),
      );
      const ipv4 = Object.values(networkInterfaces())
        .flat()
        .filter((a) => a?.family === "IPv4")
        .map((a) => `http://${a!.address}:${server.port}`);
      expect(listening.urls).toContain(`http://127.0.0.1:${server.port}`);
      expect([...listening.urls].sort()).toEqual([...new Set(ipv4)].sort());
      for (const url of listening.urls) expect((await fetch(`${url}/healthz`)).status).toBe(200);
      // The warning follows the "listening" line after a read of the accounts: on PostgreSQL a round
      // trip, which may end after the first requests have been answered.
      const warned = () => logLines(server.logs()).find((l) => l.level === "warn");
      for (let i = 0; i < 200 && !warned(); i++) await Bun.sleep(25);
      const warning = warned();
      expect(warning.msg).toContain("no account yet");
      expect(warning.msg).toContain("the first visitor to sign up becomes the owner");
      expect(warning.msg).toContain('"spyglass account create --email E --password - --plan autopilot"');
      for (let i = 0; i < 200 && !server.handlesSignal("SIGTERM"); i++) await Bun.sleep(25);
      expect(await server.stop()).toBe(0);

      await fresh.cliJson(["account", "create", "--email", "owner@example.com", "--password", "a long password"]);
      const again = await fresh.serve();
      expect(again.logs()).toContain(`"listen":"127.0.0.1:${again.port}","urls":["http://127.0.0.1:${again.port}"]`);
      // serve installs its SIGTERM handler only after that read of the accounts (src/main.ts): a
      // SIGTERM before it ends kills the server (exit 143), a window of one round trip on PostgreSQL.
      for (let i = 0; i < 200 && !again.handlesSignal("SIGTERM"); i++) await Bun.sleep(25);
      expect(await again.stop()).toBe(0);
      // The whole start-up log, read once the server has stopped.
      expect(again.logs()).toContain('"msg":"stopped"');
      expect(again.logs()).not.toContain('"level":"warn"');
    } finally {
      fresh.cleanup();
    }
  });
});

describe("serve's start-up warnings for set-up mistakes found only later otherwise", () => {
  test("OAuth off behind a plain-http public_url, and a writer whose key variable is unset, are each a warning", async () => {
    const box = await sandbox({
      toml: `
public_url = "http://spy.example.com"

[writer]
api = "openai"
base_url = "http://127.0.0.1:9/v1"
model = "writer-test"
api_key_env = "FIRST_HOUR_UNSET_WRITER_KEY"
`,
    });
    try {
      await box.cliJson(["account", "create", "--email", "owner@example.com", "--password", "a long password"]);
      const server = await box.serve();
      const warnings = () =>
        server
          .logs()
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l))
          .filter((l) => l.level === "warn")
          .map((l) => l.msg as string);
      for (let i = 0; i < 200 && warnings().length < 2; i++) await Bun.sleep(25);
      expect(warnings()).toEqual([
        "OAuth sign-in is off: public_url (http://spy.example.com) is plain http on a host other than loopback; Claude.ai's, Claude Desktop's and ChatGPT's connectors need https (clients that send an API key header still connect)",
        "writer: api_key_env names FIRST_HOUR_UNSET_WRITER_KEY, which is not set; generate_article fails until it is set and the server restarted",
      ]);
      for (let i = 0; i < 200 && !server.handlesSignal("SIGTERM"); i++) await Bun.sleep(25);
      expect(await server.stop()).toBe(0);
    } finally {
      box.cleanup();
    }
  });
});

describe("spyglass track without a provider key", () => {
  test("refuses to start, naming the unset api_key_env variable, and asks nothing", async () => {
    const provider = startFakeOpenAI({ script: () => answer("Acme is fine.") });
    const tracked = await sandbox({
      toml: `
[[engines]]
id = "gpt"
api = "openai"
base_url = "${provider.url}"
model = "gpt-test"
api_key_env = "FIRST_HOUR_OPENAI_KEY"
max_retries = 0

[[engines]]
id = "local"
api = "openai"
base_url = "${provider.url}"
model = "local-test"
max_retries = 0
`,
    });
    try {
      await tracked.cliJson(["account", "create", "--email", "t@example.com", "--password", "a long password", "--plan", "visibility"]);
      const brand = await tracked.cliJson(["brand", "create", "--email", "t@example.com", "--name", "Acme"]);
      await tracked.withDb((db) =>
        db.run("INSERT INTO prompts (id, brand_id, text, text_key, created_at) VALUES ('prm_fh', ?, 'best crm', 'best crm', ?)", [
          brand.id,
          Date.now(),
        ]),
      );

      const environments: Record<string, string>[] = [{}, { FIRST_HOUR_OPENAI_KEY: "  " }];
      for (const env of environments) {
        const refused = await tracked.cli(["track"], { env });
        expect(refused.code).toBe(1);
        expect(refused.stdout).toBe("");
        expect(refused.stderr).toBe(
          `spyglass: ${join(tracked.dataDir, "spyglass.toml")}: engines[0] ("gpt"): api_key_env names FIRST_HOUR_OPENAI_KEY, which is not set in the environment; set it to the provider's API key and run spyglass track again\n`,
        );
      }
      expect(provider.requests).toHaveLength(0);
      await tracked.withDb(async (db) => {
        expect(await db.get("SELECT count(*) AS n FROM answers")).toEqual({ n: 0 });
        expect(await db.get("SELECT count(*) AS n FROM tracking_runs")).toEqual({ n: 0 });
      });

      const ran = await tracked.cli(["track"], { env: { FIRST_HOUR_OPENAI_KEY: "sk-first-hour" } });
      expect(ran.stderr).toBe("");
      expect(ran.stdout).toMatch(/: completed, 2\/2 answers \(ok 2, empty 0, refusal 0, error 0\)/);
      expect(ran.code).toBe(0);
      expect(provider.requests.map((r) => r.headers.authorization ?? null).sort()).toEqual(["Bearer sk-first-hour", null]);
    } finally {
      tracked.cleanup();
      await provider.stop();
    }
  });
});

describe("spyglass demo", () => {
  test("prints the public API URL with its ?key=; a second run says the demo exists and how to get a new key", async () => {
    const demo = await sandbox();
    try {
      const first = await demo.cli(["demo"]);
      expect(first.code).toBe(0);
      const siteKey = /site key +(pk_[0-9a-f]{32})/.exec(first.stdout)?.[1];
      expect(siteKey).toBeDefined();
      expect(first.stdout).toContain(`  public API  http://localhost:3000/api/public/articles?key=${siteKey}\n`);
      expect(first.stdout).toContain("  dashboard   http://localhost:3000/   (sign in with this login)\n");
      // Addresses that only hold for a server at the default port say so.
      expect(first.stdout).toContain("These addresses are a server on this machine at port 3000; another port or host changes them");
      // The demo's account closes the dashboard's signup but never owns the instance: the way to the owner's account is said.
      expect(first.stdout).toContain("\n  spyglass account create --email you@example.com --password - --plan autopilot\n");

      const second = await demo.cli(["demo"]);
      expect(second.stderr).toBe("");
      expect(second.code).toBe(0);
      const brandId = /\((brd_\w+)\)/.exec(second.stdout)?.[1];
      expect(second.stdout).toStartWith(
        `The demo already exists (DEMO DATA): login demo@spyglass-demo.example.com, brand "Northwind CRM (demo)" (${brandId}); nothing was changed.\n`,
      );
      expect(second.stdout).toContain(`  public API  http://localhost:3000/api/public/articles?key=${siteKey}\n`);
      const command = /\n {2}(spyglass key create [^\n]+)\n/.exec(second.stdout)?.[1];
      expect(command).toBe(`spyglass key create --email demo@spyglass-demo.example.com --brand ${brandId} --name demo`);
      expect(second.stdout).toContain("\n  spyglass demo --reset\n");

      // The command it gives works as printed, and the new key works on the demo brand.
      const created = await demo.cliJson(command!.split(" ").slice(1));
      expect(created.key.brand_id).toBe(brandId);
      expect(await demo.cliJson(["demo"])).toEqual({
        exists: true,
        login: { email: "demo@spyglass-demo.example.com" },
        brand: { id: brandId, name: "Northwind CRM (demo)", domain: expect.any(String), site_key: siteKey },
        public_api_url: `http://localhost:3000/api/public/articles?key=${siteKey}`,
      });
      const server = await demo.serve();
      try {
        const list = await fetch(`${server.url}/api/public/articles?key=${siteKey}`);
        expect(((await list.json()) as { articles: unknown[] }).articles).toHaveLength(1);
        const mcp = await fetch(`${server.url}/api/mcp/mcp`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${created.plaintext}`,
            "content-type": "application/json",
            accept: "application/json, text/event-stream",
          },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
        expect(mcp.status).toBe(200);
      } finally {
        await server.stop();
      }
    } finally {
      demo.cleanup();
    }
  }, 90_000); // On PostgreSQL the two demo runs took 23–30 s in CI, beside the SQLite passes.
});

describe("a refused key", () => {
  test("every 401 of the tool server says what to do when a client then reports an OAuth or registration error", async () => {
    const server = await box.serve();
    try {
      const headers: Array<Record<string, string>> = [
        {},
        { authorization: "Bearer not-a-key" },
        { authorization: `Bearer svc_live_${"A".repeat(43)}` },
      ];
      for (const auth of headers) {
        const res = await fetch(`${server.url}/api/mcp/mcp`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
        });
        expect(res.status).toBe(401);
        expect(res.headers.get("www-authenticate")).toBe('Bearer realm="spyglass", error="invalid_token"');
        const body = (await res.json()) as { error: string; code: string };
        expect(body.code).toBe("unauthorized");
        expect(body.error).toContain(
          "OAuth sign-in is off on this server (it needs public_url set to the address clients reach it at: https, or http on localhost): a client that reports an OAuth or client registration error here had no valid API key;",
        );
        expect(body.error).toContain("spyglass key list --email E");
      }
    } finally {
      await server.stop();
    }
  });
});

describe("errors that ask for another plan name the command that changes it", () => {
  const mcpCall = async (url: string, key: string, body: unknown) => {
    const res = await fetch(`${url}/api/mcp/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as any };
  };

  test("key create on plan none, a higher plan's tool, and a key whose account lost its plan", async () => {
    await box.cliJson(["account", "create", "--email", "free@example.com", "--password", "a long password"]);
    const brand = await box.cliJson(["brand", "create", "--email", "free@example.com", "--name", "Free"]);
    const refused = await box.cli(["key", "create", "--email", "free@example.com", "--brand", brand.id, "--name", "k"]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      "spyglass: API keys need a paid plan (Visibility or Autopilot); the instance's owner sets it on the dashboard's Accounts page, or run spyglass account plan --email free@example.com --plan visibility.\n",
    );

    await box.cliJson(["account", "plan", "--email", "free@example.com", "--plan", "visibility"]);
    const key = (await box.cliJson(["key", "create", "--email", "free@example.com", "--brand", brand.id, "--name", "k"])).plaintext;
    const server = await box.serve();
    try {
      const call = await mcpCall(server.url, key, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "create_article", arguments: { markdown: "# Hi" } },
      });
      expect(call.json.result.isError).toBe(true);
      expect(call.json.result.content[0].text).toBe(
        "create_article requires the Autopilot plan; this account is on the Visibility plan. To upgrade: the instance's owner sets it on the dashboard's Accounts page, or run spyglass account plan --email E --plan autopilot (E: the account's email).",
      );

      await box.cliJson(["account", "plan", "--email", "free@example.com", "--plan", "none"]);
      const none = await mcpCall(server.url, key, { jsonrpc: "2.0", id: 1, method: "tools/list" });
      expect(none.status).toBe(403);
      expect(none.json).toEqual({
        error:
          "This account has no paid plan; Spyglass tools need the Visibility or Autopilot plan: the instance's owner sets it on the dashboard's Accounts page, or run spyglass account plan --email E --plan visibility (E: the account's email).",
        code: "plan_required",
        required_plan: "visibility",
      });
    } finally {
      await server.stop();
    }
  });
});
