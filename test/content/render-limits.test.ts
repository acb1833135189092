// Issue 18, findings 2 and 8: an article's structure is bounded before the costly steps (marked,
// jsdom, DOMPurify), with a sentence naming the limit, and one brand's hostile saves do not stall or
// fail another brand's save. Through the tool server, as a client would send them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { MAX_ELEMENTS, MAX_NESTING, renderArticle } from "../../src/content/render";
import { apiKeyFor, callTool, makeWorld, type World } from "../public/world";

let world: World;
let hostileKey: string;
let victimKey: string;

beforeAll(async () => {
  world = await makeWorld();
  hostileKey = await apiKeyFor(world, world.other.id);
  victimKey = await apiKeyFor(world, world.brand.id);
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
};

describe("the cost of an article is bounded before it is rendered", () => {
  for (const [label, markdown] of Object.entries(HOSTILE)) {
    test(`${label} is refused with a sentence naming the limit, not a server fault`, async () => {
      const outcome = await callTool(world, hostileKey, "create_article", { title: label, markdown });
      expect(outcome.error).toMatch(/^markdown: the article (nests|has) .* the limit is [\d,]+\./);
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
  }, 60_000);

  test("a victim brand's save completes while another brand's hostile saves run", async () => {
    const hostile = Object.values(HOSTILE).flatMap((markdown) => [markdown, markdown]);
    const saves = hostile.map((markdown, i) => callTool(world, hostileKey, "create_article", { title: `h${i}`, markdown }));
    const victim = await callTool(world, victimKey, "create_article", { title: "Tiny", markdown: "A tiny save." });
    expect(victim.error).toBeNull();
    expect(victim.data.article.title).toBe("Tiny");
    for (const outcome of await Promise.all(saves)) expect(outcome.error).toContain("the limit is");
  }, 120_000);
});
