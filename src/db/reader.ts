// Long reads off the serving thread (SQLite). bun:sqlite runs a statement on the thread that calls
// it, and the server answers nothing else until it returns. At the demo's 30× scale (216,000 answers)
// a tag's overview, read from the answers themselves, held it for ~90 ms, a tag's top sources for
// ~160, the search queries of 90 days for ~800 (/healthz probes of up to 1.6 s meanwhile), and a
// prompt ranking summed from 12,000 prompts' days (10× that) for 38–87 ms. `Queries.scan` sends such
// a statement here instead: a reader process with its own connection to the file runs it and sends
// its rows back. It reads one snapshot, the last commit before it began, as the serving connection
// would outside a transaction (inside one, scan runs on the transaction's connection, which alone sees
// its writes). The analytics use it for reads whose cost grows with a period's answers or a brand's
// prompts; the daily rollups' few rows per day are read where they are.
//
// A process, not a worker thread: a thread shares the server's address space, and while it read,
// the serving thread's garbage collections gave back memory page by page (madvise), each call slowed
// by the other busy thread of the same address space. One collection's ~340 calls then took ~25 ms,
// the /healthz probes' maximum during long reads (a thread spinning in the same process made a
// collection take 35–44 ms instead of 7–8; a process spinning beside it, 6–10).
//
// The process is the executable again (entry.ts, told by READER_ENV), talking JSON over Bun's IPC
// channel. It starts on the first scan and stops after READER_IDLE_MS without one (its page cache is
// memory an idle server does not need), exits when the server does, and holds the server's process
// open only while a scan is under way (a CLI command can exit). If it cannot start or stops
// unexpectedly (logged, with the last line it wrote), the scans it held and every later one run on
// the serving thread, slower for others meanwhile, never wrong, until it is tried again: a minute
// later, then twice as long after each failure in a row, up to 30 minutes.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Subprocess } from "bun";
import { Unavailable } from "../errors";
import { log } from "../log";
import { runsCompiled } from "../worker-url";
import { type FileIdentity, fileIdentity, stillAt } from "./file-identity";
import { type SqlParam } from "./queries";
import { blobOf, READER_ENV, type ReaderAnswer, type ReaderRequest, textOf, type WireStatement } from "./reader-process";

export const READER_IDLE_MS = 30_000;

/** One statement, or several read in one snapshot, and what its caller awaits. */
interface Scan {
  statements: Statement[];
  /** The batch's form of the answer (a list of row lists) or the single statement's (its rows). */
  batch: boolean;
  resolve(rows: unknown): void;
  reject(error: unknown): void;
}

export interface Statement {
  sql: string;
  params: SqlParam[];
}

interface Running {
  child: Subprocess<"ignore", "ignore", "pipe">;
  scans: Map<number, Scan>;
  idleTimer: ReturnType<typeof setTimeout> | null;
  startedAt: number;
}

export interface ReaderOptions {
  idleMs?: number;
  /** How long scans run on the serving thread after the process failed, before it is started again (doubling, to 30 min). */
  retryMs?: number;
  /** The command that starts the reader process; tests pass one that fails. */
  command?: string[];
}

const FIRST_RETRY_MS = 60_000;
const LAST_RETRY_MS = 30 * 60_000;

/**
 * The executable again (or, run from source, Bun running entry.ts). On Linux the running image itself,
 * /proc/self/exe: an upgrade that replaced or moved the file on disk while this server runs must not
 * make its reader another build, or none.
 */
export function readerCommand(): string[] {
  const self = existsSync("/proc/self/exe") ? "/proc/self/exe" : process.execPath;
  if (runsCompiled()) return [self];
  return [self, fileURLToPath(new URL("../entry.ts", import.meta.url))];
}

export class SqliteReader {
  private running: Running | null = null;
  /**
   * After a failure, scans run on the serving thread until retryAt (performance.now()). Failures in
   * a row double the wait; a process that lived longer than the last wait ends the row.
   */
  private retryAt = 0;
  private failures = 0;
  private lastWait = 0;
  private closed = false;
  private nextId = 0;
  /** Scans the process has answered (tests and benches tell the two paths apart by it). */
  answered = 0;

  /** Whether the process is running (tests). */
  get live(): boolean {
    return this.running !== null;
  }

  /** The running process's id, or null (tests). */
  get pid(): number | null {
    return this.running?.child.pid ?? null;
  }

  constructor(
    private readonly path: string,
    /**
     * The same statements on the serving connection, one after another in one task (no other
     * request's commit comes between them): the fallback.
     */
    private readonly inThread: (statements: readonly Statement[]) => Promise<unknown[][]>,
    private readonly options: ReaderOptions = {},
  ) {
    // Made with the serving connection, just opened on the file now at the path.
    this.opened = path === ":memory:" ? null : fileIdentity(path);
  }

  private readonly opened: FileIdentity | null;

  scan<T>(sql: string, params: readonly SqlParam[]): Promise<T[]> {
    return this.send([{ sql, params: [...params] }], false) as Promise<T[]>;
  }

  /** Each statement's rows, all read in one snapshot (one read transaction on the process's connection). */
  scanTogether(statements: readonly Statement[]): Promise<unknown[][]> {
    return this.send(
      statements.map(({ sql, params }) => ({ sql, params: [...params] })),
      true,
    ) as Promise<unknown[][]>;
  }

  private send(statements: Statement[], batch: boolean): Promise<unknown> {
    const running = this.closed || this.path === ":memory:" || performance.now() < this.retryAt ? null : this.start();
    if (running === null) return this.here(statements, batch);
    if (running.idleTimer) {
      clearTimeout(running.idleTimer);
      running.idleTimer = null;
    }
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      running.scans.set(id, { statements, batch, resolve, reject });
      if (running.scans.size === 1) running.child.ref();
      this.post(running, { type: "scan", id, statements: statements.map(onTheWire) });
    });
  }

  private async here(statements: Statement[], batch: boolean): Promise<unknown> {
    const rows = await this.inThread(statements);
    return batch ? rows : rows[0];
  }

  /**
   * Stops the process. Scans it still held fail (the connection they would fall back on is closing):
   * a server closes its database once its requests have ended, so only a request still running past
   * the shutdown's grace period meets this.
   */
  close(): void {
    this.closed = true;
    if (this.running) this.lose(this.running, null);
  }

  /** The running process, started if need be; null when it cannot start (logged; scans run here until the retry). */
  private start(): Running | null {
    if (this.running) return this.running;
    // The file deleted or replaced under the serving connection: a process opening it by path would
    // pair another file with that connection's WAL (file-identity.ts); the scans run here instead.
    if (!stillAt(this.path, this.opened)) return null;
    const scans = new Map<number, Scan>();
    let running: Running | null = null;
    try {
      const child = Bun.spawn({
        cmd: this.options.command ?? readerCommand(),
        // None of the server's environment (provider keys among it): the process needs none (and the
        // compiled executable reads no .env: build/compile.ts).
        env: { [READER_ENV]: "1" },
        // Its stderr says why, should it crash: its last line goes to the log.
        stdio: ["ignore", "ignore", "pipe"],
        serialization: "json",
        ipc: (data: ReaderAnswer) => {
          if (running !== null) this.answer(running, data);
        },
        onExit: (child, code, signal) => {
          if (running === null) return;
          // Its scans move at once; only the log line waits for what it wrote last.
          const exited = `it exited (${signal ?? `code ${code}`})`;
          this.lose(
            running,
            lastLine(child.stderr).then((said) => (said ? `${exited}: ${said}` : exited)),
          );
        },
      });
      running = { child, scans, idleTimer: null, startedAt: performance.now() };
    } catch (error) {
      this.fail(((error as Error)?.message ?? String(error)).split("\n")[0]!.slice(0, 200));
      return null;
    }
    this.running = running;
    this.post(running, { type: "open", path: this.path });
    return this.running;
  }

  private post(running: Running, message: ReaderRequest): void {
    try {
      running.child.send(message);
    } catch (error) {
      // The channel closed under it (the process is gone, its exit on its way), or the message could
      // not be written (onTheWire carries every SqlParam): either way, this process is done with.
      this.lose(running, `a message could not be sent to it: ${(error as Error)?.message ?? String(error)}`);
    }
  }

  private answer(running: Running, data: ReaderAnswer): void {
    if (this.running !== running) return;
    if (data.type === "failed") {
      this.lose(running, `its connection could not be opened: ${data.message}`);
      return;
    }
    if (data.type !== "rows" && data.type !== "error") return;
    const scan = running.scans.get(data.id);
    if (!scan) return;
    running.scans.delete(data.id);
    this.answered++;
    if (data.type === "rows") {
      for (const [s, r, column] of data.blobs ?? []) {
        const row = data.rows[s]![r] as Record<string, unknown>;
        row[column] = blobOf(row[column] as string);
      }
      scan.resolve(scan.batch ? data.rows : data.rows[0]);
    } else scan.reject(Object.assign(new Error(data.message), { name: "SQLiteError", code: data.code }));
    if (running.scans.size === 0) this.idle(running);
  }

  /** Scans run here until the retry; `lived`: how long the process that failed had run. */
  private fail(why: string | Promise<string>, lived = 0): void {
    if (lived > this.lastWait) this.failures = 0;
    this.failures++;
    const first = this.options.retryMs ?? FIRST_RETRY_MS;
    const wait = Math.min(Math.max(LAST_RETRY_MS, first), first * 2 ** (this.failures - 1));
    this.lastWait = wait;
    this.retryAt = performance.now() + wait;
    void Promise.resolve(why).then((reason) =>
      log.warn("the reader process stopped: long reads run on the serving thread", {
        reason: reason.slice(0, 300),
        retry_in_s: Math.round(wait / 1000),
      }),
    );
  }

  /** No scan in flight: the reader no longer holds the server's process open, and stops after idleMs. */
  private idle(running: Running): void {
    running.child.unref();
    running.idleTimer = setTimeout(() => {
      if (this.running !== running || running.scans.size > 0) return;
      this.running = null;
      running.child.kill("SIGKILL");
    }, this.options.idleMs ?? READER_IDLE_MS);
    running.idleTimer.unref();
  }

  /**
   * The process is gone (`why`, or null for a close): after a failure (logged) its scans and every
   * later one until the retry run here; after a close its scans fail. SIGKILL: it ignores the signals
   * that stop a server (a terminal's Ctrl-C, a service manager's stop reach every process of the
   * group), so that a server stopping gracefully keeps its reader until it closes the database.
   */
  private lose(running: Running, why: string | Promise<string> | null): void {
    if (this.running !== running) return;
    this.running = null;
    if (running.idleTimer) clearTimeout(running.idleTimer);
    running.child.kill("SIGKILL");
    if (why !== null) this.fail(why, performance.now() - running.startedAt);
    for (const scan of running.scans.values()) {
      if (why === null)
        scan.reject(new Unavailable("The server is stopping: this read was not finished. Try again once it is back.", "stopping"));
      else this.here(scan.statements, scan.batch).then(scan.resolve, scan.reject);
    }
    running.scans.clear();
  }
}

/**
 * A statement as JSON carries it: BLOB and bigint parameters, which JSON has no form for, as base64
 * and decimal text, with their places (reader-process.ts puts them back). (NaN and ±Infinity would
 * arrive as null; no statement binds them.)
 */
function onTheWire({ sql, params }: Statement): WireStatement {
  const blobs: number[] = [];
  const bigints: number[] = [];
  const wire = params.map((value, i) => {
    if (value instanceof Uint8Array) {
      blobs.push(i);
      return textOf(value);
    }
    if (typeof value === "bigint") {
      bigints.push(i);
      return value.toString();
    }
    return value;
  });
  return { sql, params: wire, ...(blobs.length > 0 ? { blobs } : {}), ...(bigints.length > 0 ? { bigints } : {}) };
}

/** The last non-empty line of a finished process's stderr, shortened; "" when it said nothing. */
async function lastLine(stderr: ReadableStream<Uint8Array>): Promise<string> {
  try {
    const text = await new Response(stderr).text();
    const lines = text.split("\n").filter((line) => line.trim() !== "");
    return (lines.at(-1) ?? "").trim().slice(0, 200);
  } catch {
    return "";
  }
}
