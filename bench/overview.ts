// The overview on a large brand (issue 15, part 1): on `spyglass demo --scale 60` (over 200,000
// answers), the time from navigation to the overview drawn in Chromium on loopback — the tiles
// filled, the competitor ranking listed and the uPlot trend drawn (budget 500 ms) — and the
// dashboard's JavaScript + CSS with the charts, gzipped as the binary serves them (budget 150 KB).
// Run: `bun run bench/overview.ts` (or through bench/index.ts). Seeding takes a while; it is done once.
import { gzipSync } from "bun";
import { chromium, type Page } from "playwright-core";
import { CHROMIUM_PATH } from "../test/support/xss-harness";
import { median, report, requireBinary, sandbox } from "./lib";

const NAME = "overview";
const ROUNDS = 9;
const SCALE = Number(process.env.BENCH_OVERVIEW_SCALE ?? 60);

/** Milliseconds from navigation start to the tiles, the ranking and the trend's canvas all drawn. */
async function timeToDrawn(page: Page, url: string): Promise<number> {
  await page.goto(url, { waitUntil: "commit" });
  await page.locator("section.kpi .kpi-value").first().waitFor();
  await page.locator("table.ranking tbody tr").first().waitFor();
  await page.locator(".trend-chart canvas").waitFor();
  // uPlot draws on the next animation frame after it is created: wait for painted pixels.
  await page.waitForFunction(
    () => {
      const canvas = document.querySelector<HTMLCanvasElement>(".trend-chart canvas");
      const ctx = canvas?.getContext("2d");
      if (!canvas || !ctx || canvas.width === 0) return false;
      const row = ctx.getImageData(0, Math.floor(canvas.height / 2), canvas.width, 1).data;
      for (let i = 3; i < row.length; i += 4) if (row[i]! > 0) return true;
      return false;
    },
    undefined,
    { polling: "raf" },
  );
  return page.evaluate(() => performance.now());
}

export async function run(): Promise<void> {
  requireBinary();
  const box = await sandbox();
  try {
    const started = performance.now();
    const demo = await box.cliJson<{ login: { email: string; password: string }; brand: { id: string }; answers: number }>([
      "demo",
      "--scale",
      String(SCALE),
    ]);
    report(NAME, `demo --scale ${SCALE}: answers`, demo.answers);
    report(NAME, `demo --scale ${SCALE}: seeding`, Math.round((performance.now() - started) / 1000), "s");
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
        total += served.headers.get("content-encoding") === "gzip" ? bytes.byteLength : gzipSync(bytes).byteLength;
      }
      report(NAME, "dashboard JavaScript + CSS with charts", Math.round(total / 102.4) / 10, "KiB gzipped (budget 150)");

      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const login = await fetch(`${server.url}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(demo.login),
      });
      const cookie = login.headers.get("set-cookie")!.split(";", 1)[0]!.split("=");
      await context.addCookies([{ name: cookie[0]!, value: cookie[1]!, url: server.url }]);
      const page = await context.newPage();
      const url = `${server.url}/brands/${demo.brand.id}/overview`;
      const times: number[] = [];
      for (let round = 0; round < ROUNDS + 2; round++) {
        const ms = await timeToDrawn(page, url);
        if (round >= 2) times.push(ms); // the first two rounds warm the server and the browser
      }
      report(NAME, "navigation → overview drawn (median)", Math.round(median(times)), "ms (budget 500)");
      report(NAME, "navigation → overview drawn (slowest)", Math.round(Math.max(...times)), "ms");
      await context.close();
    } finally {
      await browser.close();
      await server.stop();
    }
  } finally {
    box.cleanup();
  }
}

if (import.meta.main) await run();
