// The foundation as a self-hoster meets it: the compiled binary alone in an empty directory.

import { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { baseEnv, SANDBOX_DATABASE, type Sandbox, type ServerProcess, sandbox } from "../support/binary";
import { freshPostgresUrl } from "../support/postgres";

const EMAIL = "owner@example.com";
const PASSWORD = "a long enough password";

// Child processes on a busy machine need more than the 5 s default.
setDefaultTimeout(30_000);

let box: Sandbox;
let server: ServerProcess;
let cookie = "";
let brandId = "";

beforeAll(async () => {
  box = await sandbox();
});
afterAll(() => box?.cleanup());

describe("dist/spyglass end to end", () => {
  test("the CLI creates an account, sets its plan and creates a brand in ./data (or in PostgreSQL when a database URL is set)", async () => {
    const account = await box.cliJson(["account", "create", "--email", EMAIL, "--password", PASSWORD]);
    expect(account).toEqual({ id: expect.stringMatching(/^acc_/), email: EMAIL, plan: "none" });
    expect(existsSync(join(box.dataDir, "spyglass.db"))).toBe(box.database === "sqlite");
    expect((await box.cliJson(["account", "plan", "--email", EMAIL, "--plan", "visibility"])).plan).toBe("visibility");
    const brand = await box.cliJson([
      "brand",
      "create",
      "--email",
      EMAIL,
      "--name",
      "Acme",
      "--domain",
      "https://www.acme.com/",
      "--alias",
      "Acme Inc",
    ]);
    expect(brand).toEqual({
      id: expect.stringMatching(/^brd_/),
      name: "Acme",
      domain: "acme.com",
      site_key: expect.stringMatching(/^pk_[0-9a-f]{32}$/),
    });
    brandId = brand.id;
  });

  test("CLI errors are one line on stderr and a non-zero exit", async () => {
    const dup = await box.cli(["account", "create", "--email", EMAIL, "--password", PASSWORD]);
    expect(dup.code).not.toBe(0);
    expect(dup.stderr.trim().split("\n")).toHaveLength(1);
    expect(dup.stderr).toContain("already exists");
    const missing = await box.cli(["brand", "create", "--email", EMAIL]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("--name is required");
    const unknown = await box.cli(["key", "create", "--email", "nobody@example.com", "--brand", brandId, "--name", "x"]);
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("No account has the email nobody@example.com");
    // An option that takes one value, given twice, is refused (node:util kept the last: one brand of two tracked).
    const twice = await box.cli(["track", "--brand", brandId, "--brand", "brd_other", "--dry-run"]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toStartWith("spyglass: track: --brand is given more than once; it takes one value\nusage: spyglass track");
    // --brand takes an id or a name (any case); one that is neither is told so.
    const byName = await box.cli(["track", "--brand", "acme", "--dry-run", "--json"]);
    expect(byName.code).toBe(0);
    expect((JSON.parse(byName.stdout) as Array<{ brand_id: string }>).map((b) => b.brand_id)).toEqual([brandId]);
    const noSuchBrand = await box.cli(["track", "--brand", "Acme Inc", "--dry-run"]);
    expect(noSuchBrand.code).toBe(1);
    expect(noSuchBrand.stderr).toBe(
      'spyglass: no brand has the id or name "Acme Inc": "spyglass brand list --email E" lists an account\'s brands with their ids and names.\n',
    );
    const other = await box.cli(["account", "create", "--email", "other@example.com", "--password", PASSWORD]);
    expect(other.code).toBe(0);
    // Plan none by default, which gives no tools: said on stderr (stdout stays the record), with the way out.
    expect(other.stderr).toBe(
      'spyglass: other@example.com is on plan none (no --plan given): it signs in to the dashboard, but its brands get no tools and no tracking until "spyglass account plan --email other@example.com --plan visibility" (or autopilot)\n',
    );
    const named = await box.cli(["account", "create", "--email", "third@example.com", "--password", PASSWORD, "--plan", "none"]);
    expect([named.code, named.stderr]).toEqual([0, ""]);
    expect((await box.cli(["account", "delete", "--email", "third@example.com"])).code).toBe(0);
    const notTheirs = await box.cli(["key", "create", "--email", "other@example.com", "--brand", "Acme", "--name", "x"]);
    expect(notTheirs.stderr).toContain('no brand of other@example.com has the id or name "Acme"');
    expect((await box.cli(["account", "delete", "--email", "other@example.com"])).code).toBe(0);
    // A required option missing is a usage error before anything is looked up (it was "No account
    // has the email…", exit 1); an empty --brand or --data is refused, not taken as a name or as the
    // working directory; an empty SPYGLASS_DATA is the default directory.
    const noId = await box.cli(["key", "revoke", "--email", "nobody@example.com"]);
    expect(noId).toEqual({
      code: 2,
      stdout: "",
      stderr: "spyglass: key revoke: --id is required\nusage: spyglass key revoke --email E --id KEY_ID [--json]\n",
    });
    expect((await box.cli(["track", "--brand", "", "--dry-run"])).stderr).toStartWith("spyglass: track: --brand is given an empty value\n");
    // A required option given empty says so (it was "--password is required", after it was given).
    expect(await box.cli(["account", "create", "--email", "x@example.com", "--password", ""])).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^spyglass: account create: --password is given an empty value\n/),
    });
    const emptyData = await box.cli(["brand", "list", "--email", EMAIL, "--data", ""]);
    expect({ code: emptyData.code, stderr: emptyData.stderr.split("\n")[0] }).toEqual({
      code: 2,
      stderr: "spyglass: brand list: --data is given an empty value",
    });
    const unsetData = await box.cli(["brand", "list", "--email", EMAIL, "--json"], { env: { SPYGLASS_DATA: "" } });
    expect(JSON.parse(unsetData.stdout).brands.map((b: { id: string }) => b.id)).toEqual([brandId]);
    if (SANDBOX_DATABASE === "sqlite") {
      // --data naming a file is said to be no directory (it was an "unexpected error: EEXIST … mkdir").
      writeFileSync(join(box.dir, "not-a-dir"), "");
      const fileData = await box.cli(["brand", "list", "--email", EMAIL, "--data", "not-a-dir"]);
      expect({ code: fileData.code, stderr: fileData.stderr }).toEqual({
        code: 1,
        stderr: `spyglass: The data directory ${join(box.dir, "not-a-dir")} is not a directory (ENOTDIR): --data (or SPYGLASS_DATA) names a directory, which is created if missing.\n`,
      });
    }
    // A name's control characters are shown, not obeyed, on a terminal (ESC cleared the screen).
    const evil = await box.cliJson<{ id: string }>(["brand", "create", "--email", EMAIL, "--name", "Evil\u001b[2J\nCo"]);
    const table = await box.cli(["brand", "list", "--email", EMAIL]);
    // (The line break became a space when the name was cleaned on the way in.)
    expect(table.stdout).toContain(`${evil.id}  Evil\uFFFD[2J Co  -`);
    expect(table.stdout).not.toContain("\u001b");
    expect((await box.cli(["brand", "delete", "--email", EMAIL, "--brand", evil.id])).stdout).toBe(
      `Deleted the brand Evil\uFFFD[2J Co (${evil.id}) and everything of it.\n`,
    );
    // A mistyped option is named as such, with the command's usage (not node:util's advice on positional arguments).
    const typo = await box.cli(["account", "create", "--emial", EMAIL]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toStartWith("spyglass: account create: unknown option --emial\nusage: spyglass account create --email E");
    // An option without its value is named, with how to give a value that starts with "-".
    const valueless = await box.cli(["brand", "create", "--email", EMAIL, "--name", "--json"]);
    expect(valueless.code).toBe(2);
    expect(valueless.stderr).toStartWith(
      'spyglass: brand create: --name needs a value (one that starts with "-" is given as --name=VALUE)\n',
    );
    // A refused value leaves nothing behind: no data directory, no empty database.
    const nowhere = await box.cli(["account", "create", "--email", "new@example.com", "--password", "short", "--data", "fresh-dir"]);
    expect(nowhere.code).toBe(2);
    expect(existsSync(join(box.dir, "fresh-dir"))).toBe(false);
    // help help is the overview; a command's -h says what it does too; migrate-to-postgres without a
    // URL says what is missing (it began "migrate-to-postgres: migrate-to-postgres copies…").
    expect((await box.cli(["help", "help"])).stdout).toBe((await box.cli(["help"])).stdout);
    expect((await box.cli(["key", "revoke", "-h"])).stdout).toBe((await box.cli(["help", "key", "revoke"])).stdout);
    const noUrl = await box.cli(["migrate-to-postgres"], { env: { SPYGLASS_DATABASE_URL: "" } });
    expect(noUrl.stderr).toStartWith(
      "spyglass: migrate-to-postgres: no PostgreSQL database to copy into: set SPYGLASS_DATABASE_URL (or the variable database_url_env names) to an empty database\n",
    );
    // PORT in the environment (a platform's, for another program) concerns serve alone.
    const otherPort = await box.cli(["brand", "list", "--email", EMAIL, "--json"], { env: { PORT: "abc" } });
    expect(otherPort.code).toBe(0);
    expect((await box.cli(["serve", "--data", "fresh-serve"], { env: { PORT: "abc" } })).stderr).toContain(
      'PORT: "abc" is not a port number',
    );
    const badScale = await box.cli(["demo", "--scale", "abc", "--data", "fresh-demo"]);
    expect(badScale.code).toBe(2);
    expect(badScale.stderr).toStartWith("spyglass: demo: --scale must be a whole number from 1 to 500.\nusage: spyglass demo");
    expect(existsSync(join(box.dir, "fresh-demo"))).toBe(false);
    // help takes its topic before any option.
    const help = await box.cli(["help", "account", "create", "--data", "elsewhere"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toStartWith("usage: spyglass account create --email E");
    // An option's value that is refused is a usage error too (exit 2, the option named as typed), and
    // changes nothing; an error about the stored data (an unknown email) stays exit 1.
    const plan = await box.cli(["account", "plan", "--email", EMAIL, "--plan", "gold"]);
    expect(plan.code).toBe(2);
    expect(plan.stderr).toStartWith(
      "spyglass: account plan: --plan: must be one of none, visibility, autopilot.\nusage: spyglass account plan",
    );
    const port = await box.cli(["serve", "--port", "abc"]);
    expect(port.code).toBe(2);
    expect(port.stderr).toStartWith('spyglass: serve: --port: "abc" is not a port number (0-65535)\nusage: spyglass serve');
    const alias = await box.cli(["brand", "create", "--email", EMAIL, "--name", "Other", "--alias", "ab"]);
    expect(alias.code).toBe(2);
    expect(alias.stderr).toStartWith('spyglass: brand create: --alias: "ab" must be');
    expect(unknown.code).toBe(1);
    const { brands } = JSON.parse((await box.cli(["brand", "list", "--email", EMAIL, "--json"])).stdout);
    expect(brands.map((b: { name: string }) => b.name)).toEqual(["Acme"]);
  });

  test("a server that cannot listen says why and which setting to change, in one line, and exits 1", async () => {
    // A port taken on the loopback address (another program's), and an address that is not this machine's.
    const taken = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("someone else") });
    try {
      // Refused before the database is opened: a second serve by mistake (an upgrade's new binary
      // beside the running old one) neither creates nor migrates one.
      const untouched = join(box.dir, "second-data");
      const busy = await box.cli(["serve", "--host", "127.0.0.1", "--port", String(taken.port), "--data", untouched]);
      expect(busy.code).toBe(1);
      expect(busy.stderr).toBe(
        `spyglass: cannot listen on 127.0.0.1:${taken.port}: the port is in use by another program (another spyglass serve?). Choose another with --port or the PORT variable.\n`,
      );
      expect(existsSync(untouched)).toBe(false);
    } finally {
      taken.stop(true);
    }
    const elsewhere = await box.cli(["serve", "--host", "192.0.2.1", "--port", "0"]);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toStartWith(
      'spyglass: cannot listen on 192.0.2.1:0: "192.0.2.1" is not an address of this machine. Set --host',
    );
    expect(elsewhere.stderr).not.toContain("unexpected error");
  });

  test("the server starts on a free loopback port and a session signs in over HTTP", async () => {
    server = await box.serve();
    const login = await fetch(`${server.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: EMAIL, password: PASSWORD }),
    });
    expect(login.status).toBe(200);
    expect(await login.json()).toEqual({ account: { id: expect.any(String), email: EMAIL, plan: "visibility" } });
    cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    const brands = await (await fetch(`${server.url}/api/brands`, { headers: { cookie } })).json();
    expect(brands.brands.map((b: { id: string }) => b.id)).toEqual([brandId]);
  });

  test("keys are created, listed and revoked over HTTP; the CLI creates keys too", async () => {
    const json = { "content-type": "application/json", cookie };
    const created = await fetch(`${server.url}/api/mcp/keys`, { method: "POST", headers: json, body: JSON.stringify({ name: "laptop" }) });
    expect(created.status).toBe(201);
    const { key, plaintext } = await created.json();
    expect(key.brand_id).toBe(brandId);
    expect(plaintext).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);

    const fromCli = await box.cliJson(["key", "create", "--email", EMAIL, "--brand", brandId, "--name", "ci"]);
    expect(fromCli.plaintext).toMatch(/^svc_live_/);
    expect(fromCli.key.brand_id).toBe(brandId);

    const list = await (await fetch(`${server.url}/api/mcp/keys`, { headers: { cookie } })).json();
    expect(list.keys.map((k: { name: string }) => k.name)).toEqual(["ci", "laptop"]);

    const revoked = await fetch(`${server.url}/api/mcp/keys/${key.id}`, { method: "DELETE", headers: { cookie } });
    expect(revoked.status).toBe(204);
    const after = await (await fetch(`${server.url}/api/mcp/keys`, { headers: { cookie } })).json();
    expect(after.keys.map((k: { name: string }) => k.name)).toEqual(["ci"]);

    // The plaintext never reached the server's logs.
    expect(server.logs()).not.toContain(plaintext);
    expect(server.logs()).not.toContain(PASSWORD);
  });

  test("a bearer key is not a dashboard credential and cross-site writes are refused", async () => {
    const fromCli = await box.cliJson(["key", "create", "--email", EMAIL, "--brand", brandId, "--name", "bearer"]);
    const bearer = await fetch(`${server.url}/api/mcp/keys`, { headers: { authorization: `Bearer ${fromCli.plaintext}` } });
    expect(bearer.status).toBe(401);
    const cross = await fetch(`${server.url}/api/mcp/keys`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie, origin: "https://evil.example" },
      body: JSON.stringify({ name: "x" }),
    });
    expect(cross.status).toBe(403);
  });

  test.if(SANDBOX_DATABASE === "sqlite")("backup while serving is a consistent SQLite copy; it refuses to overwrite", async () => {
    const result = await box.cliJson(["backup", "backup.db"]);
    expect(result.file).toBe(join(box.dir, "backup.db"));
    const copy = new Database(result.file, { readonly: true });
    expect(copy.query("SELECT email, plan FROM accounts").all()).toEqual([{ email: EMAIL, plan: "visibility" }]);
    expect((copy.query("SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL").get() as { n: number }).n).toBe(2);
    copy.close();
    const again = await box.cli(["backup", "backup.db"]);
    expect(again.code).not.toBe(0);
    expect(again.stderr).toContain("already exists");
    // A directory is said to be one, with a file name to give instead.
    const toDir = await box.cli(["backup", box.dataDir]);
    expect({ code: toDir.code, stderr: toDir.stderr }).toEqual({
      code: 1,
      stderr: `spyglass: ${box.dataDir} is a directory; give the backup's file name (such as ${box.dataDir}/spyglass-backup.db).\n`,
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });

  /** `spyglass backup -` with its standard output read whole. */
  async function backupToStdout(): Promise<{ code: number; stdout: Uint8Array; stderr: string }> {
    const proc = Bun.spawn([box.binary, "backup", "-"], {
      cwd: box.dir,
      stdout: "pipe",
      stderr: "pipe",
      env: baseEnv(box.databaseUrl ? { SPYGLASS_DATABASE_URL: box.databaseUrl } : {}),
    });
    const [stdout, stderr, code] = await Promise.all([
      new Response(proc.stdout).arrayBuffer(),
      new Response(proc.stderr).text(),
      proc.exited,
    ]);
    return { code, stdout: new Uint8Array(stdout), stderr };
  }

  test.if(SANDBOX_DATABASE === "sqlite")(
    "backup - writes the copy to standard output; a reader that stops early, a terminal or /dev/null gets no copy and exit 1",
    async () => {
      // A copy a killed backup left (an hour untouched) goes; one another backup is making stays.
      const stale = join(box.dataDir, "backup-to-stdout-11111111-1111-4111-8111-111111111111.partial");
      const current = join(box.dataDir, "backup-to-stdout-22222222-2222-4222-8222-222222222222.partial");
      writeFileSync(stale, "left by a killed backup");
      utimesSync(stale, new Date(Date.now() - 2 * 3_600_000), new Date(Date.now() - 2 * 3_600_000));
      writeFileSync(current, "being written");
      const whole = await backupToStdout();
      expect(readdirSync(box.dataDir).filter((name) => name.includes("backup"))).toEqual([basename(current)]);
      rmSync(current);
      expect({ code: whole.code, stderr: whole.stderr }).toEqual({
        code: 0,
        stderr: `backup: ${whole.stdout.length} bytes written to standard output\n`,
      });
      const file = join(box.dir, "from-stdout.db");
      writeFileSync(file, whole.stdout);
      const copy = new Database(file, { readonly: true });
      expect(copy.query("SELECT email, plan FROM accounts").all()).toEqual([{ email: EMAIL, plan: "visibility" }]);
      copy.close();
      // `| head -c 100` (the copy is several times the pipe's 64 KiB): what came out is no backup, and the command says so.
      expect(whole.stdout.length).toBeGreaterThan(200_000);
      const headed = Bun.spawnSync(
        [
          "bash",
          "-c",
          `{ ${box.binary} backup - --data ${box.dataDir} 2>&3 | head -c 100 >/dev/null; code=\${PIPESTATUS[0]}; } 3>&1; exit $code`,
        ],
        { env: baseEnv() },
      );
      expect({ code: headed.exitCode, said: headed.stdout.toString() }).toEqual({
        code: 1,
        said: "spyglass: backup -: standard output failed (EPIPE) before the end of the copy: what was written is no usable backup.\n",
      });
      // At a terminal (util-linux's script), nothing is written to it.
      const tty = Bun.spawnSync(["script", "-qec", `${box.binary} backup - --data ${box.dataDir}`, "/dev/null"], { env: baseEnv() });
      expect(tty.exitCode).toBe(1);
      expect(tty.stdout.toString()).toContain("backup -: standard output is a terminal");
      expect(tty.stdout.length).toBeLessThan(1_000);
      // To /dev/null, or with standard output closed (Bun opens /dev/null in its place), the copy would
      // be lost: refused before it is made (it said "… bytes written to standard output" and exited 0).
      for (const redirect of ["> /dev/null", ">&-"]) {
        const lost = Bun.spawnSync(["bash", "-c", `${box.binary} backup - --data ${box.dataDir} ${redirect}`], { env: baseEnv() });
        expect({ redirect, code: lost.exitCode, said: lost.stderr.toString() }).toEqual({
          redirect,
          code: 1,
          said: "spyglass: backup -: standard output is /dev/null (or was closed, which the runtime makes /dev/null), where the copy would be lost: redirect it to a file or a program (spyglass backup - > FILE).\n",
        });
      }
      // The copies made on the way were removed from the data directory.
      expect(readdirSync(box.dataDir).filter((name) => name.includes("backup"))).toEqual([]);
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    },
  );

  // On PostgreSQL, backup is pg_dump's custom format: restored with the command it prints, into an
  // empty database, it holds what the instance stored.
  test.if(SANDBOX_DATABASE === "postgres")(
    "backup while serving is a pg_dump that pg_restore restores; it refuses to overwrite",
    async () => {
      const result = await box.cliJson(["backup", "backup.dump"]);
      expect(result.file).toBe(join(box.dir, "backup.dump"));
      expect(result.bytes).toBeGreaterThan(0);
      expect(result.restore).toBe(`pg_restore --no-owner --dbname=<an empty database> ${result.file}`);
      const empty = await freshPostgresUrl({ schema: "empty" });
      const target = new URL(empty);
      const password = decodeURIComponent(target.password);
      target.password = "";
      const restore = Bun.spawnSync(result.restore.replace("<an empty database>", target.toString()).split(" "), {
        env: { ...process.env, PGPASSWORD: password },
        stderr: "pipe",
      });
      expect(restore.stderr.toString()).toBe("");
      expect(restore.exitCode).toBe(0);
      const { openPostgres } = await import("../../src/db/postgres");
      const copy = await openPostgres(empty, { poolSize: 1 });
      try {
        expect(await copy.all("SELECT email, plan FROM accounts")).toEqual([{ email: EMAIL, plan: "visibility" }]);
        expect(await copy.get("SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL")).toEqual({ n: 2 });
      } finally {
        await copy.close();
      }
      const again = await box.cli(["backup", "backup.dump"]);
      expect(again.code).not.toBe(0);
      expect(again.stderr).toContain("already exists");
      // backup -: the same custom-format dump, on standard output.
      const piped = await backupToStdout();
      expect({ code: piped.code, stderr: piped.stderr }).toEqual({
        code: 0,
        stderr: `backup: ${piped.stdout.length} bytes written to standard output\n`,
      });
      expect(new TextDecoder().decode(piped.stdout.slice(0, 5))).toBe("PGDMP");
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    },
  );

  test("account password sets a forgotten password and signs out the account's sessions", async () => {
    const signIn = (password: string) =>
      fetch(`${server.url}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: EMAIL, password }),
      });
    expect((await fetch(`${server.url}/api/auth/me`, { headers: { cookie } })).status).toBe(200);
    const short = await box.cli(["account", "password", "--email", EMAIL, "--password", "short"]);
    expect(short.code).toBe(2);
    expect(short.stderr).toStartWith("spyglass: account password: --password: use at least 8 characters.");
    expect((await signIn(PASSWORD)).status).toBe(200);
    const set = await box.cli(["account", "password", "--email", EMAIL, "--password", "-"], { stdin: "a brand new password\n" });
    expect(set.code).toBe(0);
    // The account's keys still work (revoking one stops a client someone configured): they are counted, with what to do.
    const active = await box.withDb((db) => db.get<{ n: number }>("SELECT count(*) AS n FROM api_keys WHERE revoked_at IS NULL"));
    expect(active).toEqual({ n: 2 });
    expect(set.stdout).toBe(
      `The password of ${EMAIL} is set; 2 sessions signed out, 0 connected apps disconnected. 2 API keys still work: if the old password may have leaked, check them (spyglass key list --email ${EMAIL}) and revoke any you do not know (spyglass key revoke --email ${EMAIL} --id KEY_ID).\n`,
    );
    expect((await fetch(`${server.url}/api/auth/me`, { headers: { cookie } })).status).toBe(401);
    expect((await signIn(PASSWORD)).status).toBe(401);
    const fresh = await signIn("a brand new password");
    expect(fresh.status).toBe(200);
    cookie = fresh.headers.get("set-cookie")!.split(";")[0]!;
    const unknown = await box.cli(["account", "password", "--email", "nobody@example.com", "--password", "whatever long"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe("spyglass: No account has the email nobody@example.com.\n");
  });

  test("SIGTERM stops the server with exit code 0 and nothing is lost", async () => {
    expect(await server.stop("SIGTERM")).toBe(0);
    expect(server.logs()).toContain('"msg":"stopped"');
    const keys = await box.withDb((db) =>
      db.all<{ name: string; revoked_at: number | null }>("SELECT name, revoked_at FROM api_keys ORDER BY created_at"),
    );
    expect(keys.map((k) => [k.name, k.revoked_at !== null])).toEqual([
      ["laptop", true],
      ["ci", false],
      ["bearer", false],
    ]);
    const restarted = await box.serve();
    const me = await fetch(`${restarted.url}/api/auth/me`, { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(await restarted.stop("SIGINT")).toBe(0);
    // The terminal that started it closing (SIGHUP) stops it as cleanly.
    const hungUp = await box.serve();
    expect(await hungUp.stop("SIGHUP")).toBe(0);
    expect(hungUp.logs()).toContain('"msg":"shutting down","signal":"SIGHUP"');
    expect(hungUp.logs()).toContain('"msg":"stopped"');
  });
});

describe("the CLI without secrets on its command line", () => {
  let own: Sandbox;
  beforeAll(async () => {
    own = await sandbox();
  });
  afterAll(() => own?.cleanup());

  test("--password - reads the password from stdin, so it is never on the command line", async () => {
    const created = await own.cli(["account", "create", "--email", "stdin@example.com", "--password", "-", "--json"], {
      stdin: `${PASSWORD}\n`,
    });
    expect(created.code).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ email: "stdin@example.com", plan: "none" });
    const server = await own.serve();
    try {
      const login = await fetch(`${server.url}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "stdin@example.com", password: PASSWORD }),
      });
      expect(login.status).toBe(200);
    } finally {
      await server.stop();
    }
    const empty = await own.cli(["account", "create", "--email", "empty@example.com", "--password", "-"], { stdin: "" });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain("--password - read no password from stdin");
    const short = await own.cli(["account", "create", "--email", "short@example.com", "--password", "-"], { stdin: "short\n" });
    expect(short.code).not.toBe(0);
    expect(short.stderr).toContain("8 characters");
  });

  test.if(SANDBOX_DATABASE === "sqlite")(
    "a command whose output cannot be written fails, saying so; a reader that stops early is no failure",
    async () => {
      const run = async (args: string[], stdout: "pipe" | ReturnType<typeof Bun.file>) => {
        const proc = Bun.spawn([own.binary, ...args, "--data", own.dataDir], { stdout, stderr: "pipe", env: baseEnv() });
        const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
        return { code, stderr };
      };
      await own.cliJson(["account", "plan", "--email", "stdin@example.com", "--plan", "visibility"]);
      const created = await own.cliJson<{ id: string }>(["brand", "create", "--email", "stdin@example.com", "--name", "Full Disk Co"]);
      // A full disk (/dev/full): the key's only copy is lost, which was exit 0 without a word.
      const full = await run(
        ["key", "create", "--email", "stdin@example.com", "--brand", created.id, "--name", "lost", "--json"],
        Bun.file("/dev/full"),
      );
      expect(full).toEqual({
        code: 1,
        stderr:
          "spyglass: key create: its output could not be written to stdout (ENOSPC). The key was created all the same: spyglass key list shows it, to revoke it.\n",
      });
      expect(
        (await own.cliJson<{ keys: Array<{ name: string }> }>(["key", "list", "--email", "stdin@example.com", "--json"])).keys.map(
          (k) => k.name,
        ),
      ).toEqual(["lost"]);
      // `| head -c 0`: the reader went away (EPIPE), as scripts do on purpose.
      const proc = Bun.spawn([own.binary, "key", "list", "--email", "stdin@example.com", "--data", own.dataDir], {
        stdout: "pipe",
        stderr: "pipe",
        env: baseEnv(),
      });
      await proc.stdout.cancel();
      expect(await proc.exited).toBe(0);
      expect(await new Response(proc.stderr).text()).toBe("");
    },
  );

  // Database-independent (the terminal's side of the CLI): on the SQLite pass, whose sandbox the
  // command below reaches through --data alone.
  test.if(SANDBOX_DATABASE === "sqlite")("--password - at a terminal asks twice without echo, each ended by Enter", async () => {
    /**
     * The command in a terminal of its own (util-linux's script, in Debian's essential set): each
     * line is typed once the prompt before it is shown; what the command and the terminal printed
     * comes back with its exit code. The input stays open: Enter alone must end each line (it
     * waited for Ctrl-D).
     */
    const atTerminal = async (args: string, lines: Array<[prompt: string, line: string]>) => {
      const command = `${own.binary} ${args} --data ${own.dataDir}`;
      const proc = Bun.spawn(["script", "-qec", command, "/dev/null"], { stdin: "pipe", stdout: "pipe", stderr: "pipe", env: baseEnv() });
      let seen = "";
      const reading = (async () => {
        const decoder = new TextDecoder();
        const reader = proc.stdout.getReader();
        for (let next = await reader.read(); !next.done; next = await reader.read()) seen += decoder.decode(next.value, { stream: true });
      })();
      const deadline = performance.now() + 15_000;
      for (const [prompt, line] of lines) {
        while (!seen.includes(prompt) && performance.now() < deadline) await Bun.sleep(20);
        expect(seen).toContain(prompt);
        proc.stdin.write(`${line}\r`);
        proc.stdin.flush();
      }
      const code = await Promise.race([proc.exited, Bun.sleep(15_000).then(() => "still waiting")]);
      proc.kill();
      await reading;
      return { code, seen };
    };
    const hashOf = () =>
      own.withDb(
        async (db) =>
          (await db.get<{ password_hash: string }>("SELECT password_hash FROM accounts WHERE email = ?", ["tty@example.com"]))!
            .password_hash,
      );
    const typed = "typed at a terminal";
    // Asked again, as passwd asks: typed unseen, a slip became the password.
    const created = await atTerminal("account create --email tty@example.com --password -", [
      ["Password: ", typed],
      ["The same again: ", typed],
    ]);
    expect(created.code).toBe(0);
    expect(created.seen).not.toContain(typed);
    const hash = await hashOf();
    expect(await Bun.password.verify(typed, hash)).toBe(true);
    // Two that differ change nothing.
    const differing = await atTerminal("account password --email tty@example.com --password -", [
      ["Password: ", "a new password"],
      ["The same again: ", "a new passwort"],
    ]);
    expect(differing.code).toBe(1);
    expect(differing.seen).toContain("the two passwords typed differ; nothing was changed: run the command again");
    expect(await hashOf()).toBe(hash);
  });
});
