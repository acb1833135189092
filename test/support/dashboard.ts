// The dashboard in headless Chromium (Debian's, through playwright-core) against the compiled binary,
// as a person uses it. Tests find controls by role and label only; every page they open records
// Content-Security-Policy violations, uncaught errors and dialogs (an alert is an XSS), and can be
// checked with axe-core and photographed.
//
//   const d = await openDashboard();                    // a fresh sandbox + `spyglass serve` + Chromium
//   const page = await d.page({ width: 390, height: 844, colorScheme: "dark" });
//   await page.goto(d.url("/"));
//   await expectAccessible(page, "brands");             // no serious or critical axe violation
//   await screenshot(page, "brands");                   // test-artifacts/screenshots/brands-390x844-dark.png
//   expectNothingUnsafe(page);                          // no CSP violation, page error or dialog
//   await d.close();
import { expect } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { type Browser, type BrowserContext, chromium, type Frame, type Page } from "playwright-core";
import { type Sandbox, type ServeOptions, type ServerProcess, sandbox } from "./binary";
import { CHROMIUM_PATH } from "./xss-harness";

export const SCREENSHOT_DIR = resolve(import.meta.dir, "../../test-artifacts/screenshots");
const AXE_SOURCE = readFileSync(resolve(import.meta.dir, "../../node_modules/axe-core/axe.min.js"), "utf8");

export interface PageOptions {
  width?: number;
  height?: number;
  colorScheme?: "light" | "dark";
}

export interface Dashboard {
  box: Sandbox;
  server: ServerProcess;
  browser: Browser;
  url(path: string): string;
  /** A page in a context of its own (its own cookies), watched for anything unsafe. */
  page(options?: PageOptions): Promise<Page>;
  close(): Promise<void>;
}

interface Watched {
  csp: string[];
  errors: string[];
  dialogs: string[];
}

const watched = new WeakMap<Page, Watched>();

/**
 * The switch above made it rarer, not gone (fresh-clone CI run 3 of session 28: the editor's leave
 * test, after a navigation replaced the preview's frame): Playwright's client throws out of its
 * connection's dispatch when an event arrives for an object it has already let go of, which fails
 * whichever test runs. Such an event (a frame's load state, after the frame was detached) is about
 * nothing left on the page: it is dropped. Responses to calls and every other event go through.
 */
function dropEventsOfGoneObjects(browser: Browser): void {
  type Message = { id?: number; guid?: string; method?: string };
  const connection = (browser as unknown as { _connection?: { dispatch(message: Message): void; _objects: Map<string, unknown> } })
    ._connection;
  if (!connection || typeof connection.dispatch !== "function" || !(connection._objects instanceof Map)) return;
  const dispatch = connection.dispatch.bind(connection);
  connection.dispatch = (message: Message) => {
    const gone =
      message.id === undefined && message.method !== "__create__" && message.guid !== undefined && !connection._objects.has(message.guid);
    if (!gone) dispatch(message);
  };
}

export async function openDashboard(
  options: { toml?: string; env?: Record<string, string>; serve?: ServeOptions } = {},
): Promise<Dashboard> {
  const box = await sandbox({ toml: options.toml, env: options.env });
  const server = await box.serve(options.serve);
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // The article preview is a sandboxed iframe, which Chromium puts in a process of its own
      // (IsolateSandboxedIframes): Playwright's client then met, now and then under load, events of
      // that frame after it was gone ("Cannot find object to \"loadstate\": frame@…", fresh-clone CI
      // runs 3, 4 and 7 of session 27, after a Back to the article). In the page's process, the frame
      // is the same sandbox (no scripts, an opaque origin), without the cross-process attach.
      "--disable-site-isolation-trials",
    ],
  });
  dropEventsOfGoneObjects(browser);
  const contexts: BrowserContext[] = [];
  return {
    box,
    server,
    browser,
    url: (path) => `${server.url}${path}`,
    async page(opts = {}) {
      const context = await browser.newContext({
        viewport: { width: opts.width ?? 1280, height: opts.height ?? 800 },
        colorScheme: opts.colorScheme ?? "light",
      });
      contexts.push(context);
      // Runs before the page's own scripts; reports reach the test through the exposed function.
      const record: Watched = { csp: [], errors: [], dialogs: [] };
      await context.exposeFunction("__spyglassCsp", (text: string) => record.csp.push(text));
      await context.addInitScript(() => {
        document.addEventListener("securitypolicyviolation", (e) => {
          (window as unknown as { __spyglassCsp(text: string): void }).__spyglassCsp(`${e.violatedDirective} blocked ${e.blockedURI}`);
        });
      });
      const page = await context.newPage();
      page.on("pageerror", (error) => record.errors.push(String(error)));
      page.on("dialog", (dialog) => {
        record.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
        void dialog.dismiss();
      });
      watched.set(page, record);
      return page;
    },
    async close() {
      for (const context of contexts) await context.close().catch(() => undefined);
      await browser.close().catch(() => undefined);
      await server.stop().catch(() => undefined);
      box.cleanup();
    },
  };
}

/** No CSP violation, uncaught error or dialog (alert, confirm…) on the page so far. */
export function expectNothingUnsafe(page: Page): void {
  const record = watched.get(page);
  if (!record) throw new Error("expectNothingUnsafe: the page was not opened by openDashboard");
  expect({ csp: record.csp, errors: record.errors, dialogs: record.dialogs }).toEqual({ csp: [], errors: [], dialogs: [] });
}

/** Runs axe-core in the page or frame (injected through the DevTools protocol, which the page's CSP does not govern). */
export async function expectAccessible(page: Page | Frame, name: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            options: object,
          ): Promise<{ violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown }>; help: string }> }>;
        };
      }
    ).axe;
    const result = await axe.run({ resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.help} at ${JSON.stringify(v.nodes.slice(0, 3).map((n) => n.target))}`);
  });
  expect({ page: name, violations }).toEqual({ page: name, violations: [] });
}

/** Saves the page, whole, as test-artifacts/screenshots/<name>-<width>x<height>-<scheme>.png (CI keeps the folder). */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const size = page.viewportSize();
  const dark = await page.evaluate(() => matchMedia("(prefers-color-scheme: dark)").matches);
  const path = `${SCREENSHOT_DIR}/${name}-${size?.width}x${size?.height}-${dark ? "dark" : "light"}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

/**
 * Photographs the page at 1280×800 and 390×844, light and dark, checking that at 390 px nothing
 * scrolls the page sideways; `prepare` runs before each shot (repaint a frame, open a panel…).
 */
export async function photograph(page: Page, name: string, prepare?: (page: Page) => Promise<void>): Promise<void> {
  for (const [width, height] of [
    [1280, 800],
    [390, 844],
  ] as const) {
    for (const colorScheme of ["light", "dark"] as const) {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme });
      await prepare?.(page);
      await screenshot(page, name);
      if (width === 390) expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: "light" });
}

/**
 * A catalogue tool through the session door with the page's own cookie, as the dashboard calls it;
 * a refusal throws with its status and body.
 */
export async function sessionTool<T>(page: Page, brandId: string, name: string, input: object): Promise<T> {
  return page.evaluate(
    async ([path, body]) => {
      const response = await fetch(path, { method: "POST", headers: { "content-type": "application/json" }, body });
      if (!response.ok) throw new Error(`${response.status} ${await response.text()}`);
      return response.json();
    },
    [`/api/brands/${brandId}/tools/${name}`, JSON.stringify(input)] as const,
  ) as Promise<T>;
}

/** Signs in through the sign-in page and waits for the dashboard to land on a brand. */
export async function signIn(d: Dashboard, page: Page, who: { email: string; password: string }): Promise<void> {
  await page.goto(d.url("/sign-in"));
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password").fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/brands\/brd_/);
}

/** The tool server's status for a tools/list with `key`: 200 while the key works, 401 once it is gone. */
export async function mcpStatus(d: Dashboard, key: string): Promise<number> {
  const res = await fetch(d.url("/api/mcp/mcp"), {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  return res.status;
}
