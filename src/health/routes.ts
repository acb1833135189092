import { Elysia } from "elysia";

export function healthRoutes() {
  return new Elysia({ name: "health" }).get("/healthz", () => ({ status: "ok" }));
}
