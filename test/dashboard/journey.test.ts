// The whole first session of a self-hoster, in headless Chromium against the compiled binary, from an
// empty instance: the owner account, a plan, a brand, an API key read from the page and used by the
// MCP SDK client, prompts and a competitor, an article written in the editor, Publish (the public API
// lists it), Unpublish (gone), and a revoked key refused on the client's next request. Controls are
// found by role and label only.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { type Page } from "playwright-core";
import { type Dashboard, expectNothingUnsafe, openDashboard } from "../support/dashboard";
import { call, connect } from "../support/mcp";

const OWNER = { email: "owner@example.com", password: "a long password" };

let d: Dashboard;
let page: Page;
let client: Client | null = null;

beforeAll(async () => {
  d = await openDashboard();
  page = await d.page();
});

afterAll(async () => {
  await client?.close().catch(() => undefined);
  await d?.close();
});

function nav(name: string) {
  return page.getByRole("navigation", { name: "Brand pages" }).getByRole("link", { name, exact: true });
}

test("from an empty instance to a published article, and a revoked key refused", async () => {
  // The owner account, on the first visit.
  await page.goto(d.url("/"));
  await page.waitForURL("**/welcome");
  await page.getByLabel("Email").fill(OWNER.email);
  await page.getByLabel("Password").fill(OWNER.password);
  await page.getByRole("button", { name: "Create the owner account" }).click();

  // The owner starts on Autopilot, as the Accounts page shows.
  await page.waitForURL("**/brands");
  await page.getByRole("link", { name: "Accounts", exact: true }).click();
  expect(await page.getByLabel(`Plan of ${OWNER.email}`, { exact: true }).inputValue()).toBe("autopilot");

  // A brand.
  await page.getByRole("link", { name: "All brands" }).click();
  await page.getByLabel("Name").fill("Northwind");
  await page.getByLabel("Domain (optional)").fill("northwind.com");
  await page.getByRole("button", { name: "Create the brand" }).click();
  await page.waitForURL(/\/brands\/brd_[a-z0-9]+$/);
  const brandId = new URL(page.url()).pathname.split("/")[2]!;
  const siteKey = (await page.getByRole("figure", { name: "Site key" }).locator("code").textContent())!;

  // An API key, read from the page, works in an MCP client.
  await nav("API keys").click();
  await page.getByLabel("Key name").fill("journey");
  await page.getByRole("button", { name: "Create the key" }).click();
  const dialog = page.getByRole("dialog", { name: "Your new API key" });
  const key = (await dialog
    .getByRole("figure", { name: /^API key/ })
    .locator("code")
    .textContent())!;
  expect(key).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
  await dialog.getByRole("button", { name: "Done" }).click();
  client = await connect(d.server.url, key);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  expect(tools).toContain("publish_to_site");

  // Prompts and a competitor; the client sees them.
  await nav("Prompts").click();
  await page.getByLabel("Prompts", { exact: true }).fill("best CRM for small agencies\nwhich CRM integrates with Gmail?");
  await page.getByRole("button", { name: "Add the prompts" }).click();
  await page.getByRole("status").filter({ hasText: "Added 2 prompts." }).waitFor();
  await nav("Competitors").click();
  await page.getByLabel("Competitor name").fill("Contoso CRM");
  await page.getByLabel("Domains").fill("contoso.com");
  await page.getByRole("button", { name: "Add the competitor" }).click();
  await page.getByRole("status").filter({ hasText: "Added the competitor “Contoso CRM”." }).waitFor();
  const brand = await call(client, "get_brand");
  expect(brand.data.competitors.map((c: { name: string }) => c.name)).toEqual(["Contoso CRM"]);
  expect((await call(client, "list_prompts")).data.prompts.map((p: { text: string }) => p.text)).toEqual([
    "best CRM for small agencies",
    "which CRM integrates with Gmail?",
  ]);

  // An article written in the editor, published, then unpublished.
  await nav("Articles").click();
  await page.getByRole("link", { name: "New article" }).first().click();
  await page.getByLabel("Title").fill("Choosing a CRM for an agency");
  await page.getByLabel("Markdown").fill("# Choosing a CRM for an agency\n\nStart with **integrations**.\n\n- Gmail\n- Calendar\n");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Saved as a draft." }).waitFor();
  const slug = await page.getByLabel("Slug").inputValue();
  await page.getByRole("button", { name: "Publish", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Published: the brand's site can read it now." }).waitFor();
  const list = async () =>
    ((await (await fetch(d.url(`/api/public/articles?key=${siteKey}`))).json()) as { articles: Array<{ slug: string; title: string }> })
      .articles;
  expect((await list()).map((a) => [a.slug, a.title])).toEqual([[slug, "Choosing a CRM for an agency"]]);
  await page.getByRole("button", { name: "Unpublish" }).click();
  await page.getByRole("dialog", { name: "Unpublish this article?" }).getByRole("button", { name: "Unpublish" }).click();
  await page.getByRole("button", { name: "Publish", exact: true }).waitFor();
  expect(await list()).toEqual([]);
  expect((await fetch(d.url(`/api/public/articles/${slug}?key=${siteKey}`))).status).toBe(404);

  // Revoking the key refuses the client on its next request.
  await nav("API keys").click();
  await page.getByRole("button", { name: "Revoke journey" }).click();
  await page.getByRole("dialog", { name: "Revoke the key “journey”?" }).getByRole("button", { name: "Revoke the key" }).click();
  await page.getByRole("status").filter({ hasText: "Revoked “journey”" }).waitFor();
  const refused = await client.listTools().then(
    () => null,
    (error: { code?: number; message: string }) => error,
  );
  expect(refused?.code).toBe(401);
  expect(brandId).toMatch(/^brd_/);
  expectNothingUnsafe(page);
});
