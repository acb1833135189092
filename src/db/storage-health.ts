// Whether the database's storage takes writes. When it does not (a full disk, an I/O error), every
// request that writes fails the same way: such a failure is answered 503 with a sentence that says
// so, not "something went wrong" with a stack in the log per request; the log says it once a minute
// at most; and /healthz says "degraded" while it lasts (a failure within the last minute, or the WAL
// checkpointer failing until one of its checkpoints works again), so that a monitor sees it.
import { Unavailable } from "../errors";
import { log } from "../log";

/** How long after a refused write /healthz still says so, and how often the log repeats it. */
const RECENT_MS = 60_000;

/** The Retry-After of the 503 a refused write is answered with. */
export const STORAGE_RETRY_AFTER_S = 60;

export const STORAGE_PROBLEM = "the database's storage refuses writes (a full disk?)";

/**
 * The database's storage could not take a write: SQLite's SQLITE_FULL (the disk, or max_page_count)
 * and SQLITE_IOERR; PostgreSQL's disk_full (53100) and io_error (58030).
 */
export function isStorageFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code === "SQLITE_FULL" || code.startsWith("SQLITE_IOERR") || code === "53100" || code === "58030");
}

/**
 * A write refused because a row it refers to is gone: deleted meanwhile by another process or
 * instance (a brand, between a request's check of it and its write). SQLite's
 * SQLITE_CONSTRAINT_FOREIGNKEY, PostgreSQL's 23503.
 */
export function isForeignKeyFailure(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_FOREIGNKEY" || code === "23503";
}

/** The Retry-After of the 503 a request is answered with while PostgreSQL does not answer. */
export const UNREACHABLE_RETRY_AFTER_S = 5;

// PostgreSQL out of reach, as the driver (postgres.js) reports it. Told apart from other failures of
// a request by their shape, since a tool or a sign-in also makes requests of its own (a metadata
// document, a provider) that fail with the same network codes (a review: a reset fetch of a client's
// document was answered "the database does not answer"):
// - a socket's failure (refused, reset, timed out) carries the system call (`syscall`), which
//   Bun's fetch errors do not;
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN", "EPIPE"]);
// - the driver's own codes, and ours for a read that took too long (public/cache.ts);
const DRIVER_CODES = new Set(["CONNECT_TIMEOUT", "CONNECTION_CLOSED", "CONNECTION_ENDED", "CONNECTION_DESTROYED", "DATABASE_TIMEOUT"]);
// - the server's errors (a PostgresError, with its `severity`): shutting down or starting
//   (57P01-57P03), out of connection slots (53300), a connection exception (class 08, but a protocol
//   violation, 08P01, which is a fault, not an outage), a database closed to connections (55000
//   with that sentence).
const SERVER_CODES = new Set(["57P01", "57P02", "57P03", "53300"]);

/**
 * PostgreSQL out of reach: a failure that says nothing of the request, and passes once the server
 * answers again.
 */
export function isUnreachable(error: unknown): boolean {
  const e = error as { code?: unknown; syscall?: unknown; severity?: unknown; message?: unknown } | null;
  const code = e?.code;
  if (typeof code !== "string") return false;
  if (SOCKET_CODES.has(code)) return typeof e?.syscall === "string";
  if (DRIVER_CODES.has(code)) return true;
  if (typeof e?.severity !== "string") return false;
  if (SERVER_CODES.has(code) || (code.startsWith("08") && code !== "08P01")) return true;
  return code === "55000" && typeof e?.message === "string" && /not currently accepting connections/.test(e.message);
}

export class StorageHealth {
  private lastRefusedAt = Number.NEGATIVE_INFINITY;
  private loggedAt = Number.NEGATIVE_INFINITY;
  private unreachableLoggedAt = Number.NEGATIVE_INFINITY;
  /** Set by the checkpointer while its checkpoints fail. */
  checkpointFailing = false;

  /** `remote`: the database is a server (PostgreSQL), which a request may find out of reach. */
  constructor(private readonly remote = false) {}

  /**
   * What a request that failed with `error` is told when the database is the cause: its storage
   * refusing writes, or (PostgreSQL) the server out of reach, each a 503 saying that nothing was
   * changed; null for any other failure. A request of a stopped PostgreSQL was a 500 "something
   * went wrong" with a stack in the log, once per request.
   */
  refusalFor(error: unknown, context: Record<string, unknown> = {}): Unavailable | null {
    if (isStorageFailure(error)) return this.refused(error, context);
    if (!this.remote) return null;
    if (!isUnreachable(error)) return null;
    const code = (error as { code?: unknown }).code;
    const now = Date.now();
    if (now - this.unreachableLoggedAt >= RECENT_MS) {
      this.unreachableLoggedAt = now;
      log.error("a request failed: PostgreSQL does not answer; said once a minute while it lasts", {
        ...context,
        code,
        message: (error as Error).message,
      });
    }
    return new Unavailable(
      "The server cannot reach its database right now (PostgreSQL does not answer). Nothing was changed; try again in a few seconds.",
      "database_unavailable",
      UNREACHABLE_RETRY_AFTER_S,
    );
  }

  /**
   * Records a write the storage refused (`error`, for which isStorageFailure holds) and returns what
   * the client is told: a 503 saying that nothing was saved.
   */
  refused(error: unknown, context: Record<string, unknown> = {}): Unavailable {
    const now = Date.now();
    this.lastRefusedAt = now;
    if (now - this.loggedAt >= RECENT_MS) {
      this.loggedAt = now;
      log.error(`a write failed: ${STORAGE_PROBLEM}; said once a minute while it lasts`, {
        ...context,
        code: (error as { code?: unknown }).code,
        message: (error as Error).message,
      });
    }
    return new Unavailable(
      "The server could not save this: its database's storage refuses writes (a full disk?). Nothing was changed; try again once there is room.",
      "storage_full",
      STORAGE_RETRY_AFTER_S,
    );
  }

  /** What /healthz reports, or null while writes work (as far as this process has seen). */
  problem(now = Date.now()): string | null {
    return this.checkpointFailing || now - this.lastRefusedAt < RECENT_MS ? STORAGE_PROBLEM : null;
  }
}
