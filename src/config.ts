// Reads flags, environment and the optional TOML file (CONTRACT §6) once, validates them, and
// returns a frozen Config. Any problem is a ConfigError whose message is one line naming the file,
// the key and what is wrong.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { Cron } from "croner";
import ipaddr from "ipaddr.js";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";

export class ConfigError extends Error {}

const engineId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, "must be 1-32 characters of a-z, 0-9, _ or -, starting with a letter or digit");

const httpUrl = z
  .string()
  .url("must be a URL")
  .refine((u) => /^https?:\/\//i.test(u), "must start with http:// or https://")
  .transform((u) => u.replace(/\/+$/, ""));

/**
 * The instance's own origin (CONTRACT §6): Spyglass serves from the root, and the OAuth documents'
 * addresses and cookies are made from it, so a path, a query or a fragment would name addresses it
 * does not serve (a review found a path accepted, and OAuth discovery then pointing at 404s).
 */
const originUrl = httpUrl.refine((u) => {
  try {
    const url = new URL(u);
    return url.pathname === "/" && url.search === "" && url.hash === "" && url.username === "" && url.password === "";
  } catch {
    return false;
  }
}, "must be the instance's origin alone, such as https://visibility.example.com (no path, query or credentials: Spyglass serves from the root)");

const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "must be the name of an environment variable");

const modelEndpoint = {
  api: z.enum(["openai", "openai-responses", "anthropic", "gemini"], {
    message: 'must be "openai" (chat completions), "openai-responses", "anthropic" or "gemini"',
  }),
  // A user name and password in the address would be a secret in the file (CONTRACT §6: only the
  // environment variable's name lives there).
  base_url: httpUrl.refine((u) => {
    // As a URL reads it: "https:///gw:pw@host" holds a password too.
    const url = URL.parse(u);
    return url !== null && url.username === "" && url.password === "";
  }, "must not hold a user name or password: put the provider's key in the environment variable api_key_env names"),
  model: z.string().min(1, "must not be empty"),
  api_key_env: envName.optional(),
  timeout_ms: z.number().int().min(1000).max(600_000).default(60_000),
  max_retries: z.number().int().min(0).max(10).default(3),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().min(16).max(32_000).optional(),
};

/** How people name the assistants of the ids the README suggests: an engine's label when it has none of its own. */
export const ENGINE_NAMES: Readonly<Record<string, string>> = {
  chatgpt: "ChatGPT",
  claude: "Claude",
  perplexity: "Perplexity",
  gemini: "Gemini",
};

const price = z.number().min(0, "must be a price of 0 or more").max(1_000_000, "must be at most 1000000");

const engineSchema = z
  .object({
    id: engineId,
    label: z.string().min(1).optional(),
    ...modelEndpoint,
    concurrency: z.number().int().min(1).max(256).optional(),
    web_search: z.boolean({ message: "must be true or false" }).optional(),
    follow_redirects: z.boolean({ message: "must be true or false" }).optional(),
    price_per_request: price.optional(),
    price_per_million_input_tokens: price.optional(),
    price_per_million_output_tokens: price.optional(),
  })
  .strict()
  .refine((e) => e.follow_redirects !== true || e.api === "gemini", {
    message: 'follow_redirects applies to api = "gemini" only (its grounding redirects)',
    path: ["follow_redirects"],
  });

/**
 * Web search is on by default where the API has a hosted search tool (Responses, Messages,
 * generateContent). Chat completions has none of its own: search there is a property of the model
 * (Perplexity's sonar, OpenAI's *-search-preview), so it stays off unless asked for.
 */
export function defaultWebSearch(api: z.infer<typeof modelEndpoint.api>): boolean {
  return api !== "openai";
}

const writerSchema = z.object(modelEndpoint).strict();

// A cron expression's five fields: their names as said, as croner names them, and what each takes.
const CRON_FIELDS = [
  { name: "minute", croner: "minute", takes: "0–59, *, a list, a range or a step" },
  { name: "hour", croner: "hour", takes: "0–23, *, a list, a range or a step" },
  { name: "day-of-month", croner: "day", takes: "1–31, *, a list, a range or a step" },
  { name: "month", croner: "month", takes: "1–12 or jan–dec, *, a list, a range or a step" },
  { name: "day-of-week", croner: "dayOfWeek", takes: "0–7 or sun–sat, *, a list, a range or a step" },
] as const;

/**
 * Why a tracking schedule is refused, or null. Five fields (minute hour day-of-month month
 * day-of-week, UTC) or a nickname such as @daily; croner also takes a first field of seconds, kept
 * when it is one second (a Quartz or Spring expression, "0 0 6 * * *", fires as it reads). Seconds
 * written as a step or a range ran tracking several times a minute ("every 15th second" asked
 * every prompt every 15 seconds): refused. A schedule that never fires (February 31st) is too.
 */
function cronProblem(expr: string): string | null {
  const fields = expr.trim().split(/\s+/).filter(Boolean);
  const nickname = fields.length === 1 && fields[0]!.startsWith("@");
  const oneSecond = fields.length === 6 && /^\d{1,2}$/.test(fields[0]!);
  if (!nickname && fields.length !== 5 && !oneSecond) {
    return `has ${fields.length} field${fields.length === 1 ? "" : "s"}; give 5 (minute hour day-of-month month day-of-week, UTC), such as "0 6 * * *"${fields.length === 6 ? `: a first field of seconds, "${fields[0]}", would run tracking several times a minute` : ""}`;
  }
  let cron: Cron;
  try {
    cron = new Cron(expr, { paused: true, timezone: "UTC" });
  } catch (error) {
    // The field at fault, as written, with what it takes: croner names it by its own words and index.
    const message = (error as Error).message;
    const named = /Invalid value for (\w+)/.exec(message)?.[1];
    const entry = /configuration entry (\d+)/.exec(message)?.[1];
    // Croner names and counts the five fields after a first field of seconds (6 fields), if any.
    const offset = fields.length === 6 ? 1 : 0;
    const fieldAt = named !== undefined ? CRON_FIELDS.findIndex((f) => f.croner === named) : entry !== undefined ? Number(entry) - 1 : -1;
    const field = nickname ? undefined : CRON_FIELDS[fieldAt];
    const written = fields[fieldAt + offset];
    if (field && written !== undefined) {
      return `its ${field.name} field, "${written}", is not valid: it takes ${field.takes} (the fields: minute hour day-of-month month day-of-week, UTC, such as "0 6 * * *")`;
    }
    return 'must be a valid cron expression such as "0 6 * * *"';
  }
  if (cron.nextRun() === null) return "never fires (no date matches it, such as the 31st of February)";
  return null;
}

const cronSchema = z.string().superRefine((expr, ctx) => {
  const problem = cronProblem(expr);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});

const fileSchema = z
  .object({
    public_url: originUrl.optional(),
    log_level: z.enum(["debug", "info", "warn", "error"]).optional(),
    auth: z
      .object({ signup: z.enum(["first", "open", "closed"]).default("first") })
      .strict()
      .default({ signup: "first" }),
    tracking: z
      .object({
        schedule: cronSchema.default("0 6 * * *"),
        samples: z.number().int().min(1).max(20).default(1),
        concurrency: z.number().int().min(1).max(256).default(8),
        enabled: z.boolean().default(true),
        // How long an instance's claim on a run or an answer to ask lasts without renewal: after a
        // crash, another instance takes the work over this many seconds later (runner.ts).
        lease_seconds: z.number().int().min(2).max(3600).default(30),
      })
      .strict()
      .default({ schedule: "0 6 * * *", samples: 1, concurrency: 8, enabled: true, lease_seconds: 30 }),
    oauth: z
      .object({
        // A rotated refresh token presented again this many seconds after its first use still gets a
        // token pair of its own (MCP hosts refresh several times at once); 0, CONTRACT §8's rule:
        // any reuse ends the grant.
        refresh_reuse_grace_seconds: z.number().int().min(0).max(600).default(0),
      })
      .strict()
      .default({ refresh_reuse_grace_seconds: 0 }),
    engines: z.array(engineSchema).default([]),
    writer: writerSchema.optional(),
    database_url_env: envName.optional(),
    trusted_proxies: z
      .array(
        z.string().refine((entry) => ipaddr.isValid(entry) || ipaddr.isValidCIDR(entry), {
          message: 'must be an IP address or a CIDR range, such as "10.0.0.5" or "172.16.0.0/12"',
        }),
      )
      .max(100)
      .default([]),
  })
  .strict();

export type EngineSettings = z.infer<typeof engineSchema> & { label: string; concurrency: number; web_search: boolean };
export type WriterSettings = z.infer<typeof writerSchema>;

export interface Config {
  dataDir: string;
  dbPath: string;
  configFile: string | null;
  /**
   * Where the configuration is read from, or would be: the file read, else the data directory's
   * spyglass.toml (said in the messages of a server without engines).
   */
  configPath: string;
  /**
   * A spyglass.toml in the working directory that is not the one read (put beside the binary, where
   * it is never looked for), or null: said at start and where the missing settings are asked for.
   */
  unreadConfigFile: string | null;
  host: string;
  port: number;
  publicUrl: string | null;
  /** Origin of publicUrl (scheme://host[:port]), used by the same-origin and Origin checks. */
  publicOrigin: string | null;
  logLevel: "debug" | "info" | "warn" | "error";
  auth: { signup: "first" | "open" | "closed" };
  oauth: { refresh_reuse_grace_seconds: number };
  tracking: { schedule: string; samples: number; concurrency: number; enabled: boolean; lease_seconds: number };
  engines: EngineSettings[];
  writer: WriterSettings | null;
  /** How long a stop waits for requests in flight before closing their connections (env SPYGLASS_SHUTDOWN_GRACE_MS). */
  shutdownGraceMs: number;
  /**
   * Test mode of OAuth (env SPYGLASS_OAUTH_TEST_LOOPBACK_CLIENTS=1): client metadata documents may be
   * fetched from loopback addresses, whose certificates are then not verified. Never for production.
   */
  oauthLoopbackClients: boolean;
  /**
   * PostgreSQL's URL (env SPYGLASS_DATABASE_URL, or the variable named by database_url_env), or null
   * for SQLite in the data directory. It holds a password: never log it (db.path is the safe form).
   */
  databaseUrl: string | null;
  /** The environment variable databaseUrl is read from (SPYGLASS_DATABASE_URL unless database_url_env names another), as errors name it. */
  databaseUrlVariable?: string;
  /**
   * Reverse proxies whose X-Forwarded-For is believed (addresses or CIDR ranges), besides loopback,
   * which always is: the login and registration throttles count the client's address, not theirs.
   */
  trustedProxies: string[];
}

export const DEFAULT_SHUTDOWN_GRACE_MS = 30_000;

export interface ConfigInput {
  flags: { data?: string; config?: string; host?: string; port?: string };
  env: Record<string, string | undefined>;
  cwd?: string;
  /**
   * Whether the command listens (serve; the default). Other commands take HOST and PORT from the
   * environment only when they are valid: a platform's PORT meant for another program must not stop
   * `spyglass key list`.
   */
  listens?: boolean;
}

/** The working directory's spyglass.toml when it exists and is not the file read. */
function unreadConfig(cwd: string, configFile: string | null): string | null {
  const beside = resolve(cwd, "spyglass.toml");
  return beside !== configFile && existsSync(beside) ? beside : null;
}

/**
 * Where to add a setting the configuration lacks, as a message says it: the file read or to create,
 * and a spyglass.toml in the working directory that is not read, when there is one.
 */
export function configPlace(config: Pick<Config, "configPath" | "unreadConfigFile" | "configFile">): string {
  const unread = config.unreadConfigFile
    ? ` (${config.unreadConfigFile} is not read: the configuration is the data directory's spyglass.toml, or the file --config or SPYGLASS_CONFIG names)`
    : "";
  return `${config.configPath}${config.configFile === null ? ", a file to create," : ""}${unread}`;
}

export function loadConfig({ flags, env: given, cwd = process.cwd(), listens = true }: ConfigInput): Config {
  const env = listens ? given : { ...given, HOST: given.HOST?.trim() ? given.HOST : undefined, PORT: validPort(given.PORT) };
  // An empty SPYGLASS_DATA (a script's variable left unset) is no directory: the default, as an empty
  // SPYGLASS_CONFIG is no file (it was the working directory).
  const dataDir = resolve(cwd, flags.data ?? (env.SPYGLASS_DATA || undefined) ?? "./data");
  const explicitConfig = flags.config ?? env.SPYGLASS_CONFIG;
  let configFile: string | null = null;
  if (explicitConfig !== undefined && explicitConfig !== "") {
    configFile = resolve(cwd, explicitConfig);
    if (!existsSync(configFile)) throw new ConfigError(`${configFile}: the config file does not exist`);
  } else if (existsSync(join(dataDir, "spyglass.toml"))) {
    configFile = join(dataDir, "spyglass.toml");
  }

  const file = configFile ? readConfigFile(configFile) : fileSchema.parse({});
  const where = configFile ?? "configuration";

  // An empty HOST or PORT is refused rather than taken as unset: a variable meant to hold a value
  // (PORT=${PORT} in a compose file) bound to every address or to 3000 without a word.
  const hostText = flags.host ?? env.HOST ?? "0.0.0.0";
  if (hostText.trim() === "") {
    throw new ConfigError(
      flags.host !== undefined
        ? "--host must not be empty"
        : "HOST is empty: unset it to listen on 0.0.0.0 (every address), or give an address",
    );
  }
  // An IPv6 address as URLs write it ([::1]) is the address.
  const host = /^\[[0-9a-fA-F:.]+\]$/.test(hostText.trim()) ? hostText.trim().slice(1, -1) : hostText;
  const portText = flags.port ?? env.PORT ?? "3000";
  if (portText.trim() === "") {
    throw new ConfigError(
      flags.port !== undefined ? "--port must not be empty" : "PORT is empty: unset it for port 3000, or give a port number",
    );
  }
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65535) {
    throw new ConfigError(`${flags.port !== undefined ? "port" : "PORT"}: "${portText}" is not a port number (0-65535)`);
  }

  const graceText = env.SPYGLASS_SHUTDOWN_GRACE_MS ?? String(DEFAULT_SHUTDOWN_GRACE_MS);
  const shutdownGraceMs = Number(graceText);
  if (!/^\d+$/.test(graceText) || shutdownGraceMs > 600_000) {
    throw new ConfigError(`SPYGLASS_SHUTDOWN_GRACE_MS: "${graceText}" is not a number of milliseconds from 0 to 600000`);
  }

  const seen = new Set<string>();
  const engines: EngineSettings[] = file.engines.map((engine, i) => {
    if (seen.has(engine.id)) throw new ConfigError(`${where}: engines[${i}].id: "${engine.id}" is used twice`);
    seen.add(engine.id);
    return {
      ...engine,
      label: engine.label ?? ENGINE_NAMES[engine.id] ?? engine.id,
      concurrency: engine.concurrency ?? file.tracking.concurrency,
      web_search: engine.web_search ?? defaultWebSearch(engine.api),
    };
  });

  const databaseUrl = readDatabaseUrl(env, file.database_url_env, where);

  const publicOrigin = file.public_url ? new URL(file.public_url).origin : null;
  return Object.freeze({
    dataDir,
    dbPath: join(dataDir, "spyglass.db"),
    configFile,
    configPath: configFile ?? join(dataDir, "spyglass.toml"),
    unreadConfigFile: unreadConfig(cwd, configFile),
    host,
    port,
    // As an origin: "https://Spyglass.Example.COM:443/" is https://spyglass.example.com, the resource clients name.
    publicUrl: publicOrigin,
    publicOrigin,
    logLevel: file.log_level ?? "info",
    auth: file.auth,
    oauth: file.oauth,
    tracking: file.tracking,
    engines,
    writer: file.writer ?? null,
    shutdownGraceMs,
    oauthLoopbackClients: env.SPYGLASS_OAUTH_TEST_LOOPBACK_CLIENTS === "1",
    databaseUrl,
    databaseUrlVariable: file.database_url_env ?? "SPYGLASS_DATABASE_URL",
    trustedProxies: file.trusted_proxies,
  });
}

/**
 * The PostgreSQL URL from the environment (CONTRACT §6), or null for SQLite. A variable named in the
 * file must be set: falling back to SQLite would split the data of instances meant to share one
 * database. Messages name the variable, never its value, which holds a password.
 */
function readDatabaseUrl(env: ConfigInput["env"], named: string | undefined, where: string): string | null {
  const variable = named ?? "SPYGLASS_DATABASE_URL";
  const value = env[variable]?.trim() ?? "";
  if (value === "") {
    if (named !== undefined) throw new ConfigError(`${where}: database_url_env: the environment variable ${named} is not set`);
    return null;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    url = new URL("invalid:");
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new ConfigError(
      `${variable}: must be a postgres:// or postgresql:// URL such as postgres://user:password@host:5432/database (its value is not shown: it may hold a password)`,
    );
  }
  const problem = databaseUrlProblem(url, value);
  if (problem) throw new ConfigError(`${variable}: ${problem} (its value is not shown: it may hold a password)`);
  return value;
}

/**
 * What makes a postgres:// URL read other than it was meant: a password holding "/" or "@" unencoded
 * moved its end into the host and the path, which an error message then quoted (a review saw the
 * password in "PostgreSQL at spy:1234/s3cret@… cannot be reached"); a "%" not starting an escape.
 */
function databaseUrlProblem(url: URL, value: string): string | null {
  const encoding = "a password's / @ : ? # and % must be written %2F %40 %3A %3F %23 and %25";
  // The driver takes the host from after the first "@" (the URL standard, the last); an "@" after the
  // authority ("spy:2024?Secret@db…") is a password's end read as a port and a query.
  const afterScheme = value.slice(value.indexOf("://") + 3);
  const authority = afterScheme.split(/[/?#]/, 1)[0] ?? "";
  const rest = afterScheme.slice(authority.length);
  if (url.pathname.slice(1).includes("/") || rest.includes("@") || authority.indexOf("@") !== authority.lastIndexOf("@")) {
    return `has more than a database name after the host, as when a password holds a character that must be percent-encoded: ${encoding}`;
  }
  try {
    decodeURIComponent(url.username);
    decodeURIComponent(url.password);
    decodeURIComponent(url.pathname);
  } catch {
    return `holds a % that does not begin an escape (two hexadecimal digits): ${encoding}`;
  }
  return null;
}

/** What a setting of the wrong type must be, in TOML's words (a 1.5 where a count goes, a list written as one value). */
function typeSentence(issue: z.core.$ZodIssueInvalidType): string {
  const received = /received (\w+)$/.exec(issue.message)?.[1];
  switch (issue.expected) {
    case "int":
    case "number":
      if (received === "number") return "a whole number";
      if (received === "NaN" || received === "Infinity") return `a finite number (${received === "NaN" ? "nan" : "inf"} is none)`;
      return issue.expected === "int" ? "a whole number (written without quotes)" : "a number (written without quotes)";
    case "boolean":
      return "true or false (without quotes)";
    case "string":
      return 'a string (in quotes: "…")';
    case "array":
      return issue.path.at(-1) === "engines"
        ? "a list of engines: begin each with [[engines]] (two brackets), as a table of its own"
        : 'a list in brackets, such as ["…", "…"]';
    case "object":
      return "a table: a [section] of its own, or { key = value } inline";
    default:
      return `of type ${issue.expected}`;
  }
}

/** A zod issue of the file in words: zod's own ("Invalid input: expected string, received undefined") are for programmers. */
function issueSentence(issue: z.core.$ZodIssue): string {
  // A sentence of ours (the schema's own message) is kept as it is.
  if (issue.code !== "unrecognized_keys" && !/^(Too small|Too big|Invalid input|Invalid option)\b/.test(issue.message))
    return issue.message;
  switch (issue.code) {
    case "unrecognized_keys":
      return `unknown key(s) ${issue.keys.map((k) => `"${k}"`).join(", ")}`;
    case "invalid_type":
      if (/received undefined$/.test(issue.message)) return "is missing: this setting is required here";
      return `must be ${typeSentence(issue)}`;
    case "too_small":
      return issue.origin === "string"
        ? `must be at least ${issue.minimum} character${issue.minimum === 1 ? "" : "s"} long`
        : issue.origin === "array"
          ? `needs at least ${issue.minimum} entr${issue.minimum === 1 ? "y" : "ies"}`
          : `must be ${issue.inclusive === false ? "more than" : "at least"} ${issue.minimum}`;
    case "too_big":
      return issue.origin === "string"
        ? `must be at most ${issue.maximum} characters long`
        : issue.origin === "array"
          ? `takes at most ${issue.maximum} entries`
          : `must be ${issue.inclusive === false ? "less than" : "at most"} ${issue.maximum}`;
    case "invalid_value":
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}`;
    default:
      // Our own sentences (refinements, regexes with a message) read well as they are.
      return issue.message;
  }
}

/**
 * What the line a TOML error points at most likely lacks, in words a self-hoster acts on (the
 * parser's own, "invalid value" or "must be followed by an end-of-line", do not say): a text value
 * without quotes (schedule = 0 6 * * *, label = ChatGPT), or a quote not closed. Empty otherwise.
 */
function tomlHint(text: string, line: number): string {
  const source = text.split(/\r?\n/)[line - 1] ?? "";
  const pair = /^\s*([A-Za-z0-9_.-]+)\s*=\s*(.*?)\s*$/.exec(source);
  if (!pair) return "";
  const [, key, value = ""] = pair;
  if (value === "") return "";
  const quote = value[0];
  if ((quote === '"' || quote === "'") && value.indexOf(quote, 1) < 0) return `; the text after ${key} = has no closing ${quote}`;
  // A value TOML reads without quotes: a string, array or table, a boolean, a number or a date, alone on its line.
  if (/^["'[{]/.test(value) || /^(?:true|false|[+-]?(?:inf|nan|\d[\d_.:eExobT+-]*Z?))(?:\s*#.*)?$/.test(value)) return "";
  const bare = value.replace(/\s*#.*$/, "");
  if (/^(?:true|false)$/i.test(bare)) return `; true and false are written in lowercase: ${key} = ${bare.toLowerCase()}`;
  // Numbers with spaces between them (samples = 1 2) are no text to quote.
  if (/^[\d\s.+-]+$/.test(bare)) return "";
  return `; a text value is written in quotes: ${key} = "${bare}"`;
}

/** The problems of one issue, each naming its key: "engines[0].model: is missing: this setting is required here". */
function issueProblems(issue: z.core.$ZodIssue): string[] {
  const key = issue.path.length
    ? issue.path.map((p, i) => (typeof p === "number" ? `[${p}]` : i ? `.${String(p)}` : String(p))).join("")
    : "(top level)";
  if (issue.code !== "unrecognized_keys") return [`${key}: ${issueSentence(issue)}`];
  // Two unknown keys have sentences of their own; any others are named beside them.
  const problems: string[] = [];
  if (issue.keys.includes("database_url")) {
    problems.push(
      "database_url: the database URL holds a password and never lives in the file: set SPYGLASS_DATABASE_URL, or name another variable with database_url_env",
    );
  }
  if (issue.keys.includes("api_key")) {
    problems.push(
      `${key === "(top level)" ? "" : `${key}.`}api_key: provider keys never live in the file: put the key in an environment variable and name that variable with api_key_env (such as api_key_env = "OPENAI_API_KEY")`,
    );
  }
  const others = issue.keys.filter((name) => name !== "database_url" && name !== "api_key");
  if (others.length > 0) problems.push(`${key}: ${issueSentence({ ...issue, keys: others })}`);
  return problems;
}

function readConfigFile(path: string): z.infer<typeof fileSchema> {
  let raw: unknown;
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === "EISDIR"
        ? "is a directory, not a file"
        : code === "EACCES"
          ? "cannot be read (permission denied)"
          : (error as Error).message;
    throw new ConfigError(`${path}: the config file ${reason}`);
  }
  try {
    raw = parseToml(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0]!.replace(/^Invalid TOML document: /, "") : "unreadable";
    const { line, column } = error as { line?: number; column?: number };
    throw new ConfigError(
      `${path}: not valid TOML${line ? ` (line ${line}${column ? `, column ${column}` : ""})` : ""}: ${reason}${line ? tomlHint(text, line) : ""}`,
    );
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    // Every problem at once: a self-hoster fixing one at a time restarted once per mistake.
    const problems = [...new Set(parsed.error.issues.flatMap(issueProblems))];
    throw new ConfigError(
      problems.length === 1
        ? `${path}: ${problems[0]}`
        : `${path}: ${problems.length} problems:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`,
    );
  }
  return parsed.data;
}

/** An environment PORT a listening server would take, or undefined (see ConfigInput.listens). */
function validPort(text: string | undefined): string | undefined {
  return text !== undefined && /^\d+$/.test(text) && Number(text) <= 65535 ? text : undefined;
}
