// A provider that asks to wait (429 with Retry-After) holds the engine's requests, and the run with
// them: the run's status says which engine waits, until when, and the provider's words, instead of
// a run that no longer moves for no reason given. Real HTTP to a stand-in provider on loopback.
import { afterAll, expect, test } from "bun:test";
import { type AppContext } from "../../src/context";
import { PAUSE_NOTE_MS } from "../../src/tracking/runner";
import { getTrackingStatus, startTracking } from "../../src/tracking/service";
import { addBrand, openApp } from "../analytics/dataset";
import { answer, type FakeProvider, rateLimited, startFakeOpenAI } from "../support/fake-providers";

const ENV = { OPENAI_TEST_KEY: "sk-test-openai" };
let provider: FakeProvider | undefined;
let app: AppContext | undefined;
afterAll(async () => {
  await provider?.stop();
  await app?.db.close();
});

test("an engine its provider asked to wait is named in the run's status, until when and why, while the run waits; then the run ends", async () => {
  provider = startFakeOpenAI({
    apiKey: ENV.OPENAI_TEST_KEY,
    script: { "best crm": [rateLimited("50"), answer("Acme leads.")], "crm for agencies": answer("Acme.") },
  });
  // The provider's long pause is held here until the test has looked at the status; short waits pass.
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  let held = false;
  const sleep = (ms: number) => {
    if (ms < PAUSE_NOTE_MS) return Bun.sleep(1);
    held = true;
    return released;
  };
  app = await openApp(
    `
[tracking]
concurrency = 1

[[engines]]
id = "gpt"
label = "ChatGPT"
api = "openai"
base_url = "${provider.url}"
model = "gpt-test"
api_key_env = "OPENAI_TEST_KEY"
max_retries = 2
timeout_ms = 5000
`,
    { llm: { env: ENV, sleep } },
  );
  const brand = await addBrand(app, {
    name: "Acme",
    domain: "acme.com",
    prompts: [
      { key: "P0", text: "best crm" },
      { key: "P1", text: "crm for agencies" },
    ],
  });

  const before = Date.now();
  // (Its view may already name the pause: the provider's 429 can come before the start returns, as
  // fresh-clone CI saw on PostgreSQL.)
  const started = await startTracking(app, brand.brandId, { trigger: "tool" });
  for (let i = 0; i < 500 && !held; i++) await Bun.sleep(10);
  expect(held).toBe(true);
  // The note is written beside the request's wait: looked for until it is there.
  let status = await getTrackingStatus(app, brand.brandId, ENV);
  for (let i = 0; i < 100 && status.last_run?.waiting.length === 0; i++) {
    await Bun.sleep(10);
    status = await getTrackingStatus(app, brand.brandId, ENV);
  }
  expect(status.running).toBe(true);
  expect(status.last_run?.waiting).toHaveLength(1);
  const waiting = status.last_run!.waiting[0]!;
  expect(waiting.engine).toBe("gpt");
  expect(waiting.reason).toStartWith("HTTP 429");
  // Retry-After: 50 s: until then, give or take the test's own time.
  const until = Date.parse(waiting.until);
  expect(until).toBeGreaterThanOrEqual(before + 49_000);
  expect(until).toBeLessThanOrEqual(Date.now() + 51_000);

  release();
  const run = await started.done;
  expect(run).toMatchObject({ status: "completed", answers_done: 2, waiting: [] });
  expect(run.answers.ok).toBe(2);
});
