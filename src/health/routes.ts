import { Elysia } from "elysia";
import { VERSION } from "../version";

export function healthRoutes() {
  return new Elysia({ name: "health" }).get("/healthz", () => ({ status: "ok", version: VERSION }));
}
