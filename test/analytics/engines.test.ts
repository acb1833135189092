// Engine ids given to tools: configured engines plus those present in the brand's stored answers;
// anything else is refused with a sentence naming the engines that exist (before, "ChatGPT"
// silently gave zeros). Engines present only in stored answers are listed, marked demo when no
// tracking run wrote them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { listAnswers } from "../../src/analytics/answers";
import { resolveFilter } from "../../src/analytics/filters";
import { type AppContext } from "../../src/context";
import { brandEngines, checkEngine } from "../../src/tracking/engines";
import { loadRoster } from "../../src/tracking/roster";
import { getTrackingStatus } from "../../src/tracking/service";
import { addBrand, GPT_ENGINE_TOML, openApp, type SeededBrand } from "./dataset";

let app: AppContext;
let s: SeededBrand;
let other: SeededBrand;

beforeAll(async () => {
  app = await openApp(GPT_ENGINE_TOML);
  s = await addBrand(app, { name: "Acme", domain: "acme.com", prompts: [{ key: "P1", text: "best crm" }] });
  other = await addBrand(app, { name: "Other", prompts: [{ key: "P1", text: "best crm" }] });
  const roster = await loadRoster(app.db, s.brandId);
  // Answers of an engine that is not configured and that no tracking run wrote (as spyglass demo does).
  await app.tracking.writer.write(
    app.db,
    {
      brandId: s.brandId,
      runId: null,
      promptId: s.prompts.P1!,
      engine: "chatgpt",
      model: "gpt-4o-mini",
      sample: 0,
      status: "ok",
      text: "Acme",
      providerCitations: [],
      error: null,
      latencyMs: 1,
      tokensIn: 1,
      tokensOut: 1,
      createdAt: Date.now() - 3_600_000,
    },
    { mentions: [{ member_id: s.brandId, rank: 1, sentiment: 0, offset: 0 }], citations: [] },
    roster,
  );
});

afterAll(async () => {
  await app.db.close();
});

describe("the engines of a brand", () => {
  test("configured engines, then those present in the brand's answers, marked demo", async () => {
    expect(await brandEngines(app, s.brandId)).toEqual([
      { id: "gpt", label: "GPT", model: "gpt-test", configured: true, demo: false },
      { id: "chatgpt", label: "ChatGPT (demo)", model: "gpt-4o-mini", configured: false, demo: true },
    ]);
    // Another brand's answers are not this brand's engines.
    expect((await brandEngines(app, other.brandId)).map((e) => e.id)).toEqual(["gpt"]);
    expect((await getTrackingStatus(app, s.brandId, {})).engines.map((e) => [e.id, e.configured, e.demo])).toEqual([
      ["gpt", true, false],
      ["chatgpt", false, true],
    ]);
  });

  test("an unknown engine is Invalid, naming the engines that exist, in the analytics filter and list_answers", async () => {
    const message = 'engine: "ChatGPT" is not an engine of this brand; use one of chatgpt, gpt.';
    await expect(resolveFilter(app, s.brandId, { engine: "ChatGPT" })).rejects.toThrow(message);
    await expect(listAnswers(app, s.brandId, { engine: "ChatGPT", limit: 5 })).rejects.toThrow(message);
    await expect(checkEngine(app, other.brandId, "chatgpt")).rejects.toThrow(
      'engine: "chatgpt" is not an engine of this brand; use one of gpt.',
    );
    await expect(resolveFilter(app, s.brandId, { engine: "nope" })).rejects.toMatchObject({ status: 400, code: "unknown_engine" });
  });

  test("known engines, configured or stored, are accepted", async () => {
    expect((await resolveFilter(app, s.brandId, { engine: "chatgpt" })).engine).toBe("chatgpt");
    expect((await resolveFilter(app, s.brandId, { engine: "gpt" })).engine).toBe("gpt");
    expect((await listAnswers(app, s.brandId, { engine: "chatgpt", limit: 5 })).answers).toHaveLength(1);
  });
});
