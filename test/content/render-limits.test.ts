// Issue 18, findings 2 and 8: an article's structure is bounded before the costly steps (marked,
// jsdom, DOMPurify), with a sentence naming the limit, and one account's hostile saves, from any
// number of its brands, do not stall or fail another account's save. Through the tool server, as a
// client would send them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createBrand } from "../../src/brands/service";
import { MAX_ELEMENTS, MAX_EMPHASIS_MARKS, MAX_LINES, MAX_NESTING, renderArticle } from "../../src/content/render";
import { articleRenderer } from "../../src/content/renderer";
import { newId } from "../../src/ids";
import { createApiKey } from "../../src/keys/service";
import { apiKeyFor, callTool, makeWorld, type World } from "../public/world";

let world: World;
let hostileAccountId: string;
let hostileKeys: string[];
let victimKey: string;

beforeAll(async () => {
  world = await makeWorld();
  victimKey = await apiKeyFor(world, world.brand.id);
  // The hostile saves come from another account's two brands.
  const db = world.ctx.db;
  hostileAccountId = newId("acc");
  await db.run("INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES (?, ?, '-', 'autopilot', ?)", [
    hostileAccountId,
    `${hostileAccountId}@example.com`,
    Date.now(),
  ]);
  hostileKeys = [];
  for (const name of ["Hostile One", "Hostile Two"]) {
    const brand = await createBrand(db, hostileAccountId, { name });
    hostileKeys.push((await createApiKey(db, hostileAccountId, { name: "test", brandId: brand.id })).plaintext);
  }
});
afterAll(async () => {
  await world.close();
});

const HOSTILE: Record<string, string> = {
  "100,000 >": ">".repeat(100_000),
  "40,000 nested <div>": `${"<div>".repeat(40_000)}x`,
  "30,000 nested <b>": `${"<b>".repeat(30_000)}x`,
  "nested table cells": `${"<table><tr><td>".repeat(4_800)}x`,
  "1,500 lines of * * … x": Array.from({ length: 1_500 }, () => `${"* ".repeat(58)}x`).join("\n"),
  "*a_ 65,000 times": "*a_".repeat(65_000),
  "_a 97,500 times": "_a".repeat(97_500),
  // One paragraph to marked, though every line starts with a marker that starts a run elsewhere.
  "40 quoted lines of *a_ × 300": Array.from({ length: 40 }, () => `> ${"*a_".repeat(300)}`).join("\n"),
  "40 table-like lines of *a_ × 300": Array.from({ length: 40 }, () => `| ${"*a_".repeat(300)}`).join("\n"),
  // Not a fence: a backtick fence's info string may not hold a backtick.
  "a fence-like line and *a_ × 8,000": `\`\`\`x\`\n${"*a_".repeat(8_000)}`,
  // A review's: 14–23 s in the server's render worker, other accounts' saves waiting behind it.
  "60,000 lines of a quote's lazy continuation": "> a\nb\n".repeat(30_000),
  // Over a minute from source: one paragraph of 50,000 lines.
  "50,000 short lines": "a\nb\n".repeat(25_000),
  // The same with the line breaks marked also reads: a bare carriage return.
  "60,000 lines of a lazy quote, ended by CR": "> a\rb\r".repeat(30_000),
};

describe("the cost of an article is bounded before it is rendered", () => {
  for (const [label, markdown] of Object.entries(HOSTILE)) {
    test(`${label} is refused with a sentence naming the limit, not a server fault`, async () => {
      const outcome = await callTool(world, hostileKeys[0]!, "create_article", { title: label, markdown });
      expect(outcome.error).toMatch(/^markdown: (the article (nests|has)|a paragraph) .* the limit is [\d,]+\./);
      expect(outcome.error).not.toContain("on our side");
    }, 60_000);
  }

  test("an article at the limits still renders", () => {
    const nested = `${"<div>".repeat(MAX_NESTING - 1)}deep${"</div>".repeat(MAX_NESTING - 1)}`;
    expect(renderArticle({ title: "", markdown: nested })).toContain("deep");
    const quotes = `${"> ".repeat(20)}quoted`;
    expect(renderArticle({ title: "", markdown: quotes })).toContain("quoted");
    const table = `| a | b |\n|---|---|\n${Array.from({ length: Math.floor(MAX_ELEMENTS / 4) }, (_, i) => `| ${i} | x |`).join("\n")}`;
    expect(renderArticle({ title: "", markdown: table })).toContain("<td>1</td>");
    // Emphasis: the limit's worth in one paragraph, any number of paragraphs, and code in a fence.
    const emphasis = "**a_".repeat(MAX_EMPHASIS_MARKS / 3);
    expect(renderArticle({ title: "", markdown: emphasis })).toContain("<p>");
    expect(renderArticle({ title: "", markdown: Array.from({ length: 20 }, () => emphasis).join("\n\n") })).toContain("<p>");
    const fenced = `\`\`\`\n${"snake_case_name *ptr\n".repeat(2_000)}\`\`\``;
    expect(renderArticle({ title: "", markdown: fenced })).toContain("snake_case_name");
    const rows = `| name | value |\n|---|---|\n${Array.from({ length: 400 }, (_, i) => `| MY_ENV_VAR_${i} | *on* |`).join("\n")}`;
    expect(renderArticle({ title: "", markdown: rows })).toContain("MY_ENV_VAR_399");
    const lines = Array.from({ length: MAX_LINES }, (_, i) => `line ${i}`).join("\n");
    expect(renderArticle({ title: "", markdown: lines })).toContain(`line ${MAX_LINES - 1}`);
  }, 60_000);

  test("saves from all of an account's brands take one turn: the renderer's tenant is the account", async () => {
    const renderer = articleRenderer();
    const original = renderer.render.bind(renderer);
    const tenants: string[] = [];
    renderer.render = (source, tenant) => {
      tenants.push(tenant ?? "");
      return original(source, tenant);
    };
    try {
      for (const key of hostileKeys) expect((await callTool(world, key, "create_article", { title: "t", markdown: "x" })).error).toBeNull();
    } finally {
      renderer.render = original;
    }
    expect(tenants).toEqual([hostileAccountId, hostileAccountId]);
  });

  test("a victim account's save completes while another account's hostile saves run", async () => {
    const hostile = Object.values(HOSTILE).flatMap((markdown) => [markdown, markdown]);
    const saves = hostile.map((markdown, i) =>
      callTool(world, hostileKeys[i % hostileKeys.length]!, "create_article", { title: `h${i}`, markdown }),
    );
    const victim = await callTool(world, victimKey, "create_article", { title: "Tiny", markdown: "A tiny save." });
    expect(victim.error).toBeNull();
    expect(victim.data.article.title).toBe("Tiny");
    for (const outcome of await Promise.all(saves)) expect(outcome.error).toContain("the limit is");
  }, 120_000);
});
