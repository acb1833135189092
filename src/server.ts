// Starts the HTTP server and stops it cleanly: stop accepting, finish in-flight requests, run the
// features' shutdown hooks, close the database.
import { bytecodeOrderStats } from "bun:jsc";
import { networkInterfaces } from "node:os";
import { type Server } from "bun";
import { buildApp } from "./app";
import { lazyCatalog } from "./catalogue/registry";
import { loadToolsInTasks } from "./catalogue/tools/load";
import { ConfigError } from "./config";
import { type AppContext } from "./context";
import { dashboardNotFound, dashboardPages, warmDashboardPages } from "./dashboard/pages";
import { jitAtUsualThresholds } from "./jit-policy";
import { log } from "./log";
import { loadSdkServer, mcpApiRoutes } from "./mcp/routes";
import { publicApiRoutes } from "./public/routes";

// Bun's maximum; long tool calls (tracking, article generation) must not be cut at Elysia's 30 s.
const IDLE_TIMEOUT_SECONDS = 255;
// The tool catalogue (its modules and schemas), the MCP SDK and the dashboard's gzipped assets are
// made this long after start, unless a request needed them first.
const WARM_AFTER_MS = 500;
// Hard cap at the socket; routes apply their own, smaller limits (the tool server's is 1 MiB).
const MAX_REQUEST_BODY_BYTES = 8 * 1024 * 1024;

export interface RunningServer {
  url: string;
  port: number;
  /** The address the socket is bound to, as configured: "0.0.0.0:3000". */
  listen: string;
  /** Where it answers: every local address of the family when bound to all of them (0.0.0.0, ::). */
  urls: string[];
  stop(): Promise<void>;
}

export type ShutdownHook = () => void | Promise<void>;

/**
 * `hooks` run once the last request is answered; `beforeClose` after them and the keys' last writes,
 * just before the database closes (the database file's keeping: file-watch.ts).
 */
export function startServer(ctx: AppContext, hooks: ShutdownHook[] = [], beforeClose?: ShutdownHook): RunningServer {
  const catalogue = lazyCatalog(loadToolsInTasks);
  const app = buildApp(ctx, catalogue, dashboardNotFound);
  // Elysia's listen merges these into Bun's routes: the public API, the tool server's door and the
  // dashboard's page and assets skip the main app's dispatch.
  app.config.serve = { ...app.config.serve, routes: { ...dashboardPages(), ...publicApiRoutes(ctx), ...mcpApiRoutes(ctx, catalogue) } };
  try {
    app.listen({
      hostname: ctx.config.host,
      port: ctx.config.port,
      idleTimeout: IDLE_TIMEOUT_SECONDS,
      maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
      // Elysia turns SO_REUSEPORT on by default: a second server started on a busy port would then
      // silently share its traffic instead of failing with "address in use".
      reusePort: false,
      // Elysia leaves Bun's development mode on unless NODE_ENV=production: an error that escaped
      // every handler would then be answered with Bun's HTML error page and its stack printed.
      development: false,
    });
  } catch (error) {
    throw new ConfigError(listenFailure(ctx.config.host, ctx.config.port, error as NodeJS.ErrnoException));
  }
  const server = app.server;
  if (!server) throw new Error("the HTTP server did not start");
  // Built after the first answers rather than before (or by the first request that needs it), as is
  // the MCP SDK (loadSdkServer).
  // The dashboard's gzipped assets likewise (~18 ms of CPU that came before listening).
  // One after the other, each in tasks of its own: together in one task they held the event loop
  // for ~100 ms at every start (the catalogue's schemas, the gzip, the SDK's modules).
  setTimeout(async () => {
    const started = performance.now();
    try {
      await catalogue.ready();
      await warmDashboardPages();
      await loadSdkServer();
      // Which of the executable's functions the start loaded from the front of its bytecode, where
      // the build's profiling run put the ones it used (build/bytecode-profile.ts); null from source.
      log.debug("warmed up", { ms: Math.round(performance.now() - started), bytecode: bytecodeOrderStats() });
    } catch (error) {
      // Logged here; a request that needs the part that failed meets the same error.
      log.warn("warming up after start failed", { message: (error as Error).message });
    } finally {
      // The start's run-once code is behind us (src/jit-policy.ts).
      jitAtUsualThresholds();
    }
  }, WARM_AFTER_MS).unref();
  const port = server.port ?? ctx.config.port;
  let stopping: Promise<void> | null = null;
  return {
    url: `http://${ctx.config.host === "0.0.0.0" ? "127.0.0.1" : ctx.config.host === "::" ? "[::1]" : bracketed(ctx.config.host)}:${port}`,
    port,
    listen: `${bracketed(ctx.config.host)}:${port}`,
    urls: reachableAddresses(ctx.config.host).map((address) => `http://${bracketed(address)}:${port}`),
    stop() {
      stopping ??= (async () => {
        await finishInFlight(server, ctx.config.shutdownGraceMs);
        // The last answers' access-log lines are written by a task queued after each answer (Elysia's
        // onAfterResponse): let those run first, so that no line follows "stopped" (seen under load
        // in fresh-clone CI, where the rest of the stop resolved without leaving the microtask queue).
        await new Promise((resolve) => setImmediate(resolve));
        await new Promise((resolve) => setTimeout(resolve, 0));
        for (const hook of hooks) {
          try {
            await hook();
          } catch (error) {
            log.error("shutdown hook failed", { message: (error as Error).message });
          }
        }
        // Each step on its own: a failed one (a full disk) must not keep the others from the stop.
        for (const step of [() => ctx.keys.flush(), beforeClose]) {
          try {
            await step?.();
          } catch (error) {
            log.error("shutdown hook failed", { message: (error as Error).message });
          }
        }
        await ctx.db.close();
      })();
      return stopping;
    },
  };
}

/**
 * Throws the ConfigError startServer would for an address it cannot listen on, before the database
 * is opened: a second `serve` started by mistake beside a running one (an upgrade's new binary, say)
 * otherwise created or migrated that server's database before failing on the port. A probe, bound
 * and closed at once; port 0 (any free port) needs none.
 */
export function assertCanListen(host: string, port: number): void {
  if (port === 0) return;
  try {
    const probe = Bun.listen({ hostname: host, port, socket: { data() {} } });
    probe.stop(true);
  } catch (error) {
    throw new ConfigError(listenFailure(host, port, error as NodeJS.ErrnoException));
  }
}

/** Why the server could not listen, in words that name the setting to change. */
function listenFailure(host: string, port: number, error: NodeJS.ErrnoException): string {
  const where = `cannot listen on ${bracketed(host)}:${port}`;
  if (error.code === "EADDRINUSE" || /in use/i.test(error.message)) {
    return `${where}: the port is in use by another program (another spyglass serve?). Choose another with --port or the PORT variable.`;
  }
  if (
    error.code === "EADDRNOTAVAIL" ||
    error.code === "EINVAL" ||
    error.code === "ENOTFOUND" ||
    /EADDRNOTAVAIL|EINVAL|ENOTFOUND/.test(error.message)
  ) {
    return `${where}: "${host}" is not an address of this machine. Set --host or the HOST variable to one of its addresses, 0.0.0.0 (every address) or 127.0.0.1 (this machine only).`;
  }
  if (error.code === "EACCES" || /EACCES/.test(error.message)) {
    return `${where}: permission denied (ports below 1024 need privileges). Choose a port above 1023 with --port or the PORT variable.`;
  }
  return `${where}: ${error.message}`;
}

function bracketed(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * The addresses a server bound to `host` answers on. A wildcard means every interface's address
 * (IPv6 link-local ones left out: they need a zone to be used); anything else is itself.
 */
function reachableAddresses(host: string): string[] {
  if (host !== "0.0.0.0" && host !== "::") return [host];
  const families = host === "::" ? ["IPv4", "IPv6"] : ["IPv4"];
  const addresses = Object.values(networkInterfaces())
    .flatMap((list) => list ?? [])
    .filter((a) => families.includes(a.family) && !a.address.toLowerCase().startsWith("fe80:"))
    .map((a) => a.address);
  return [...new Set(addresses)];
}

/**
 * Stops accepting and waits for the requests in flight (a tool call waiting on a model), for at most
 * `graceMs` (config.shutdownGraceMs: 30 s unless configured, within the 90 s a service manager such
 * as systemd gives before SIGKILL); then closes what is left, so a request that never ends cannot
 * keep the process from stopping (found when a test's server once did not exit for 60 s after
 * SIGTERM in CI).
 */
async function finishInFlight(server: Server<unknown>, graceMs: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const finished = await Promise.race([
    server.stop(false).then(() => true),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs))),
  ]);
  clearTimeout(timer);
  if (finished) return;
  log.warn("requests still in flight after the shutdown grace period; closing their connections", {
    grace_ms: graceMs,
    pending_requests: server.pendingRequests,
  });
  // Closes their connections now. Bun's promise would wait for their handlers too, which may never
  // end (a model that does not answer): they are abandoned, and the process exits after the hooks.
  void server.stop(true);
}
