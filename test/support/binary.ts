// Drives the compiled executable (dist/spyglass) the way a self-hoster does: copied alone into an
// empty temporary directory, run from there (so its data lands in ./data), talked to over real
// HTTP on loopback. Shared by the end-to-end tests and the benchmarks.
//
//   const box = await sandbox({ toml?: "…", env?: {...} });   // throws a clear message if not compiled
//   const account = await box.cliJson(["account", "create", "--email", e, "--password", p]);
//   const { code, stdout, stderr } = await box.cli(["backup", "copy.db"]);   // never throws
//   const server = await box.serve();            // --host 127.0.0.1 --port 0; resolves at first /healthz 200
//   await fetch(`${server.url}/healthz`);
//   server.rssKb();  server.logs();              // VmRSS from /proc; stdout so far (JSON lines)
//   const exitCode = await server.stop();        // SIGTERM (or stop("SIGINT")), waits for exit
//   box.cleanup();                               // kills what is still running, removes the directory
//   await box.withDb((db) => seedToolServerDb(db)); // the instance's database, opened here and closed after
//
// `--json` is added by cliJson; `--data`/`--config` are left to their defaults (./data, ./data/spyglass.toml).
// The instance keeps its data where the suite's pass says (SPYGLASS_TEST_DATABASE, as the in-process
// tests do): SQLite in ./data, or with "postgres" a fresh database of the test PostgreSQL
// (test/support/postgres.ts), handed to the server and the CLI in SPYGLASS_DATABASE_URL.
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type BunFile, type Subprocess } from "bun";
import { REPO_ROOT, sourceStamp, stampFileOf } from "../../build/stamp";
import { type Db } from "../../src/db/client";
import { freshPostgresUrl } from "./postgres";

export const BINARY = resolve(import.meta.dir, "../../dist/spyglass");
/** How long stop() waits for the server to exit after its signal: past the server's 30 s grace period. */
const STOP_TIMEOUT_MS = 45_000;

const HOW_TO_BUILD = "compile it with `bun run build/compile.ts` (or run `./build.sh test`)";

let freshStamp: string | undefined;

/**
 * The compiled binary's path; throws a message saying how to build it when it is missing or, for the
 * project's own dist/spyglass, when its build stamp (build/stamp.ts) does not match the sources here:
 * a test must never pass or fail on a binary built from other code. Other paths (bench/compare.ts's
 * older builds) are taken as they are.
 */
export function requireBinary(path = BINARY, sources = REPO_ROOT): string {
  if (!existsSync(path)) throw new Error(`${path} is missing: ${HOW_TO_BUILD}`);
  if (path !== BINARY && sources === REPO_ROOT) return path;
  const stampFile = stampFileOf(path);
  const built = existsSync(stampFile) ? readFileSync(stampFile, "utf8").trim() : null;
  const current = sources === REPO_ROOT ? (freshStamp ??= sourceStamp()) : sourceStamp(sources);
  if (built !== current) {
    const why = built === null ? `it has no build stamp (${stampFile})` : "it was built from other sources than these";
    throw new Error(`${path} is stale: ${why}; ${HOW_TO_BUILD}`);
  }
  return path;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ServerProcess {
  url: string;
  port: number;
  pid: number;
  /** Its stdout is a pipe only without `stdoutToFile`; read it through logs(). */
  proc: Subprocess<"ignore", "pipe" | BunFile, "pipe">;
  /** Milliseconds from spawn to the first /healthz 200. */
  startMs: number;
  logs(): string;
  rssKb(): number;
  /** Its child processes' ids (Linux: each thread's list in /proc): the reader process, while it runs. */
  children(): number[];
  /** Whether the process has its own handler for the signal yet (SigCgt in /proc): before that, the signal kills it. */
  handlesSignal(signal: "SIGTERM" | "SIGINT"): boolean;
  stop(signal?: "SIGTERM" | "SIGINT" | "SIGHUP"): Promise<number>;
}

export interface ServeOptions {
  args?: string[];
  env?: Record<string, string>;
  timeoutMs?: number;
  /**
   * Send the server's stdout to a file in the sandbox (as a self-hoster's log collector would take
   * it) instead of a pipe into this process, for benchmarks: reading tens of megabytes of access log
   * into a string here would compete with the server for the CPU it is being measured on.
   */
  stdoutToFile?: boolean;
}

export type SandboxDatabase = "sqlite" | "postgres";

/** The database sandboxes get unless told: the suite's pass (`SPYGLASS_TEST_DATABASE=postgres` for the PostgreSQL one). */
export const SANDBOX_DATABASE: SandboxDatabase = process.env.SPYGLASS_TEST_DATABASE === "postgres" ? "postgres" : "sqlite";

export interface Sandbox {
  dir: string;
  dataDir: string;
  binary: string;
  /** Where the instance keeps its data: ./data/spyglass.db, or the PostgreSQL database at databaseUrl. */
  database: SandboxDatabase;
  databaseUrl: string | null;
  /**
   * Runs `fn` on the instance's database (the SQLite file, created and migrated when absent; or its
   * PostgreSQL database), opened here for the call and closed after it: for seeding before a binary
   * runs and reading what it stored.
   */
  withDb<T>(fn: (db: Db) => Promise<T>): Promise<T>;
  cli(args: string[], options?: { env?: Record<string, string>; stdin?: string }): Promise<CliResult>;
  cliJson<T = any>(args: string[]): Promise<T>;
  serve(options?: ServeOptions): Promise<ServerProcess>;
  cleanup(): void;
}

/** This process's environment without what would point a child at another instance (SPYGLASS_*, PORT, HOST), plus `extra`. */
export function baseEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(SPYGLASS_|PORT$|HOST$)/.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}

export interface SandboxOptions {
  toml?: string;
  env?: Record<string, string>;
  binary?: string;
  /**
   * The instance's database; by default PostgreSQL when `env` sets SPYGLASS_DATABASE_URL (that one),
   * otherwise SANDBOX_DATABASE ("postgres": a fresh database of the test PostgreSQL).
   */
  database?: SandboxDatabase;
}

export async function sandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const source = requireBinary(options.binary);
  const given = options.env?.SPYGLASS_DATABASE_URL;
  const database = options.database ?? (given ? "postgres" : SANDBOX_DATABASE);
  const databaseUrl = database === "postgres" ? (given ?? (await freshPostgresUrl())) : null;
  if (database === "sqlite" && given) throw new Error('sandbox: database "sqlite" with SPYGLASS_DATABASE_URL in its env');
  const env = { ...options.env, ...(databaseUrl ? { SPYGLASS_DATABASE_URL: databaseUrl } : {}) };
  const dir = mkdtempSync(join(tmpdir(), "spyglass-e2e-"));
  const binary = join(dir, "spyglass");
  copyFileSync(source, binary);
  chmodSync(binary, 0o755);
  const dataDir = join(dir, "data");
  if (options.toml !== undefined) {
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, "spyglass.toml"), options.toml);
  }
  const running = new Set<ServerProcess>();

  const cli = async (args: string[], opts: { env?: Record<string, string>; stdin?: string } = {}): Promise<CliResult> => {
    const proc = Bun.spawn([binary, ...args], {
      cwd: dir,
      env: baseEnv({ ...env, ...opts.env }),
      stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { code, stdout, stderr };
  };

  const cliJson = async <T>(args: string[]): Promise<T> => {
    const result = await cli([...args, "--json"]);
    if (result.code !== 0) throw new Error(`spyglass ${args.join(" ")} exited ${result.code}: ${result.stderr.trim()}`);
    return JSON.parse(result.stdout) as T;
  };

  let servers = 0;
  const serve = async (opts: ServeOptions = {}): Promise<ServerProcess> => {
    const spawnedAt = performance.now();
    const stdoutFile = opts.stdoutToFile ? join(dir, `serve-${++servers}.log`) : null;
    const proc = Bun.spawn([binary, "serve", "--host", "127.0.0.1", "--port", "0", ...(opts.args ?? [])], {
      cwd: dir,
      env: baseEnv({ ...env, ...opts.env }),
      stdin: "ignore",
      stdout: stdoutFile ? Bun.file(stdoutFile) : "pipe",
      stderr: "pipe",
    });
    let piped = "";
    let err = "";
    const stdout = (): string => (stdoutFile ? (existsSync(stdoutFile) ? readFileSync(stdoutFile, "utf8") : "") : piped);
    const pump = async (stream: ReadableStream<Uint8Array>, into: (text: string) => void) => {
      const decoder = new TextDecoder();
      const reader = stream.getReader();
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        into(decoder.decode(next.value, { stream: true }));
      }
    };
    if (proc.stdout instanceof ReadableStream) void pump(proc.stdout, (text) => (piped += text));
    void pump(proc.stderr, (text) => (err += text));
    const deadline = spawnedAt + (opts.timeoutMs ?? 15_000);
    let url = "";
    while (!url) {
      if (proc.exitCode !== null || performance.now() > deadline) {
        proc.kill("SIGKILL");
        throw new Error(`spyglass serve did not start (exit ${proc.exitCode}): ${err.trim() || stdout().trim()}`);
      }
      const match = /"msg":"listening","url":"(http:\/\/[^"]+)"/.exec(stdout());
      if (match?.[1]) url = match[1];
      else await Bun.sleep(stdoutFile ? 10 : 2);
    }
    for (;;) {
      const ok = await fetch(`${url}/healthz`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      if (performance.now() > deadline) throw new Error(`spyglass serve never answered /healthz: ${err.trim()}`);
      await Bun.sleep(2);
    }
    const startMs = performance.now() - spawnedAt;
    const server: ServerProcess = {
      url,
      port: Number(new URL(url).port),
      pid: proc.pid,
      proc,
      startMs,
      logs: () => stdout() + err,
      rssKb() {
        return rssKbOf(proc.pid);
      },
      children() {
        return readdirSync(`/proc/${proc.pid}/task`).flatMap((tid) => {
          let list = "";
          try {
            list = readFileSync(`/proc/${proc.pid}/task/${tid}/children`, "utf8");
          } catch {
            // A thread that ended since the listing.
          }
          return list
            .split(" ")
            .filter((id) => id.trim() !== "")
            .map(Number);
        });
      },
      handlesSignal(signal) {
        const status = readFileSync(`/proc/${proc.pid}/status`, "utf8");
        const caught = BigInt(`0x${/SigCgt:\s+([0-9a-f]+)/.exec(status)?.[1] ?? "0"}`);
        const bit = BigInt(signal === "SIGTERM" ? 15 : 2) - 1n;
        return ((caught >> bit) & 1n) === 1n;
      },
      async stop(signal = "SIGTERM") {
        proc.kill(signal);
        // A server that does not stop is a failure of its own, with the server's last words: not
        // a test hook timing out with nothing to go on.
        const code = await Promise.race([proc.exited, Bun.sleep(STOP_TIMEOUT_MS).then(() => null)]);
        running.delete(server);
        if (code === null) {
          proc.kill("SIGKILL");
          const tail = (stdout() + err).trimEnd().split("\n").slice(-30).join("\n");
          throw new Error(`spyglass did not exit within ${STOP_TIMEOUT_MS / 1000} s of ${signal}; its last log lines:\n${tail}`);
        }
        return code;
      },
    };
    running.add(server);
    return server;
  };

  const withDb = async <T>(fn: (db: Db) => Promise<T>): Promise<T> => {
    if (databaseUrl !== null) {
      const { openPostgres } = await import("../../src/db/postgres");
      const db = await openPostgres(databaseUrl, { poolSize: 1 });
      try {
        return await fn(db);
      } finally {
        await db.close();
      }
    }
    const { openDatabase } = await import("../../src/db/client");
    const db = openDatabase(join(dataDir, "spyglass.db"));
    try {
      return await fn(db);
    } finally {
      db.close();
      // bun:sqlite closes a connection whose cached statements are alive only once they are
      // collected: collecting now closes it here, not while a binary starts ("database is locked").
      Bun.gc(true);
    }
  };

  return {
    dir,
    dataDir,
    binary,
    database,
    databaseUrl,
    withDb,
    cli,
    cliJson,
    serve,
    cleanup() {
      for (const server of running) server.proc.kill("SIGKILL");
      running.clear();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Process `pid`'s resident memory (VmRSS), in KiB. */
export function rssKbOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? Number.NaN);
}

/** Whether process `pid` runs (a zombie does not: it has exited, and only its status is left to read). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}
