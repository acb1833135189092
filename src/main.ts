#!/usr/bin/env bun
// The CLI (CONTRACT §2): parses argv and dispatches. No business logic lives here. The executable
// runs it through entry.ts; `bun src/main.ts` runs it directly.
import { join } from "node:path";
import { parseArgs } from "node:util";
import {
  countAccounts,
  createAccount,
  normalizeEmail,
  parsePlan,
  requireAccountByEmail,
  setAccountPlan,
  validatePassword,
} from "./accounts/service";
import { deleteAccountAndBrands, deleteBrand } from "./brands/delete";
import { createBrand, getBrand, listBrands, resolveBrandRef } from "./brands/service";
import { type Config, ConfigError, loadConfig } from "./config";
import { articleRenderer } from "./content/renderer";
import { rerenderStaleArticles } from "./content/rerender";
import { type AppContext, createAppContext } from "./context";
import { backupDatabase, openToCopy } from "./db/backup";
import { TO_STDOUT } from "./db/backup-file";
import { startCheckpointer } from "./db/checkpointer";
import { type Db, type OpenOptions, openDatabase } from "./db/client";
import { type DatabaseFileWatch, stayUp, watchDatabaseFile } from "./db/file-watch";
import { markMoved, openConfiguredDatabase, refuseMovedDatabase } from "./db/open";
import { watchSchema } from "./db/schema-watch";
import { isStorageFailure, STORAGE_PROBLEM } from "./db/storage-health";
import { AppError, Invalid } from "./errors";
import { jitAtUsualThresholds } from "./jit-policy";
import { createApiKey, listApiKeys, revokeApiKey } from "./keys/service";
import { printable } from "./labels";
import { configureLog, drainLog, flushLog, log, stdoutFailure } from "./log";
import { resetAccountPassword } from "./oauth/password-reset";
import { oauthSettings } from "./oauth/service";
import { assertCanListen, startServer } from "./server";
import { startWindowRollover } from "./tracking/prompt-windows";
import { markInterruptedRuns, watchAbandonedRuns } from "./tracking/runner";
import { startScheduler } from "./tracking/scheduler";
import { stopTracking } from "./tracking/service";
import { BUILD, VERSION } from "./version";

type Flags = Record<string, string | boolean | string[] | undefined>;

interface Command {
  usage: string;
  /** One line for `spyglass help`. */
  summary: string;
  options: Record<string, { type: "string" | "boolean"; multiple?: boolean }>;
  /** Whether it takes arguments besides options (backup's FILE); others refuse any. */
  positionals?: true;
  /** Options it cannot run without: checked before anything is opened (a usage error, exit 2). */
  required?: readonly string[];
  run(ctx: { config: Config; flags: Flags; positionals: string[]; json: boolean }): Promise<void> | void;
}

const COMMON = {
  data: { type: "string" },
  config: { type: "string" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** Options whose last value counts when given more than once (see main). */
const OVERRIDABLE = new Set(["data", "config", "host", "port", "json", "help"]);

const COMMANDS: Record<string, Command> = {
  serve: {
    usage: "spyglass serve [--host H] [--port N] [--data DIR] [--config FILE]",
    summary: "serves the dashboard API, the MCP tool server and the public content API (the default command)",
    options: { host: { type: "string" }, port: { type: "string" } },
    async run({ config }) {
      configureLog({ level: config.logLevel });
      // A promise whose failure nobody handles is a bug; Bun's default, exiting, turned one such bug
      // (a background run's end, its brand deleted by another process) into a server down for every
      // brand. It is logged, with its stack, and the server goes on.
      process.on("unhandledRejection", (reason) => {
        const error = reason as Error | undefined;
        log.error("unhandled rejection: a bug, logged; the server goes on", {
          error: error?.name,
          message: error?.message,
          stack: error?.stack,
        });
      });
      assertCanListen(config.host, config.port);
      const db = await openWaitingForPostgres(config);
      const app = createAppContext(config, db);
      await markInterruptedRuns(app);
      const scheduler = startScheduler(app);
      // Without engines this server's workers never look for abandoned runs: it marks them instead.
      const abandoned = config.engines.length === 0 ? watchAbandonedRuns(app) : null;
      // This instance takes its share of every run's work (any instance's), and the runs of one that died.
      app.tracking.runner.serve();
      // A re-analysis cut short by the last stop (or a crash) goes through the brand's answers again.
      await app.tracking.reanalysis.resumeUnfinished();
      const checkpointer = db.dialect === "sqlite" ? startCheckpointer(db) : null;
      let databaseFile: DatabaseFileWatch | null = null;
      const windows = startWindowRollover(db, FIRST_ROLLOVER_CHECK_MS);
      const server = startServer(
        app,
        [
          () => scheduler?.stop(),
          () => abandoned?.stop(),
          () => stopTracking(app, "the server stopped"),
          () => windows.stop(),
          () => checkpointer?.stop(),
          () => databaseFile?.stop(),
        ],
        // A database file deleted or replaced under it: what it holds is written out, last of all;
        // written nowhere, the process stays up holding it (the log says how to copy it out).
        async () => {
          if (databaseFile && !(await databaseFile.keep())) await stayUp();
        },
      );
      // Before anything else is awaited: a stop signal from the moment it listens is a clean shutdown
      // (it was set after the owner check below, a round trip on PostgreSQL, and a SIGTERM then exited 143).
      const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;
      let shuttingDown = false;
      let serverStopped = false;
      const shutdown = async (signal: string, code = 0) => {
        if (shuttingDown) return;
        shuttingDown = true;
        stopping = true;
        log.info("shutting down", { signal });
        schema.stop();
        await server.stop();
        serverStopped = true;
        log.info("stopped");
        // Lines queued behind a slow log reader go out before the process does (at most 2 s).
        await drainLog(2_000);
        process.exit(code);
      };
      // A newer Spyglass migrated the database under this server (README: Upgrading): it stops, exit 1.
      const schema = watchSchema(db, () => void shutdown("the database's schema is newer than this build's", 1));
      // Its file deleted or replaced while it runs (file-watch.ts): it stops, exit 1, keeping what it holds.
      databaseFile = db.dialect === "sqlite" ? watchDatabaseFile(db, "the server stops", (problem) => void shutdown(problem, 1)) : null;
      // The terminal that started it closed (SIGHUP; or a service manager's reload): the same clean
      // stop, not the default of dying with requests in flight. Spyglass reads its configuration once.
      // A second signal while the requests in flight finish ends it at once, said in the log (it ended
      // at "shutting down"), with the signal's usual exit status (128 + its number).
      for (const [name, number] of Object.entries(SIGNALS)) {
        process.on(name, () => {
          if (!shuttingDown) return void shutdown(name);
          log.warn(
            serverStopped
              ? "stopped at once by a second signal, while the log was written out"
              : "stopped at once by a second signal: requests still in flight were cut off",
            { signal: name },
          );
          flushLog();
          process.exit(128 + number);
        });
      }
      log.info("listening", {
        url: server.url,
        listen: server.listen,
        urls: server.urls,
        public_url: config.publicUrl,
        data: config.dataDir,
        config: config.configFile,
        // Which database this instance uses: SQLite's file, or PostgreSQL's host and database (db.path never holds the password).
        database: { kind: db.dialect === "sqlite" ? "sqlite" : "postgresql", at: db.path },
        // Last: scripts (the tests' included) read the line's first fields as they were.
        version: VERSION,
        build: BUILD,
      });
      checkSanitizer(app);
      if (config.unreadConfigFile) {
        log.warn(
          `${config.unreadConfigFile} is not read: the configuration is ${config.configFile ?? `the data directory's spyglass.toml (${config.configPath}), which does not exist`}; move the file there, or name it with --config or SPYGLASS_CONFIG`,
        );
      }
      // Set-up mistakes found only later otherwise: by a connector that cannot sign in, or a draft that fails.
      if (config.publicUrl && !oauthSettings(config)) {
        log.warn(
          `OAuth sign-in is off: public_url (${config.publicUrl}) is plain http on a host other than loopback; Claude.ai's, Claude Desktop's and ChatGPT's connectors need https (clients that send an API key header still connect)`,
        );
      }
      const writerKey = config.writer?.api_key_env;
      if (writerKey && !process.env[writerKey]?.trim()) {
        log.warn(
          `writer: api_key_env names ${writerKey}, which is not set; generate_article fails until it is set and the server restarted`,
          {
            api_key_env: writerKey,
          },
        );
      }
      const accounts = await countAccounts(db);
      if (accounts.all === 0) {
        log.warn(
          'no account yet: the first visitor to sign up becomes the owner of this instance; create the owner\'s account now with "spyglass account create --email E --password - --plan autopilot"',
        );
      } else if (accounts.real === 0) {
        if (config.auth.signup === "open") {
          log.warn(
            "no owner yet (the demo's account never is) and signup is open: the next visitor to sign up becomes the owner of this instance; create the owner's account now with \"spyglass account create --email E --password - --plan autopilot\"",
          );
        } else {
          log.info(
            "no owner yet (the demo's account never is, and it closes the dashboard's signup): create yours with \"spyglass account create --email E --password - --plan autopilot\"",
          );
        }
      }
    },
  },
  "account create": {
    usage:
      "spyglass account create --email E --password P|- [--plan none|visibility|autopilot] [--json]   (--password - reads it from stdin)",
    summary: "creates a dashboard account (a password of at least 8 characters)",
    options: { email: { type: "string" }, password: { type: "string" }, plan: { type: "string" } },
    required: ["email", "password"],
    async run({ config, flags, json }) {
      const input = { email: need(flags, "email"), password: await passwordFrom(need(flags, "password")), plan: flags.plan };
      // Checked before the database is opened: a refused value must not leave a new, empty instance behind.
      normalizeEmail(input.email);
      validatePassword(input.password);
      if (input.plan !== undefined) parsePlan(input.plan);
      const account = await withDb(config, (db) => createAccount(db, input), { create: true });
      printRecord(account, json);
      // The default plan gives no tools: said, since the dashboard's own first account gets Autopilot.
      if (input.plan === undefined && account.plan === "none") {
        process.stderr.write(
          `spyglass: ${printable(account.email)} is on plan none (no --plan given): it signs in to the dashboard, but its brands get no tools and no tracking until "spyglass account plan --email ${printable(account.email)} --plan visibility" (or autopilot)\n`,
        );
      }
    },
  },
  "account plan": {
    usage: "spyglass account plan --email E --plan none|visibility|autopilot [--json]",
    summary: "changes an account's plan",
    options: { email: { type: "string" }, plan: { type: "string" } },
    required: ["email", "plan"],
    async run({ config, flags, json }) {
      printRecord(await withDb(config, (db) => setAccountPlan(db, need(flags, "email"), need(flags, "plan"))), json);
    },
  },
  "account password": {
    usage: "spyglass account password --email E --password P|- [--json]   (--password - reads it from stdin)",
    summary: "sets an account's password (a forgotten or leaked one), signs out its sessions and disconnects its connected apps",
    options: { email: { type: "string" }, password: { type: "string" } },
    required: ["email", "password"],
    async run({ config, flags, json }) {
      const email = need(flags, "email");
      const password = await passwordFrom(need(flags, "password"));
      const record = await withDb(config, (db) => resetAccountPassword(db, email, password));
      if (json) return printRecord(record, true);
      const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
      const keys =
        record.api_keys_active === 0
          ? ""
          : ` ${count(record.api_keys_active, "API key still works", "API keys still work")}: if the old password may have leaked, check them (spyglass key list --email ${record.email}) and revoke any you do not know (spyglass key revoke --email ${record.email} --id KEY_ID).`;
      process.stdout.write(
        `The password of ${record.email} is set; ${count(record.sessions_ended, "session", "sessions")} signed out, ${count(record.connected_apps_disconnected, "connected app", "connected apps")} disconnected.${keys}\n`,
      );
    },
  },
  "account delete": {
    usage: "spyglass account delete --email E [--yes] [--json]",
    summary:
      "deletes an account and everything of it: its brands (prompts, answers, articles, keys), sessions and connected apps; at a terminal, asks for the email typed again (--yes does not ask)",
    options: { email: { type: "string" }, yes: { type: "boolean" } },
    required: ["email"],
    async run({ config, flags, json }) {
      const email = need(flags, "email");
      const deleted = await withDb(config, async (db) => {
        const app = createAppContext(config, db);
        const account = await requireAccountByEmail(db, email);
        await confirmAtTerminal(
          flags,
          `Delete the account ${account.email} and everything of it (its brands, their prompts, answers, articles and keys, its sessions and connected apps)? There is no undo. Type the email to delete it: `,
          account.email,
        );
        return { email: account.email, ...(await deleteAccountAndBrands(app, account.id)) };
      });
      if (json) return printRecord({ deleted }, true);
      process.stdout.write(
        `Deleted the account ${deleted.email} and everything of it (${deleted.brands} ${deleted.brands === 1 ? "brand" : "brands"}).\n`,
      );
    },
  },
  "brand create": {
    usage: "spyglass brand create --email E --name N [--domain D] [--alias A]... [--json]",
    summary: "creates a brand of the account; prints its id and site key",
    options: { email: { type: "string" }, name: { type: "string" }, domain: { type: "string" }, alias: { type: "string", multiple: true } },
    required: ["email", "name"],
    async run({ config, flags, json }) {
      const brand = await withDb(
        config,
        async (db) =>
          await createBrand(db, (await requireAccountByEmail(db, need(flags, "email"))).id, {
            name: need(flags, "name"),
            domain: flags.domain,
            aliases: flags.alias,
          }),
      );
      printRecord({ id: brand.id, name: brand.name, domain: brand.domain, site_key: brand.site_key }, json);
    },
  },
  "brand delete": {
    usage: "spyglass brand delete --email E --brand ID [--yes] [--json]",
    summary:
      "deletes a brand of the account and everything of it (prompts, answers, articles, keys); --brand takes its id or its name; at a terminal, asks for the brand's name typed again (--yes does not ask)",
    options: { email: { type: "string" }, brand: { type: "string" }, yes: { type: "boolean" } },
    required: ["email", "brand"],
    async run({ config, flags, json }) {
      const deleted = await withDb(config, async (db) => {
        const app = createAppContext(config, db);
        const accountId = (await requireAccountByEmail(db, need(flags, "email"))).id;
        const brandId = await resolveBrandRef(db, need(flags, "brand"), accountId);
        const brand = await getBrand(db, brandId);
        await confirmAtTerminal(
          flags,
          `Delete the brand ${printable(brand.name)} (${brand.id}) and everything of it (its prompts, answers, articles and keys; its published articles leave its site)? There is no undo. Type its name to delete it: `,
          brand.name,
        );
        return await deleteBrand(app, accountId, brandId);
      });
      if (json) return printRecord({ deleted }, true);
      process.stdout.write(`Deleted the brand ${printable(deleted.name)} (${deleted.id}) and everything of it.\n`);
    },
  },
  "brand list": {
    usage: "spyglass brand list --email E [--json]",
    summary: "lists the account's brands (oldest first) with their ids and site keys",
    options: { email: { type: "string" } },
    required: ["email"],
    async run({ config, flags, json }) {
      const list = await withDb(config, async (db) => await listBrands(db, (await requireAccountByEmail(db, need(flags, "email"))).id));
      if (json) return printRecord({ brands: list }, true);
      if (list.length === 0)
        return void process.stdout.write('No brands yet: create one with "spyglass brand create --email E --name N".\n');
      printTable(
        ["ID", "NAME", "DOMAIN", "SITE KEY"],
        list.map((b) => [b.id, b.name, b.domain ?? "-", b.site_key]),
      );
    },
  },
  "key create": {
    usage: "spyglass key create --email E --brand ID --name N [--json]",
    summary: "creates an API key for one brand (--brand: its id or its name); prints the key once",
    options: { email: { type: "string" }, brand: { type: "string" }, name: { type: "string" } },
    required: ["email", "brand", "name"],
    async run({ config, flags, json }) {
      const created = await withDb(config, async (db) => {
        const accountId = (await requireAccountByEmail(db, need(flags, "email"))).id;
        return await createApiKey(db, accountId, {
          name: need(flags, "name"),
          brandId: await resolveBrandRef(db, need(flags, "brand"), accountId),
        });
      });
      printRecord(created, json);
    },
  },
  "key list": {
    usage: "spyglass key list --email E [--json]",
    summary: "lists the account's active API keys (newest first); the keys themselves are never shown again",
    options: { email: { type: "string" } },
    required: ["email"],
    async run({ config, flags, json }) {
      const keys = await withDb(
        config,
        async (db) => await listApiKeys(createAppContext(config, db), (await requireAccountByEmail(db, need(flags, "email"))).id),
      );
      if (json) return printRecord({ keys }, true);
      if (keys.length === 0)
        return void process.stdout.write('No active API keys: create one with "spyglass key create --email E --brand ID --name N".\n');
      printTable(
        ["ID", "NAME", "KEY", "BRAND", "CREATED", "LAST USED"],
        keys.map((k) => [k.id, k.name, `${k.key_prefix}…`, k.brand_id, k.created_at, k.last_used_at ?? "never"]),
      );
    },
  },
  "key revoke": {
    usage: "spyglass key revoke --email E --id KEY_ID [--json]",
    summary: "revokes an API key of the account (ids from spyglass key list); it stops working on the next request",
    options: { email: { type: "string" }, id: { type: "string" } },
    required: ["email", "id"],
    async run({ config, flags, json }) {
      const revoked = await withDb(config, async (db) => {
        const accountId = (await requireAccountByEmail(db, need(flags, "email"))).id;
        const keyId = need(flags, "id");
        const key = (await listApiKeys(createAppContext(config, db), accountId)).find((k) => k.id === keyId);
        // NotFound for an unknown key, one already revoked or another account's, as over HTTP.
        await revokeApiKey(db, accountId, keyId);
        return key!;
      });
      if (json) return printRecord({ revoked }, true);
      process.stdout.write(
        `Revoked API key ${revoked.id} ("${printable(revoked.name)}", ${revoked.key_prefix}…): it stops working on the very next request.\n`,
      );
    },
  },
  track: {
    usage: "spyglass track [--brand ID] [--dry-run] [--json]",
    summary:
      "asks every active prompt to every configured engine now, for every brand or one (--brand: its id or its name); --dry-run prints the requests and estimated cost per run and per month instead",
    options: { brand: { type: "string" }, "dry-run": { type: "boolean" } },
    async run({ config, flags, json }) {
      configureLog({ level: "warn" });
      // Imported here, as are the demo's seeder and PostgreSQL's modules: what a command alone uses
      // is not loaded by every start.
      const { trackCommand } = await import("./tracking/cli");
      const code = await withDb(config, async (db) =>
        trackCommand(createAppContext(config, db), {
          brandId: flags.brand === undefined ? undefined : await resolveBrandRef(db, flags.brand as string, null),
          json,
          dryRun: flags["dry-run"] === true,
        }),
      );
      if (code !== 0) process.exit(code);
    },
  },
  demo: {
    usage: "spyglass demo [--scale N] [--reset] [--json]",
    summary: "seeds a clearly labelled demo account, brand and 60 days of answers (two periods of 30 to compare)",
    options: { scale: { type: "string" }, reset: { type: "boolean" } },
    async run({ config, flags, json }) {
      const scale = flags.scale === undefined ? 1 : Number(flags.scale);
      const { demoCommand, checkDemoScale } = await import("./demo/cli");
      // Before the database is opened: a refused value must not leave a new, empty instance behind.
      checkDemoScale(scale);
      await withDb(config, (db) => demoCommand(createAppContext(config, db), { scale, reset: flags.reset === true, json }), {
        create: true,
      });
    },
  },
  backup: {
    usage: "spyglass backup FILE [--json]",
    positionals: true,
    summary: "writes a consistent copy of the database to FILE (- for standard output) while the server runs",
    options: {},
    async run({ config, positionals, json }) {
      const [file, ...extra] = positionals;
      if (!file || extra.length > 0) fail("backup: give exactly one target file\nusage: spyglass backup FILE [--json]", 2);
      // As it is: a backup taken before an upgrade must not be upgraded itself. On SQLite, by a user
      // who may only read the database too (openToCopy).
      const record =
        config.databaseUrl === null
          ? await copySqlite(join(config.dataDir, "spyglass.db"), file)
          : await withDb(config, async () => (await import("./db/pg-dump")).dumpPostgres(config.databaseUrl!, file, config.dataDir), {
              create: false,
              migrate: false,
            });
      // With the copy on standard output, what was written is said on stderr.
      if (record.file === TO_STDOUT)
        process.stderr.write(`${json ? JSON.stringify(record) : `backup: ${record.bytes} bytes written to standard output`}\n`);
      else printRecord(record, json);
    },
  },
  migrate: {
    usage: "spyglass migrate [--data DIR] [--json]",
    summary: "applies the database's pending migrations and exits (serve does it too; run it once before starting several instances)",
    options: {},
    async run({ config, json }) {
      // An existing database only: a mistyped --data must not become a new, empty instance.
      const record = await withDb(config, (db) => ({ database: db.dialect, at: db.path, migrated: true }), { create: false });
      if (json) return printRecord(record, true);
      process.stdout.write(`The ${record.database === "sqlite" ? "SQLite" : "PostgreSQL"} database at ${record.at} is up to date.\n`);
    },
  },
  "migrate-to-postgres": {
    usage: "SPYGLASS_DATABASE_URL=postgres://… spyglass migrate-to-postgres [--data DIR] [--json]",
    summary: "copies this instance's SQLite database into an empty PostgreSQL database and verifies the copy",
    options: {},
    async run({ config, json }) {
      if (config.databaseUrl === null) {
        throw new UsageError(
          "no PostgreSQL database to copy into: set SPYGLASS_DATABASE_URL (or the variable database_url_env names) to an empty database",
        );
      }
      const source = openDatabase(config.dbPath, { create: false });
      try {
        const [{ openPostgres }, { moveToPostgres }] = await Promise.all([import("./db/postgres"), import("./db/move")]);
        const target = await openPostgres(config.databaseUrl, { variable: config.databaseUrlVariable });
        try {
          const started = performance.now();
          const report = await moveToPostgres(source, target, {
            onTable: (table, rows) => {
              if (!json) process.stderr.write(`copied ${table}: ${rows} row${rows === 1 ? "" : "s"}\n`);
            },
          });
          // Marked only once the copy is verified: a copy that failed leaves SQLite in use.
          const marker = markMoved(config.dbPath, target.path);
          if (json) return printRecord({ ...report, target: target.path, marked: marker }, true);
          printTable(
            ["TABLE", "ROWS", "CHECKSUM"],
            report.tables.map((t) => [t.table, String(t.rows), t.checksum]),
          );
          process.stdout.write(
            `Copied and verified ${report.rows} rows into ${target.path} in ${((performance.now() - started) / 1000).toFixed(1)} s. Start Spyglass with SPYGLASS_DATABASE_URL set to use it; ${config.dbPath} is left as it was, and marked moved (${marker}): a command run without the URL refuses it rather than act on the old copy (delete that file to use SQLite again).\n`,
          );
        } finally {
          await target.close();
        }
      } finally {
        source.close();
      }
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
  // At a terminal, asked for without echo and ended by Enter (it echoed what was typed and waited for
  // Ctrl-D); from a pipe or a file, its first line.
  if (!process.stdin.isTTY) {
    const line = (await Bun.stdin.text()).split(/\r?\n/, 1)[0] ?? "";
    if (line === "") throw new UsageError("--password - read no password from stdin");
    return line;
  }
  const password = await typedUnseen("Password: ");
  if (password === "") throw new UsageError("--password - read no password from stdin");
  // Typed unseen, a slip would become the account's password: asked twice, as passwd does.
  if ((await typedUnseen("The same again: ")) !== password) {
    throw new Invalid("the two passwords typed differ; nothing was changed: run the command again", "password_mismatch");
  }
  return password;
}

/**
 * A deletion with no undo, asked at a terminal: `expected` typed again (a brand's name, an account's
 * email; case and surrounding spaces aside) goes on, anything else stops the command with nothing
 * deleted. Scripts (no terminal on stdin or stderr) and --yes are not asked.
 */
async function confirmAtTerminal(flags: Flags, question: string, expected: string): Promise<void> {
  if (flags.yes || !process.stdin.isTTY || !process.stderr.isTTY) return;
  process.stderr.write(question);
  const { createInterface } = await import("node:readline");
  const reader = createInterface({ input: process.stdin, terminal: false });
  const typed = await new Promise<string | null>((resolve) => {
    reader.once("line", (line) => resolve(line));
    reader.once("close", () => resolve(null));
  });
  reader.close();
  if (typed === null || typed.trim().toLowerCase() !== expected.trim().toLowerCase()) {
    throw new Invalid(
      `not confirmed (${typed === null ? "nothing was typed" : "what was typed differs"}): nothing was deleted`,
      "not_confirmed",
    );
  }
}

/** A line typed at the terminal without echo, as passwd asks (the prompt on stderr); Ctrl-C exits 130. */
function typedUnseen(prompt: string): Promise<string> {
  const stdin = process.stdin;
  // Echo off before the prompt: what is typed (or pasted) the moment the prompt shows is not echoed
  // (fresh-clone CI typed on seeing "Password: ", and the terminal echoed it: the prompt came first).
  stdin.setRawMode(true);
  process.stderr.write(prompt);
  stdin.resume();
  return new Promise((resolve) => {
    let typed = "";
    const finish = (line: string | null) => {
      stdin.off("data", take);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
      if (line === null) process.exit(130);
      resolve(line);
    };
    const take = (chunk: Buffer) => {
      for (const char of chunk.toString("utf8")) {
        if (char === "\r" || char === "\n") return finish(typed);
        if (char === "\u0003") return finish(null);
        if (char === "\u0004" && typed === "") return finish("");
        if (char === "\u007f" || char === "\b") typed = Array.from(typed).slice(0, -1).join("");
        else if (char >= " ") typed += char;
      }
    };
    stdin.on("data", take);
  });
}

/**
 * The exact sanitizer that guards published articles (in the renderer's worker) must stop every
 * known attack. Its self-test runs once the server is answering (loading jsdom and running it takes
 * most of a second): content writes render through the worker, so they wait behind it, and a worker
 * whose self-test failed renders nothing, so nothing it would have rendered is ever stored. On a
 * failure, of this start-up test or of any later worker's, the server logs why and exits 1. Once it
 * has passed, articles rendered by an older build are rendered again, and the worker is stopped until
 * the first article is saved (no jsdom in an idle server).
 */
function checkSanitizer(app: AppContext): void {
  const renderer = articleRenderer();
  const refuse = (reason: string) => {
    log.error("stopping: the article sanitizer failed its self-test", { reason });
    fail(`refusing to serve: ${reason}`);
  };
  renderer.onSelfTestFailed(refuse);
  // A moment after listening, so that jsdom's load does not compete with the first answers for the
  // CPU; a save that comes first starts the worker (and its self-test) itself.
  setTimeout(() => {
    void renderer.selfTest().then((result) => {
      if (!result.ok) return refuse(result.reason);
      // Articles an older build's renderer made are rendered again (rerender.ts); then the worker stops.
      return rerenderStaleArticles(app, () => stopping)
        .catch((error: Error) => {
          // A stop closes the database under it: the next start goes on.
          if (!stopping) log.error("rendering articles again failed", { message: error.message });
        })
        .finally(() => renderer.stopWhenIdle());
    });
  }, SELF_TEST_AFTER_MS);
}

const SELF_TEST_AFTER_MS = 100;
/** Set when `serve` begins to stop: work it started in the background ends quietly. */
let stopping = false;
/** After the start's own tasks: the server's warm-up (500 ms) and, on most machines, the sanitizer's self-test. */
const FIRST_ROLLOVER_CHECK_MS = 3_000;

/** The options of any command that take no value (--json, --dry-run…), and their short forms. */
const FLAGS = new Set(
  Object.values(COMMANDS).flatMap((command) =>
    Object.entries({ ...COMMON, ...command.options }).flatMap(([name, shape]) =>
      shape.type === "boolean" ? [name, ...("short" in shape && shape.short ? [shape.short] : [])] : [],
    ),
  ),
);

/** The command named among `args` after options (`--data DIR account create`), or null. */
function misplacedCommand(args: readonly string[]): string | null {
  for (const [i, word] of args.entries()) {
    if (word.startsWith("-")) continue;
    // An option's value (`--data demo`), not a command; a flag (`--json`) takes none.
    const before = args[i - 1];
    if (before?.startsWith("-") && !before.includes("=") && !FLAGS.has(before.replace(/^--?/, ""))) continue;
    const two = `${word} ${args[i + 1]}`;
    if (COMMANDS[two]) return two;
    if (COMMANDS[word] && word !== "serve") return word;
  }
  return null;
}

function fail(message: string, code = 1): never {
  process.stderr.write(`spyglass: ${message}\n`);
  process.exit(code);
}

/** How long `serve` waits at start for a PostgreSQL it cannot reach, and between its tries. */
const POSTGRES_START_WAIT_MS = 60_000;
const POSTGRES_RETRY_MS = 2_000;

/**
 * The configured database for `serve`: a PostgreSQL that cannot be reached yet (started with the
 * machine or a compose file after Spyglass, or restarting) is tried again for a minute, said once in
 * the log, before the server gives up (exit 1). It exited at once, and five failed starts in ten
 * seconds made systemd give up on the unit (the PostgreSQL walk). A refused login is not waited for.
 */
async function openWaitingForPostgres(config: Config): Promise<Db> {
  const deadline = Date.now() + POSTGRES_START_WAIT_MS;
  for (let tries = 1; ; tries++) {
    try {
      return await openConfiguredDatabase(config);
    } catch (error) {
      if ((error as { code?: string }).code !== "database_unreachable" || Date.now() + POSTGRES_RETRY_MS > deadline) throw error;
      if (tries === 1) {
        log.warn("waiting for PostgreSQL", {
          reason: (error as Error).message,
          retry_ms: POSTGRES_RETRY_MS,
          gives_up_after_ms: POSTGRES_START_WAIT_MS,
        });
      }
      await Bun.sleep(POSTGRES_RETRY_MS);
    }
  }
}

/** `spyglass backup` of an SQLite database: a copy of it at `target`, the database opened as openToCopy does. */
async function copySqlite(path: string, target: string): Promise<{ file: string; bytes: number }> {
  // A nightly backup of a database moved to PostgreSQL copied the old file, without a word.
  refuseMovedDatabase(path);
  const source = openToCopy(path);
  try {
    return await backupDatabase(source, target);
  } finally {
    source.close();
  }
}

/**
 * Opens the database for one command and closes it once the command (sync or async) is done. Only
 * commands that start an instance (`create: true`) may create a database where there is none.
 */
async function withDb<T>(config: Config, fn: (db: Db) => T | Promise<T>, options: OpenOptions = { create: false }): Promise<T> {
  const db = await openConfiguredDatabase(config, config.dataDir, options);
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** Left-aligned columns for a person at a terminal; --json is for programs. */
function printTable(header: string[], rows: string[][]): void {
  rows = rows.map((row) => row.map(printable));
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!))).join("  ");
  process.stdout.write(`${[header, ...rows].map(line).join("\n")}\n`);
}

function printRecord(record: unknown, json: boolean): void {
  if (json) {
    process.stdout.write(`${JSON.stringify(record)}\n`);
    return;
  }
  process.stdout.write(`${JSON.stringify(record, null, 2)}\n`);
}

/** The commands named `prefix` or starting with it ("account" → account create, account plan). */
function commandsUnder(prefix: string): string[] {
  return Object.keys(COMMANDS).filter((name) => name === prefix || name.startsWith(`${prefix} `));
}

function usageList(names: string[]): string {
  return names.map((name) => `  ${COMMANDS[name]!.usage}`).join("\n");
}

function overview(): string {
  const commands = Object.entries(COMMANDS).map(([, c]) => `  ${c.usage}\n      ${c.summary}`);
  return [
    `Spyglass ${VERSION}: a self-hosted AI brand-visibility server in one executable.`,
    "",
    "usage:",
    ...commands,
    "  spyglass help COMMAND\n      prints one command's usage (also: spyglass COMMAND --help)",
    "  spyglass --version\n      prints the version",
    "",
    "Every command takes --data DIR (default ./data, env SPYGLASS_DATA) and --config FILE (default",
    "DIR/spyglass.toml, env SPYGLASS_CONFIG). With no command, spyglass serves.",
    "",
  ].join("\n");
}

/** `spyglass help [COMMAND]`: the overview, one command's usage, or a group's ("help account"). */
function help(topic: string[]): void {
  // The topic is the words before any option ("help key --data X" is help on key).
  const end = topic.findIndex((word) => word.startsWith("-"));
  const name = (end < 0 ? topic : topic.slice(0, end)).join(" ");
  if (name === "" || name === "help") return void process.stdout.write(overview());
  const command = COMMANDS[name];
  if (command) return void process.stdout.write(`usage: ${command.usage}\n${command.summary}\n`);
  const group = commandsUnder(name);
  if (group.length === 0) fail(`unknown command "${name}"; run "spyglass help" for the list`, 2);
  process.stdout.write(`usage:\n${usageList(group)}\n`);
}

async function main(argv: string[]): Promise<void> {
  const words: string[] = [];
  let rest = argv;
  const first = argv[0];
  if (first === "--version") {
    process.stdout.write(`spyglass ${VERSION} (build ${BUILD})\n`);
    return;
  }
  if (first === "help" || first === "--help" || first === "-h") return help(argv.slice(1));
  // Two-word commands ("account create") first, then one-word ones ("serve"); none means serve.
  if (first && argv[1] && COMMANDS[`${first} ${argv[1]}`]) {
    words.push(first, argv[1]);
    rest = argv.slice(2);
  } else if (first && COMMANDS[first]) {
    words.push(first);
    rest = argv.slice(1);
  } else if (first === undefined || first.startsWith("-")) {
    words.push("serve");
  } else if (commandsUnder(first).length > 0) {
    // A group's word alone ("spyglass account") or with a subcommand that does not exist.
    const group = usageList(commandsUnder(first));
    const second = argv[1];
    if (second === "--help" || second === "-h") return help([first]);
    if (second === undefined || second.startsWith("-")) fail(`${first}: give a command\nusage:\n${group}`, 2);
    fail(`unknown command "${first} ${second}"; run "spyglass help" for the list\nusage:\n${group}`, 2);
  } else {
    fail(`unknown command "${first}"; run "spyglass help" for the list`, 2);
  }
  const name = words.join(" ");
  const command = COMMANDS[name]!;
  // `serve` puts them back once it has warmed up (server.ts).
  if (name !== "serve") jitAtUsualThresholds();
  const options = { ...COMMON, ...command.options };
  let parsed: { values: Flags; positionals: string[] };
  try {
    const { values, positionals, tokens } = parseArgs({ args: rest, options, allowPositionals: true, strict: true, tokens: true });
    parsed = { values, positionals };
    // node:util keeps the last of an option given twice: "track --brand A --brand B" tracked B alone.
    // What a command acts on (a brand, an email, a name) is refused twice; where and how it runs
    // (--data, --config, --host, --port) keeps the last, so that a wrapper's defaults can be overridden.
    const given = tokens.filter((t) => t.kind === "option").map((t) => t.name);
    // A flag given twice (--dry-run --dry-run) says the same thing twice: no harm.
    const shapes = options as Record<string, { type: string; multiple?: boolean }>;
    const twice = given.find(
      (option, i) =>
        given.indexOf(option) !== i && !OVERRIDABLE.has(option) && shapes[option]?.type === "string" && !shapes[option]?.multiple,
    );
    if (twice !== undefined) fail(`${name}: --${twice} is given more than once; it takes one value\nusage: ${command.usage}`, 2);
  } catch (error) {
    // node:util's sentence for an unknown option goes on about positional arguments: a typo is likelier.
    const message = (error as Error).message;
    const unknown = /^Unknown option '([^']+)'/.exec(message)?.[1];
    // "Option '--name <value>' argument missing", "Option '--name' argument is ambiguous" (a value that starts with -).
    const valueless = /^Option '(--?[\w-]+)[^']*' argument (missing|is ambiguous)/.exec(message)?.[1];
    // "spyglass --data DIR account create --email E": the options came before the command.
    const misplaced = name === "serve" ? misplacedCommand(rest) : null;
    const why = misplaced
      ? `${unknown ? `unknown option ${unknown}` : message.split("\n")[0]}: the command comes first, then its options ("spyglass ${misplaced} [options]")`
      : unknown
        ? `unknown option ${unknown}`
        : valueless
          ? `${valueless} needs a value (one that starts with "-" is given as ${valueless}=VALUE)`
          : message.split("\n")[0];
    fail(`${name}: ${why}\nusage: ${command.usage}`, 2);
  }
  if (parsed.values.help) {
    process.stdout.write(`usage: ${command.usage}\n${command.summary}\n`);
    return;
  }
  // "spyglass --data DIR brand list" would otherwise start a server: the command comes first.
  const extra = parsed.positionals[0];
  if (extra !== undefined && !command.positionals) {
    const misplaced = name === "serve" ? misplacedCommand(rest) : null;
    const hint = misplaced ? `: "spyglass ${misplaced} [options]"` : "";
    fail(`${name}: unexpected argument "${extra}" (the command comes first, then its options${hint})\nusage: ${command.usage}`, 2);
  }
  for (const option of command.required ?? []) {
    const value = parsed.values[option];
    if (value === "") fail(`${name}: --${option} is given an empty value\nusage: ${command.usage}`, 2);
    if (typeof value !== "string") fail(`${name}: --${option} is required\nusage: ${command.usage}`, 2);
  }
  // An empty --brand would be looked up as a name; an empty --data or --config would quietly mean the
  // working directory (a script's unset variable).
  for (const option of ["brand", "data", "config"]) {
    if (parsed.values[option] === "") fail(`${name}: --${option} is given an empty value\nusage: ${command.usage}`, 2);
  }
  // Only serve's stdout is a log; every other command's is its output.
  if (name !== "serve") configureLog({ stderr: true });
  try {
    const config = loadConfig({
      listens: name === "serve",
      flags: {
        data: parsed.values.data as string | undefined,
        config: parsed.values.config as string | undefined,
        host: parsed.values.host as string | undefined,
        port: parsed.values.port as string | undefined,
      },
      env: process.env,
    });
    await command.run({ config, flags: parsed.values, positionals: parsed.positionals, json: parsed.values.json === true });
    // A command's output that could not be written (a full disk, > /dev/full) is a failure: it was
    // exit 0, and a created key's only copy lost without a word.
    const lost = name === "serve" ? null : await stdoutFailure();
    if (lost !== null) {
      const key = name === "key create" ? " The key was created all the same: spyglass key list shows it, to revoke it." : "";
      fail(`${name}: its output could not be written to stdout (${lost}).${key}`);
    }
  } catch (error) {
    const usage = error instanceof UsageError ? error.message : badOptionValue(error, parsed.values);
    if (usage !== null) fail(`${name}: ${usage}\nusage: ${command.usage}`, 2);
    // --brand takes a brand's id or its name: the sentence names the account searched.
    const brand = parsed.values.brand;
    if (error instanceof AppError && error.code === "brand_not_found" && typeof brand === "string") {
      const whose = typeof parsed.values.email === "string" ? `no brand of ${parsed.values.email}` : "no brand";
      fail(`${whose} has the id or name "${brand}": "spyglass brand list --email E" lists an account's brands with their ids and names.`);
    }
    throw error;
  }
}

// The services' field names that the CLI takes as options of another name.
const OPTION_OF_FIELD: Record<string, string> = { aliases: "alias" };

/**
 * The sentence of an error that refuses the value of an option given on the command line (`--plan
 * gold`, `--port abc`, a short `--password`), with the option named as typed; null for any other
 * error. Those are usage errors (exit 2, with the usage), as an unknown or missing option is; an
 * error about the stored data (an unknown email, a brand without engines) stays a failure (exit 1).
 */
function badOptionValue(error: unknown, flags: Flags): string | null {
  if (!(error instanceof Invalid || error instanceof ConfigError)) return null;
  const field = /^(?:--)?([a-z_]+)(?=:| )/.exec(error.message)?.[1];
  if (field === undefined) return null;
  const option = OPTION_OF_FIELD[field] ?? field;
  if (flags[option] === undefined) return null;
  const rest = error.message.slice(error.message.indexOf(field) + field.length);
  return `--${option}${rest}`;
}

/** The line a command's failure ends the process with (after "spyglass: "). */
export function cliFailure(error: unknown): string {
  if (error instanceof ConfigError || error instanceof AppError) return error.message;
  // Damage found past opening (a page of the file): what to do, not only SQLite's words.
  if ((error as { code?: string })?.code?.startsWith("SQLITE_CORRUPT")) {
    return `the database is damaged (SQLite says: ${(error as Error).message}): stop every Spyglass using it and restore it from a backup (README: Backup and restore).`;
  }
  // A full disk (or one failing): what to do, as the server's 503 says it, not "unexpected error".
  if (isStorageFailure(error)) {
    return `the command could not write: ${STORAGE_PROBLEM} (${(error as Error).message}); the write that failed was not kept: free space where the database is (the data directory, or PostgreSQL's volume) and run it again`;
  }
  // A stored value that is no JSON: a file put together from two databases (a backup copied over
  // spyglass.db beside the old one's -wal, as the self-hoster walk did), not the command's fault.
  if (error instanceof SyntaxError && /JSON/i.test(error.message)) {
    return `a value stored in the database could not be read (${error.message}): the database may be damaged, as when a backup is copied over spyglass.db while an older spyglass.db-wal is beside it. Stop every Spyglass using it and restore a backup, removing spyglass.db-wal and spyglass.db-shm first (README: Backup and restore).`;
  }
  return `unexpected error: ${(error as Error)?.message ?? String(error)}`;
}

/** Runs the command `argv` names; the process exits when it is done (or serves until stopped). */
export function runCli(argv: string[]): void {
  main(argv).catch((error: unknown) => fail(cliFailure(error)));
}

if (import.meta.main) runCli(process.argv.slice(2));
