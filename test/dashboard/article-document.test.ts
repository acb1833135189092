// The article preview's document (web/components/article-document.ts) in real Chromium: a table at a
// phone's width keeps its words whole (a review found "Nee/d", "Clie/nt port/als" at 390 px: the
// body's overflow-wrap:anywhere let cells shrink to a letter) and scrolls sideways when wider.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { type Browser, chromium } from "playwright-core";
import { articleDocument } from "../../src/dashboard/web/components/article-document";
import { CHROMIUM_PATH } from "../support/xss-harness";

let browser: Browser;
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ["--no-sandbox", "--disable-gpu"] });
});
afterAll(() => browser?.close());

const WORDS = ["Need", "Client portals", "Time tracking", "Northwind Analytics Platform", "Reporting"];
const TABLE = `<table><thead><tr><th>Feature</th><th>Notes</th><th>Has</th><th>Share</th></tr></thead><tbody>${WORDS.map(
  (word, i) => `<tr><td>${word}</td><td>Acme fits agencies with many clients</td><td>Yes</td><td>${i * 12}%</td></tr>`,
).join("")}</tbody></table>`;

test("at 390 and 1280 px, light and dark, no word of a table's cells is broken across lines; a wide table scrolls inside itself", async () => {
  for (const width of [390, 1280]) {
    for (const colorScheme of ["light", "dark"] as const) {
      const page = await browser.newPage({ viewport: { width, height: 800 }, colorScheme });
      await page.setContent(articleDocument(`<h1>Best CRM</h1>${TABLE}<table><tr>${"<td>Columnheading</td>".repeat(12)}</tr></table>`));
      const { broken, pageWidth, wide } = await page.evaluate(() => {
        const split: string[] = [];
        for (const cell of document.querySelectorAll("td, th")) {
          const node = cell.firstChild;
          if (!node) continue;
          let at = 0;
          for (const word of (cell.textContent ?? "").split(" ")) {
            const range = document.createRange();
            range.setStart(node, at);
            range.setEnd(node, at + word.length);
            at += word.length + 1;
            if (new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size > 1) split.push(word);
          }
        }
        const tables = document.querySelectorAll("table");
        const last = tables[tables.length - 1]!;
        return {
          broken: split,
          pageWidth: document.documentElement.scrollWidth,
          wide: { scroll: last.scrollWidth, client: last.clientWidth },
        };
      });
      expect({ width, colorScheme, broken }).toEqual({ width, colorScheme, broken: [] });
      // The page itself never scrolls sideways: the twelve-column table scrolls within its box.
      expect(pageWidth).toBe(width);
      if (width === 390) expect(wide.scroll).toBeGreaterThan(wide.client);
      await page.close();
    }
  }
});

test("a column's alignment from the Markdown (|---:|, the cells' align attribute) is kept; others start at the line's start", async () => {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.setContent(
    articleDocument(
      '<table><thead><tr><th>Plan</th><th align="right">Seats</th><th align="center">Trial</th></tr></thead><tbody><tr><td>Starter</td><td align="right">5</td><td align="center">Yes</td></tr></tbody></table>',
    ),
  );
  const aligned = await page.evaluate(() => [...document.querySelectorAll("td")].map((cell) => getComputedStyle(cell).textAlign));
  // Chromium computes the align attribute as -webkit-right and -webkit-center.
  expect(aligned).toEqual(["start", expect.stringMatching(/right$/), expect.stringMatching(/center$/)]);
  await page.close();
});
