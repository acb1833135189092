// The Prompts page's "Download CSV" link in headless Chromium against the compiled binary: the file
// the browser saves holds one row per prompt (more prompts than one page of the table or of the
// export), and with a tag filter on screen, the filtered prompts under a file name that names it.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { type Page } from "playwright-core";
import { type Dashboard, expectAccessible, expectNothingUnsafe, openDashboard } from "../support/dashboard";

const USER = { email: "export@example.com", password: "a long password" };
const PROMPTS = 230;

setDefaultTimeout(90_000);

let d: Dashboard;
let page: Page;
let brandId: string;

/** The texts of a CSV's second column (RFC 4180, no quoted line breaks in these prompts). */
function promptTexts(csv: string): string[] {
  const lines = csv.split("\r\n");
  expect(lines.pop()).toBe("");
  expect(lines[0]).toBe("\uFEFFid,text,tags,country,language,archived,created_at");
  return lines.slice(1).map((line) => line.split(",")[1]!);
}

async function download(): Promise<{ name: string; csv: string }> {
  const [file] = await Promise.all([
    page.waitForEvent("download"),
    page.getByRole("link", { name: "Download the prompts as CSV" }).click(),
  ]);
  const path = await file.path();
  return { name: file.suggestedFilename(), csv: readFileSync(path, "utf8") };
}

beforeAll(async () => {
  d = await openDashboard();
  expect((await d.box.cli(["account", "create", "--email", USER.email, "--password", USER.password, "--plan", "visibility"])).code).toBe(0);
  brandId = (await d.box.cliJson(["brand", "create", "--email", USER.email, "--name", "Acme Export"])).id;
  page = await d.page();
  page.setDefaultTimeout(15_000);
  await page.goto(d.url("/sign-in"));
  await page.getByLabel("Email").fill(USER.email);
  await page.getByLabel("Password").fill(USER.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL(/\/brands\/brd_/);
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  for (let start = 0; start < PROMPTS; start += 100) {
    const prompts = Array.from({ length: Math.min(100, PROMPTS - start) }, (_, i) => {
      const n = start + i + 1;
      return { text: `exported prompt ${String(n).padStart(3, "0")}`, tags: n % 7 === 0 ? ["Pricing"] : [] };
    });
    const res = await fetch(d.url(`/api/brands/${brandId}/tools/create_prompts`), {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ prompts }),
    });
    expect(res.status).toBe(200);
  }
});

afterAll(async () => {
  await d?.close();
});

describe("the Prompts page's Download CSV", () => {
  test("downloads a file with one row per prompt, every page of them", async () => {
    await page.goto(d.url(`/brands/${brandId}/prompts`));
    await page.getByRole("rowheader", { name: "exported prompt 001" }).waitFor();
    const { name, csv } = await download();
    expect(name).toBe("acme-export-list_prompts.csv");
    expect(promptTexts(csv)).toEqual(Array.from({ length: PROMPTS }, (_, i) => `exported prompt ${String(i + 1).padStart(3, "0")}`));
    await expectAccessible(page, "prompts with download");
    expectNothingUnsafe(page);
  });

  test("with a tag filter on screen, downloads the filtered prompts under a name that says so", async () => {
    await page.goto(d.url(`/brands/${brandId}/prompts?tag=Pricing`));
    await page.getByRole("rowheader", { name: "exported prompt 007" }).waitFor();
    const { name, csv } = await download();
    expect(name).toBe("acme-export-list_prompts-pricing.csv");
    const tagged = Array.from({ length: Math.floor(PROMPTS / 7) }, (_, i) => `exported prompt ${String((i + 1) * 7).padStart(3, "0")}`);
    expect(promptTexts(csv)).toEqual(tagged);
    expectNothingUnsafe(page);
  });
});
