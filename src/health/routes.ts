// GET /healthz: 200 {"status":"ok","version"} while the instance can serve; {"status":"degraded",
// "reason"}, still 200, while the database's storage refuses writes (storage-health.ts). On PostgreSQL it also
// asks the database (at most once a second, a cheap SELECT 1 with a time limit): a load balancer's
// probe must take an instance whose database is gone out of rotation (503) rather than send it
// requests it can only answer 500. SQLite is a file of this process: nothing to ask, and a query
// would wait behind a long write transaction, which /healthz must never do.
import { Elysia } from "elysia";
import { type Db } from "../db/client";
import { markHealthyProbe } from "../http/observability";
import { log } from "../log";
import { BUILD, VERSION } from "../version";

const CHECK_EVERY_MS = 1_000;
const CHECK_TIMEOUT_MS = 2_000;

export function healthRoutes(db: Pick<Db, "dialect" | "get" | "storage">) {
  let checkedAt = 0;
  let problem: Promise<string | null> = Promise.resolve(null);
  let lastProblem: string | null = null;
  const check = async (): Promise<string | null> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      await Promise.race([
        db.get("SELECT 1 AS one"),
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
        }),
      ]);
      if (lastProblem) log.info("the database answers again", {});
      lastProblem = null;
      return null;
    } catch (error) {
      // The details (a host, a port) go to the log only: /healthz answers anyone.
      const reason = "the database does not answer";
      if (lastProblem === null) log.warn("health check: the database does not answer", { message: (error as Error).message });
      lastProblem = reason;
      return reason;
    } finally {
      clearTimeout(timer);
    }
  };
  // Reads still work while the storage refuses writes: the instance stays in rotation (200), and
  // says so for a monitor that reads the status.
  const answer = (request: Request) => {
    const storage = db.storage.problem();
    if (storage !== null) return { status: "degraded", version: VERSION, build: BUILD, reason: storage };
    // An "ok" is logged at debug only: a probe every few seconds filled the log.
    markHealthyProbe(request);
    return { status: "ok", version: VERSION, build: BUILD };
  };
  return new Elysia({ name: "health" }).get("/healthz", async ({ set, request }) => {
    if (db.dialect !== "postgres") return answer(request);
    const now = Date.now();
    if (now - checkedAt >= CHECK_EVERY_MS) {
      checkedAt = now;
      problem = check();
    }
    const reason = await problem;
    if (reason === null) return answer(request);
    set.status = 503;
    set.headers["retry-after"] = "5";
    return { status: "unavailable", version: VERSION, build: BUILD, reason };
  });
}
