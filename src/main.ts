#!/usr/bin/env bun
// The CLI (CONTRACT §2): parses argv and dispatches. No business logic lives here.
import { parseArgs } from "node:util";
import { createAccount, requireAccountByEmail, setAccountPlan } from "./accounts/service";
import { createBrand } from "./brands/service";
import { type Config, ConfigError, loadConfig } from "./config";
import { articleRenderer } from "./content/renderer";
import { createAppContext } from "./context";
import { backupDatabase } from "./db/backup";
import { type Db, type OpenOptions, openDatabase } from "./db/client";
import { AppError } from "./errors";
import { createApiKey } from "./keys/service";
import { configureLog, log } from "./log";
import { startServer } from "./server";
import { demoCommand, trackCommand } from "./tracking/cli";
import { markInterruptedRuns } from "./tracking/runner";
import { startScheduler } from "./tracking/scheduler";
import { stopTracking } from "./tracking/service";

type Flags = Record<string, string | boolean | string[] | undefined>;

interface Command {
  usage: string;
  options: Record<string, { type: "string" | "boolean"; multiple?: boolean }>;
  run(ctx: { config: Config; flags: Flags; positionals: string[]; json: boolean }): Promise<void> | void;
}

const COMMON = {
  data: { type: "string" },
  config: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean" },
} as const;

const COMMANDS: Record<string, Command> = {
  serve: {
    usage: "spyglass serve [--host H] [--port N] [--data DIR] [--config FILE]",
    options: { host: { type: "string" }, port: { type: "string" } },
    async run({ config }) {
      configureLog({ level: config.logLevel });
      // The exact sanitizer that will guard published articles (in the renderer's worker) must stop
      // every known attack.
      const sanitizer = await articleRenderer().selfTest();
      if (!sanitizer.ok) fail(`refusing to start: ${sanitizer.reason}`);
      const db = openDatabase(config.dbPath);
      const app = createAppContext(config, db);
      markInterruptedRuns(app);
      const scheduler = startScheduler(app);
      const server = startServer(app, [() => scheduler?.stop(), () => stopTracking(app)]);
      log.info("listening", { url: server.url, data: config.dataDir, config: config.configFile });
      // Start-up ran a lot of code once and never again (migrations, building the app, the tool
      // registry's schemas). JavaScriptCore keeps compiled code until it ages out, and every
      // collection of the serving thread's heap walks it: without it an eden collection measured
      // 550 instead of 720 µs, and the process 6 MiB less. Bun.shrink() drops it once the thread is
      // idle; code that runs again is recompiled on its next call.
      Bun.shrink();
      const shutdown = async (signal: string) => {
        log.info("shutting down", { signal });
        await server.stop();
        log.info("stopped");
        process.exit(0);
      };
      process.once("SIGTERM", () => void shutdown("SIGTERM"));
      process.once("SIGINT", () => void shutdown("SIGINT"));
    },
  },
  "account create": {
    usage:
      "spyglass account create --email E --password P|- [--plan none|visibility|autopilot] [--json]   (--password - reads it from stdin)",
    options: { email: { type: "string" }, password: { type: "string" }, plan: { type: "string" } },
    async run({ config, flags, json }) {
      const input = { email: need(flags, "email"), password: await passwordFrom(need(flags, "password")), plan: flags.plan };
      printRecord(await withDb(config, (db) => createAccount(db, input), { create: true }), json);
    },
  },
  "account plan": {
    usage: "spyglass account plan --email E --plan none|visibility|autopilot [--json]",
    options: { email: { type: "string" }, plan: { type: "string" } },
    async run({ config, flags, json }) {
      printRecord(await withDb(config, (db) => setAccountPlan(db, need(flags, "email"), need(flags, "plan"))), json);
    },
  },
  "brand create": {
    usage: "spyglass brand create --email E --name N [--domain D] [--alias A]... [--json]",
    options: { email: { type: "string" }, name: { type: "string" }, domain: { type: "string" }, alias: { type: "string", multiple: true } },
    async run({ config, flags, json }) {
      const brand = await withDb(config, (db) =>
        createBrand(db, requireAccountByEmail(db, need(flags, "email")).id, {
          name: need(flags, "name"),
          domain: flags.domain,
          aliases: flags.alias,
        }),
      );
      printRecord({ id: brand.id, name: brand.name, domain: brand.domain, site_key: brand.site_key }, json);
    },
  },
  "key create": {
    usage: "spyglass key create --email E --brand ID --name N [--json]",
    options: { email: { type: "string" }, brand: { type: "string" }, name: { type: "string" } },
    async run({ config, flags, json }) {
      const created = await withDb(config, (db) =>
        createApiKey(db, requireAccountByEmail(db, need(flags, "email")).id, {
          name: need(flags, "name"),
          brandId: need(flags, "brand"),
        }),
      );
      printRecord(created, json);
    },
  },
  track: {
    usage: "spyglass track [--brand ID] [--json]",
    options: { brand: { type: "string" } },
    async run({ config, flags, json }) {
      configureLog({ level: "warn" });
      const code = await withDb(config, (db) =>
        trackCommand(createAppContext(config, db), { brandId: flags.brand as string | undefined, json }),
      );
      if (code !== 0) process.exit(code);
    },
  },
  demo: {
    usage: "spyglass demo [--scale N] [--reset] [--json]",
    options: { scale: { type: "string" }, reset: { type: "boolean" } },
    async run({ config, flags, json }) {
      const scale = flags.scale === undefined ? 1 : Number(flags.scale);
      await withDb(config, (db) => demoCommand(createAppContext(config, db), { scale, reset: flags.reset === true, json }), {
        create: true,
      });
    },
  },
  backup: {
    usage: "spyglass backup FILE [--json]",
    options: {},
    async run({ config, positionals, json }) {
      const [file, ...extra] = positionals;
      if (!file || extra.length > 0) fail("backup: give exactly one target file\nusage: spyglass backup FILE", 2);
      printRecord(await withDb(config, (db) => backupDatabase(db, file)), json);
    },
  },
};

function need(flags: Flags, name: string): string {
  const value = flags[name];
  if (typeof value !== "string" || value === "") throw new UsageError(`--${name} is required`);
  return value;
}

class UsageError extends Error {}

/**
 * `--password -` reads the password from stdin (its first line), so that it shows up neither in
 * `ps` nor in the shell's history: `spyglass account create --email E --password - < file`.
 */
async function passwordFrom(flag: string): Promise<string> {
  if (flag !== "-") return flag;
  const text = await Bun.stdin.text();
  const password = text.split(/\r?\n/, 1)[0] ?? "";
  if (password === "") throw new UsageError("--password - read no password from stdin");
  return password;
}

function fail(message: string, code = 1): never {
  process.stderr.write(`spyglass: ${message}\n`);
  process.exit(code);
}

/**
 * Opens the database for one command and closes it once the command (sync or async) is done. Only
 * commands that start an instance (`create: true`) may create a database where there is none.
 */
async function withDb<T>(config: Config, fn: (db: Db) => T | Promise<T>, options: OpenOptions = { create: false }): Promise<T> {
  const db = openDatabase(config.dbPath, options);
  try {
    return await fn(db);
  } finally {
    db.close();
  }
}

function printRecord(record: unknown, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(record)}\n`);
    return;
  }
  process.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
}

async function main(argv: string[]): Promise<void> {
  const words: string[] = [];
  let rest = argv;
  // Two-word commands ("account create") first, then one-word ones ("serve"); none means serve.
  if (argv[0] && argv[1] && COMMANDS[`${argv[0]} ${argv[1]}`]) {
    words.push(argv[0], argv[1]);
    rest = argv.slice(2);
  } else if (argv[0] && COMMANDS[argv[0]]) {
    words.push(argv[0]);
    rest = argv.slice(1);
  } else if (argv[0] === undefined || argv[0].startsWith("-")) {
    words.push("serve");
  } else if (argv[0] === "help" || argv[0] === "--help") {
    process.stdout.write(
      `${Object.values(COMMANDS)
        .map((c) => c.usage)
        .join("\n")}\n`,
    );
    return;
  } else {
    fail(`unknown command "${argv.slice(0, 2).join(" ")}"; run "spyglass help" for the list`, 2);
  }
  const name = words.join(" ");
  const command = COMMANDS[name]!;
  let parsed: { values: Flags; positionals: string[] };
  try {
    parsed = parseArgs({ args: rest, options: { ...COMMON, ...command.options }, allowPositionals: true, strict: true });
  } catch (error) {
    fail(`${name}: ${(error as Error).message.split("\n")[0]}\nusage: ${command.usage}`, 2);
  }
  if (parsed.values.help) {
    process.stdout.write(`usage: ${command.usage}\n`);
    return;
  }
  const config = loadConfig({
    flags: {
      data: parsed.values.data as string | undefined,
      config: parsed.values.config as string | undefined,
      host: parsed.values.host as string | undefined,
      port: parsed.values.port as string | undefined,
    },
    env: process.env,
  });
  try {
    await command.run({ config, flags: parsed.values, positionals: parsed.positionals, json: parsed.values.json === true });
  } catch (error) {
    if (error instanceof UsageError) fail(`${name}: ${error.message}\nusage: ${command.usage}`, 2);
    throw error;
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    if (error instanceof ConfigError) fail(error.message);
    if (error instanceof AppError) fail(error.message);
    fail(`unexpected error: ${(error as Error)?.message ?? String(error)}`);
  });
}
