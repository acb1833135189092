// A person's own account page, in headless Chromium against the compiled binary: reached from the
// account menu, a new password behind the current one, and the account's deletion behind its
// password (then the sign-in page says what went, and the account's keys are refused); the owner is
// told why theirs cannot be deleted. axe-core and screenshots at 1280 and 390 px, light and dark.
// The CLI's `account delete` too.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { type Page } from "playwright-core";
import {
  type Dashboard,
  expectAccessible,
  expectFocus,
  expectNothingUnsafe,
  mcpStatus as mcpStatusOf,
  openDashboard,
  photograph,
  signIn,
} from "../support/dashboard";

const OWNER = { email: "owner@example.com", password: "the owner's password" };
const CLIENT = { email: "client@example.com", password: "a long password" };

setDefaultTimeout(60_000);

let d: Dashboard;
let page: Page;

beforeAll(async () => {
  d = await openDashboard();
  for (const who of [OWNER, CLIENT]) {
    expect((await d.box.cli(["account", "create", "--email", who.email, "--password", who.password, "--plan", "visibility"])).code).toBe(0);
    await d.box.cliJson(["brand", "create", "--email", who.email, "--name", `${who.email.split("@")[0]} Co`]);
  }
  page = await d.page();
  page.setDefaultTimeout(20_000);
});

afterAll(async () => {
  await d?.close();
});

const mcpStatus = (key: string) => mcpStatusOf(d, key);

test("the owner reaches their account from the menu, and is told why it cannot be deleted", async () => {
  await signIn(d, page, OWNER);
  await page.getByRole("link", { name: OWNER.email }).click();
  await page.waitForURL((url) => url.pathname === "/account");
  await page.getByRole("heading", { name: "Your account", level: 1 }).waitFor();
  // No brand is this page's: the header's menu offers one to go to.
  expect(await page.getByLabel("Brand", { exact: true }).locator("option:checked").textContent()).toBe("Go to a brand…");
  await page.getByText("This account owns this Spyglass instance, so it cannot be deleted here").waitFor();
  expect(await page.getByRole("button", { name: "Delete the account…" }).count()).toBe(0);
  await expectAccessible(page, "account-owner");
  await photograph(page, "account-owner");
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL((url) => url.pathname === "/sign-in");
});

test("a new password needs the current one; other sessions end, this one stays", async () => {
  const elsewhere = await d.page();
  await signIn(d, elsewhere, CLIENT);
  await signIn(d, page, CLIENT);
  await page.goto(d.url("/account"));
  const current = page.getByLabel("Current password");
  const next = page.getByLabel("New password");
  await current.fill("not my password");
  await next.fill("a newer long password");
  await page.getByRole("button", { name: "Change the password" }).click();
  // Said under the field it is about, in the page's words, with the keyboard moved there.
  await page
    .locator(".field-error")
    .filter({ hasText: /^That is not your current password\.$/ })
    .waitFor();
  expect(await current.getAttribute("aria-invalid")).toBe("true");
  await expectFocus(current);
  expect(await page.getByText("current_password").count()).toBe(0);
  // The current password given as the new one is refused under New password; nothing is changed.
  await current.fill(CLIENT.password);
  await next.fill(CLIENT.password);
  await page.getByRole("button", { name: "Change the password" }).click();
  await page
    .locator(".field-error")
    .filter({ hasText: /^This is your current password; choose a new one\.$/ })
    .waitFor();
  await expectFocus(next);
  expect((await elsewhere.request.get(d.url("/api/auth/me"))).status()).toBe(200);

  await current.fill(CLIENT.password);
  await next.fill("a newer long password");
  await page.getByRole("button", { name: "Change the password" }).click();
  await page.getByRole("status").filter({ hasText: "Your password is changed; your other session is signed out." }).waitFor();
  expect(await current.inputValue()).toBe("");
  CLIENT.password = "a newer long password";
  // This page's session goes on; the other one is signed out at its next request.
  expect((await page.request.get(d.url("/api/auth/me"))).status()).toBe(200);
  expect((await elsewhere.request.get(d.url("/api/auth/me"))).status()).toBe(401);
  await elsewhere.close();
  // An account that does not run the server is told who can add an engine, not to edit the server's files.
  const brand = (await d.box.cliJson<{ brands: Array<{ id: string }> }>(["brand", "list", "--email", CLIENT.email, "--json"])).brands[0]!
    .id;
  await page.goto(d.url(`/brands/${brand}/tracking`));
  await page.getByRole("heading", { name: "No engines configured" }).waitFor();
  expect(await page.getByText(/Whoever runs Spyglass can add one to its spyglass\.toml/).count()).toBe(1);
  expect(await page.getByText(/Add one to spyglass\.toml in the data directory/).count()).toBe(0);
});

test("an account is deleted behind its password, with its brands; the sign-in page says so and its key is refused", async () => {
  const brand = (await d.box.cliJson<{ brands: Array<{ id: string }> }>(["brand", "list", "--email", CLIENT.email, "--json"])).brands[0]!
    .id;
  const key = (
    await d.box.cliJson<{ plaintext: string }>(["key", "create", "--email", CLIENT.email, "--brand", brand, "--name", "k", "--json"])
  ).plaintext;
  expect(await mcpStatus(key)).toBe(200);
  await page.goto(d.url("/account"));
  await page.getByRole("button", { name: "Delete the account…" }).click();
  const dialog = page.getByRole("dialog", { name: "Delete your account?" });
  await dialog.getByText("and all of its brands are deleted").waitFor();
  const confirm = dialog.getByRole("button", { name: "Delete the account" });
  expect(await confirm.isDisabled()).toBe(true);
  const password = dialog.getByLabel("Your password, to confirm");
  await password.fill("not my password");
  await expectAccessible(page, "account-delete-dialog");
  await photograph(page, "account-delete-dialog");
  await confirm.click();
  await dialog
    .getByRole("alert")
    .filter({ hasText: /^That is not your current password\.$/ })
    .waitFor();
  expect(await mcpStatus(key)).toBe(200);

  // Enter in the field confirms, as the button does.
  await password.fill(CLIENT.password);
  await password.press("Enter");
  await page.waitForURL((url) => url.pathname === "/sign-in");
  await page
    .getByRole("status")
    .filter({ hasText: `Deleted the account ${CLIENT.email} and everything of it (1 brand).` })
    .waitFor();
  expect(await mcpStatus(key)).toBe(401);
  const login = await fetch(d.url("/api/auth/login"), {
    method: "POST",
    headers: { "content-type": "application/json", origin: d.url("") },
    body: JSON.stringify(CLIENT),
  });
  expect(login.status).toBe(401);
  const accounts = await d.box.cliJson<{ brands: unknown[] }>(["brand", "list", "--email", OWNER.email, "--json"]);
  expect(accounts.brands).toHaveLength(1);
  expectNothingUnsafe(page);
});

test("spyglass account delete: an account with its brands; the owner's is refused", async () => {
  expect((await d.box.cli(["account", "create", "--email", "leaving@example.com", "--password", "a long password"])).code).toBe(0);
  await d.box.cliJson(["brand", "create", "--email", "leaving@example.com", "--name", "Leaving Co"]);
  const refused = await d.box.cli(["account", "delete", "--email", OWNER.email]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("This account owns this Spyglass instance, so it cannot be deleted");
  const deleted = await d.box.cli(["account", "delete", "--email", "leaving@example.com"]);
  expect(deleted.code).toBe(0);
  expect(deleted.stdout).toBe("Deleted the account leaving@example.com and everything of it (1 brand).\n");
  const again = await d.box.cli(["account", "delete", "--email", "leaving@example.com"]);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain("leaving@example.com");
});
