// What `spyglass demo` does and prints; main.ts only dispatches to it.
import { type AppContext } from "../context";
import { type CliOutput } from "../tracking/cli";
import { seedDemo } from "./seeder";

export async function demoCommand(app: AppContext, opts: { scale: number; reset: boolean; json: boolean; out?: CliOutput }): Promise<void> {
  const stdout = opts.out?.stdout ?? process.stdout;
  const result = await seedDemo(app, { scale: opts.scale, reset: opts.reset });
  if (opts.json) {
    stdout.write(`${JSON.stringify(result)}\n`);
    return;
  }
  const base = app.config.publicUrl ?? `http://localhost:${app.config.port}`;
  stdout.write(
    [
      `Demo data seeded in ${result.seconds} s (DEMO DATA, not real measurements): brand "${result.brand.name}", ${result.competitors} competitors, ${result.prompts} prompts, ${result.answers} answers over 30 days × 3 engines, 1 published article.`,
      `  login     ${result.login.email}  password: ${result.login.password}`,
      `  API key   ${result.api_key}   (MCP tool server: ${base}/api/mcp/mcp)`,
      `  site key  ${result.brand.site_key}   (public content API: ${base}/api/public/articles)`,
      `Start the server with "spyglass serve" and connect an MCP client with the API key.`,
      "",
    ].join("\n"),
  );
}
