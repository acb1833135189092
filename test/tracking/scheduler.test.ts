// Scheduled tracking on croner (UTC): next run, one tick over every trackable brand, off without engines.
import { afterAll, expect, test } from "bun:test";
import { startScheduler } from "../../src/tracking/scheduler";
import { getTrackingStatus, lastRun } from "../../src/tracking/service";
import { memoryApp, seedBrand } from "../analytics/dataset";
import { answer, startFakeOpenAI } from "../support/fake-providers";
import { captureLog } from "../support/log";

const fake = startFakeOpenAI({ fallback: answer("Acme is great.") });
afterAll(() => fake.stop());

const toml = (schedule: string) => `
[tracking]
schedule = "${schedule}"

[[engines]]
id = "gpt"
api = "openai"
base_url = "${fake.url}"
model = "gpt-test"
`;

test("the schedule's next run is computed in UTC and reported by get_tracking_status", async () => {
  const app = memoryApp(toml("30 6 * * *"));
  const s = seedBrand(app, { name: "Acme", prompts: [{ key: "P", text: "one" }] });
  const scheduler = startScheduler(app)!;
  try {
    const next = scheduler.nextRun()!;
    expect(next.getUTCHours()).toBe(6);
    expect(next.getUTCMinutes()).toBe(30);
    const status = await getTrackingStatus(app, s.brandId);
    expect(status).toMatchObject({
      schedule: { cron: "30 6 * * *", timezone: "UTC", enabled: true, samples: 1 },
      engines: [{ id: "gpt", label: "gpt", api: "openai", model: "gpt-test", concurrency: 8, api_key_set: true }],
      last_run: null,
      running: false,
      message: null,
    });
    expect(status.next_run).toBe(next.toISOString());
  } finally {
    scheduler.stop();
  }
});

test("a tick runs every brand on a paid plan with active prompts, one after the other", async () => {
  const app = memoryApp(toml("0 6 * * *"));
  const paid = seedBrand(app, {
    name: "Acme",
    prompts: [
      { key: "P", text: "one" },
      { key: "Q", text: "two" },
    ],
  });
  const unpaid = seedBrand(app, { name: "Free", plan: "none", prompts: [{ key: "P", text: "three" }] });
  const empty = seedBrand(app, { name: "Empty" });
  const scheduler = startScheduler(app)!;
  await scheduler.tick();
  scheduler.stop();
  expect(lastRun(app, paid.brandId)).toMatchObject({ status: "completed", trigger: "schedule", answers_done: 2 });
  expect(lastRun(app, unpaid.brandId)).toBeNull();
  expect(lastRun(app, empty.brandId)).toBeNull();
});

test("the cron fires on its own (every second here)", async () => {
  const app = memoryApp(toml("* * * * * *"));
  const s = seedBrand(app, { name: "Acme", prompts: [{ key: "P", text: "one" }] });
  const scheduler = startScheduler(app)!;
  try {
    for (let i = 0; i < 300 && lastRun(app, s.brandId)?.status !== "completed"; i++) await Bun.sleep(10);
  } finally {
    scheduler.stop();
  }
  expect(lastRun(app, s.brandId)).toMatchObject({ status: "completed", trigger: "schedule" });
});

test("no scheduler without engines or when disabled, and the status says why", async () => {
  const none = memoryApp("");
  expect(startScheduler(none)).toBeNull();
  const s = seedBrand(none, { name: "Acme" });
  expect(await getTrackingStatus(none, s.brandId)).toMatchObject({
    engines: [],
    next_run: null,
    message: expect.stringContaining("No engines are configured"),
  });
  const off = memoryApp(toml("0 6 * * *").replace("[tracking]", "[tracking]\nenabled = false"));
  expect(startScheduler(off)).toBeNull();
});

test("the scheduler warns at start, naming the variable, about an engine whose api_key_env is unset", async () => {
  const app = memoryApp(`${toml("0 6 * * *")}api_key_env = "SCHEDULER_UNSET_KEY"\n`);
  const logged = await captureLog(async () => startScheduler(app)?.stop());
  const warning = logged
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .find((line) => line.level === "warn");
  expect(warning).toMatchObject({
    msg: 'engine "gpt": api_key_env names SCHEDULER_UNSET_KEY, which is not set; its scheduled answers will be errors',
    engine: "gpt",
    api_key_env: "SCHEDULER_UNSET_KEY",
  });
});
