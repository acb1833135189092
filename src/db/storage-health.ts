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

export class StorageHealth {
  private lastRefusedAt = Number.NEGATIVE_INFINITY;
  private loggedAt = Number.NEGATIVE_INFINITY;
  /** Set by the checkpointer while its checkpoints fail. */
  checkpointFailing = false;

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
