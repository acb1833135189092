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
    // Its Perplexity engine turns web search on, to send the prompt's country.
    ["perplexity", "openai", true],
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
  // Every setting it shows is one the server reads, with the value it shows.
  expect(config.logLevel).toBe("info");
  expect(config.trustedProxies).toEqual([]);
  expect(config.tracking).toEqual({ enabled: true, schedule: "0 6 * * *", samples: 1, concurrency: 8, lease_seconds: 30 });
  expect(config.engines[0]).toMatchObject({ timeout_ms: 60_000, max_retries: 3 });
  // The commented ones load too, once uncommented.
  writeFileSync(join(dir, "spyglass.toml"), block!.replace(/^# (concurrency|temperature|max_tokens) /gm, "$1 "));
  expect(loadConfig({ flags: { data: dir }, env: {} }).engines[0]).toMatchObject({ concurrency: 4, temperature: 1, max_tokens: 2048 });
});
