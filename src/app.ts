// The Elysia app: each feature mounts its own routes. Nothing else lives here.
import { Elysia } from "elysia";
import type { Config } from "./config";
import type { Db } from "./db/client";
import { healthRoutes } from "./health/routes";
import { observability } from "./http/observability";

export interface AppContext {
  config: Config;
  db: Db;
}

export function buildApp(ctx: AppContext) {
  return new Elysia()
    .use(observability())
    .use(healthRoutes());
}

export type App = ReturnType<typeof buildApp>;
