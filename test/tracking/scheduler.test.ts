// Scheduled tracking on croner (UTC): next run, one tick over every trackable brand, off without engines.
import { afterAll, expect, test } from "bun:test";
import postgres from "postgres";
import { DEMO_ACCOUNT_EMAIL } from "../../src/accounts/service";
import { type AppContext, createAppContext } from "../../src/context";
import { openPostgres } from "../../src/db/postgres";
import { configureLog } from "../../src/log";
import { startScheduler } from "../../src/tracking/scheduler";
import { getTrackingStatus, lastRun } from "../../src/tracking/service";
import { addBrand, configOf, openApp } from "../analytics/dataset";
import { answer, httpError, startFakeOpenAI } from "../support/fake-providers";
import { captureLog } from "../support/log";
import { freshPostgresUrl } from "../support/postgres";

const fake = startFakeOpenAI({ fallback: answer("Acme is great.") });
afterAll(() => fake.stop());

// Apps on the test database (SQLite, or PostgreSQL with SPYGLASS_TEST_DATABASE=postgres), closed after the file.
const apps: AppContext[] = [];
async function testTrackingApp(toml: string): Promise<AppContext> {
  const app = await openApp(toml);
  apps.push(app);
  return app;
}
afterAll(async () => {
  for (const app of apps) await app.db.close();
});

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
  const app = await testTrackingApp(toml("30 6 * * *"));
  const s = await addBrand(app, { name: "Acme", prompts: [{ key: "P", text: "one" }] });
  const scheduler = startScheduler(app)!;
  try {
    const next = scheduler.nextRun()!;
    expect(next.getUTCHours()).toBe(6);
    expect(next.getUTCMinutes()).toBe(30);
    const status = await getTrackingStatus(app, s.brandId);
    expect(status).toMatchObject({
      schedule: { cron: "30 6 * * *", timezone: "UTC", enabled: true, brand_scheduled: true, samples: 1 },
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
  const app = await testTrackingApp(toml("0 6 * * *"));
  const paid = await addBrand(app, {
    name: "Acme",
    prompts: [
      { key: "P", text: "one" },
      { key: "Q", text: "two" },
    ],
  });
  const unpaid = await addBrand(app, { name: "Free", plan: "none", prompts: [{ key: "P", text: "three" }] });
  const empty = await addBrand(app, { name: "Empty" });
  const scheduler = startScheduler(app)!;
  await scheduler.tick();
  scheduler.stop();
  expect(await lastRun(app, paid.brandId)).toMatchObject({ status: "completed", trigger: "schedule", answers_done: 2 });
  expect(await lastRun(app, unpaid.brandId)).toBeNull();
  expect(await lastRun(app, empty.brandId)).toBeNull();
});

test("the cron fires on its own (two seconds ahead here)", async () => {
  // One second of each minute (a seconds field of "*" or a step is refused: config.ts's cronProblem).
  const app = await testTrackingApp(toml("0 6 * * *"));
  const s = await addBrand(app, { name: "Acme", prompts: [{ key: "P", text: "one" }] });
  // The second chosen once the set-up is done (on a loaded machine it may take seconds).
  app.config.tracking.schedule = `${(new Date().getUTCSeconds() + 2) % 60} * * * * *`;
  const scheduler = startScheduler(app)!;
  try {
    for (let i = 0; i < 600 && (await lastRun(app, s.brandId))?.status !== "completed"; i++) await Bun.sleep(10);
  } finally {
    scheduler.stop();
  }
  expect(await lastRun(app, s.brandId)).toMatchObject({ status: "completed", trigger: "schedule" });
});

test("a tick while PostgreSQL does not answer waits for it, then runs: a restart at the scheduled time lost the day's run", async () => {
  // PostgreSQL in either pass: its outage is the one a tick can meet.
  const url = await freshPostgresUrl();
  const app = createAppContext(configOf(toml("0 6 * * *")), await openPostgres(url, { poolSize: 2 }));
  apps.push(app);
  const s = await addBrand(app, { name: "Acme", prompts: [{ key: "P", text: "one" }] });
  const database = new URL(url).pathname.slice(1);
  const admin = postgres(Object.assign(new URL(url), { pathname: "/postgres" }).href, { max: 1, onnotice: () => undefined });
  const scheduler = startScheduler(app, { retryUnreachableMs: 200 })!;
  try {
    // The start's resumption done (a tick waits for it), the database goes away.
    await scheduler.resumed;
    await admin.unsafe(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
    await admin.unsafe(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`);
    let ticked: Promise<void> = Promise.resolve();
    const logs = await captureLog(async () => {
      ticked = scheduler.tick("2026-11-29T06:00:00.000Z");
      await Bun.sleep(1_000);
      await admin.unsafe(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
      await ticked;
    });
    expect(logs).toContain("scheduled tracking waits for the database");
    expect(logs).not.toContain("scheduled tracking failed");
    expect(await lastRun(app, s.brandId)).toMatchObject({ status: "completed", trigger: "schedule", answers_done: 1 });
  } finally {
    scheduler.stop();
    await admin.unsafe(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
    await admin.end();
  }
});

test("no scheduler without engines or when disabled, and the status says why", async () => {
  const none = await testTrackingApp("");
  expect(startScheduler(none)).toBeNull();
  const s = await addBrand(none, { name: "Acme" });
  expect(await getTrackingStatus(none, s.brandId)).toMatchObject({
    engines: [],
    next_run: null,
    message: expect.stringContaining("No engines are configured"),
  });
  const off = await testTrackingApp(toml("0 6 * * *").replace("[tracking]", "[tracking]\nenabled = false"));
  expect(startScheduler(off)).toBeNull();
});

test("the scheduler warns at start, naming the variable, about an engine whose api_key_env is unset", async () => {
  const app = await testTrackingApp(`${toml("0 6 * * *")}api_key_env = "SCHEDULER_UNSET_KEY"\n`);
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

test("a tick leaves the demo's brand out, and an engine that answered nothing is logged at warn with its first error", async () => {
  const failing = startFakeOpenAI({ fallback: httpError(401, { message: "Incorrect API key provided" }) });
  try {
    const app = await testTrackingApp(`${toml("0 6 * * *")}
[[engines]]
id = "revoked"
api = "openai"
base_url = "${failing.url}"
model = "gpt-test"
max_retries = 0
`);
    const real = await addBrand(app, { name: "Acme", prompts: [{ key: "P", text: "one" }] });
    const demo = await addBrand(app, { name: "Northwind (demo)", prompts: [{ key: "P", text: "two" }] });
    await app.db.run("UPDATE accounts SET email = ? WHERE id = ?", [DEMO_ACCOUNT_EMAIL, demo.accountId]);
    const scheduler = startScheduler(app)!;
    const logs = await captureLog(async () => {
      await scheduler.tick();
    });
    scheduler.stop();
    configureLog({ quiet: true });
    expect(await lastRun(app, demo.brandId)).toBeNull();
    expect(await lastRun(app, real.brandId)).toMatchObject({ status: "completed", answers: { ok: 1, error: 1 } });
    const lines = logs
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const warning = lines.find((l) => l.level === "warn");
    expect(warning).toMatchObject({
      msg: 'tracking run: engine "revoked" answered nothing (1 error)',
      brand_name: "Acme",
      engine: "revoked",
    });
    expect(warning.first_error).toContain("401");
    expect(failing.requests.length).toBe(1);
  } finally {
    await failing.stop();
  }
});
