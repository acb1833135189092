// The API keys page in headless Chromium against the compiled binary: a key created by keyboard
// alone works with the MCP SDK client, its plaintext shown once with every client's configuration;
// a revoked key is refused on the client's next request; plan none and the 20-key limit say what to
// do; a name made of markup is text. Checked with axe-core, photographed at 1280 and 390 px in light
// and dark, with no CSP violation, error or dialog.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type Page } from "playwright-core";
import {
  type Dashboard,
  expectAccessible,
  expectFocus,
  expectNothingUnsafe,
  openDashboard,
  photograph,
  signIn,
} from "../support/dashboard";
import { connect } from "../support/mcp";

const OWNER = { email: "owner@example.com", password: "a long password" };
const MEMBER = { email: "member@example.com", password: "another long password" };
const HOSTILE = `<img src=x onerror=alert(1)> "><script>alert(2)</script>`;
const CLIENTS = ["Claude Code", "Cursor", "VS Code", "Windsurf", "Codex", "Claude Desktop (mcp-remote)"];

let d: Dashboard;
let page: Page;
let brandId: string;
let client: Client | null = null;
let firstKey = "";

async function openKeysPage(into: Page, brand = brandId): Promise<void> {
  await into.goto(d.url(`/brands/${brand}/keys`));
  await into.getByRole("heading", { level: 1, name: "API keys" }).waitFor();
}

const focused = (into: Page) =>
  into.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return {
      tag: el?.tagName ?? "",
      label: el?.id ? (document.querySelector(`label[for="${el.id}"]`)?.textContent ?? "") : "",
      text: el?.textContent ?? "",
    };
  });

beforeAll(async () => {
  d = await openDashboard();
  await d.box.cliJson(["account", "create", "--email", OWNER.email, "--password", OWNER.password]);
  brandId = (await d.box.cliJson<{ id: string }>(["brand", "create", "--email", OWNER.email, "--name", "Acme", "--domain", "acme.com"])).id;
  await d.box.cliJson(["account", "create", "--email", MEMBER.email, "--password", MEMBER.password, "--plan", "none"]);
  await d.box.cliJson(["brand", "create", "--email", MEMBER.email, "--name", "Member's brand"]);
  page = await d.page();
  page.setDefaultTimeout(20_000);
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: d.server.url });
  await signIn(d, page, OWNER);
});

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await d?.close();
});

describe("the API keys page", () => {
  test("plan none: the owner is sent to the Accounts page to set the plan, another account is told to ask the owner", async () => {
    await page.getByRole("navigation", { name: "Brand pages" }).getByRole("link", { name: "API keys" }).click();
    await page.waitForURL(`**/brands/${brandId}/keys`);
    const main = page.getByRole("main");
    await main.getByText("Creating API keys needs the Visibility plan.").waitFor();
    const link = main.getByRole("link", { name: "set your account's plan on the Accounts page" });
    expect(await link.getAttribute("href")).toBe("/accounts");
    expect(await main.getByLabel("Key name").count()).toBe(0);
    await main.getByRole("heading", { name: "No API key for this brand" }).waitFor();
    await expectAccessible(page, "keys-plan-none");
    await photograph(page, "keys-plan-none");

    const other = await d.page();
    await signIn(d, other, MEMBER);
    const memberBrand = new URL(other.url()).pathname.split("/")[2]!;
    await openKeysPage(other, memberBrand);
    await other
      .getByRole("main")
      .getByText("Creating API keys needs the Visibility plan. Ask the owner of this instance to change your account's plan.")
      .waitFor();
    expect(await other.getByRole("main").getByRole("link").count()).toBe(0);
    // And the server agrees: plan none cannot create a key.
    const refused = await other.request.post(d.url("/api/mcp/keys"), { data: { name: "try", brand_id: memberBrand } });
    expect(refused.status()).toBe(403);
    expectNothingUnsafe(other);
    expectNothingUnsafe(page);
  });

  test("a key is created by keyboard alone, shown once, and works with the MCP SDK client", async () => {
    expect((await d.box.cli(["account", "plan", "--email", OWNER.email, "--plan", "visibility"])).code).toBe(0);
    await openKeysPage(page);
    await page.getByText("0 of 20 active keys on this account.").waitFor();

    // Tab, Enter, Space and Escape only (and typing the name).
    await page.keyboard.press("Tab");
    expect(await focused(page)).toMatchObject({ tag: "A", text: "Skip to content" });
    await page.keyboard.press("Enter");
    await page.keyboard.press("Tab");
    expect(await focused(page)).toMatchObject({ tag: "INPUT", label: "Key name" });
    await page.keyboard.type("Claude Code on my laptop");
    await page.keyboard.press("Enter");

    const dialog = page.getByRole("dialog", { name: "Your new API key" });
    await dialog.waitFor();
    await dialog.getByText("This is the only time the key is shown.").waitFor();
    firstKey =
      (await dialog
        .getByRole("figure", { name: /^API key/ })
        .locator("code")
        .textContent()) ?? "";
    expect(firstKey).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
    // Focus is in the dialog, on the key's copy button: Space copies it.
    await expectFocus(dialog.getByRole("button", { name: "Copy API key" }));
    await page.keyboard.press("Space");
    await dialog.getByRole("status").filter({ hasText: "Copied" }).first().waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(firstKey);
    // "Copied" goes after a few seconds (it stayed for good); what was copied still lets Escape close.
    await dialog.getByRole("status").filter({ hasText: "Copied" }).first().waitFor({ state: "detached", timeout: 10_000 });

    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    await expectFocus(page.getByLabel("Key name"));
    // Gone from the page once the dialog is closed (its close event, then the render after it).
    await page.waitForFunction((key) => !document.documentElement.outerHTML.includes(key), firstKey, { timeout: 5_000 });
    expect(await page.content()).not.toContain(firstKey);

    const row = page.getByRole("row", { name: /Claude Code on my laptop/ });
    expect(await row.getByRole("cell").allTextContents()).toEqual([`${firstKey.slice(0, 13)}…`, expect.any(String), "never", "Revoke"]);
    await page.getByText("1 of 20 active keys on this account.").waitFor();

    client = await connect(d.server.url, firstKey);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("get_brand");
    expectNothingUnsafe(page);
  });

  test("the new key's dialog has each client's configuration with this server's URL and the key", async () => {
    await page.getByLabel("Key name").fill("Every client");
    await page.getByRole("button", { name: "Create the key" }).click();
    const dialog = page.getByRole("dialog", { name: "Your new API key" });
    await dialog.waitFor();
    const key =
      (await dialog
        .getByRole("figure", { name: /^API key/ })
        .locator("code")
        .textContent()) ?? "";
    const url = `${d.server.url}/api/mcp/mcp`;
    const select = dialog.getByLabel("AI client");
    expect(await select.locator("option").allTextContents()).toEqual(CLIENTS);
    for (const name of CLIENTS) {
      await select.selectOption({ label: name });
      const setup = dialog.getByRole("region", { name: `${name} set-up` });
      const text = (await setup.locator("pre").allTextContents()).join("\n");
      expect({ name, url: text.includes(url), key: text.includes(key) }).toEqual({ name, url: true, key: true });
    }
    await select.selectOption({ label: "Claude Code" });
    expect(await dialog.getByRole("figure", { name: "Claude Code command" }).locator("code").textContent()).toBe(
      `claude mcp add --transport http spyglass-acme ${url} --header "Authorization: Bearer ${key}"`,
    );
    await select.selectOption({ label: "Cursor" });
    const cursor = JSON.parse((await dialog.getByRole("figure", { name: "Cursor configuration" }).locator("code").textContent()) ?? "");
    // Named after the brand: one client may hold several brands' servers.
    expect(cursor).toEqual({ mcpServers: { "spyglass-acme": { url, headers: { Authorization: `Bearer ${key}` } } } });
    // At 390 px each Copy button keeps its word on one line beside a long label (it read "Co / py").
    await page.setViewportSize({ width: 390, height: 844 });
    for (const name of CLIENTS) {
      await select.selectOption({ label: name });
      const lines = await dialog.getByRole("button", { name: /^Copy / }).evaluateAll((buttons) =>
        buttons.map((button) => {
          const range = document.createRange();
          range.selectNodeContents(button);
          return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
        }),
      );
      expect({ name, lines }).toEqual({ name, lines: lines.map(() => 1) });
    }
    await page.setViewportSize({ width: 1280, height: 800 });
    await select.selectOption({ label: "Claude Desktop (mcp-remote)" });
    await expectAccessible(page, "keys-new-key-dialog");
    await photograph(page, "keys-new-key-dialog");
    // Done is in sight at 1280×800, the dialog's content scrolling above it.
    await page.setViewportSize({ width: 1280, height: 800 });
    const done = dialog.getByRole("button", { name: "Done" });
    const [button, frame] = [(await done.boundingBox())!, (await dialog.boundingBox())!];
    expect(button.y + button.height).toBeLessThanOrEqual(frame.y + frame.height);
    // Before anything was copied, a stray Escape does not lose the key, shown only here: the keyboard
    // goes to Done. (Once copied, Escape closes it: the first test.)
    await page.keyboard.press("Escape");
    await Bun.sleep(200);
    expect(await dialog.isVisible()).toBe(true);
    await page.waitForFunction(() => document.activeElement?.textContent === "Done");
    // And says why, beside Done, where the keyboard is (the walk: Escape seemed to do nothing).
    await dialog
      .getByRole("status")
      .filter({ hasText: "The key is shown only here, so Escape does not close this before it is copied: copy it, or press Done." })
      .waitFor();
    await photograph(page, "keys-new-key-escape-held");
    await dialog.getByRole("button", { name: "Done" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(await page.content()).not.toContain(key);
    expectNothingUnsafe(page);
  });

  test("revoking asks first, names the key, and the SDK client's next request is refused with 401", async () => {
    const name = "Claude Code on my laptop";
    // Escape cancels.
    await page.getByRole("button", { name: `Revoke ${name}` }).click();
    const dialog = page.getByRole("dialog", { name: `Revoke the key “${name}”?` });
    await dialog.getByText("are refused from their next request").waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    await page.getByRole("row", { name: new RegExp(name) }).waitFor();

    await page.getByRole("button", { name: `Revoke ${name}` }).click();
    await expectAccessible(page, "keys-revoke-dialog");
    await photograph(page, "keys-revoke-dialog");
    await dialog.getByRole("button", { name: "Revoke the key" }).click();
    await page
      .getByRole("status")
      .filter({ hasText: `Revoked “${name}”` })
      .waitFor();
    await page.getByRole("row", { name: new RegExp(name) }).waitFor({ state: "detached" });
    // The dialog's close event (a task after the dialog closes, and the browser's return of focus to
    // the control that opened it, now gone) moves the keyboard there: waited for, not read at once.
    await page.waitForFunction((heading) => document.activeElement?.textContent === heading, "This brand's keys");
    await page.getByText("1 of 20 active keys on this account.").waitFor();

    // The SDK's StreamableHTTPError carries the HTTP status as its code.
    expect(
      await client!.listTools().then(
        () => "answered",
        (error: unknown) => error,
      ),
    ).toMatchObject({
      code: 401,
      message: expect.stringContaining("was revoked"),
    });
    expect(
      await connect(d.server.url, firstKey).then(
        () => "connected",
        (error: unknown) => error,
      ),
    ).toMatchObject({ code: 401 });
    expectNothingUnsafe(page);
  });

  test("a blank name is said under the field, with the keyboard there, and goes once the name is typed", async () => {
    const name = page.getByLabel("Key name");
    await name.fill("   ");
    await page.getByRole("button", { name: "Create the key" }).click();
    await page.getByText("Give the key a name (where it will be used), 1 to 100 characters.").waitFor();
    expect(await name.getAttribute("aria-invalid")).toBe("true");
    await expectFocus(name);
    await name.fill("Laptop");
    await page.waitForFunction(() => !document.querySelector('[aria-invalid="true"]'));
    expect(await page.getByText("Give the key a name").count()).toBe(0);
    await name.fill("");
  });

  test("a key named with markup is shown as text", async () => {
    await page.getByLabel("Key name").fill(HOSTILE);
    await page.getByRole("button", { name: "Create the key" }).click();
    const dialog = page.getByRole("dialog", { name: "Your new API key" });
    await dialog.getByText(`The key “${HOSTILE}” works for the brand Acme only.`).waitFor();
    await dialog.getByRole("button", { name: "Done" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(await page.getByRole("rowheader", { name: HOSTILE }).textContent()).toBe(HOSTILE);
    await page.getByRole("button", { name: `Revoke ${HOSTILE}` }).waitFor();
    expect(await page.locator("main img").count()).toBe(0);
    await expectAccessible(page, "keys");
    await photograph(page, "keys");
    expectNothingUnsafe(page);
  });

  test("the new key's dialog names the key's own brand, even after Back changed the page under it", async () => {
    const globex = (await d.box.cliJson<{ id: string }>(["brand", "create", "--email", OWNER.email, "--name", "Globex Café"])).id;
    await page.reload();
    await page.getByLabel("Brand", { exact: true }).selectOption({ label: "Globex Café" });
    await page.waitForURL(`**/brands/${globex}/keys`);
    await page.getByLabel("Key name").fill("Made on Globex");
    await page.getByRole("button", { name: "Create the key" }).click();
    const dialog = page.getByRole("dialog", { name: "Your new API key" });
    await dialog.waitFor();
    // Back, under the open dialog: the page is Acme's again, the key still Globex Café's.
    await page.goBack({ waitUntil: "commit" });
    await page.waitForURL((url) => url.pathname.endsWith(`/brands/${brandId}/keys`));
    await page.getByRole("heading", { name: "This brand's keys" }).waitFor();
    await dialog.getByText("The key “Made on Globex” works for the brand Globex Café only.").waitFor();
    await dialog.getByLabel("AI client").selectOption({ label: "Cursor" });
    const cursor = JSON.parse((await dialog.getByRole("figure", { name: "Cursor configuration" }).locator("code").textContent()) ?? "");
    expect(Object.keys(cursor.mcpServers)).toEqual(["spyglass-globex-cafe"]);
    await dialog.getByRole("button", { name: "Done" }).click();
    await dialog.waitFor({ state: "hidden" });
  });

  test("the 20-key limit: the count, the server's sentence and what to do", async () => {
    const { keys } = (await (await page.request.get(d.url("/api/mcp/keys"))).json()) as { keys: unknown[] };
    for (let i = keys.length; i < 20; i++) {
      const created = await page.request.post(d.url("/api/mcp/keys"), { data: { name: `Key ${i + 1}`, brand_id: brandId } });
      expect(created.status()).toBe(201);
    }
    await openKeysPage(page);
    await page
      .getByRole("status")
      .filter({
        hasText: "20 of 20 active keys on this account. An account can have at most 20 active API keys. Revoke a key you no longer use",
      })
      .waitFor();
    await page.getByLabel("Key name").fill("One too many");
    await page.getByRole("button", { name: "Create the key" }).click();
    await page
      .getByRole("alert")
      .filter({
        hasText:
          "An account can have at most 20 active API keys; revoke one first. Each brand's keys are on its API keys page; create this one again once one is revoked.",
      })
      .waitFor();
    // The server's sentence replaces the page's own: said once.
    expect(await page.getByText("An account can have at most 20 active API keys.").count()).toBe(0);
    expect(await page.getByRole("dialog").count()).toBe(0);
    await expectAccessible(page, "keys-limit");
    await photograph(page, "keys-limit");
    expectNothingUnsafe(page);
  });

  test("another brand's page lists its own keys, and counts the account's others", async () => {
    const other = (await d.box.cliJson<{ id: string }>(["brand", "create", "--email", OWNER.email, "--name", "Beta"])).id;
    await page.reload();
    await page.getByLabel("Brand", { exact: true }).selectOption({ label: "Beta" });
    await page.waitForURL(`**/brands/${other}/keys`);
    await page.getByRole("heading", { name: "No API key for this brand" }).waitFor();
    await page.getByText("The account's 20 other active keys belong to its other brands: switch brand to see them.").waitFor();
    await page.getByRole("status").filter({ hasText: "20 of 20 active keys on this account." }).waitFor();
    // By keyboard, the arrows only choose (the page stays until Enter), as WCAG 3.2.2 asks.
    const switcher = page.getByLabel("Brand", { exact: true });
    await switcher.focus();
    await page.keyboard.press("ArrowUp");
    expect(await switcher.inputValue()).not.toBe(other);
    await Bun.sleep(300);
    expect(page.url()).toEndWith(`/brands/${other}/keys`);
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.pathname.endsWith("/keys") && !url.pathname.includes(other));
    // The switch is not silent: the title names the brand, and the keyboard is on the page's heading.
    const first = await switcher.evaluate((el: HTMLSelectElement) => el.selectedOptions[0]?.textContent ?? "");
    await page.waitForFunction((name) => document.title === `API keys · ${name} · Spyglass`, first);
    await page.waitForFunction(() => document.activeElement?.tagName === "H1");
    expectNothingUnsafe(page);
  });
});

describe("a client in a web page (the MCP Inspector's direct connection)", () => {
  test("on a loopback page, Chromium lets it read the 401's way to sign in, then list the tools with a key", async () => {
    // An account of its own: the owner's keys are at their limit by now.
    const email = "inspector@example.com";
    await d.box.cliJson(["account", "create", "--email", email, "--password", "an inspector's password", "--plan", "visibility"]);
    const brand = (await d.box.cliJson<{ id: string }>(["brand", "create", "--email", email, "--name", "Inspected"])).id;
    const key = (await d.box.cliJson<{ plaintext: string }>(["key", "create", "--email", email, "--brand", brand, "--name", "inspector"]))
      .plaintext;
    // Another origin than the server's: a page served from another loopback port, as the Inspector's is.
    const site = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => new Response("<!doctype html><title>client</title>", { headers: { "content-type": "text/html" } }),
    });
    const inPage = await d.page();
    try {
      await inPage.goto(`http://localhost:${site.port}/`);
      const asked = await inPage.evaluate(
        async ({ url, key }) => {
          const send = async (authorization?: string) => {
            const response = await fetch(url, {
              method: "POST",
              headers: {
                "content-type": "application/json",
                accept: "application/json, text/event-stream",
                "mcp-protocol-version": "2025-11-25",
                ...(authorization ? { authorization } : {}),
              },
              body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
            });
            return { status: response.status, challenge: response.headers.get("www-authenticate"), body: await response.json() };
          };
          const unsigned = await send();
          const signed = await send(`Bearer ${key}`);
          return {
            unsigned: { status: unsigned.status, challenge: unsigned.challenge },
            signed: { status: signed.status, tools: signed.body.result.tools.length },
          };
        },
        { url: d.url("/api/mcp/mcp"), key },
      );
      expect(asked.unsigned).toEqual({ status: 401, challenge: 'Bearer realm="spyglass", error="invalid_token"' });
      expect(asked.signed.status).toBe(200);
      expect(asked.signed.tools).toBeGreaterThan(20);
    } finally {
      await inPage.context().close();
      site.stop(true);
    }
  });
});
