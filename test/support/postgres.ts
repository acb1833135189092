// A real PostgreSQL for the tests: a temporary cluster this test process owns (Debian's binaries
// under /usr/lib/postgresql/*/bin, `./build.sh test` installs them), started on first use on a free
// loopback port and stopped when the process exits; or, when SPYGLASS_TEST_POSTGRES_URL is set, that
// server. Each test gets a database of its own from freshPostgresUrl().
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

interface Server {
  /** A URL of the server with its database part left to fill in. */
  url(database: string): string;
  admin: postgres.Sql;
  stop(): Promise<void>;
}

let server: Promise<Server> | null = null;
let template: Promise<string> | null = null;
let made = 0;

export interface FreshOptions {
  /**
   * "migrated" (the default): the tables of today's migrations, copied from a template database
   * migrated once per process. "empty": no tables at all, for tests of the migrations themselves.
   */
  schema?: "migrated" | "empty";
}

/** The URL of a new database on the test server, for the caller alone. The server starts on the first call. */
export async function freshPostgresUrl(options: FreshOptions = {}): Promise<string> {
  server ??= startServer();
  const { admin, url } = await server;
  let from = "template0";
  if (options.schema !== "empty") {
    template ??= migratedTemplate();
    from = await template;
  }
  const name = `${prefix()}_${++made}`;
  await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${from}`);
  return url(name);
}

/** Database names of this process: a shared server (SPYGLASS_TEST_POSTGRES_URL) may serve several at once. */
function prefix(): string {
  return `spyglass_test_${process.pid}`;
}

async function migratedTemplate(): Promise<string> {
  const { admin, url } = await (server as Promise<Server>);
  const name = `${prefix()}_template`;
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name}`);
  await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE template0`);
  // Imported here, not at the top: the support module must load even where src/ does not compile.
  const { openPostgres } = await import("../../src/db/postgres");
  const db = await openPostgres(url(name), { poolSize: 1 });
  await db.close();
  return name;
}

/** Drops a database that freshPostgresUrl made, closing whatever connections are still open to it. */
export async function dropPostgresDatabase(databaseUrl: string): Promise<void> {
  if (server === null) return;
  const { admin } = await server;
  const name = new URL(databaseUrl).pathname.slice(1);
  if (!name.startsWith(`${prefix()}_`)) throw new Error(`${name} is not a test database of this process`);
  await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/**
 * Stops the cluster (if this process started one) and removes its directory; the next
 * freshPostgresUrl() starts another. The suite's preload calls it after the last test: `bun test`
 * emits no "exit" event, and it kills the processes still running when it ends.
 */
export async function stopTestPostgres(): Promise<void> {
  const running = server;
  server = null;
  template = null;
  if (running) await (await running).stop();
}

async function startServer(): Promise<Server> {
  const external = process.env.SPYGLASS_TEST_POSTGRES_URL;
  if (external) {
    const base = new URL(external);
    const admin = postgres(external, { max: 1, onnotice: () => {} });
    return {
      admin,
      async stop() {
        const names = await admin<{ datname: string }[]>`SELECT datname FROM pg_database WHERE datname LIKE ${`${prefix()}\\_%`}`;
        for (const { datname } of names) await admin.unsafe(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
        await admin.end();
      },
      url(database) {
        const url = new URL(base);
        url.pathname = `/${database}`;
        return url.toString();
      },
    };
  }
  return startCluster();
}

/** The newest installed PostgreSQL's bin directory. */
function binDir(): string {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, "bin", "initdb")))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length === 0) {
    throw new Error("No PostgreSQL under /usr/lib/postgresql/*/bin: `./build.sh test` installs Debian's postgresql package.");
  }
  return join(root, versions[0] as string, "bin");
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

/**
 * Directories of clusters whose test process is gone (killed before it could stop its cluster; the
 * parent-death signal has stopped the server itself): removed before a new cluster starts.
 */
function removeStaleClusters(): void {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith("spyglass-pg-"))) {
    const dir = join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(join(dir, "owner.pid"), "utf8"));
    } catch {
      continue;
    }
    if (existsSync(join(dir, "data", "postmaster.pid")) || isAlive(owner)) continue;
    rmSync(dir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function startCluster(): Promise<Server> {
  removeStaleClusters();
  const bin = binDir();
  const root = mkdtempSync(join(tmpdir(), "spyglass-pg-"));
  writeFileSync(join(root, "owner.pid"), String(process.pid));
  const data = join(root, "data");
  // initdb refuses to run as root: the cluster then belongs to the postgres user, as Debian's do.
  const asRoot = process.getuid?.() === 0;
  const password = randomBytes(12).toString("hex");
  const user = "spyglass";
  const pwfile = join(root, "pwfile");
  writeFileSync(pwfile, `${password}\n`, { mode: 0o600 });
  chmodSync(root, 0o700);
  if (asRoot) {
    const uid = Number(spawnSync("id", ["-u", "postgres"], { encoding: "utf8" }).stdout.trim());
    const gid = Number(spawnSync("id", ["-g", "postgres"], { encoding: "utf8" }).stdout.trim());
    chownSync(root, uid, gid);
    chownSync(pwfile, uid, gid);
  }
  // setpriv runs a command as another user without forking (so the process we spawn is the
  // postmaster itself, the one to signal), and its parent-death signal stops the cluster even when
  // this process is killed before it can.
  const as = (command: string[]): [string, string[]] => [
    "setpriv",
    [...(asRoot ? ["--reuid=postgres", "--regid=postgres", "--init-groups"] : []), "--pdeathsig", "SIGINT", ...command],
  ];

  const init = spawnSync(
    ...as([
      join(bin, "initdb"),
      ...["-D", data, "-U", user, `--pwfile=${pwfile}`, "--auth-host=scram-sha-256", "--auth-local=trust"],
      ...["--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"],
    ]),
    { encoding: "utf8" },
  );
  rmSync(pwfile, { force: true });
  if (init.status !== 0) {
    rmSync(root, { recursive: true, force: true });
    throw new Error(`initdb failed: ${init.stderr || init.stdout || init.error?.message}`);
  }

  const port = await freePort();
  const settings = {
    listen_addresses: "127.0.0.1",
    unix_socket_directories: "",
    // A throwaway cluster: durability is not worth its cost here.
    fsync: "off",
    synchronous_commit: "off",
    full_page_writes: "off",
    max_connections: "200",
  };
  const child = spawn(
    ...as([join(bin, "postgres"), "-D", data, "-p", String(port), ...Object.entries(settings).flatMap(([k, v]) => ["-c", `${k}=${v}`])]),
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  });
  // Neither the server nor the idle admin connection keeps a script alive: its exit stops them.
  child.unref();
  (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let running = true;
  void exited.then(() => {
    running = false;
  });

  const base = `postgres://${user}:${password}@127.0.0.1:${port}`;
  const admin = postgres(`${base}/postgres`, { max: 1, onnotice: () => {}, connect_timeout: 2, idle_timeout: 2 });

  const stop = async (): Promise<void> => {
    await admin.end({ timeout: 1 }).catch(() => {});
    // Fast shutdown: open sessions are ended, then the postmaster exits and is reaped by us.
    if (running) child.kill("SIGINT");
    await Promise.race([exited, Bun.sleep(10_000)]);
    if (running) child.kill("SIGKILL");
    rmSync(root, { recursive: true, force: true });
  };
  // Outside `bun test` (benchmarks, scripts), the exit handler stops it: synchronously, so the
  // directory is removed once the postmaster has deleted its pid file, the last thing it does.
  process.once("exit", () => {
    if (running) {
      child.kill("SIGINT");
      const deadline = Date.now() + 10_000;
      while (existsSync(join(data, "postmaster.pid")) && Date.now() < deadline) Bun.sleepSync(20);
    }
    rmSync(root, { recursive: true, force: true });
  });

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (!running) throw new Error(`PostgreSQL did not start: ${log}`);
    try {
      await admin`SELECT 1`;
      break;
    } catch (error) {
      if (Date.now() > deadline) {
        await stop();
        throw new Error(`PostgreSQL did not accept connections within 30 s: ${(error as Error).message} ${log}`);
      }
      await Bun.sleep(50);
    }
  }
  return { admin, url: (database) => `${base}/${database}`, stop };
}
