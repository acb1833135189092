// Loads HTML into headless Chromium and reports whether anything in it ran.
//
// One browser and one browser context for a whole test file; every vector gets a page of its own on
// an origin of its own (http://v<n>.xss-harness.invalid/), so one vector's leftovers (a hooked
// global, a pending timer, storage) can never make another look safe or unsafe: the same-origin
// policy keeps pages of different origins apart, and a page's timers end when it is closed. (A
// context per vector kept them apart too, but each context starts a renderer process of its own:
// measured on 36 vectors, 48.7 CPU-seconds and 23.3 s against 20.9 and 9.7 s with one context and at
// most four renderers; a renderer a payload hangs is shared, so its other pages time out, are retried
// alone and, if still not observed, reported as such.) The network is closed: the page itself is
// served from a route, and every other request is aborted and recorded. What counts as "executed":
//   - a dialog, or a call to the hooked alert/confirm/prompt/print/open (in any frame);
//   - H5SC's own success signal, pass(), called by a payload or by its trigger;
//   - a request for script, a frame's document, a stylesheet, font, XHR/fetch, socket and the like;
//   - a top-level navigation before the trigger ran (meta refresh, location=…).
// Image and media requests are recorded but do not count: the article policy allows http(s)
// images, and a script that could fire one would also leave the other evidence above.
// A navigation the trigger causes by clicking an ordinary link does not count either.
// Separately, `leftovers` lists markup in the loaded DOM (before any trigger) that could execute,
// restyle the host page or clobber its globals (id and name attributes).

import { type Browser, type BrowserContext, chromium, type Page, type Request } from "playwright-core";

export interface VectorResult {
  executed: boolean;
  /** Why `executed` is true: one line per observation. */
  evidence: string[];
  /** Executable or page-altering markup found in the DOM after loading. */
  leftovers: string[];
  /** Every request the page tried to make (all of them were blocked). */
  requests: string[];
}

export interface XssHarness {
  loadVector(html: string, trigger?: string | null): Promise<VectorResult>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** How long to let timers, animations and focus events play out after load and trigger. */
  settleMs?: number;
  /** Hover, focus and click every element after load (and after the vector's trigger). Default true. */
  interact?: boolean;
}

export const CHROMIUM_PATH = process.env.SPYGLASS_CHROMIUM ?? "/usr/bin/chromium";

/** The address of the n-th vector's page: each on an origin of its own. */
const pageUrl = (n: number) => `http://v${n}.xss-harness.invalid/`;
const HOOK_BINDING = "__xssHarnessReport";
const NON_EXECUTING_RESOURCES = new Set(["image", "media"]);

// Runs in every frame before any of its own script. The H5SC triggers call pass()/fail()/fuzz(),
// the helpers of that project's own test page; pass() is its "the vector worked" signal.
const INIT_SCRIPT = `(() => {
  const report = (what) => { try { window.${HOOK_BINDING}(what); } catch {} };
  for (const name of ["alert", "confirm", "prompt", "print", "open"]) {
    try {
      Object.defineProperty(window, name, {
        configurable: false,
        writable: false,
        value: function () { report(name + "(" + Array.from(arguments).map(String).join(", ").slice(0, 80) + ")"); return null; },
      });
    } catch {}
  }
  window.pass = (v) => report("H5SC pass(" + (v === undefined ? "" : String(v)) + ")");
  window.fail = () => {};
  window.fuzz = (element, property, values, callback) => {
    for (const value of values) {
      try { element[property] = value; } catch {}
      try { if (callback) callback(element, value); } catch {}
    }
  };
})();`;

// Runs in the page after it settled: what in the final DOM could still execute or alter the page.
function inspectDom(): string[] {
  const dangerousTags = new Set([
    "script",
    "iframe",
    "frame",
    "frameset",
    "object",
    "embed",
    "applet",
    "form",
    "base",
    "meta",
    "style",
    "link",
    "portal",
    "input",
    "button",
    "textarea",
    "select",
    "template",
  ]);
  const urlAttributes = new Set([
    "href",
    "xlink:href",
    "src",
    "action",
    "formaction",
    "data",
    "poster",
    "background",
    "ping",
    "cite",
    "codebase",
    "srcset",
    "lowsrc",
    "dynsrc",
    "values",
    "to",
    "from",
    "by",
  ]);
  const found: string[] = [];
  const visit = (root: Document | ShadowRoot, where: string): void => {
    for (const element of Array.from(root.querySelectorAll("*"))) {
      const tag = element.localName;
      if (dangerousTags.has(tag)) found.push(`<${tag}> element${where}`);
      for (const { name, value } of Array.from(element.attributes)) {
        const attr = name.toLowerCase();
        if (attr.startsWith("on")) found.push(`${attr} on <${tag}>${where}`);
        else if (attr === "style" || attr === "srcdoc") found.push(`${attr} attribute on <${tag}>${where}`);
        // DOM clobbering: a named or id'd element shadows the host page's globals and form fields; an
        // id under the articles' "user-content-" prefix names none of the host's (window.location is
        // not window["user-content-location"]).
        else if (attr === "name" || (attr === "id" && !/^user-content-[\p{L}\p{N}_-]+$/u.test(value)))
          found.push(`${attr}="${value.slice(0, 40)}" on <${tag}>${where}`);
        if (urlAttributes.has(attr)) {
          const squeezed = value.replace(/[\u0000-\u0020\u00A0]/g, "").toLowerCase();
          const scheme = /^(javascript|vbscript|data):/.exec(squeezed);
          if (scheme) found.push(`${scheme[1]}: in ${attr} of <${tag}>${where}`);
        }
      }
      if (element.shadowRoot) visit(element.shadowRoot, ` (in the shadow root of <${tag}>)`);
    }
  };
  visit(document, "");
  return found;
}

// Runs in the page: what a curious reader would do. Hover, focus, type into and click every element,
// so handlers and javascript: links that need a user fire without a per-vector trigger. Ordinary
// links and form submissions are cancelled so that one click does not unload the rest of the page.
function interactWithEverything(): void {
  const xlink = "http://www.w3.org/1999/xlink";
  const executable = (url: string | null): boolean =>
    /^(javascript|vbscript|data):/.test((url ?? "").replace(/[\u0000-\u0020\u00A0]/g, "").toLowerCase());
  window.addEventListener(
    "click",
    (event) => {
      const target = event.target instanceof Element ? event.target.closest("a, area") : null;
      if (target && !executable(target.getAttribute("href") ?? target.getAttributeNS(xlink, "href"))) {
        event.preventDefault();
      }
    },
    true,
  );
  window.addEventListener(
    "submit",
    (event) => {
      const form = event.target instanceof HTMLFormElement ? event.target : null;
      const submitter = (event as SubmitEvent).submitter;
      const action = submitter?.getAttribute("formaction") ?? form?.getAttribute("action") ?? null;
      if (!executable(action)) event.preventDefault();
    },
    true,
  );
  const events = ["mouseover", "mouseenter", "mousemove", "mousedown", "mouseup", "focusin", "input", "change", "keydown", "keyup"];
  for (const element of Array.from(document.querySelectorAll("body *")).slice(0, 300)) {
    for (const type of events) {
      try {
        element.dispatchEvent(new Event(type, { bubbles: true }));
      } catch {
        // A payload's handler may throw; the next event still has to be tried.
      }
    }
    try {
      (element as HTMLElement).focus?.();
      (element as HTMLElement).click?.();
    } catch {
      // As above.
    }
  }
}

// Generous: on a loaded CI machine a healthy page can take seconds to answer; only a payload's
// endless loop should ever reach these limits.
const EVALUATE_TIMEOUT_MS = 10_000;
/** Marks a result the harness could not observe (browser or page lost, inspection timed out). */
export const NOT_OBSERVED = "not observed:";
const INSPECTION_TIMED_OUT = `${NOT_OBSERVED} DOM inspection timed out`;

async function runInPage(page: Page, script: (arg: string | null) => void, arg: string | null): Promise<void> {
  await withTimeout(
    page.evaluate(script, arg).catch(() => {}),
    EVALUATE_TIMEOUT_MS,
    undefined,
  );
}

function withTimeout<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  return Promise.race([promise, new Promise<T>((done) => setTimeout(() => done(fallback), ms))]);
}

/** True when the harness failed to look at a page: look again, and never count it as safe. */
export function notObserved(result: VectorResult): boolean {
  return !result.executed && result.leftovers.length > 0 && result.leftovers.every((line) => line.startsWith(NOT_OBSERVED));
}

function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      // Renderers are shared by the pages of the one context (see the top of this file); site
      // isolation would start one per page's origin. A cap of four keeps a renderer that a payload
      // hangs from stalling every page at once.
      "--renderer-process-limit=4",
      // Site isolation inside a page and the spare renderer would only start more renderer
      // processes, and neither changes what a payload can run.
      "--disable-features=IsolateOrigins,site-per-process,SpareRendererForSitePerProcess",
    ],
  });
}

export async function launchXssHarness(options: HarnessOptions = {}): Promise<XssHarness> {
  const settleMs = options.settleMs ?? 250;
  const interact = options.interact ?? true;
  let browser: Browser = await launchBrowser();
  let relaunching: Promise<Browser> | null = null;

  // A browser that died (a crash on a loaded machine) is started again for the next vector; the
  // vectors it was showing come back as not observed, and the caller looks at them again.
  async function liveBrowser(): Promise<Browser> {
    if (browser.isConnected()) return browser;
    relaunching ??= launchBrowser().then((next) => {
      browser = next;
      relaunching = null;
      return next;
    });
    return relaunching;
  }

  async function loadVector(html: string, trigger?: string | null): Promise<VectorResult> {
    try {
      const result = await observe(html, trigger);
      // observe() answers once its context is closed; evidence that arrived after it took its
      // snapshot (a handler that fired late on a loaded machine) still counts.
      return { ...result, executed: result.evidence.length > 0 };
    } catch (error) {
      const message = String(error).split("\n")[0]?.slice(0, 160);
      return { executed: false, evidence: [], leftovers: [`${NOT_OBSERVED} the harness failed: ${message}`], requests: [] };
    }
  }

  // The one context, made again after a browser restart. Its init script, binding and route are
  // shared by every page; what they see is filed under the page it came from (`pages`). A request
  // of a page that is not a vector's own (a popup, which counts as evidence on its opener anyway) is
  // aborted like every other.
  interface PageState {
    url: string;
    evidence: string[];
    requests: string[];
    served: boolean;
    triggerStarted: boolean;
    document: string;
  }
  const pages = new Map<Page, PageState>();
  let shared: { browser: Browser; context: Promise<BrowserContext> } | null = null;
  let opened = 0;

  async function sharedContext(): Promise<BrowserContext> {
    const current = await liveBrowser();
    if (shared?.browser !== current) shared = { browser: current, context: newSharedContext(current) };
    return shared.context;
  }

  async function newSharedContext(current: Browser): Promise<BrowserContext> {
    const context = await current.newContext({ serviceWorkers: "block", acceptDownloads: false });
    await context.addInitScript(INIT_SCRIPT);
    await context.exposeBinding(HOOK_BINDING, (source, what: unknown) => {
      pages.get(source.page)?.evidence.push(`called ${String(what)}`);
    });
    await context.route("**/*", async (route) => {
      const request: Request = route.request();
      let page: Page | null = null;
      try {
        page = request.frame().page();
      } catch {
        // A request without a frame (a worker's): no page to file it under; aborted below.
      }
      const state = page ? pages.get(page) : undefined;
      if (page && state) {
        if (!state.served && request.url() === state.url && request.isNavigationRequest()) {
          state.served = true;
          await route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: state.document });
          return;
        }
        const type = request.resourceType();
        const url = request.url().slice(0, 120);
        state.requests.push(`${type} ${url}`);
        const topNavigation = request.isNavigationRequest() && request.frame() === page.mainFrame();
        if (topNavigation ? !state.triggerStarted : !NON_EXECUTING_RESOURCES.has(type)) {
          state.evidence.push(`request for ${type} ${url}`);
        }
      }
      await route.abort("blockedbyclient");
    });
    return context;
  }

  async function observe(html: string, trigger?: string | null): Promise<VectorResult> {
    const state: PageState = {
      url: pageUrl(++opened),
      evidence: [],
      requests: [],
      served: false,
      triggerStarted: false,
      document: `<!DOCTYPE html><html><head></head><body>${html}</body></html>`,
    };
    const { evidence, requests } = state;
    const page: Page = await (await sharedContext()).newPage();
    pages.set(page, state);
    try {
      page.on("dialog", (dialog) => {
        evidence.push(`${dialog.type()} dialog: ${dialog.message().slice(0, 80)}`);
        dialog.dismiss().catch(() => {});
      });
      page.on("popup", (popup) => evidence.push(`popup ${popup.url()}`));

      await page.goto(state.url, { waitUntil: "load", timeout: EVALUATE_TIMEOUT_MS / 2 }).catch(() => {});
      await Bun.sleep(settleMs);
      // Inspected before the trigger, which may navigate away from the payload's DOM. A page too
      // busy to answer (an endless loop) is reported, never taken as clean.
      const leftovers = await withTimeout(
        page.evaluate(inspectDom).catch((error: unknown) => [`${NOT_OBSERVED} DOM inspection failed: ${String(error).slice(0, 80)}`]),
        EVALUATE_TIMEOUT_MS,
        [INSPECTION_TIMED_OUT],
      );
      // A page that was never served would inspect as an empty, "safe" about:blank.
      if (!state.served) leftovers.push(`${NOT_OBSERVED} the vector's page was never loaded`);
      // A page stuck in a payload's loop will not answer a trigger either.
      if (leftovers.includes(INSPECTION_TIMED_OUT)) return { executed: evidence.length > 0, evidence, leftovers, requests };
      // From here on the page is being "used": a top-level navigation is a followed link, not an attack.
      state.triggerStarted = true;
      if (trigger)
        await runInPage(
          page,
          (code) => {
            try {
              // biome-ignore lint/security/noGlobalEval: the corpus's trigger scripts run in the page under test, as an attacker's would.
              // biome-ignore lint/complexity/noCommaOperator: an indirect eval runs in the page's global scope.
              (0, eval)(code ?? "");
            } catch {
              // Many H5SC triggers target quirks of other browsers and throw in Chromium.
            }
          },
          trigger,
        );
      if (interact) await runInPage(page, interactWithEverything, null);
      if (trigger || interact) await Bun.sleep(settleMs);
      return { executed: evidence.length > 0, evidence, leftovers, requests };
    } finally {
      await withTimeout(
        page.close().catch(() => {}),
        5000,
        undefined,
      );
      pages.delete(page);
    }
  }

  return {
    loadVector,
    close: async () => {
      await relaunching?.catch(() => undefined);
      await browser.close();
    },
  };
}

/**
 * Loads every vector, `concurrency` pages at a time, then looks again, alone, at each page the
 * harness failed to observe (a loaded machine, a crashed renderer or browser), or that `again` asks
 * for. A page that is still not observed after `retries` more tries stays in the results as such:
 * unobserved is never safe.
 */
export async function loadVectors(
  harness: XssHarness,
  vectors: readonly { html: string; trigger?: string | null }[],
  concurrency: number,
  again: (result: VectorResult, index: number) => boolean = () => false,
  retries = 2,
): Promise<VectorResult[]> {
  const results = await mapConcurrent(vectors, concurrency, (vector) => harness.loadVector(vector.html, vector.trigger));
  for (let i = 0; i < results.length; i++) {
    for (let attempt = 0; attempt < retries && (notObserved(results[i]!) || again(results[i]!, i)); attempt++) {
      results[i] = await harness.loadVector(vectors[i]!.html, vectors[i]!.trigger);
    }
  }
  return results;
}

/** Runs `work` over `items` with at most `concurrency` in flight, keeping the input order. */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
