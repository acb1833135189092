// `spyglass demo`: the seeder makes its records through each feature's service, so what it leaves
// reads like a user's data through those same services.
import { expect, test } from "bun:test";
import { findAccountByEmail } from "../../src/accounts/service";
import { listAllCompetitors } from "../../src/competitors/service";
import { listArticles } from "../../src/content/service";
import { DEMO_DAYS, seedDemo } from "../../src/demo/seeder";
import * as T from "../../src/demo/templates";
import { listApiKeys } from "../../src/keys/service";
import { listPrompts } from "../../src/prompts/service";
import { listTags } from "../../src/prompts/tags";
import { memoryApp } from "../analytics/dataset";

test("the demo brand's competitors, tags, prompts, key and article read back through their services", async () => {
  const app = memoryApp();
  const demo = await seedDemo(app, { now: Date.parse("2025-06-30T15:00:00Z") });
  const brandId = demo.brand.id;

  expect(listAllCompetitors(app.db, brandId).map((c) => c.name)).toEqual(T.DEMO_COMPETITORS.map((c) => c.name));
  const tags = listTags(app.db, brandId, { limit: 50 }).tags;
  expect(tags.map((t) => t.name).sort()).toEqual(T.DEMO_TAGS.map((t) => t.name).sort());
  expect(tags.reduce((n, t) => n + t.prompt_count, 0)).toBe(demo.prompts);
  const prompts = listPrompts(app.db, brandId, { limit: 200 }).prompts;
  expect(prompts.map((p) => p.text)).toEqual(T.DEMO_PROMPTS.map(([, text]) => text));
  expect(prompts.every((p) => p.tags.length === 1 && p.language === "en")).toBe(true);
  expect(demo.answers).toBe(DEMO_DAYS * T.DEMO_ENGINES.length * demo.prompts);
  expect(listApiKeys(app, demo.account_id)).toHaveLength(1);
  expect(listArticles(app.db, brandId, { status: "published" }).articles.map((a) => a.slug)).toEqual([demo.article!.slug]);
});

test("a second run is refused without --reset; with it the demo account is replaced", async () => {
  const app = memoryApp();
  const first = await seedDemo(app);
  await expect(seedDemo(app)).rejects.toThrow(/already exists/);
  const second = await seedDemo(app, { reset: true });
  expect(second.account_id).not.toBe(first.account_id);
  expect(findAccountByEmail(app.db, T.DEMO_EMAIL)!.id).toBe(second.account_id);
  expect(listAllCompetitors(app.db, first.brand.id)).toEqual([]);
});
