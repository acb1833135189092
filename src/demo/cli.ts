// What `spyglass demo` does and prints; main.ts only dispatches to it.
import { ownerMissing, requireAccountByEmail } from "../accounts/service";
import { listBrands } from "../brands/service";
import { type AppContext } from "../context";
import { Conflict } from "../errors";
import { type CliOutput } from "../tracking/cli";
import { checkDemoScale, DEMO_DAYS, type DemoResult, seedDemo } from "./seeder";

export { checkDemoScale };

import { DEMO_EMAIL } from "./templates";

export async function demoCommand(app: AppContext, opts: { scale: number; reset: boolean; json: boolean; out?: CliOutput }): Promise<void> {
  const stdout = opts.out?.stdout ?? process.stdout;
  const base = app.config.publicUrl ?? `http://localhost:${app.config.port}`;
  const publicApi = (siteKey: string) => `${base}/api/public/articles?key=${siteKey}`;
  let result: DemoResult;
  try {
    result = await seedDemo(app, { scale: opts.scale, reset: opts.reset });
  } catch (error) {
    if (error instanceof Conflict && error.code === "demo_exists")
      return await describeExistingDemo(app, { json: opts.json, stdout, publicApi });
    throw error;
  }
  if (opts.json) {
    stdout.write(`${JSON.stringify({ ...result, public_api_url: publicApi(result.brand.site_key) })}\n`);
    return;
  }
  // The demo's account closes the first-run signup (it is an account) but never owns the instance.
  const yourAccount = (await ownerMissing(app.db))
    ? [
        app.config.auth.signup === "open"
          ? `Your own account (the instance's owner; signup is open, so the next visitor to sign up would own it instead):`
          : `Your own account (the instance's owner; the dashboard's signup is closed once any account exists, the demo's too):`,
        `  spyglass account create --email you@example.com --password - --plan autopilot`,
      ]
    : [];
  stdout.write(
    [
      `Demo data seeded in ${result.seconds} s (DEMO DATA, not real measurements): brand "${result.brand.name}", ${result.competitors} competitors, ${result.prompts} prompts, ${result.answers} answers over ${DEMO_DAYS} days × 3 engines, 1 published article.`,
      `  dashboard   ${base}/   (sign in with this login)`,
      `  login       ${result.login.email}  password: ${result.login.password}`,
      `  API key     ${result.api_key}   (MCP tool server: ${base}/api/mcp/mcp)`,
      `  site key    ${result.brand.site_key}`,
      `  public API  ${publicApi(result.brand.site_key)}`,
      app.config.publicUrl
        ? `Start the server with "spyglass serve" and connect an MCP client with the API key.`
        : `Start the server with "spyglass serve" and connect an MCP client with the API key. These addresses are a server on this machine at port ${app.config.port}; another port or host changes them (public_url in spyglass.toml names the address clients use).`,
      ...yourAccount,
      "",
    ].join("\n"),
  );
}

/**
 * A second `spyglass demo` seeds nothing: it says what exists and how to get what was shown only once
 * (an API key: create another; the password: --reset seeds everything again).
 */
async function describeExistingDemo(
  app: AppContext,
  opts: { json: boolean; stdout: CliOutput["stdout"]; publicApi: (siteKey: string) => string },
): Promise<void> {
  const account = await requireAccountByEmail(app.db, DEMO_EMAIL);
  const brand = (await listBrands(app.db, account.id))[0];
  if (!brand)
    throw new Conflict(
      `The demo account (${DEMO_EMAIL}) exists without its brand; run "spyglass demo --reset" to seed it again.`,
      "demo_exists",
    );
  const view = { id: brand.id, name: brand.name, domain: brand.domain, site_key: brand.site_key };
  if (opts.json) {
    opts.stdout.write(
      `${JSON.stringify({ exists: true, login: { email: account.email }, brand: view, public_api_url: opts.publicApi(brand.site_key) })}\n`,
    );
    return;
  }
  opts.stdout.write(
    [
      `The demo already exists (DEMO DATA): login ${account.email}, brand "${brand.name}" (${brand.id}); nothing was changed.`,
      `  site key    ${brand.site_key}`,
      `  public API  ${opts.publicApi(brand.site_key)}`,
      "Its API key and password were shown once, when it was seeded. Create another API key with:",
      `  spyglass key create --email ${account.email} --brand ${brand.id} --name demo`,
      "or delete the demo and seed it again (new password, API key and site key) with:",
      "  spyglass demo --reset",
      "",
    ].join("\n"),
  );
}
