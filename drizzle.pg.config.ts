import { defineConfig } from "drizzle-kit";

// PostgreSQL's migrations, from schema-pg.ts (SQLite's are drizzle.config.ts's): `bun run db:generate:pg`.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/schema-pg.ts",
  out: "./drizzle-pg",
});
