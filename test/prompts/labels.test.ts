// Names and prompts typed in other scripts and forms, through the tools (in process, with a key):
// one name typed composed or decomposed is one name; invisible direction characters are taken out;
// a competitor may be named with two Chinese, Japanese or Korean characters; limits count characters
// as people do. From the review of non-English brands (session 27).
import { afterEach, beforeEach, expect, test } from "bun:test";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { call } from "../support/mcp";
import { type SeededToolServer, seededToolServer } from "../support/tool-server";

let s: SeededToolServer;
let a: Client;

beforeEach(async () => {
  s = await seededToolServer();
  a = await s.client(s.seed.a.key);
});
afterEach(() => s.close());

const composed = "Müller Küchen";
const decomposed = composed.normalize("NFD");

test("a name typed decomposed is stored composed, and is the same name as the composed one", async () => {
  expect(decomposed).not.toBe(composed);
  const created = await call(a, "create_competitor", { name: decomposed, aliases: ["Mu\u0308llers"] });
  expect(created.data.competitor).toMatchObject({ name: composed, aliases: ["Müllers"] });
  expect((await call(a, "create_competitor", { name: composed })).error).toContain("Müller Küchen");
  const tag = await call(a, "create_tag", { name: "Ku\u0308che" });
  expect(tag.data.tag.name).toBe("Küche");
  expect((await call(a, "create_tag", { name: "Küche" })).error).toContain("Küche");
  const prompts = await call(a, "create_prompts", {
    prompts: [{ text: "Beste Ku\u0308che in München?" }, { text: "Beste Küche in Mu\u0308nchen?" }],
  });
  expect(prompts.data.created.map((p: { text: string }) => p.text)).toEqual(["Beste Küche in München?"]);
  expect(prompts.data.duplicates).toHaveLength(1);
  const found = await call(a, "list_prompts", { query: "mu\u0308nchen" });
  expect(found.data.prompts.map((p: { text: string }) => p.text)).toEqual(["Beste Küche in München?"]);
  const brand = await call(a, "update_brand", { aliases: ["Mu\u0308ller Group"] });
  expect(brand.data.brand.aliases).toEqual(["Müller Group"]);
});

test("invisible direction and zero-width characters are taken out of names and tags", async () => {
  const created = await call(a, "create_competitor", { name: "Küchen\u202eABC" });
  expect(created.data.competitor.name).toBe("KüchenABC");
  expect((await call(a, "create_tag", { name: "Zero\u200bWidth" })).data.tag.name).toBe("ZeroWidth");
  // Persian's zero-width non-joiner and emoji's joiner are part of the word: kept.
  expect((await call(a, "create_tag", { name: "می\u200cخواهم" })).data.tag.name).toBe("می\u200cخواهم");
});

test("a competitor's name may be two Chinese, Japanese or Korean characters; one, or two Latin letters, is still refused", async () => {
  expect((await call(a, "create_competitor", { name: "東芝" })).data.competitor.name).toBe("東芝");
  expect((await call(a, "create_competitor", { name: "삼성" })).data.competitor.name).toBe("삼성");
  expect((await call(a, "create_competitor", { name: "花" })).error).toContain("or 2 in Chinese, Japanese or Korean script");
  expect((await call(a, "create_competitor", { name: "HP" })).error).toContain("must be 3 to 100 characters");
  // An alias keeps METRICS.md's 3 characters, whatever the script.
  expect((await call(a, "create_competitor", { name: "日立製作所", aliases: ["日立"] })).error).toContain(
    "aliases[0] must be at least 3 characters",
  );
});

test("limits count characters as people do: fifty emoji are a tag name of fifty characters", async () => {
  expect((await call(a, "create_tag", { name: "🍣".repeat(50) })).data.tag.name).toBe("🍣".repeat(50));
  expect((await call(a, "create_tag", { name: "🍣".repeat(51) })).error).toContain("50 characters");
});
