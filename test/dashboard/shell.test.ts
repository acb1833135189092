// The dashboard's shell in headless Chromium against the compiled binary: first run, sign in and out,
// brands, the brand page and the owner's accounts page, by role and label, checked with axe-core,
// photographed at 1280 and 390 px in light and dark, with no CSP violation, error or dialog.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Page } from "playwright-core";
import {
  type Dashboard,
  expectAccessible,
  expectFocus,
  expectNothingUnsafe,
  expectValue,
  openDashboard,
  photograph,
  sessionTool,
} from "../support/dashboard";

const OWNER = { email: "owner@example.com", password: "a long password" };
const HOSTILE = `Acme <img src=x onerror=alert(1)> "><script>alert(2)</script>`;

let d: Dashboard;
let page: Page;

beforeAll(async () => {
  d = await openDashboard();
  page = await d.page();
});

afterAll(async () => {
  await d?.close();
});

describe("the dashboard's shell", () => {
  test("the root URL of a new instance offers the owner account's creation", async () => {
    await page.goto(d.url("/"));
    await page.waitForURL("**/welcome");
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Welcome to Spyglass");
    // No account exists yet to sign in with: the page does not offer it.
    expect(await page.getByText("Already have an account?").count()).toBe(0);
    await expectAccessible(page, "welcome");
    await photograph(page, "welcome");
    // An address the browser takes and the server does not is said under Email, with the keyboard there.
    await page.getByLabel("Email").fill("a@b");
    await page.getByLabel("Password").fill(OWNER.password);
    await page.getByRole("button", { name: "Create the owner account" }).click();
    await page.locator(".field-error").filter({ hasText: "This is not an email address." }).waitFor();
    expect(await page.getByLabel("Email").getAttribute("aria-invalid")).toBe("true");
    await expectFocus(page.getByLabel("Email"));
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password").fill(OWNER.password);
    await page.getByRole("button", { name: "Create the owner account" }).click();
    await page.waitForURL("**/brands");
    await page.getByRole("heading", { name: "No brand yet" }).waitFor();
    await expectAccessible(page, "brands-empty");
    await photograph(page, "brands-empty");
  });

  test("a brand named with markup is created and shown as text", async () => {
    await page.getByLabel("Name").fill(HOSTILE);
    await page.getByLabel("Domain (optional)").fill("acme.com");
    await page.getByRole("button", { name: "Create the brand" }).click();
    await page.waitForURL(/\/brands\/brd_[a-z0-9]+$/);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(HOSTILE);
    expect(await page.getByLabel("Brand", { exact: true }).inputValue()).toMatch(/^brd_/);
    await page.getByRole("heading", { name: "Tracking" }).waitFor();
    // The owner starts on Autopilot: no plan notice, the tracking set-up at once.
    await page.getByRole("heading", { name: "No engines configured" }).waitFor();
    expect(await page.getByRole("link", { name: "set your account's plan on the Accounts page" }).count()).toBe(0);
    await expectAccessible(page, "brand");
    await photograph(page, "brand");
    expectNothingUnsafe(page);
    // A second brand of that name is refused under the name, by its name alone (the server's sentence
    // adds the brand's id, for AI clients and the CLI).
    const brandPage = page.url();
    await page.goto(d.url("/brands"));
    await page.getByLabel("Name").fill(HOSTILE);
    await page.getByRole("button", { name: "Create the brand" }).click();
    await page
      .locator(".field-error")
      .filter({ hasText: `The account already has a brand named "${HOSTILE}"; give this brand another name.` })
      .waitFor();
    expect(await page.getByText(/brd_/).count()).toBe(0);
    expectNothingUnsafe(page);
    await page.goto(brandPage);
    await page.getByRole("heading", { name: "No engines configured" }).waitFor();
  });

  test("the owner sets a plan on the accounts page, and the brand page then shows its tracking set-up", async () => {
    await page.getByRole("link", { name: "Accounts", exact: true }).click();
    await page.waitForURL("**/accounts");
    await page.getByRole("table").waitFor();
    await expectAccessible(page, "accounts");
    await photograph(page, "accounts");
    // The owner's own plan: the page says it is set only once the session has caught up (a refresh
    // still in flight would reach the next page late and reset a form being typed into). The
    // session's read of the brands is held until the plan's answer has come.
    let releaseBrands!: () => void;
    const brandsHeld = new Promise<void>((resolve) => (releaseBrands = resolve));
    await page.route("**/api/brands", async (route) => {
      await brandsHeld;
      await route.continue();
    });
    const planAnswered = page.waitForResponse((response) => response.url().endsWith("/plan") && response.ok());
    const brandsAsked = page.waitForRequest((request) => new URL(request.url()).pathname === "/api/brands");
    // Choosing a plan sets nothing (the keyboard's arrows go through every plan of the list): the button does.
    const setPlan = page.getByRole("button", { name: `Set plan of ${OWNER.email}` });
    expect(await setPlan.isDisabled()).toBe(true);
    const planRequests: string[] = [];
    const countPlans = (request: { url(): string }) => request.url().endsWith("/plan") && planRequests.push(request.url());
    page.on("request", countPlans);
    await page.getByLabel(`Plan of ${OWNER.email}`, { exact: true }).focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowUp");
    expect(await page.getByLabel(`Plan of ${OWNER.email}`, { exact: true }).inputValue()).toBe("visibility");
    expect(await setPlan.isEnabled()).toBe(true);
    await Bun.sleep(300);
    expect(planRequests).toEqual([]);
    page.off("request", countPlans);
    await page.getByLabel(`Plan of ${OWNER.email}`, { exact: true }).selectOption("visibility");
    await setPlan.click();
    // From Autopilot, the owner's own plan set lower: asked first (the last test covers the question).
    await page.getByRole("dialog", { name: "Set your own plan to Visibility?" }).getByRole("button", { name: "Set Visibility" }).click();
    await Promise.all([planAnswered, brandsAsked]);
    const planSet = page.getByRole("status").filter({ hasText: `${OWNER.email} is now on Visibility.` });
    expect(await planSet.count()).toBe(0);
    releaseBrands();
    await planSet.waitFor();
    await page.unroute("**/api/brands");
    await page.goBack();
    await page.getByRole("heading", { name: "No engines configured" }).waitFor();
    expect(await page.getByText("[[engines]]").count()).toBe(1);
    // The owner, who runs the server, is told what to do themselves.
    expect(await page.getByText(/Add one to spyglass\.toml in the data directory/).count()).toBe(1);
  });

  test("editing the brand goes through the catalogue and keeps the site key", async () => {
    const siteKey = await page.getByRole("figure", { name: "Site key" }).locator("code").textContent();
    // Each live region as it enters the page: empty, its words a frame later (a screen reader that
    // skips a region added already filled, as VoiceOver on iOS may, still hears them).
    await page.evaluate(() => {
      const entered: string[] = [];
      (window as unknown as { entered: string[] }).entered = entered;
      new MutationObserver((records) => {
        for (const record of records)
          for (const node of record.addedNodes)
            if (node instanceof HTMLElement && node.matches(".notice")) entered.push(`${node.getAttribute("role")}:${node.textContent}`);
      }).observe(document.body, { childList: true, subtree: true });
    });
    await page.getByLabel("Aliases").fill("Acme Inc\nACME Corp");
    await page.getByRole("button", { name: "Save" }).click();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    expect(await page.evaluate(() => (window as unknown as { entered: string[] }).entered)).toEqual(["status:"]);
    await page.reload();
    expect(await page.getByLabel("Aliases").inputValue()).toBe("Acme Inc\nACME Corp");
    expect(await page.getByRole("figure", { name: "Site key" }).locator("code").textContent()).toBe(siteKey);
  });

  test("what is typed while a save is on its way stays in the form, and the saved value comes back as stored", async () => {
    // The session's read of the brands (the save's refresh) is held until something more is typed.
    let releaseBrands!: () => void;
    const brandsHeld = new Promise<void>((resolve) => (releaseBrands = resolve));
    await page.route("**/api/brands", async (route) => {
      await brandsHeld;
      await route.continue();
    });
    const brandsAsked = page.waitForRequest((request) => new URL(request.url()).pathname === "/api/brands");
    await page.getByLabel("Domain").fill("https://WWW.Acme-CRM.com/pricing");
    await page.getByRole("button", { name: "Save" }).click();
    await brandsAsked;
    await page.getByRole("button", { name: "Saving…" }).waitFor();
    await page.getByLabel("Aliases").fill("Acme Inc\nACME Corp\nAcme Group");
    releaseBrands();
    await page.getByRole("status").filter({ hasText: "Saved." }).waitFor();
    await page.unroute("**/api/brands");
    expect(await page.getByLabel("Aliases").inputValue()).toBe("Acme Inc\nACME Corp\nAcme Group");
    // Saved again, with nothing typed meanwhile, the fields show what was stored (the first save's
    // "Saved." is still there: the field is what to wait for).
    await page.getByRole("button", { name: "Save" }).click();
    await expectValue(page.getByLabel("Domain"), "acme-crm.com");
    await page.reload();
    expect(await page.getByLabel("Aliases").inputValue()).toBe("Acme Inc\nACME Corp\nAcme Group");
    // A URL of the domain already stored changes nothing stored: the field still shows the domain
    // as stored, not the URL as typed (a review saw "Saved." under the URL).
    await page.getByLabel("Domain").fill("https://www.acme-crm.com/pricing?x=1");
    await page.getByRole("button", { name: "Save" }).click();
    await expectValue(page.getByLabel("Domain"), "acme-crm.com");
    // A competitor's name as an alias is refused under the field, in the page's words: no
    // competitor id, and where to change it rather than a tool's name.
    const brandId = /\/brands\/(brd_[a-z0-9]+)/.exec(page.url())![1]!;
    await sessionTool(page, brandId, "create_competitor", { name: "Globex Rival", domains: ["globex-rival.com"] });
    await page.getByLabel("Aliases").fill("Acme Inc\nGlobex Rival");
    await page.getByRole("button", { name: "Save" }).click();
    const refusal =
      'aliases[1]: "Globex Rival" is the name of the competitor Globex Rival; the brand cannot have it, or every mention of that competitor would count for both.';
    await page.getByText(refusal.replace(/^aliases\[1\]: "/, '"'), { exact: false }).waitFor();
    expect(await page.locator("main").textContent()).not.toContain("cmp_");
    // The competitor's domain, from a fresh page (no save of before still on its way under load).
    await page.reload();
    await expectValue(page.getByLabel("Domain"), "acme-crm.com");
    await page.getByLabel("Domain").fill("globex-rival.com");
    const answered = page.waitForResponse((response) => response.url().endsWith("/tools/update_brand"));
    await page.getByRole("button", { name: "Save" }).click();
    expect((await answered).status()).toBe(400);
    await page.getByText("take it off the competitor first (on the Competitors page)").waitFor();
    expect(await page.locator("main").textContent()).not.toContain("update_competitor");
    await page.reload();
    expect(await page.getByLabel("Aliases").inputValue()).toBe("Acme Inc\nACME Corp\nAcme Group");
    await expectValue(page.getByLabel("Domain"), "acme-crm.com");
  });

  test("signing out leads to sign-in; a wrong password says so; the right one signs in again", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/sign-in");
    await page.getByLabel("Email").fill(OWNER.email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "The email or the password is not right." }).waitFor();
    // The keyboard is back on the password, selected, to be typed again (a review found it on the page's body).
    await page.waitForFunction(() => {
      const input = document.activeElement as HTMLInputElement | null;
      return input?.type === "password" && input.selectionStart === 0 && input.selectionEnd === input.value.length;
    });
    // A forgotten password: the page says who can set a new one, and how, for the email typed.
    await page.getByText("Forgot your password?").click();
    await page.getByText(`spyglass account password --email ${OWNER.email} --password -`, { exact: true }).waitFor();
    await expectAccessible(page, "sign-in");
    await photograph(page, "sign-in");
    // The server's bare "Forbidden" for a request from another origin (a dashboard opened at another
    // address than public_url, where the browser sends no Sec-Fetch-Site) is said in words. Faked
    // here: the tests reach the server on loopback only, where Chromium sends Sec-Fetch-Site.
    await page.route("**/api/auth/login", (route) =>
      route.fulfill({ status: 403, contentType: "application/json", body: JSON.stringify({ error: "Forbidden", code: "cross_site" }) }),
    );
    await page.getByLabel("Password").fill(OWNER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page
      .getByRole("alert")
      .filter({ hasText: `this page is open at ${new URL(d.url("/")).origin}, which is not the address the server takes changes from` })
      .waitFor();
    await page.unroute("**/api/auth/login");
    await page.getByLabel("Password").fill(OWNER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/brands\/brd_/);
    expectNothingUnsafe(page);
  });

  test("the skip link is the first stop of the keyboard and moves focus to the content", async () => {
    await page.reload();
    await page.getByRole("heading", { level: 1 }).waitFor();
    await page.keyboard.press("Tab");
    const skip = page.getByRole("link", { name: "Skip to content" });
    await expectFocus(skip);
    await page.keyboard.press("Enter");
    await expectFocus(page.locator("#main"));
  });

  test("the page is served with a strict CSP; assets are immutable and gzipped", async () => {
    const html = await fetch(d.url("/brands/anything"));
    expect(html.status).toBe(200);
    expect(html.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(html.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(html.headers.get("x-content-type-options")).toBe("nosniff");
    const script = /src="(\/chunk-[a-z0-9]+\.js)"/.exec(await html.text())?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(d.url(script!), { headers: { "accept-encoding": "gzip" }, decompress: false });
    expect(asset.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(asset.headers.get("content-encoding")).toBe("gzip");
    const again = await fetch(d.url(script!), { headers: { "if-none-match": asset.headers.get("etag")! } });
    expect(again.status).toBe(304);
    expect((await fetch(d.url("/api/brands"))).status).toBe(401);
    // Another method on the page's addresses is a JSON 405, in every route's words.
    const posted = await fetch(d.url("/"), { method: "POST" });
    expect([posted.status, posted.headers.get("allow"), await posted.json()]).toEqual([
      405,
      "GET, HEAD",
      { error: "This address answers only GET, HEAD.", code: "method_not_allowed" },
    ]);
  });

  test("a browser sent to an address the server does not know gets the app's Page not found with a way back", async () => {
    const response = await page.goto(d.url("/settings"));
    expect(response?.status()).toBe(404);
    // The page or JSON by the request's headers, which a cache must keep apart.
    expect(response?.headers().vary).toBe("Sec-Fetch-Dest, Accept");
    expect(response?.headers()["cache-control"]).toBe("no-store");
    expect(response?.headers()["content-security-policy"]).toContain("script-src 'self'");
    await page.getByRole("heading", { level: 1, name: "Page not found" }).waitFor();
    await expectAccessible(page, "not-found");
    await photograph(page, "not-found");
    await page.getByRole("link", { name: "Go to the dashboard" }).click();
    await page.waitForURL(/\/brands\/brd_[a-z0-9]+\/overview$/);
    // Clients of the server's own addresses, and anything but a page navigation, still read JSON.
    for (const [path, headers] of [
      ["/settings", {}],
      ["/settings", { accept: "application/json" }],
      ["/api/nothing-here", { accept: "text/html", "sec-fetch-dest": "document" }],
      ["/oauth/nothing-here", { accept: "text/html" }],
      ["/favicon.ico", { accept: "image/avif,image/webp,*/*", "sec-fetch-dest": "image" }],
    ] as const) {
      const other = await fetch(d.url(path), { headers });
      expect([path, other.status, other.headers.get("content-type")]).toEqual([path, 404, "application/json; charset=utf-8"]);
      expect(await other.json()).toEqual({ error: "Not found", code: "not_found" });
      expect(other.headers.get("vary")).toBe("Sec-Fetch-Dest, Accept");
    }
  });

  test("accounts: one message at a time, the owner's own plan set lower asks first, and the CLI's part is named", async () => {
    await page.goto(d.url("/accounts"));
    await page.getByRole("table").waitFor();
    const form = page.getByRole("form", { name: "Create an account" });
    await form.getByLabel("Email").fill("second@example.com");
    await form.getByLabel("Password").fill("another long password");
    await form.getByRole("button", { name: "Create the account" }).click();
    const created = page.getByText("Created the account second@example.com.");
    await created.waitFor();
    // Typing the next one, or setting a plan above, ends it (it stayed beside later messages).
    await form.getByLabel("Email").fill("t");
    expect(await created.count()).toBe(0);
    await form.getByLabel("Email").fill("third@example.com");
    await form.getByLabel("Password").fill("another long password");
    await form.getByRole("button", { name: "Create the account" }).click();
    await page.getByText("Created the account third@example.com.").waitFor();
    await page.getByLabel("Plan of third@example.com", { exact: true }).selectOption("autopilot");
    await page.getByRole("button", { name: "Set plan of third@example.com" }).click();
    await page.getByText("third@example.com is now on Autopilot.").waitFor();
    expect(await page.getByText(/^Created the account/).count()).toBe(0);
    // The owner's own plan set lower closes pages to themselves: a question first, Cancel sets nothing.
    const own = page.getByLabel(`Plan of ${OWNER.email}`, { exact: true });
    const before = await own.inputValue();
    expect(before).not.toBe("none");
    const plans: string[] = [];
    const countPlans = (request: { url(): string }) => request.url().endsWith("/plan") && plans.push(request.url());
    page.on("request", countPlans);
    await own.selectOption("none");
    await page.getByRole("button", { name: `Set plan of ${OWNER.email}` }).click();
    const dialog = page.getByRole("dialog", { name: "Set your own plan to No plan?" });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain("scheduled tracking stops");
    await photograph(page, "accounts-own-plan");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(plans).toEqual([]);
    page.off("request", countPlans);
    // A refusal is said in the dialog, which stays open; confirmed again, it is set, and the keyboard
    // is on the plan's select (the button it came from is disabled now).
    await page.getByRole("button", { name: `Set plan of ${OWNER.email}` }).click();
    await page.route(
      "**/api/accounts/*/plan",
      (route) => route.fulfill({ status: 503, json: { error: "The database is busy.", code: "busy" } }),
      {
        times: 1,
      },
    );
    await dialog.getByRole("button", { name: "Set No plan" }).click();
    await dialog.getByText("The database is busy.").waitFor();
    expect(await page.getByText(`${OWNER.email} is now on No plan.`).count()).toBe(0);
    await dialog.getByRole("button", { name: "Set No plan" }).click();
    await page.getByText(`${OWNER.email} is now on No plan.`).waitFor();
    await expectFocus(page.getByLabel(`Plan of ${OWNER.email}`, { exact: true }));
    await page.getByLabel(`Plan of ${OWNER.email}`, { exact: true }).selectOption(before);
    await page.getByRole("button", { name: `Set plan of ${OWNER.email}` }).click();
    await page.getByText(`${OWNER.email} is now on ${before === "autopilot" ? "Autopilot" : "Visibility"}.`).waitFor();
    expect(await page.getByRole("dialog").count()).toBe(0);
    expect(await page.locator("main").textContent()).toContain("spyglass account password --email E --password -");
    expect(await page.locator("main").textContent()).toContain("spyglass account delete --email E");
    await expectAccessible(page, "accounts-after");
    expectNothingUnsafe(page);
  });
});
