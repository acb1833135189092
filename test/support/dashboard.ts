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
import { type Browser, type BrowserContext, chromium, type Frame, type Locator, type Page, type Request } from "playwright-core";
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
  /** The browser's own "Leave site?" questions (beforeunload): accepted, as the navigation was the test's. */
  leaves: string[];
  /** Requests not answered yet, with when they were sent (for explainPage). */
  pending: Map<Request, number>;
  /** The last requests' outcomes, the page's console errors and its navigations, oldest first (for explainPage). */
  recent: string[];
}

const RECENT = 40;

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
      const record: Watched = { csp: [], errors: [], dialogs: [], leaves: [], pending: new Map(), recent: [] };
      await context.exposeFunction("__spyglassCsp", (text: string) => record.csp.push(text));
      await context.addInitScript(() => {
        document.addEventListener("securitypolicyviolation", (e) => {
          (window as unknown as { __spyglassCsp(text: string): void }).__spyglassCsp(`${e.violatedDirective} blocked ${e.blockedURI}`);
        });
      });
      const page = await context.newPage();
      page.on("pageerror", (error) => record.errors.push(String(error)));
      page.on("dialog", (dialog) => {
        // A navigation the test asked for while a form held unsaved changes: it goes ahead. Dismissed,
        // it stayed on the page, and every later navigation of a page shared by several tests was
        // refused (net::ERR_ABORTED) once one test had failed with changes unsaved.
        if (dialog.type() === "beforeunload") {
          record.leaves.push(page.url());
          void dialog.accept();
          return;
        }
        record.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
        void dialog.dismiss();
      });
      const remember = (line: string) => {
        record.recent.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
        if (record.recent.length > RECENT) record.recent.shift();
      };
      const shortUrl = (url: string) => (url.startsWith(server.url) ? url.slice(server.url.length) : url.slice(0, 120));
      page.on("request", (request) => record.pending.set(request, Date.now()));
      const settled = (request: Request, outcome: string) => {
        const sent = record.pending.get(request);
        record.pending.delete(request);
        remember(`${request.method()} ${shortUrl(request.url())} ${outcome}${sent === undefined ? "" : ` after ${Date.now() - sent} ms`}`);
      };
      page.on(
        "requestfinished",
        (request) =>
          void request.response().then(
            (response) => settled(request, String(response?.status() ?? "no response")),
            // The page closed meanwhile: nothing left to explain (unhandled, it failed whichever test ran).
            () => settled(request, "finished (page closed)"),
          ),
      );
      page.on("requestfailed", (request) => settled(request, `failed: ${request.failure()?.errorText ?? "?"}`));
      page.on("console", (message) => {
        if (message.type() === "error" || message.type() === "warning")
          remember(`console ${message.type()}: ${message.text().slice(0, 200)}`);
      });
      page.on("framenavigated", (frame) => {
        if (frame === page.mainFrame()) remember(`navigated to ${shortUrl(frame.url())}`);
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

/**
 * No CSP violation, uncaught error or dialog (alert, confirm…) on the page so far, and no "Leave
 * site?" question of the browser's (accepted when it came, so that one failure does not block every
 * later navigation, but a page that asks it unbidden is wrong).
 */
export function expectNothingUnsafe(page: Page): void {
  const record = watched.get(page);
  if (!record) throw new Error("expectNothingUnsafe: the page was not opened by openDashboard");
  expect({ csp: record.csp, errors: record.errors, dialogs: record.dialogs, leaves: record.leaves }).toEqual({
    csp: [],
    errors: [],
    dialogs: [],
    leaves: [],
  });
}

/**
 * What the page was doing, for a failed test's output: its address, the requests still unanswered
 * (and for how long), the last requests, console errors and navigations, the dialogs, what its main
 * landmark shows, and a screenshot (test-artifacts/failures/<name>.png). Each look is bounded: a page
 * that is stuck still gets its report.
 */
export async function explainPage(page: Page, name: string): Promise<string> {
  const record = watched.get(page);
  const now = Date.now();
  const bounded = <T>(promise: Promise<T>): Promise<T | string> =>
    Promise.race([promise, Bun.sleep(3_000).then(() => "(no answer within 3 s)")]).catch((error: Error) => `(failed: ${error.message})`);
  const lines = [`page ${name}: at ${page.url()}${page.isClosed() ? " (closed)" : ""}`];
  if (record) {
    lines.push(
      `unanswered requests: ${[...record.pending].map(([r, sent]) => `${r.method()} ${r.url()} for ${now - sent} ms`).join("; ") || "none"}`,
      `dialogs: ${JSON.stringify(record.dialogs)}; leave questions accepted: ${JSON.stringify(record.leaves)}; page errors: ${JSON.stringify(record.errors)}`,
      "recent:",
      ...record.recent.map((line) => `  ${line}`),
    );
  }
  if (!page.isClosed()) {
    const dir = resolve(SCREENSHOT_DIR, "../failures");
    mkdirSync(dir, { recursive: true });
    const path = `${dir}/${name.replace(/[^a-z0-9]+/gi, "-").slice(0, 80)}.png`;
    lines.push(`screenshot: ${await bounded(page.screenshot({ path, timeout: 3_000 }).then(() => path))}`);
    lines.push(`main landmark:\n${await bounded(page.locator("main").ariaSnapshot({ timeout: 3_000 }))}`);
  }
  return lines.join("\n");
}

/**
 * A test body that, when it fails, prints explainPage for `page()` before the failure: what a
 * failure seen only in CI needs to be understood.
 */
export function explainedOnFailure(page: () => Page | undefined, name: string, body: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await body();
    } catch (error) {
      const p = page();
      if (p) console.error(await explainPage(p, name).catch((e: Error) => `explainPage failed: ${e.message}`));
      throw error;
    }
  };
}

/**
 * Waits until `target` has the keyboard focus, as a person would see it land: a dialog gives it back,
 * and a page moves it, in an effect a frame after the change (up to 5 s, then an error naming where
 * the focus is instead).
 */
export async function expectFocus(target: Locator): Promise<void> {
  const element = await target.elementHandle();
  try {
    await target.page().waitForFunction((el) => el === document.activeElement, element, { timeout: 5_000, polling: 20 });
  } catch {
    const instead = await target.page().evaluate(() => {
      const el = document.activeElement;
      return el ? `<${el.tagName.toLowerCase()}> “${(el.textContent ?? "").trim().slice(0, 60)}”` : "nothing";
    });
    throw new Error(`The keyboard focus did not come to ${target}: it is on ${instead}.`);
  } finally {
    await element?.dispose();
  }
}

/** Waits (≤ 10 s) for a form field to hold `value` (one set by the page after a save, a frame or more later). */
export async function expectValue(field: Locator, value: string): Promise<void> {
  const element = await field.elementHandle();
  try {
    await field.page().waitForFunction(([el, want]) => (el as HTMLInputElement).value === want, [element, value] as const, {
      timeout: 10_000,
      polling: 20,
    });
  } catch {
    throw new Error(`${field} did not come to hold ${JSON.stringify(value)}: it holds ${JSON.stringify(await field.inputValue())}.`);
  } finally {
    await element?.dispose();
  }
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
  // With a modal dialog open, the viewport as the person sees it: a whole-page shot is stitched from
  // scrolled pieces, which cut the backdrop in two and lost the dialog itself at 390 px.
  const modal = await page.evaluate(() => document.querySelector("dialog[open]") !== null);
  await page.screenshot({ path, fullPage: !modal });
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
