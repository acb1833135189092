// OAuth 2.1 against the compiled binary, driven by the MCP SDK client's own OAuth implementation
// (StreamableHTTPClientTransport with an OAuthClientProvider) and a person in headless Chromium:
// discovery from the 401, registration by Client ID Metadata Document (served over https on loopback,
// allowed only in the test mode SPYGLASS_OAUTH_TEST_LOOPBACK_CLIENTS=1) and by DCR, sign-in and consent
// on the dashboard, token exchange, tools on the chosen brand only, refresh, revocation from the
// dashboard, and the brand isolation matrix once more with an access token.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type OAuthClientInformationMixed, type OAuthClientMetadata, type OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import { type Page } from "playwright-core";
import { hashPassword } from "../../src/accounts/service";
import { type Dashboard, expectAccessible, expectNothingUnsafe, openDashboard, photograph } from "../support/dashboard";
import { seedToolServerDb, type ToolServerSeed } from "../support/fixtures";
import { expectBrandIsolation } from "../support/isolation";
import { call, connect, MCP_PATH, raw, rpc } from "../support/mcp";
import { documentHost } from "../support/oauth";
import { expectPromptAndResourceIsolation } from "../support/prompt-resource-isolation";

setDefaultTimeout(120_000);

const PASSWORD = "borealis password";
const TOML = (port: number) => `
public_url = "http://127.0.0.1:${port}"

[tracking]
enabled = false

[[engines]]
id = "fake"
label = "Fake engine"
api = "openai"
base_url = "http://127.0.0.1:9/v1"
model = "fake-1"

[writer]
api = "openai"
base_url = "http://127.0.0.1:9/v1"
model = "fake-writer"
`;

/** An OAuthClientProvider as an MCP client keeps one: in memory, sending the user to a browser page. */
class TestProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = "";
  authorizationUrls: URL[] = [];
  readonly clientMetadataUrl: string | undefined;
  constructor(
    readonly redirectUrl: string,
    clientMetadataUrl?: string,
  ) {
    this.clientMetadataUrl = clientMetadataUrl;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "Spyglass e2e (DCR)",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state(): string {
    return `state-${crypto.randomUUID()}`;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery") {
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "client") this.client = undefined;
  }
}

let d: Dashboard;
let seed: ToolServerSeed;
let secondBrandId: string;
let callback: { url: string; next(): Promise<URL>; stop(): void };
let docs: ReturnType<typeof documentHost>;
const closers: Array<() => Promise<unknown>> = [];

/** The client's redirect URI: a loopback server that hands each request's URL to the test. */
function callbackServer() {
  const waiting: Array<(url: URL) => void> = [];
  const arrived: URL[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      // The browser also asks for /favicon.ico; only the redirect URI counts.
      if (url.pathname !== "/callback") return new Response("not found", { status: 404 });
      const resolve = waiting.shift();
      if (resolve) resolve(url);
      else arrived.push(url);
      return new Response("<!doctype html><title>Done</title><p>You can close this window.</p>", {
        headers: { "content-type": "text/html" },
      });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/callback`,
    next: () => {
      const ready = arrived.shift();
      return ready ? Promise.resolve(ready) : new Promise<URL>((resolve) => waiting.push(resolve));
    },
    stop: () => void server.stop(true),
  };
}

function freePort(): number {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = probe.port!;
  probe.stop(true);
  return port;
}

beforeAll(async () => {
  const port = freePort();
  d = await openDashboard({
    toml: TOML(port),
    env: { SPYGLASS_OAUTH_TEST_LOOPBACK_CLIENTS: "1" },
    serve: { args: ["--port", String(port)] },
  });
  seed = await d.box.withDb(seedToolServerDb);
  const passwordHash = await hashPassword(PASSWORD);
  await d.box.withDb((db) => db.run("UPDATE accounts SET password_hash = ? WHERE id = ?", [passwordHash, seed.b.accountId]));
  secondBrandId = (await d.box.cliJson<{ id: string }>(["brand", "create", "--email", "b@example.com", "--name", "Borealis Labs"])).id;
  callback = callbackServer();
  docs = documentHost((origin) => ({
    "/spyglass-e2e/client.json": {
      client_id: `${origin}/spyglass-e2e/client.json`,
      client_name: "Spyglass e2e (CIMD)",
      client_uri: origin,
      redirect_uris: [callback.url],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    },
  }));
}, 120_000);

afterAll(async () => {
  for (const close of closers) await close().catch(() => undefined);
  callback?.stop();
  docs?.stop();
  await d?.close();
}, 60_000);

function transportFor(provider: TestProvider): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`${d.server.url}${MCP_PATH}`), { authProvider: provider });
}

async function connected(provider: TestProvider): Promise<Client> {
  const client = new Client({ name: "spyglass-oauth-e2e", version: "1.0.0" });
  await client.connect(transportFor(provider));
  closers.push(() => client.close());
  return client;
}

/** Waits until the browser shows the app's callback page: a page closed during that navigation hung Playwright's close. */
async function onCallbackPage(page: Page): Promise<void> {
  await page.waitForURL(/\/callback\?/);
  await page.waitForLoadState();
}

/** Signs in (if the page is not yet signed in), chooses the brand and approves; returns the client redirect. */
async function approveInBrowser(page: Page, authorizationUrl: URL, brand: string, options: { photograph?: boolean } = {}): Promise<URL> {
  const arrived = callback.next();
  await page.goto(authorizationUrl.toString());
  const signIn = page.getByRole("button", { name: "Sign in" });
  const approve = page.getByRole("button", { name: "Approve" });
  await Promise.race([signIn.waitFor(), approve.waitFor()]);
  if (await signIn.isVisible()) {
    expect(new URL(page.url()).pathname).toBe("/sign-in");
    await page.getByLabel("Email").fill("b@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await signIn.click();
  }
  await approve.waitFor();
  expect(new URL(page.url()).pathname).toBe("/oauth/consent");
  await page.getByRole("radio", { name: brand }).check();
  if (options.photograph) {
    // Where the browser goes next, as its host alone above the full address (a registered
    // "https://claude.ai@evil.example/…" read as claude.ai; such addresses are now refused too).
    expect(await page.locator(".consent-facts").textContent()).toContain(`After you decide, you go to${new URL(callback.url).host}`);
    await expectAccessible(page, "consent");
    await photograph(page, "oauth-consent");
    await page.getByRole("radio", { name: brand }).check();
  }
  await approve.click();
  return arrived;
}

describe("the SDK client's OAuth flow against the binary", () => {
  let cimd: TestProvider;

  test("discovery from the 401, registration by client metadata document, sign-in and consent in Chromium, token exchange", async () => {
    const unauth = await raw(d.server.url, { body: rpc("tools/list") });
    expect(unauth.status).toBe(401);
    expect(unauth.headers.get("www-authenticate")).toContain(
      `resource_metadata="${d.server.url}/.well-known/oauth-protected-resource/api/mcp/mcp"`,
    );

    cimd = new TestProvider(callback.url, `${docs.origin}/spyglass-e2e/client.json`);
    const client = new Client({ name: "spyglass-oauth-e2e", version: "1.0.0" });
    const transport = transportFor(cimd);
    const refused = await client.connect(transport).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(UnauthorizedError);
    // CIMD: the client id is the document's URL, and nothing was registered.
    expect(cimd.client?.client_id).toBe(`${docs.origin}/spyglass-e2e/client.json`);
    const authorizationUrl = cimd.authorizationUrls[0]!;
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${d.server.url}/oauth/authorize`);
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorizationUrl.searchParams.get("resource")).toBe(`${d.server.url}/api/mcp/mcp`);

    const page = await d.page();
    const back = await approveInBrowser(page, authorizationUrl, "Borealis Tools", { photograph: true });
    expect(back.searchParams.get("state")).toBe(authorizationUrl.searchParams.get("state"));
    expect(back.searchParams.get("iss")).toBe(d.server.url);
    expect(docs.fetched).toContain("/spyglass-e2e/client.json");
    expectNothingUnsafe(page);

    await transport.finishAuth(back.searchParams.get("code")!);
    expect(cimd.saved?.access_token).toMatch(/^sgo_at_/);
    expect(cimd.saved?.refresh_token).toMatch(/^sgo_rt_/);
    expect(cimd.saved?.expires_in).toBe(3600);
  });

  test("tools/list and a tool call act for the chosen brand only", async () => {
    const client = await connected(cimd);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain("get_brand");
    expect(names).toContain("publish_to_site");
    const brand = await call(client, "get_brand");
    expect(brand.data.brand).toMatchObject({ id: seed.b.brandId, name: "Borealis Tools" });
    const prompts = await call(client, "list_prompts");
    expect(prompts.data.prompts.map((p: { text: string }) => p.text)).toEqual(["best Borealis software for small teams"]);
    const created = await call(client, "create_tag", { name: "From OAuth" });
    expect(created.error).toBeNull();
    const other = await call(client, "list_tags");
    expect(other.data.tags.map((t: { name: string }) => t.name)).toContain("From OAuth");
    expect(secondBrandId).not.toBe(seed.b.brandId);
  });

  test("a token granted for one brand never reads or changes another (the isolation matrices of tools, prompts and resources with a token)", async () => {
    const client = await connected(cimd);
    await client.listTools();
    // Prompts and resources first: the tools' matrix creates things in B named like A's (a tag named as A's).
    const aClient = await connect(d.server.url, seed.a.key);
    closers.push(() => aClient.close());
    await expectPromptAndResourceIsolation(client, aClient, seed.a, seed.b);
    await expectBrandIsolation(client, seed.a);
  });

  test("an access token the server refuses is refreshed by the SDK, and the refresh token rotates", async () => {
    const before = cimd.saved!;
    // As if the hour had passed: the stored access token no longer works, the refresh token does.
    cimd.saved = { ...before, access_token: `sgo_at_${"A".repeat(43)}` };
    const client = await connected(cimd);
    expect((await call(client, "get_brand")).data.brand.id).toBe(seed.b.brandId);
    expect(cimd.saved.access_token).not.toBe(before.access_token);
    expect(cimd.saved.refresh_token).not.toBe(before.refresh_token);
    expect(cimd.saved.access_token).toMatch(/^sgo_at_/);
  });

  test("disconnecting the app in the dashboard refuses its next request, and the SDK must sign in again", async () => {
    const client = await connected(cimd);
    expect((await call(client, "get_brand")).data.brand.id).toBe(seed.b.brandId);
    const held = { ...cimd.saved! };
    const page = await d.page();
    await page.goto(d.url(`/sign-in?next=${encodeURIComponent(`/brands/${seed.b.brandId}/keys`)}`));
    await page.getByLabel("Email").fill("b@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    const apps = page.getByRole("region", { name: "Connected apps" });
    await apps.getByRole("row", { name: /Spyglass e2e \(CIMD\)/ }).waitFor();
    expect(await apps.getByRole("cell", { name: "Borealis Tools" }).count()).toBe(1);
    // Under the name the app gave itself, its id, as the consent page showed it.
    const appName = await apps.getByRole("rowheader", { name: /Spyglass e2e \(CIMD\)/ }).textContent();
    expect(appName).toContain(`App id: ${docs.origin}/spyglass-e2e/client.json`);
    await expectAccessible(page, "keys with connected apps");
    await photograph(page, "oauth-connected-apps");
    await apps.getByRole("button", { name: "Disconnect Spyglass e2e (CIMD)" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Disconnect the app" }).click();
    await page.getByText("Disconnected “Spyglass e2e (CIMD)”").waitFor();
    expectNothingUnsafe(page);

    const res = await raw(d.server.url, { headers: { authorization: `Bearer ${cimd.saved!.access_token}` }, body: rpc("tools/list") });
    expect(res.status).toBe(401);
    expect(res.json.error).toContain("This access token is not valid");
    const asked = cimd.authorizationUrls.length;
    const refused = await client.callTool({ name: "get_brand", arguments: {} }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(UnauthorizedError);
    // The refresh token died with the grant: the SDK falls back to a new authorization.
    expect(cimd.authorizationUrls.length).toBe(asked + 1);
    // No credential reached the server's log.
    const logs = d.server.logs();
    expect(logs).toContain("/oauth/token");
    expect(logs).not.toContain(held.access_token);
    expect(logs).not.toContain(held.refresh_token!);
  });

  test("a client that uses dynamic client registration completes the same flow", async () => {
    const dcr = new TestProvider(callback.url);
    const client = new Client({ name: "spyglass-oauth-e2e", version: "1.0.0" });
    const transport = transportFor(dcr);
    expect(
      await client.connect(transport).then(
        () => null,
        (e: unknown) => e,
      ),
    ).toBeInstanceOf(UnauthorizedError);
    expect(dcr.client?.client_id).toMatch(/^sgo_client_/);
    const page = await d.page({ width: 390, height: 844, colorScheme: "dark" });
    const back = await approveInBrowser(page, dcr.authorizationUrls[0]!, "Borealis Labs");
    await transport.finishAuth(back.searchParams.get("code")!);
    const again = await connected(dcr);
    expect((await call(again, "get_brand")).data.brand).toMatchObject({ id: secondBrandId, name: "Borealis Labs" });
    expectNothingUnsafe(page);
  });
});

describe("refusals of the binary in the test mode", () => {
  test("a client document on a private address is still refused (the test mode allows loopback only), on a page, without a redirect", async () => {
    const query = new URLSearchParams({
      response_type: "code",
      client_id: "https://10.0.0.8/client.json",
      redirect_uri: callback.url,
      code_challenge: "A".repeat(43),
      code_challenge_method: "S256",
    });
    const res = await fetch(`${d.server.url}/oauth/authorize?${query}`, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(await res.text()).toContain("private or loopback address (10.0.0.8)");
  });

  test("the consent page opened with a refused request says why: a web site's client gets a link, never a redirect; an app on this device is sent back at once", async () => {
    // Anyone may register a client with any redirect URI: an automatic redirect to a web site on a
    // refusal would make the instance's own pages a way to any site (a review found it one). A
    // loopback listener (mcp-remote, an editor) waits for the answer, and leads to no site.
    const refusedQuery = async (redirectUri: string, name: string) => {
      const registered = await fetch(`${d.server.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: [redirectUri], client_name: name }),
      });
      expect(registered.status).toBe(201);
      return new URLSearchParams({
        response_type: "token",
        client_id: (await registered.json()).client_id,
        redirect_uri: redirectUri,
        code_challenge: "A".repeat(43),
        code_challenge_method: "S256",
        state: "st-refused",
      });
    };
    const page = await d.page();
    page.setDefaultTimeout(20_000);
    await page.goto(`${d.server.url}/oauth/consent?${await refusedQuery("https://app.example/callback", "Refused site")}`);
    const signIn = page.getByRole("button", { name: "Sign in" });
    const heading = page.getByRole("heading", { name: "This connection request cannot be completed" });
    await Promise.race([signIn.waitFor(), heading.waitFor()]);
    if (await signIn.isVisible()) {
      await page.getByLabel("Email").fill("b@example.com");
      await page.getByLabel("Password").fill(PASSWORD);
      await signIn.click();
    }
    await heading.waitFor();
    expect(await page.getByText('Only response_type "code" is supported.').count()).toBe(1);
    const back = new URL((await page.getByRole("link", { name: "Return to app.example" }).getAttribute("href"))!);
    expect(back.searchParams.get("error")).toBe("unsupported_response_type");
    expect(back.searchParams.get("state")).toBe("st-refused");
    await Bun.sleep(300);
    expect(new URL(page.url()).pathname).toBe("/oauth/consent");
    await expectAccessible(page, "consent-refused");
    await photograph(page, "oauth-consent-refused");
    // The same refusal for a client listening on loopback: its listener hears it without a click.
    const arrived = callback.next();
    await page.goto(`${d.server.url}/oauth/consent?${await refusedQuery(callback.url, "Refused app")}`);
    const told = await arrived;
    await onCallbackPage(page);
    expect(told.searchParams.get("error")).toBe("unsupported_response_type");
    expect(told.searchParams.get("state")).toBe("st-refused");
    await page.close();
  });

  test("the consent page by keyboard: Approve without a brand puts the keyboard on the first, Enter there approves; its words follow the plan", async () => {
    const registered = await fetch(`${d.server.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [callback.url], client_name: "Keyboard client" }),
    });
    const clientId = (await registered.json()).client_id as string;
    const query = (state: string) =>
      new URLSearchParams({
        response_type: "code",
        client_id: clientId,
        redirect_uri: callback.url,
        code_challenge: "A".repeat(43),
        code_challenge_method: "S256",
        state,
        resource: `${d.server.url}${MCP_PATH}`,
      });
    const signInAs = async (page: Page, email: string) => {
      await page.getByRole("button", { name: "Sign in" }).waitFor();
      await page.getByLabel("Email").fill(email);
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
    };
    const page = await d.page();
    await page.goto(`${d.server.url}/oauth/consent?${query("st-keys")}`);
    await signInAs(page, "b@example.com");
    const approve = page.getByRole("button", { name: "Approve" });
    await approve.waitFor();
    // What the app may do is the plan's: b's Autopilot plan lets it publish on the brand's site too.
    const hint = await page.locator(".brand-choice .hint").textContent();
    expect(hint).toContain("start tracking runs");
    expect(hint).toContain("publish and take down its articles on the brand's site");
    await approve.focus();
    await page.keyboard.press("Enter");
    await page.getByText("Choose a brand first.").waitFor();
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement | null)?.type)).toBe("radio");
    await page.keyboard.press("Space");
    const arrived = callback.next();
    await page.keyboard.press("Enter");
    const back = await arrived;
    expect(back.searchParams.get("state")).toBe("st-keys");
    expect(back.searchParams.get("code")).toMatch(/^sgo_/);
    await onCallbackPage(page);
    await page.close();

    // An account on plan none is told at once, and can only tell the app (access_denied).
    await d.box.cliJson(["account", "create", "--email", "none@example.com", "--password", PASSWORD, "--plan", "none"]);
    await d.box.cliJson(["brand", "create", "--email", "none@example.com", "--name", "Planless"]);
    const none = await d.page();
    await none.goto(`${d.server.url}/oauth/consent?${query("st-none")}`);
    await signInAs(none, "none@example.com");
    await none.getByText("Connecting an AI app needs the Visibility plan.").waitFor();
    expect(await none.getByRole("button", { name: "Approve" }).count()).toBe(0);
    expect(await none.getByRole("radio").count()).toBe(0);
    await expectAccessible(none, "consent-no-plan");
    await photograph(none, "oauth-consent-no-plan");
    const told = callback.next();
    await none.getByRole("button", { name: "Tell the app, and return to it" }).click();
    const denied = await told;
    expect([denied.searchParams.get("error"), denied.searchParams.get("state")]).toEqual(["access_denied", "st-none"]);
    await onCallbackPage(none);
    await none.close();
  });

  test("an account without a brand creates one and comes back to the request; another account can be used instead", async () => {
    const registered = await fetch(`${d.server.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: [callback.url], client_name: "Brandless client" }),
    });
    const query = new URLSearchParams({
      response_type: "code",
      client_id: (await registered.json()).client_id,
      redirect_uri: callback.url,
      code_challenge: "A".repeat(43),
      code_challenge_method: "S256",
      state: "st-brandless",
    });
    await d.box.cliJson(["account", "create", "--email", "new@example.com", "--password", PASSWORD, "--plan", "visibility"]);
    const page = await d.page();
    await page.goto(`${d.server.url}/oauth/consent?${query}`);
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await page.getByLabel("Email").fill("new@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: "Create a brand" }).click();
    await page.getByText("An app is waiting to connect to one of your brands").waitFor();
    await page.getByLabel("Name").fill("Newcomer");
    await page.getByRole("button", { name: "Create the brand" }).click();
    // Back on the request, with the new brand (the only one: chosen already).
    await page.getByRole("button", { name: "Approve" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/oauth/consent");
    expect(await page.getByRole("radio", { name: "Newcomer" }).isChecked()).toBe(true);
    // Its API keys page says where apps connect from: this server's loopback address is this machine's only.
    const newcomer = (await page.getByRole("radio", { name: "Newcomer" }).getAttribute("value"))!;
    await page.goto(`${d.server.url}/brands/${newcomer}/keys`);
    await page
      .getByRole("region", { name: "Connected apps" })
      .getByText(
        "is reached from this machine only: an app running here (Claude Desktop through mcp-remote, the MCP Inspector) signs in with it",
      )
      .waitFor();
    await page.goto(`${d.server.url}/oauth/consent?${query}`);
    await page.getByRole("button", { name: "Approve" }).waitFor();
    // Another account: signed out, then back to the same request after signing in.
    await page.getByRole("button", { name: "Use another account" }).click();
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await page.getByLabel("Email").fill("b@example.com");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("radio", { name: "Borealis Labs" }).waitFor();
    expect(new URL(page.url()).searchParams.get("state")).toBe("st-brandless");
    expectNothingUnsafe(page);
    await page.close();
  });

  test("a consent POST from another origin is 403, with a valid session", async () => {
    const login = await fetch(`${d.server.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "b@example.com", password: PASSWORD }),
    });
    const cookie = login.headers.get("set-cookie")!.split(";", 1)[0]!;
    const res = await fetch(`${d.server.url}/api/oauth/authorization`, {
      method: "POST",
      headers: { cookie, origin: "https://evil.example", "content-type": "application/json" },
      body: JSON.stringify({ request: "client_id=x", decision: "approve", brand_id: seed.b.brandId }),
    });
    expect(res.status).toBe(403);
  });
});
