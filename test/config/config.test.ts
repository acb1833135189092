import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, configPlace, loadConfig } from "../../src/config";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function withFile(toml: string): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "spyglass-config-"));
  dirs.push(dir);
  const file = join(dir, "spyglass.toml");
  writeFileSync(file, toml);
  return { dir, file };
}

function errorOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("loadConfig", () => {
  test("defaults: ./data, 0.0.0.0:3000, signup first, no public URL", () => {
    const config = loadConfig({ flags: {}, env: {}, cwd: "/srv/app" });
    expect(config).toMatchObject({
      dataDir: "/srv/app/data",
      dbPath: "/srv/app/data/spyglass.db",
      host: "0.0.0.0",
      port: 3000,
      publicUrl: null,
      auth: { signup: "first" },
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  test("flags beat the environment; DIR/spyglass.toml is read when present", () => {
    const { dir } = withFile('public_url = "https://vis.example.com/"\n[auth]\nsignup = "open"\n');
    const config = loadConfig({ flags: { data: dir, port: "8080" }, env: { PORT: "9090", HOST: "127.0.0.1" } });
    expect(config.port).toBe(8080);
    expect(config.host).toBe("127.0.0.1");
    expect(config.publicUrl).toBe("https://vis.example.com");
    expect(config.publicOrigin).toBe("https://vis.example.com");
    expect(config.auth.signup).toBe("open");
    expect(config.oauth.refresh_reuse_grace_seconds).toBe(0);
    expect(loadConfig({ flags: { config: withFile("[oauth]\nrefresh_reuse_grace_seconds = 60\n").file }, env: {} }).oauth).toEqual({
      refresh_reuse_grace_seconds: 60,
    });
  });

  test("a spyglass.toml beside the binary (the working directory) is named as not read, with where the configuration is read from", () => {
    const { dir: cwd, file: beside } = withFile('[[engines]]\nid = "gpt"\napi = "openai"\nbase_url = "http://127.0.0.1:9"\nmodel = "m"\n');
    const config = loadConfig({ flags: {}, env: {}, cwd });
    expect(config).toMatchObject({
      configFile: null,
      configPath: join(cwd, "data", "spyglass.toml"),
      unreadConfigFile: beside,
      engines: [],
    });
    expect(configPlace(config)).toBe(
      `${join(cwd, "data", "spyglass.toml")}, a file to create, (${beside} is not read: the configuration is the data directory's spyglass.toml, or the file --config or SPYGLASS_CONFIG names)`,
    );
    // The same file read (--data . or --config): nothing to say.
    expect(loadConfig({ flags: { data: cwd }, env: {}, cwd })).toMatchObject({ configFile: beside, unreadConfigFile: null });
    expect(loadConfig({ flags: { config: "spyglass.toml" }, env: {}, cwd })).toMatchObject({ configFile: beside, unreadConfigFile: null });
    expect(configPlace(loadConfig({ flags: { data: cwd }, env: {}, cwd }))).toBe(beside);
  });

  test("public_url is read as its origin: the OAuth resource and issuer are what clients make of it", () => {
    // An MCP client normalises the resource the server names (new URL(...)) and sends it back: an
    // upper-case host or a default port made every sign-in invalid_target (the OAuth review).
    const { dir } = withFile('public_url = "https://Vis.Example.COM:443/"\n');
    expect(loadConfig({ flags: { data: dir }, env: {} }).publicUrl).toBe("https://vis.example.com");
  });

  test("a bad value is one line naming the file and the key", () => {
    const { file } = withFile('[auth]\nsignup = "sometimes"\n');
    const message = errorOf(() => loadConfig({ flags: { config: file }, env: {} }));
    expect(message).toStartWith(`${file}: auth.signup: `);
    expect(message).not.toContain("\n");
  });

  test("every problem of the file is named at once, one per line: fixing them took a restart per mistake", () => {
    const { file } = withFile(
      'colour = 1\n[tracking]\nsamples = 1.5\n[[engines]]\nid = "a"\napi = "openai"\nmodel = "m"\napi_key = "sk-x"\ntempreature = 2\n[[engines]]\nid = "b"\napi = "openai"\nbase_url = "http://127.0.0.1:9"\n',
    );
    const message = errorOf(() => loadConfig({ flags: { config: file }, env: {} }));
    const [head, ...lines] = message.split("\n");
    expect(head).toBe(`${file}: 6 problems:`);
    expect(lines.toSorted()).toEqual(
      [
        '  - (top level): unknown key(s) "colour"',
        "  - tracking.samples: must be a whole number",
        "  - engines[0].base_url: is missing: this setting is required here",
        '  - engines[0].api_key: provider keys never live in the file: put the key in an environment variable and name that variable with api_key_env (such as api_key_env = "OPENAI_API_KEY")',
        "  - engines[1].model: is missing: this setting is required here",
        // Beside api_key, which has a sentence of its own.
        '  - engines[0]: unknown key(s) "tempreature"',
      ].toSorted(),
    );
    expect(message).not.toContain("sk-x");
  });

  test("invalid TOML, an unknown key, a bad cron and a bad engine entry each name what is wrong", () => {
    const cases: Array<[string, string]> = [
      ["public_url = ", "not valid TOML"],
      ["colour = 1\n", 'unknown key(s) "colour"'],
      // The field at fault, with what it takes (croner said "must be a valid cron expression").
      [
        '[tracking]\nschedule = "0 25 * * *"\n',
        'tracking.schedule: its hour field, "25", is not valid: it takes 0–23, *, a list, a range or a step (the fields: minute hour day-of-month month day-of-week, UTC, such as "0 6 * * *")',
      ],
      [
        '[tracking]\nschedule = "0 6 * * mon-xyz"\n',
        'tracking.schedule: its day-of-week field, "mon-xyz", is not valid: it takes 0–7 or sun–sat',
      ],
      // What the line most likely lacks, after the parser's own words (the self-hoster walk).
      ["[tracking]\nschedule = 0 6 * * *\n", 'a text value is written in quotes: schedule = "0 6 * * *"'],
      ["[[engines]]\nweb_search = True\n", "; true and false are written in lowercase: web_search = true"],
      // A first field of seconds: the field at fault is still named as written.
      ['[tracking]\nschedule = "0 0 6x * * *"\n', 'tracking.schedule: its hour field, "6x", is not valid'],
      ['[[engines]]\nlabel = "ChatGPT\n', '; the text after label = has no closing "'],
      ["log_level = warn # quieter\n", 'invalid value; a text value is written in quotes: log_level = "warn"'],
      [
        '[tracking]\nschedule = "every day"\n',
        'tracking.schedule: has 2 fields; give 5 (minute hour day-of-month month day-of-week, UTC), such as "0 6 * * *"',
      ],
      // A first field of seconds (Quartz, Spring) is kept only as one second: this one asked every prompt every 15 seconds.
      [
        '[tracking]\nschedule = "*/15 * * * * *"\n',
        'tracking.schedule: has 6 fields; give 5 (minute hour day-of-month month day-of-week, UTC), such as "0 6 * * *": a first field of seconds, "*/15", would run tracking several times a minute',
      ],
      ['[tracking]\nschedule = "0 6 31 2 *"\n', "tracking.schedule: never fires (no date matches it, such as the 31st of February)"],
      ["[tracking]\nsamples = 1.5\n", "tracking.samples: must be a whole number"],
      ["[tracking]\nsamples = nan\n", "tracking.samples: must be a finite number (nan is none)"],
      ['trusted_proxies = "10.0.0.1"\n', 'trusted_proxies: must be a list in brackets, such as ["…", "…"]'],
      ['[engines]\nid = "a"\n', "engines: must be a list of engines: begin each with [[engines]] (two brackets), as a table of its own"],
      ["[oauth]\nrefresh_reuse_grace_seconds = -1\n", "oauth.refresh_reuse_grace_seconds: must be at least 0"],
      ["[oauth]\nrefresh_reuse_grace_seconds = 601\n", "oauth.refresh_reuse_grace_seconds: must be at most 600"],
      ["[oauth]\nrefresh_reuse_grace = 60\n", 'unknown key(s) "refresh_reuse_grace"'],
      ['public_url = "ftp://x"\n', "public_url: "],
      // The origin alone: OAuth discovery and cookies are made from it, and Spyglass serves from the root.
      ['public_url = "https://spy.example.com/base"\n', "public_url: must be the instance's origin alone"],
      ['public_url = "https://spy.example.com/?x=1"\n', "public_url: must be the instance's origin alone"],
      ['public_url = "https://user:pw@spy.example.com"\n', "public_url: must be the instance's origin alone"],
      ['[[engines]]\nid = "Bad Id"\napi = "openai"\nbase_url = "https://x.example"\nmodel = "m"\n', "engines[0].id: "],
      // A key in the file, as a URL's password (the privacy review: accepted and sent to the provider).
      [
        '[[engines]]\nid = "a"\napi = "openai"\nbase_url = "http://gw:PASSWORD123@127.0.0.1:9/v1"\nmodel = "m"\n',
        "engines[0].base_url: must not hold a user name or password",
      ],
      [
        '[[engines]]\nid = "a"\napi = "openai"\nbase_url = "https:///gw:PASSWORD123@127.0.0.1:9/v1"\nmodel = "m"\n',
        "engines[0].base_url: must not hold a user name or password",
      ],
      // In words, not zod's ("Invalid input: expected string, received undefined").
      ['[[engines]]\nid = "a"\napi = "openai"\nmodel = "m"\n', "engines[0].base_url: is missing: this setting is required here"],
      ["[tracking]\nsamples = 0\n", "tracking.samples: must be at least 1"],
      ["[tracking]\nsamples = 21\n", "tracking.samples: must be at most 20"],
      ['[tracking]\nconcurrency = "8"\n', "tracking.concurrency: must be a number (written without quotes)"],
      ['[auth]\nsignup = "maybe"\n', 'auth.signup: must be one of "first", "open", "closed"'],
      ['[[engines]]\nid = "a"\napi = "openai"\nbase_url = "https://x.example"\nmodel = ""\n', "engines[0].model: must not be empty"],
      // A key in the file is refused with where it goes instead (and never echoed).
      [
        '[[engines]]\nid = "a"\napi = "openai"\nbase_url = "https://x.example"\nmodel = "m"\napi_key = "sk-secret-123"\n',
        "engines[0].api_key: provider keys never live in the file: put the key in an environment variable and name that variable with api_key_env",
      ],
      ["a = 1\nb c = 2\n", "not valid TOML (line 2, column 3): illegal character in key"],
    ];
    for (const [toml, expected] of cases) {
      const { file } = withFile(toml);
      const message = errorOf(() => loadConfig({ flags: { config: file }, env: {} }));
      expect(message).toStartWith(`${file}: `);
      expect(message).toContain(expected);
      expect(message).not.toContain("\n");
      expect(message).not.toContain("sk-secret-123");
      expect(message).not.toMatch(/Invalid input|Too small|Too big|Invalid option/);
    }
    const dir = withFile("").dir;
    expect(errorOf(() => loadConfig({ flags: { config: dir }, env: {} }))).toBe(`${dir}: the config file is a directory, not a file`);
  });

  test("a schedule of 5 fields, a nickname, or 6 whose seconds are one second (as Quartz writes it) is taken", () => {
    for (const schedule of ["30 6 * * 1-5", "@daily", "0 0 6 * * *", "15 30 6 1 * *"]) {
      const { file } = withFile(`[tracking]\nschedule = "${schedule}"\n`);
      expect(loadConfig({ flags: { config: file }, env: {} }).tracking.schedule).toBe(schedule);
    }
  });

  test("a missing explicit config file and a bad port are refused", () => {
    expect(errorOf(() => loadConfig({ flags: { config: "/nonexistent/spyglass.toml" }, env: {} }))).toBe(
      "/nonexistent/spyglass.toml: the config file does not exist",
    );
    expect(errorOf(() => loadConfig({ flags: { port: "http" }, env: {} }))).toContain("port");
    expect(errorOf(() => loadConfig({ flags: {}, env: { PORT: "70000" } }))).toContain("port");
    // Empty (PORT=${PORT} with nothing set), each says what unsetting it would give.
    expect(errorOf(() => loadConfig({ flags: {}, env: { PORT: "" } }))).toBe(
      "PORT is empty: unset it for port 3000, or give a port number",
    );
    expect(errorOf(() => loadConfig({ flags: {}, env: { HOST: "" } }))).toBe(
      "HOST is empty: unset it to listen on 0.0.0.0 (every address), or give an address",
    );
    // An IPv6 address as a URL writes it is the address ("[[::1]]" was "not an address of this machine").
    expect(loadConfig({ flags: { host: "[::1]" }, env: {} }).host).toBe("::1");
  });

  test("a command that does not listen takes HOST and PORT from the environment only when valid", () => {
    const dir = mkdtempSync(join(tmpdir(), "spyglass-config-"));
    // A platform's PORT meant for another program broke every command ("PORT: "abc" is not a port number").
    const quiet = loadConfig({ flags: { data: dir }, env: { PORT: "abc", HOST: " " }, listens: false });
    expect({ host: quiet.host, port: quiet.port }).toEqual({ host: "0.0.0.0", port: 3000 });
    expect(loadConfig({ flags: { data: dir }, env: { PORT: "8080", HOST: "127.0.0.1" }, listens: false })).toMatchObject({
      host: "127.0.0.1",
      port: 8080,
    });
    // serve still refuses them.
    expect(errorOf(() => loadConfig({ flags: { data: dir }, env: { PORT: "abc" } }))).toContain("PORT");
  });

  test("the shutdown grace is 30 s unless SPYGLASS_SHUTDOWN_GRACE_MS says otherwise, from 0 to 600000 ms", () => {
    expect(loadConfig({ flags: {}, env: {} }).shutdownGraceMs).toBe(30_000);
    expect(loadConfig({ flags: {}, env: { SPYGLASS_SHUTDOWN_GRACE_MS: "1500" } }).shutdownGraceMs).toBe(1500);
    expect(loadConfig({ flags: {}, env: { SPYGLASS_SHUTDOWN_GRACE_MS: "0" } }).shutdownGraceMs).toBe(0);
    for (const bad of ["", "-1", "1.5", "30s", "600001"]) {
      expect(errorOf(() => loadConfig({ flags: {}, env: { SPYGLASS_SHUTDOWN_GRACE_MS: bad } }))).toBe(
        `SPYGLASS_SHUTDOWN_GRACE_MS: "${bad}" is not a number of milliseconds from 0 to 600000`,
      );
    }
  });
});

describe("engines with web search and prices (CONTRACT §6)", () => {
  const ENGINE = (api: string, extra = ""): string =>
    `[[engines]]\nid = "${api.replace(/[^a-z]/g, "")}"\napi = "${api}"\nbase_url = "https://x.example"\nmodel = "m"\n${extra}`;

  test("the four APIs load; web search is on by default where the API has a search tool; prices are kept", () => {
    const { file } = withFile(
      [
        ENGINE("openai", "price_per_request = 0.005\n"),
        ENGINE("openai-responses", "price_per_million_input_tokens = 2.5\nprice_per_million_output_tokens = 10\n"),
        ENGINE("anthropic", "web_search = false\n"),
        ENGINE("gemini"),
      ].join("\n"),
    );
    const engines = loadConfig({ flags: { config: file }, env: {} }).engines;
    expect(engines.map((e) => [e.api, e.web_search])).toEqual([
      ["openai", false],
      ["openai-responses", true],
      ["anthropic", false],
      ["gemini", true],
    ]);
    expect(engines[0]!.price_per_request).toBe(0.005);
    expect(engines[1]).toMatchObject({ price_per_million_input_tokens: 2.5, price_per_million_output_tokens: 10 });
  });

  test("an unknown api, a non-boolean web_search and a negative price each name the key and what is allowed", () => {
    const cases: Array<[string, string]> = [
      [ENGINE("bard"), 'engines[0].api: must be "openai" (chat completions), "openai-responses", "anthropic" or "gemini"'],
      [ENGINE("gemini", 'web_search = "yes"\n'), "engines[0].web_search: must be true or false"],
      [ENGINE("gemini", "price_per_request = -1\n"), "engines[0].price_per_request: must be a price of 0 or more"],
      [
        ENGINE("anthropic", "follow_redirects = true\n"),
        'engines[0].follow_redirects: follow_redirects applies to api = "gemini" only (its grounding redirects)',
      ],
    ];
    for (const [toml, expected] of cases) {
      const { file } = withFile(toml);
      const message = errorOf(() => loadConfig({ flags: { config: file }, env: {} }));
      expect(message).toBe(`${file}: ${expected}`);
    }
  });
});
