// The dashboard's weight and speed (issue: the dashboard, part 1): the JavaScript and CSS a first
// visit downloads, gzipped as the binary serves them (budget 100 KB before charts), and the time from
// navigation to the signed-in brand page being usable in Chromium on loopback (budget 300 ms),
// against a bare Bun.serve page with one heading measured the same way in the same run.
// Run: `bun run bench/dashboard.ts` (or through bench/index.ts).
import { gzipSync } from "bun";
import { chromium, type Page } from "playwright-core";
import { CHROMIUM_PATH } from "../test/support/xss-harness";
import { baseline, median, report, requireBinary, sandbox } from "./lib";

const NAME = "dashboard";
const ROUNDS = 15;
const PASSWORD = "a long password for the bench";

/** Milliseconds from navigation start to the page's level-1 heading and its first button being usable. */
async function timeToUsable(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: "commit" });
  await page.getByRole("heading", { level: 1 }).waitFor();
  await page.locator("button:not([disabled])").first().waitFor();
  return page.evaluate(() => performance.now());
}

export async function run(): Promise<void> {
  requireBinary();
  const box = await sandbox();
  const bare = baseline(
    '<!doctype html><html lang="en"><head><title>bare</title></head><body><main><h1>Bare</h1><button>Go</button></main></body></html>',
    { "content-type": "text/html; charset=utf-8" },
  );
  try {
    await box.cliJson(["account", "create", "--email", "owner@example.com", "--password", PASSWORD, "--plan", "autopilot"]);
    const brand = await box.cliJson<{ id: string }>(["brand", "create", "--email", "owner@example.com", "--name", "Bench brand"]);
    const server = await box.serve();
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    try {
      const html = await (await fetch(`${server.url}/`)).text();
      const assets = [...html.matchAll(/(?:src|href)="(\/chunk-[a-z0-9]+\.(?:js|css))"/g)].map((m) => m[1]!);
      let total = 0;
      for (const path of assets) {
        const served = await fetch(`${server.url}${path}`, { headers: { "accept-encoding": "gzip" }, decompress: false });
        const bytes = new Uint8Array(await served.arrayBuffer());
        const gz = served.headers.get("content-encoding") === "gzip" ? bytes.byteLength : gzipSync(bytes).byteLength;
        total += gz;
        report(NAME, `${path.endsWith(".css") ? "CSS" : "JavaScript"} ${path}`, Math.round(gz / 102.4) / 10, "KiB gzipped");
      }
      report(NAME, "first visit's JavaScript + CSS", Math.round(total / 102.4) / 10, "KiB gzipped (budget 100)");

      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const login = await fetch(`${server.url}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "owner@example.com", password: PASSWORD }),
      });
      const cookie = login.headers.get("set-cookie")!.split(";", 1)[0]!.split("=");
      await context.addCookies([{ name: cookie[0]!, value: cookie[1]!, url: server.url }]);
      const page = await context.newPage();
      const spyglass: number[] = [];
      const bareTimes: number[] = [];
      for (let round = 0; round < ROUNDS + 2; round++) {
        // Alternate which page is measured first; the first two rounds warm both up.
        const order = round % 2 ? (["bare", "spyglass"] as const) : (["spyglass", "bare"] as const);
        for (const which of order) {
          const ms = which === "bare" ? await timeToUsable(page, bare.url) : await timeToUsable(page, `${server.url}/brands/${brand.id}`);
          if (round >= 2) (which === "bare" ? bareTimes : spyglass).push(ms);
        }
      }
      const s = median(spyglass);
      const b = median(bareTimes);
      report(NAME, "navigation → brand page usable (median)", Math.round(s), "ms (budget 300)");
      report(NAME, "navigation → bare page usable (median)", Math.round(b), "ms");
      report(NAME, "brand page ÷ bare page", Math.round((s / b) * 10) / 10, "×");
      await context.close();
    } finally {
      await browser.close();
      await server.stop();
    }
  } finally {
    bare.stop();
    box.cleanup();
  }
}

if (import.meta.main) await run();
