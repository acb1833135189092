// Starts the HTTP server and stops it cleanly: stop accepting, finish in-flight requests, run the
// features' shutdown hooks, close the database.
import { buildApp, type AppContext } from "./app";
import { flushLastUsed } from "./keys/service";
import { log } from "./log";
import { publicApiRoutes } from "./public/routes";

// Bun's maximum; long tool calls (tracking, article generation) must not be cut at Elysia's 30 s.
const IDLE_TIMEOUT_SECONDS = 255;
// Hard cap at the socket; routes apply their own, smaller limits (the tool server's is 1 MiB).
const MAX_REQUEST_BODY_BYTES = 8 * 1024 * 1024;

export interface RunningServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export type ShutdownHook = () => void | Promise<void>;

export function startServer(ctx: AppContext, hooks: ShutdownHook[] = []): RunningServer {
  const app = buildApp(ctx);
  // Elysia's listen merges these into Bun's routes: the public API skips the main app's dispatch.
  app.config.serve = { ...app.config.serve, routes: publicApiRoutes(ctx) };
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
  const server = app.server;
  if (!server) throw new Error("the HTTP server did not start");
  const port = server.port ?? ctx.config.port;
  let stopping: Promise<void> | null = null;
  return {
    url: `http://${ctx.config.host === "0.0.0.0" ? "127.0.0.1" : ctx.config.host}:${port}`,
    port,
    stop() {
      stopping ??= (async () => {
        await server.stop(false);
        for (const hook of hooks) {
          try {
            await hook();
          } catch (error) {
            log.error("shutdown hook failed", { message: (error as Error).message });
          }
        }
        flushLastUsed(ctx.db);
        ctx.db.close();
      })();
      return stopping;
    },
  };
}
