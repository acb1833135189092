// The README's four-engine spyglass.toml loads as written, with the APIs, web search defaults and
// prices it describes (a README a self-hoster copies must not be refused at start).
import { expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config";
import { scratchDir } from "../support/scratch";

test("the README's spyglass.toml with ChatGPT, Claude, Gemini and Perplexity loads", () => {
  const readme = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");
  const from = readme.indexOf("A `spyglass.toml` with the four:");
  expect(from).toBeGreaterThan(0);
  const block = /```toml\n([\s\S]*?)```/.exec(readme.slice(from))![1]!;
  const dir = scratchDir("spyglass-readme-");
  writeFileSync(join(dir, "spyglass.toml"), block);
  const config = loadConfig({ flags: { data: dir }, env: {} });
  expect(config.engines.map((e) => [e.id, e.api, e.web_search])).toEqual([
    ["chatgpt", "openai-responses", true],
    ["claude", "anthropic", true],
    ["gemini", "gemini", true],
    ["perplexity", "openai", false],
  ]);
  expect(config.engines.every((e) => e.price_per_million_input_tokens !== undefined)).toBe(true);
});

test("the README's full spyglass.toml loads, its engine asking ChatGPT as people use it (with web search)", () => {
  const readme = readFileSync(join(import.meta.dir, "../../README.md"), "utf8");
  const block = [...readme.matchAll(/```toml\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes("lease_seconds"));
  expect(block).toBeDefined();
  const dir = scratchDir("spyglass-readme-");
  writeFileSync(join(dir, "spyglass.toml"), block!);
  const config = loadConfig({ flags: { data: dir }, env: {} });
  expect(config.engines.map((e) => [e.id, e.api, e.web_search])).toEqual([["chatgpt", "openai-responses", true]]);
});
