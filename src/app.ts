// The Elysia app: each feature mounts its own routes. Nothing else lives here.
import { Elysia } from "elysia";
import { accountRoutes } from "./accounts/routes";
import { brandRoutes } from "./brands/routes";
import { type AppContext } from "./context";
import { healthRoutes } from "./health/routes";
import { observability } from "./http/observability";
import { keyRoutes } from "./keys/routes";
import { mcpRoutes } from "./mcp/routes";
import { publicRoutes } from "./public/routes";

export function buildApp(ctx: AppContext) {
  return new Elysia()
    .use(observability())
    .use(healthRoutes())
    .use(accountRoutes(ctx))
    .use(brandRoutes(ctx))
    .use(keyRoutes(ctx))
    .use(mcpRoutes(ctx))
    .use(publicRoutes(ctx));
}

export type App = ReturnType<typeof buildApp>;
