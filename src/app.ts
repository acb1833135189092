// The Elysia app: each feature mounts its own routes, and both doors share one catalogue. Nothing else lives here.
import { Elysia } from "elysia";
import { ownerRoutes } from "./accounts/owner-routes";
import { accountRoutes } from "./accounts/routes";
import { deleteAccountAndBrands } from "./brands/delete";
import { brandRoutes } from "./brands/routes";
import { type ToolCatalog } from "./catalogue/registry";
import { articleRoutes } from "./content/routes";
import { type AppContext } from "./context";
import { exportRoutes } from "./dashboard/export";
import { dashboardRoutes } from "./dashboard/routes";
import { healthRoutes } from "./health/routes";
import { limitJsonBodies } from "./http/json-body";
import { type NotFoundPage, observability } from "./http/observability";
import { refuseUndecodablePaths, refuseUnsafeText } from "./http/text";
import { keyRoutes } from "./keys/routes";
import { MCP_PATH, mcpRoutes } from "./mcp/routes";
import { OAUTH_PATHS_READING_THEIR_BODIES, oauthRoutes } from "./oauth/routes";
import { publicRoutes } from "./public/routes";

/**
 * `catalogue`: the server's is lazyCatalog's (server.ts); the tests build TOOLS' at once (buildCatalog).
 * `notFoundPage`: the dashboard's page for a browser lost outside the app's paths (server.ts).
 */
export function buildApp(ctx: AppContext, catalogue: ToolCatalog, notFoundPage?: NotFoundPage) {
  // Without Bun's router (systemRouter: false) Elysia dispatches its own routes: its listen otherwise
  // maps every route into Bun's router twice (once at listen, once more right after), which made
  // up most of `startServer`'s time (measured in a CPU profile of the start-up, spawn → first
  // /healthz: 194 → 184 ms, medians of 8 alternated starts). The hot paths (the public API, the tool
  // server's door, the dashboard's pages) are Bun routes of their own (server.ts) and stay on Bun's router.
  return new Elysia({ systemRouter: false })
    .use(observability(notFoundPage, ctx.db.storage))
    .use(limitJsonBodies(new Set([MCP_PATH, ...OAUTH_PATHS_READING_THEIR_BODIES])))
    .use(refuseUnsafeText())
    .use(refuseUndecodablePaths())
    .use(healthRoutes(ctx.db))
    .use(accountRoutes(ctx, (accountId) => deleteAccountAndBrands(ctx, accountId)))
    .use(ownerRoutes(ctx))
    .use(brandRoutes(ctx))
    .use(articleRoutes(ctx))
    .use(keyRoutes(ctx))
    .use(mcpRoutes(ctx, catalogue))
    .use(oauthRoutes(ctx))
    .use(dashboardRoutes(ctx, catalogue))
    .use(exportRoutes(ctx, catalogue))
    .use(publicRoutes(ctx));
}

export type App = ReturnType<typeof buildApp>;
