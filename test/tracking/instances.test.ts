// Two instances on one database, in process (two app contexts, two connections; SQLite file or
// PostgreSQL): a run started through one is shared with the other's workers through the queue, and
// an answer on its way while the other instance changes the roster is stored analysed with the new
// roster (the roster version lives in the database). Then the queue's corner cases: `spyglass track`
// beside a server, stores that fail, runs taken over, leases. The compiled binaries' version of
// this, with a scheduled tick and a kill -9, is test/e2e/tracking-instances.test.ts.
import { afterAll, expect, setSystemTime, test } from "bun:test";
import { createCompetitor } from "../../src/competitors/service";
import { type AppContext, createAppContext } from "../../src/context";
import { type Db } from "../../src/db/client";
import { configureLog } from "../../src/log";
import { trackCommand } from "../../src/tracking/cli";
import { watchAbandonedRuns } from "../../src/tracking/runner";
import { runTracking, startTracking, stopTracking } from "../../src/tracking/service";
import { addBrand, configOf } from "../analytics/dataset";
import { openTestDatabase, secondConnection } from "../support/database";
import { answer, type FakeProvider, type FakeScript, hang, startFakeOpenAI } from "../support/fake-providers";
import { captureLog } from "../support/log";

const KEY = { INSTANCES_TEST_KEY: "sk-instances" };
// `spyglass track` checks the process's environment for the engines' keys.
process.env.INSTANCES_TEST_KEY ??= KEY.INSTANCES_TEST_KEY;
const fakes: FakeProvider[] = [];
const apps: AppContext[] = [];

afterAll(async () => {
  for (const app of apps) await stopTracking(app);
  for (const app of apps) await app.db.close();
  await Promise.all(fakes.map((f) => f.stop()));
});

function engineToml(id: string, fake: FakeProvider): string {
  return `
[[engines]]
id = "${id}"
api = "openai"
base_url = "${fake.url}"
model = "gpt-test"
api_key_env = "INSTANCES_TEST_KEY"
max_retries = 0
`;
}

function toml(fake: FakeProvider, concurrency = 2): string {
  return `[tracking]\nconcurrency = ${concurrency}\n${engineToml("gpt", fake)}`;
}

/** A stand-in provider answering by `script`, stopped after the file. */
function provider(script: FakeScript, latencyMs = 0): FakeProvider {
  const fake = startFakeOpenAI({ apiKey: KEY.INSTANCES_TEST_KEY, script, latencyMs });
  fakes.push(fake);
  return fake;
}

/** Two instances on one database, each with its own spyglass.toml. */
async function pair(first: string, second: string): Promise<{ a: AppContext; b: AppContext }> {
  const db = await openTestDatabase({ file: `${configOf("").dataDir}/spyglass.db` });
  const a = createAppContext(configOf(first), db, { llm: { env: KEY } });
  const b = createAppContext(configOf(second), await secondConnection(db), { llm: { env: KEY } });
  apps.push(a, b);
  return { a, b };
}

/**
 * A stand-in provider answering every question with `text`, those that `held` picks only once the
 * test calls `release()`; `asked` settles when the first of those has reached it.
 */
function gatedProvider(text: string, held: (prompt: string) => boolean): { fake: FakeProvider; asked: Promise<void>; release(): void } {
  let arrived!: () => void;
  const asked = new Promise<void>((resolve) => (arrived = resolve));
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const fake = provider(async (prompt) => {
    if (held(prompt)) {
      arrived();
      await released;
    }
    return answer(text);
  });
  return { fake, asked, release };
}

/** Two instances on one database, each asking its own stand-in provider (the same engine id). */
async function twoInstances(latencyMs: number, text: string): Promise<{ a: AppContext; b: AppContext; fakes: FakeProvider[] }> {
  const own = [0, 1].map(() => provider(() => answer(text), latencyMs));
  return { ...(await pair(toml(own[0]!), toml(own[1]!))), fakes: own };
}

/** Polls `check` until it holds or `ms` pass; returns whether it held. */
async function until(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await Bun.sleep(20)) if (await check()) return true;
  return check();
}

/**
 * A trigger on the answers table, as a fault or a slow disk in the database would: the store of an
 * answer to a prompt whose text contains "boom" fails; on PostgreSQL, one to a prompt with "slow
 * store" waits 3 s, its task's row locked (SQLite runs one transaction at a time: nothing to race),
 * the first two stores of one with "transient" fail with a serialization failure (SQLSTATE 40001),
 * and the first four of one with "stubborn" as a deadlock victim (40P01).
 */
async function hookStores(db: Db): Promise<void> {
  if (db.dialect === "sqlite") {
    await db.run(`CREATE TRIGGER test_store_hook BEFORE INSERT ON answers
      WHEN (SELECT text FROM prompts WHERE id = NEW.prompt_id) LIKE '%boom%'
      BEGIN SELECT RAISE(ABORT, 'boom: the test refuses this answer'); END`);
    return;
  }
  await db.run("CREATE SEQUENCE test_transient");
  await db.run("CREATE SEQUENCE test_stubborn");
  await db.run(`CREATE FUNCTION test_store_hook() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE prompt text := (SELECT text FROM prompts WHERE id = NEW.prompt_id);
    BEGIN
      IF prompt LIKE '%boom%' THEN RAISE EXCEPTION 'boom: the test refuses this answer'; END IF;
      IF prompt LIKE '%slow store%' THEN PERFORM pg_sleep(3); END IF;
      IF prompt LIKE '%transient%' AND nextval('test_transient') <= 2 THEN
        RAISE EXCEPTION 'could not serialize access (the test''s)' USING ERRCODE = '40001';
      END IF;
      IF prompt LIKE '%stubborn%' AND nextval('test_stubborn') <= 4 THEN
        RAISE EXCEPTION 'deadlock detected (the test''s)' USING ERRCODE = '40P01';
      END IF;
      RETURN NEW;
    END $$`);
  await db.run("CREATE TRIGGER test_store_hook BEFORE INSERT ON answers FOR EACH ROW EXECUTE FUNCTION test_store_hook()");
}

test("a run started through one instance is shared with the other's workers, every answer stored once", async () => {
  const { a, b, fakes } = await twoInstances(100, "Acme is fine.");
  const s = await addBrand(a, { name: "Acme", prompts: Array.from({ length: 24 }, (_, i) => ({ key: `P${i}`, text: `prompt ${i}` })) });
  // The second instance is a server: its workers look for work from any instance.
  b.tracking.runner.serve();
  const run = await runTracking(a, s.brandId, { trigger: "tool" });
  expect(run).toMatchObject({ status: "completed", answers_planned: 24, answers_done: 24 });
  const slots = await a.db.get<{ answers: number; slots: number }>(
    `SELECT count(*) AS answers, count(DISTINCT prompt_id || '/' || sample) AS slots FROM answers WHERE run_id = ?`,
    [run.id],
  );
  expect(slots).toEqual({ answers: 24, slots: 24 });
  expect(fakes[1]!.requests.length).toBeGreaterThan(0);
  expect(fakes[0]!.requests.length + fakes[1]!.requests.length).toBe(24);
});

test("a competitor added through the other instance while an answer is on its way: the answer is stored with the new roster", async () => {
  // The answer to "best crm" waits at the provider until the other instance has added the
  // competitor and finished its re-analysis.
  const gate = gatedProvider("Acme and Globex are both fine.", (prompt) => prompt === "best crm");
  const { a, b } = await pair(toml(gate.fake), toml(gate.fake));
  const s = await addBrand(a, {
    name: "Acme",
    prompts: [
      { key: "P", text: "best crm" },
      { key: "W", text: "first answer" },
    ],
  });
  const { runId, done } = await a.tracking.runner.start(s.brandId, { trigger: "tool" });
  // Instance a has stored the other answer, so it holds the brand's roster as it was then (no Globex).
  const stored = async () => (await a.db.get<{ n: number }>("SELECT count(*) AS n FROM answers WHERE run_id = ?", [runId]))!.n === 1;
  await gate.asked;
  expect(await until(stored, 5000)).toBe(true);
  let globex: Awaited<ReturnType<typeof createCompetitor>>;
  try {
    globex = await createCompetitor(b, s.brandId, { name: "Globex" });
    // Its re-analysis (of the one stored answer) has run on instance b, not a.
    await b.tracking.reanalyzeBrand(s.brandId);
  } finally {
    gate.release();
  }
  expect(await done).toBe("completed");
  for (const prompt of ["best crm", "first answer"]) {
    const mentioned = await a.db.all<{ member_id: string }>(
      "SELECT m.member_id FROM mentions m JOIN answers x ON x.id = m.answer_id WHERE x.run_id = ? AND x.prompt_id = ? ORDER BY m.rank",
      [runId, prompt === "best crm" ? s.prompts.P! : s.prompts.W!],
    );
    expect({ prompt, members: mentioned.map((m) => m.member_id) }).toEqual({ prompt, members: [s.brandId, globex.id] });
  }
});

test("spyglass track beside a server asks only its own run's answers, and returns with none of them on its way", async () => {
  const script = (prompt: string) => (prompt.includes("hang") ? hang() : answer("Acme is fine.", { latencyMs: 100 }));
  const cli = provider(script);
  const server = provider(script);
  const { a, b } = await pair(toml(cli), toml(server));
  await hookStores(a.db);
  const served = await addBrand(b, {
    name: "Served",
    prompts: Array.from({ length: 12 }, (_, i) => ({ key: `P${i}`, text: `served ${i}` })),
  });
  const tracked = await addBrand(a, {
    name: "Tracked",
    prompts: [
      { key: "B", text: "tracked boom" },
      { key: "H", text: "tracked hang" },
    ],
  });
  b.tracking.runner.serve();
  // The server's run is the older one: a worker taking any run's work would take it first.
  const serverRun = await b.tracking.runner.start(served.brandId, { trigger: "tool" });
  const written: string[] = [];
  const code = await trackCommand(a, { brandId: tracked.brandId, json: true, out: { stdout: { write: (t: string) => written.push(t) } } });
  // Its run failed (the store of "tracked boom"), while "tracked hang" was still being asked.
  expect(code).toBe(1);
  expect(JSON.parse(written.join(""))[0]).toMatchObject({ status: "failed", error: expect.stringContaining("boom") });
  expect(cli.requests.filter((r) => r.prompt.startsWith("served"))).toEqual([]);
  // Nothing of it is still asking an engine once it returned (the database is closed next).
  expect(await until(() => cli.inFlight === 0, 1000)).toBe(true);
  expect(await serverRun.done).toBe("completed");
  expect(server.requests.filter((r) => r.prompt.startsWith("served"))).toHaveLength(12);
  expect(await a.db.get("SELECT count(*) AS n FROM answers WHERE run_id = ?", [serverRun.runId])).toEqual({ n: 12 });
});

test("a server does not answer a spyglass track run's tasks: the command asks them all, with its own configuration", async () => {
  // Slow enough answers that the server's idle workers look for work (each second) while the run is open.
  const cli = provider(() => answer("Acme is fine.", { latencyMs: 1200 }));
  const server = provider(() => answer("Acme is fine."));
  const { a, b } = await pair(toml(cli), toml(server));
  const tracked = await addBrand(a, {
    name: "Tracked",
    prompts: Array.from({ length: 6 }, (_, i) => ({ key: `P${i}`, text: `tracked ${i}` })),
  });
  b.tracking.runner.serve();
  const code = await trackCommand(a, { brandId: tracked.brandId, json: true, out: { stdout: { write: () => undefined } } });
  expect(code).toBe(0);
  expect(cli.requests.filter((r) => r.prompt.startsWith("tracked"))).toHaveLength(6);
  expect(server.requests).toEqual([]);
});

test("a store that fails while another is under way fails the run with its own reason, the other answer kept", async () => {
  const fake = provider((prompt) => answer("Acme is fine.", { latencyMs: prompt.includes("boom") ? 300 : 0 }));
  const { a } = await pair(toml(fake), toml(fake));
  await hookStores(a.db);
  const s = await addBrand(a, {
    name: "Acme",
    prompts: [
      { key: "S", text: "slow store" },
      { key: "B", text: "boom" },
    ],
  });
  // "slow store" is being stored (its task's row locked) when "boom"'s store fails and ends the run.
  const run = await runTracking(a, s.brandId, { trigger: "tool" });
  expect(run).toMatchObject({ status: "failed", error: "could not store an answer: boom: the test refuses this answer", answers_done: 1 });
  expect(run.answers.ok).toBe(1);
});

test("a run resumed while another instance still stores one of its answers: nothing asked or stored twice", async () => {
  const fake = provider(() => answer("Acme is fine."));
  // Instance b has one worker: it stores "slow store" (the run's first task), then nothing else yet.
  const { a, b } = await pair(toml(fake), toml(fake, 1));
  await hookStores(a.db);
  const s = await addBrand(a, {
    name: "Acme",
    prompts: [
      { key: "S", text: "slow store" },
      { key: "O", text: "other" },
    ],
  });
  // Another instance's run: its owner holds the lease, instance b's workers help.
  await a.db.run(
    `INSERT INTO tracking_runs (id, brand_id, status, "trigger", engines, answers_planned, answers_done, owner, lease_until, started_at)
       VALUES ('run_other', ?, 'running', 'tool', '["gpt"]', 2, 0, 'inst_other', ?, ?)`,
    [s.brandId, Date.now() + 60_000, Date.now()],
  );
  await a.db.run(
    "INSERT INTO tracking_tasks (run_id, brand_id, prompt_id, engine, sample) VALUES ('run_other', ?, ?, 'gpt', 0), ('run_other', ?, ?, 'gpt', 0)",
    [s.brandId, s.prompts.S!, s.brandId, s.prompts.O!],
  );
  b.tracking.runner.serve();
  // Instance b is storing "slow store": on PostgreSQL its insert waits in the trigger (its task's
  // row locked); SQLite stores it at once, and "other" soon after: the resume then finds both done
  // (waiting for the first alone let the resume ask "other" while b was still asking it).
  const storing = async () =>
    a.db.dialect === "postgres"
      ? (await a.db.get<{ n: number }>(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%INSERT INTO answers%' AND pid <> pg_backend_pid()",
        ))!.n === 1
      : (await a.db.get<{ n: number }>("SELECT count(*) AS n FROM answers WHERE run_id = 'run_other'"))!.n >= 2;
  expect(await until(storing, 5000)).toBe(true);
  // Its owner stops meanwhile, and the brand's next run resumes it.
  await a.db.run("UPDATE tracking_runs SET status = 'interrupted', lease_until = NULL WHERE id = 'run_other'");
  const resumed = await runTracking(a, s.brandId, { trigger: "tool" });
  expect(resumed).toMatchObject({ id: "run_other", status: "completed", answers_planned: 2, answers_done: 2, error: null });
  expect(await a.db.get("SELECT count(*) AS n FROM answers WHERE run_id = 'run_other'")).toEqual({ n: 2 });
  expect(fake.requests.map((r) => r.prompt).sort()).toEqual(["other", "slow store"]);
});

test("a run held by another instance's lease is refused naming when that lease lapses (a crashed owner's run is resumed then)", async () => {
  const fake = provider(() => answer("Acme is fine."));
  const { a } = await pair(toml(fake), toml(fake));
  const s = await addBrand(a, { name: "Acme", prompts: [{ key: "P", text: "one" }] });
  const until = Date.now() + 30_000;
  await a.db.run(
    `INSERT INTO tracking_runs (id, brand_id, status, "trigger", engines, answers_planned, answers_done, owner, lease_until, started_at)
       VALUES ('run_held', ?, 'running', 'cli', '["gpt"]', 1, 0, 'inst_crashed', ?, ?)`,
    [s.brandId, until, Date.now()],
  );
  const refused = await runTracking(a, s.brandId, { trigger: "tool" }).catch((e: unknown) => e as Error);
  expect((refused as Error).message).toContain(
    `(run_held); wait for it to finish (the dashboard's Tracking page, or get_tracking_status from an AI client, shows its progress). It is held by another process until ${new Date(until).toISOString().slice(11, 19)} UTC`,
  );
});

/** A run left by an instance that died (its lease ran out), with a task per prompt × engine. */
async function abandonedRun(db: Db, brandId: string, promptIds: string[], engines: string[]): Promise<string> {
  const runId = `run_abandoned_${Math.random().toString(36).slice(2, 8)}`;
  await db.run(
    `INSERT INTO tracking_runs (id, brand_id, status, "trigger", engines, answers_planned, answers_done, owner, lease_until, started_at)
       VALUES (?, ?, 'running', 'tool', ?, ?, 0, 'inst_gone', ?, ?)`,
    [runId, brandId, JSON.stringify(engines), promptIds.length * engines.length, Date.now() - 1, Date.now()],
  );
  for (const engine of engines)
    for (const promptId of promptIds)
      await db.run("INSERT INTO tracking_tasks (run_id, brand_id, prompt_id, engine, sample) VALUES (?, ?, ?, ?, 0)", [
        runId,
        brandId,
        promptId,
        engine,
      ]);
  return runId;
}

test("a server without one of an abandoned run's engines does not hold the run; the brand's next run finishes it", async () => {
  const fake = provider(() => answer("Acme is fine."));
  // Instance a has engines gpt and claude; instance b, a server of another version, gpt only.
  const { a, b } = await pair(`${toml(fake)}${engineToml("claude", fake)}`, toml(fake));
  const s = await addBrand(a, { name: "Acme", prompts: [{ key: "P", text: "best crm" }] });
  const runId = await abandonedRun(a.db, s.brandId, [s.prompts.P!], ["gpt", "claude"]);
  b.tracking.runner.serve();
  const status = async () => (await a.db.get<{ status: string }>("SELECT status FROM tracking_runs WHERE id = ?", [runId]))!.status;
  // b answers gpt's task (any server helps any run), but cannot finish the run: it marks it interrupted.
  expect(await until(async () => (await status()) !== "running", 8000)).toBe(true);
  expect(await status()).toBe("interrupted");
  const resumed = await runTracking(a, s.brandId, { trigger: "tool" });
  expect(resumed).toMatchObject({ id: runId, status: "completed", answers_planned: 2, answers_done: 2 });
  expect(fake.requests).toHaveLength(2);
});

test("a run resumed after a prompt was added asks that prompt too, on an instance that had read the run's prompts before", async () => {
  const fake = provider((prompt) => answer(`Acme answers ${prompt}.`));
  const { a } = await pair(toml(fake), toml(fake));
  const s = await addBrand(a, { name: "Acme", prompts: [{ key: "P", text: "first prompt" }] });
  const run = await runTracking(a, s.brandId, { trigger: "tool" });
  expect(run).toMatchObject({ status: "completed", answers_done: 1 });
  // As if it had been stopped before its end; a prompt is added before the brand's next run resumes it.
  await a.db.run("UPDATE tracking_runs SET status = 'interrupted' WHERE id = ?", [run.id]);
  await a.db.run(
    "INSERT INTO prompts (id, brand_id, text, text_key, archived_at, created_at) VALUES ('prm_added', ?, 'added prompt', 'added prompt', NULL, ?)",
    [s.brandId, Date.now()],
  );
  const resumed = await runTracking(a, s.brandId, { trigger: "tool" });
  expect(resumed).toMatchObject({ id: run.id, status: "completed", answers_planned: 2, answers_done: 2 });
  expect(fake.requests.map((r) => r.prompt)).toEqual(["first prompt", "added prompt"]);
});

test("a worker still busy on an ended run's task does not keep the next run from starting its engines' other workers", async () => {
  const fake = provider((prompt) => (prompt.includes("hang") ? hang() : answer("Acme is fine.")));
  const { a } = await pair(`${toml(fake)}${engineToml("claude", fake)}`, toml(fake));
  const first = await addBrand(a, { name: "Acme", prompts: [{ key: "H", text: "hang" }] });
  const second = await addBrand(a, { name: "Other", prompts: [{ key: "P", text: "best crm" }] });
  const hung = await a.tracking.runner.start(first.brandId, { trigger: "tool", engines: ["claude"] });
  expect(await until(() => fake.inFlight === 1, 5000)).toBe(true);
  // Another instance marks the run interrupted (its lease ran out in a stall): this instance's run
  // ends, its idle workers too, while one of claude's still waits for its answer.
  await a.db.run("UPDATE tracking_runs SET status = 'interrupted' WHERE id = ?", [hung.runId]);
  expect(await hung.done).toBe("interrupted");
  const next = await a.tracking.runner.start(second.brandId, { trigger: "tool" });
  expect(await Promise.race([next.done, Bun.sleep(5000).then(() => "stuck")])).toBe("completed");
});

/**
 * An instance on `a`'s database whose end of a run stalls (before it counts the run's errors) while
 * `b` takes the run over as `owner`, its lease renewed for a minute: a stall past the lease.
 * `afterwards` is stallingBefore's.
 */
function stalledOwner(a: AppContext, b: AppContext, owner: string, runId: () => string, afterwards?: (text: string) => void): AppContext {
  return createAppContext(
    a.config,
    stallingBefore(
      a.db,
      "count(*) FILTER (WHERE status = 'error')",
      () => b.db.run("UPDATE tracking_runs SET owner = ?, lease_until = ? WHERE id = ?", [owner, Date.now() + 60_000, runId()]),
      afterwards,
    ),
    { llm: { env: KEY } },
  );
}

/**
 * The database as one instance sees it, stalling before the first statement (outside a transaction)
 * whose text contains `before` to run `meanwhile`: what another instance does during a stall of this
 * one (a long GC pause, a frozen VM). The database and every statement are real. `afterwards` hears
 * the text of each statement (outside a transaction) that ends once the stall has begun, the stalled
 * one included, so that a test can wait for what the instance does next instead of for a time.
 */
function stallingBefore(db: Db, before: string, meanwhile: () => Promise<unknown>, afterwards?: (text: string) => void): Db {
  let stalled = false;
  return new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== "function") return value;
      if (prop !== "run" && prop !== "get" && prop !== "all") return value.bind(target);
      return async (...args: Parameters<Db["run"]>) => {
        const text = typeof args[0] === "string" ? args[0] : args[0].sqlite;
        if (!stalled && text.includes(before)) {
          stalled = true;
          await meanwhile();
        }
        const after = stalled;
        try {
          return await value.apply(target, args);
        } finally {
          if (after) afterwards?.(text);
        }
      };
    },
  });
}

/** A promise settled by the first statement `afterwards` hears whose text contains `text`, and the listener to pass. */
function statementEnded(text: string): { ended: Promise<void>; afterwards: (statement: string) => void } {
  let settle!: () => void;
  const ended = new Promise<void>((resolve) => (settle = resolve));
  return { ended, afterwards: (statement) => statement.includes(text) && settle() };
}

test("an owner whose run another instance took over during a stall does not mark it interrupted at its stop", async () => {
  const fake = provider((prompt) => (prompt.includes("hang") ? hang() : answer("Acme is fine.")));
  const { a, b } = await pair(toml(fake), toml(fake));
  let runId = "";
  // Instance a stalls (longer than its lease) just before it marks its run interrupted at a stop;
  // meanwhile instance b has taken the run over.
  const stalled = createAppContext(
    a.config,
    stallingBefore(a.db, "SET status = 'interrupted'", () =>
      b.db.run("UPDATE tracking_runs SET owner = 'inst_b', lease_until = ? WHERE id = ?", [Date.now() + 60_000, runId]),
    ),
    { llm: { env: KEY } },
  );
  const s = await addBrand(stalled, { name: "Acme", prompts: [{ key: "H", text: "hang" }] });
  const started = await stalled.tracking.runner.start(s.brandId, { trigger: "tool" });
  runId = started.runId;
  expect(await until(() => fake.inFlight === 1, 5000)).toBe(true);
  await stopTracking(stalled);
  expect(await started.done).toBe("running");
  expect(await a.db.get("SELECT status, owner FROM tracking_runs WHERE id = ?", [runId])).toEqual({ status: "running", owner: "inst_b" });
});

test("an owner whose run another instance took over during a stall does not finish it", async () => {
  const fake = provider(() => answer("Acme is fine."));
  const { a, b } = await pair(toml(fake), toml(fake));
  let runId = "";
  // The stalled owner's next read of its run comes once its try at ending the run is over.
  const readAgain = statementEnded("SELECT status, owner FROM tracking_runs");
  const stalled = stalledOwner(a, b, "inst_b", () => runId, readAgain.afterwards);
  const s = await addBrand(stalled, { name: "Acme", prompts: [{ key: "P", text: "best crm" }] });
  const started = await stalled.tracking.runner.start(s.brandId, { trigger: "tool" });
  runId = started.runId;
  // Its one answer is stored; the new owner finishes the run, not this instance (whose run, had it
  // ended it, would be done instead).
  await Promise.race([readAgain.ended, started.done]);
  expect(await a.db.get("SELECT owner FROM tracking_runs WHERE id = ?", [runId])).toEqual({ owner: "inst_b" });
  expect(await a.db.get("SELECT status, answers_done FROM tracking_runs WHERE id = ?", [runId])).toEqual({
    status: "running",
    answers_done: 1,
  });
  await stopTracking(stalled);
  expect(await started.done).toBe("running");
});

test("an owner whose read of its run meets a lost connection reads again and completes the run", async () => {
  const fake = provider(() => answer("Acme is fine."));
  const { a } = await pair(toml(fake), toml(fake));
  // The first read of its run fails as a lost PostgreSQL connection fails, before it reaches the database.
  const lost = () => Promise.reject(Object.assign(new Error("write CONNECTION_CLOSED db:5432"), { code: "CONNECTION_CLOSED" }));
  const flaky = createAppContext(a.config, stallingBefore(a.db, "SELECT status, owner FROM tracking_runs", lost), { llm: { env: KEY } });
  const s = await addBrand(flaky, { name: "Acme", prompts: [{ key: "P", text: "best crm" }] });
  const started = await flaky.tracking.runner.start(s.brandId, { trigger: "tool" });
  expect(await Promise.race([started.done, Bun.sleep(10_000).then(() => "stuck")])).toBe("completed");
  expect(await a.db.get("SELECT status, answers_done FROM tracking_runs WHERE id = ?", [started.runId])).toEqual({
    status: "completed",
    answers_done: 1,
  });
  await stopTracking(flaky);
});

test("a store that meets a busy database is tried again: the run completes and the answer was asked once", async () => {
  const fake = provider(() => answer("Acme is fine.", { latencyMs: 300 }));
  const { a, b } = await pair(toml(fake), toml(fake));
  await hookStores(a.db);
  const s = await addBrand(a, { name: "Acme", prompts: [{ key: "T", text: "transient" }] });
  const started = await a.tracking.runner.start(s.brandId, { trigger: "tool" });
  expect(await until(() => fake.requests.length === 1, 5000)).toBe(true);
  // On SQLite, instance b holds the write lock for a second: the store waits out its busy timeout
  // (5 s) and fails with SQLITE_BUSY. On PostgreSQL the trigger fails its first two tries.
  const held = b.db.transaction(async (tx) => {
    await tx.run("UPDATE tracking_runs SET answers_done = answers_done WHERE id = ?", [started.runId]);
    await Bun.sleep(1000);
  });
  expect(await started.done).toBe("completed");
  await held;
  expect(await a.db.get("SELECT count(*) AS n FROM answers WHERE run_id = ?", [started.runId])).toEqual({ n: 1 });
  expect(fake.requests).toHaveLength(1);
});

test("a store that fails transiently every time it is tried hands its task back: the answer is asked again and stored once", async () => {
  const fake = provider(() => answer("Acme is fine."));
  const { a } = await pair(toml(fake), toml(fake));
  await hookStores(a.db);
  const s = await addBrand(a, { name: "Acme", prompts: [{ key: "S", text: "stubborn" }] });
  const run = await runTracking(a, s.brandId, { trigger: "tool" });
  expect(run).toMatchObject({ status: "completed", answers_done: 1, error: null });
  // On PostgreSQL its four tries failed (the trigger), the task went back, and the next claim asked again.
  expect(fake.requests).toHaveLength(a.db.dialect === "postgres" ? 2 : 1);
});

test("a store that loses its connection to the database hands its task back: the run completes, the answer asked again and stored once", async () => {
  const fake = provider(() => answer("Acme is fine."));
  const { a } = await pair(toml(fake), toml(fake));
  const s = await addBrand(a, { name: "Acme", prompts: [{ key: "L", text: "lost connection" }] });
  // The first store meets a connection the database closed (a PostgreSQL restart: postgres.js says
  // ECONNRESET or CONNECTION_CLOSED). The run failed, "could not store an answer: read ECONNRESET".
  const runner = a.tracking.runner as unknown as { store: (...args: unknown[]) => Promise<unknown> };
  const store = runner.store.bind(runner);
  let lost = 0;
  runner.store = async (...args: unknown[]) => {
    if (lost++ === 0) throw Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" });
    return await store(...args);
  };
  const run = await runTracking(a, s.brandId, { trigger: "tool" });
  expect(run).toMatchObject({ status: "completed", answers_done: 1, error: null });
  expect(fake.requests).toHaveLength(2);
  expect(await a.db.get("SELECT count(*) AS n FROM answers WHERE run_id = ?", [run.id])).toEqual({ n: 1 });
});

test("lease renewal renews the claims an instance is asking, not every row that carries its name", async () => {
  const fake = provider((prompt) => (prompt.includes("hang") ? hang() : answer("Acme is fine.")));
  const { a } = await pair(`[tracking]\nlease_seconds = 2\n${engineToml("gpt", fake)}`, toml(fake));
  const s = await addBrand(a, { name: "Acme", prompts: [{ key: "H", text: "hang" }] });
  const other = await addBrand(a, { name: "Other", prompts: [{ key: "P", text: "best crm" }] });
  // A claim of this instance that it lost track of (of another brand's interrupted run), its lease run out.
  const expired = Date.now() - 1;
  await a.db.run(
    `INSERT INTO tracking_runs (id, brand_id, status, "trigger", engines, answers_planned, answers_done, started_at)
       VALUES ('run_old', ?, 'interrupted', 'tool', '["gpt"]', 1, 0, ?)`,
    [other.brandId, Date.now() - 60_000],
  );
  await a.db.run(
    "INSERT INTO tracking_tasks (run_id, brand_id, prompt_id, engine, sample, claimed_by, lease_until) VALUES ('run_old', ?, ?, 'gpt', 0, ?, ?)",
    [other.brandId, other.prompts.P!, a.tracking.runner.instance, expired],
  );
  const started = await a.tracking.runner.start(s.brandId, { trigger: "tool" });
  expect(await until(() => fake.inFlight === 1, 5000)).toBe(true);
  const lease = async (runId: string) =>
    (await a.db.get<{ lease: number }>('SELECT lease_until AS "lease" FROM tracking_tasks WHERE run_id = ?', [runId]))!.lease;
  const asked = await lease(started.runId);
  // Renewals every 2/3 s: the claim being asked moves on, the forgotten one does not. Two renewals
  // of the asked claim, so that the first renewal has ended whole, whatever order it writes in.
  expect(await until(async () => (await lease(started.runId)) > asked, 3000)).toBe(true);
  const renewed = await lease(started.runId);
  expect(await until(async () => (await lease(started.runId)) > renewed, 3000)).toBe(true);
  expect(await lease("run_old")).toBe(expired);
});

test("a server whose workers are all busy still takes over a run whose owner died", async () => {
  const fake = provider((prompt) => (prompt.includes("hang") ? hang() : answer("Acme is fine.")));
  const { a, b } = await pair(toml(fake), toml(fake, 1));
  const first = await addBrand(a, { name: "Acme", prompts: [{ key: "H", text: "hang" }] });
  const second = await addBrand(a, { name: "Other", prompts: [{ key: "P", text: "best crm" }] });
  // The older run's task keeps b's one worker busy; the newer run waits for an owner.
  await abandonedRun(a.db, first.brandId, [first.prompts.H!], ["gpt"]);
  const waiting = await abandonedRun(a.db, second.brandId, [second.prompts.P!], ["gpt"]);
  b.tracking.runner.serve();
  expect(await until(() => fake.inFlight === 1, 5000)).toBe(true);
  const owner = async () => (await a.db.get<{ owner: string }>("SELECT owner FROM tracking_runs WHERE id = ?", [waiting]))!.owner;
  expect(await until(async () => (await owner()) === b.tracking.runner.instance, 3000)).toBe(true);
});

test("a takeover under way when a server stops is awaited by its stop, and leaves the run interrupted", async () => {
  const fake = provider((prompt) => (prompt.includes("hang") ? hang() : answer("Acme is fine.")));
  const { a, b } = await pair(toml(fake), toml(fake));
  const s = await addBrand(a, { name: "Acme", prompts: [{ key: "H", text: "hang" }] });
  const runId = await abandonedRun(a.db, s.brandId, [s.prompts.H!], ["gpt"]);
  let stopped: Promise<void> | null = null;
  const takeover = statementEnded("UPDATE tracking_runs SET owner = ?, lease_until = ?");
  // The server stops while its takeover's write is on its way.
  const server = createAppContext(
    b.config,
    stallingBefore(
      b.db,
      "UPDATE tracking_runs SET owner = ?, lease_until = ?",
      async () => {
        stopped = stopTracking(server);
        await Bun.sleep(100);
      },
      takeover.afterwards,
    ),
    { llm: { env: KEY } },
  );
  server.tracking.runner.serve();
  expect(await until(() => stopped !== null, 5000)).toBe(true);
  await stopped;
  const row = async () => a.db.get("SELECT status, owner FROM tracking_runs WHERE id = ?", [runId]);
  const atStop = await row();
  // Nothing of the server's changes the run once its stop returned (the database is closed next):
  // not the takeover's write, which a stop that did not wait for it would see land afterwards.
  await takeover.ended;
  expect(await row()).toEqual(atStop);
  expect(atStop).toEqual({ status: "interrupted", owner: server.tracking.runner.instance });
});

test("leases are times on the database's clock: an instance whose host clock runs 10 minutes ahead holds a run for a lease, not 10 minutes more", async () => {
  const fake = provider((prompt) => (prompt.includes("hang") ? hang() : answer("Acme is fine.")));
  const { a } = await pair(toml(fake), toml(fake));
  const s = await addBrand(a, { name: "Acme", prompts: [{ key: "H", text: "hang" }] });
  const clock = {
    sqlite: "SELECT CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER) AS now",
    postgres: "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now",
  };
  const databaseNow = async () => (await a.db.get<{ now: number }>(clock))!.now;
  setSystemTime(new Date(Date.now() + 10 * 60_000));
  try {
    const started = await a.tracking.runner.start(s.brandId, { trigger: "tool" });
    expect(await until(() => fake.inFlight === 1, 5000)).toBe(true);
    const lease = async (table: string) =>
      (await a.db.get<{ lease: number }>(
        `SELECT lease_until AS "lease" FROM ${table} WHERE ${table === "tracking_runs" ? "id" : "run_id"} = ?`,
        [started.runId],
      ))!.lease;
    const now = await databaseNow();
    // lease_seconds is 30: the run's and its task's leases end 30 s after the database's now.
    for (const table of ["tracking_runs", "tracking_tasks"]) {
      expect((await lease(table)) - now).toBeGreaterThan(25_000);
      expect((await lease(table)) - now).toBeLessThanOrEqual(31_000);
    }
  } finally {
    setSystemTime();
  }
});

test("a run taken over from an instance that stopped answering ends with its line in the log, as any run does", async () => {
  const fake = provider(() => answer("Acme is fine."));
  const { a, b } = await pair(toml(fake), toml(fake));
  const brand = await addBrand(a, { name: "Adopted", prompts: [{ key: "P", text: "best crm" }] });
  const runId = await abandonedRun(a.db, brand.brandId, [brand.prompts.P!], ["gpt"]);
  const logs = await captureLog(
    async () => {
      b.tracking.runner.serve();
      const status = async () => (await a.db.get<{ status: string }>("SELECT status FROM tracking_runs WHERE id = ?", [runId]))!.status;
      expect(await until(async () => (await status()) === "completed", 10_000)).toBe(true);
    },
    { settleMs: 300 },
  );
  configureLog({ quiet: true });
  const ended = logs
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .find((line) => line.msg === "tracking run ended" && line.run === runId);
  expect(ended).toMatchObject({ level: "info", brand: brand.brandId, brand_name: "Adopted", status: "completed" });
});

test("a run taken over during a stall is logged as ended by the instance that ended it, not also by its starter", async () => {
  const fake = provider(() => answer("Acme is fine."));
  const { a, b } = await pair(toml(fake), toml(fake));
  let runId = "";
  const stalled = stalledOwner(a, b, b.tracking.runner.instance, () => runId);
  const s = await addBrand(stalled, { name: "Stalled", prompts: [{ key: "P", text: "best crm" }] });
  const logs = await captureLog(
    async () => {
      const started = await startTracking(stalled, s.brandId, { trigger: "tool" });
      runId = started.run.id;
      expect(
        await until(
          async () =>
            (await a.db.get<{ owner: string }>("SELECT owner FROM tracking_runs WHERE id = ?", [runId]))?.owner ===
            b.tracking.runner.instance,
          5000,
        ),
      ).toBe(true);
      // The new owner's end of the run (as its takeover would end it), then the starter's wait ends.
      await b.db.run("UPDATE tracking_runs SET status = 'completed', finished_at = ? WHERE id = ?", [Date.now(), runId]);
      await started.done;
    },
    { settleMs: 100 },
  );
  configureLog({ quiet: true });
  expect(logs).not.toContain('"msg":"tracking run ended"');
});

test("a server without engines marks a run whose instance stopped answering interrupted once its lease runs out", async () => {
  const fake = provider(() => answer("Acme is fine."));
  const { a } = await pair(toml(fake), toml(fake));
  const engineless = createAppContext(configOf(""), a.db, { llm: { env: KEY } });
  const brand = await addBrand(a, { name: "Killed", prompts: [{ key: "P", text: "best crm" }] });
  // Killed a moment ago: its lease still runs for 300 ms, so the start-up check leaves it.
  const runId = await abandonedRun(a.db, brand.brandId, [brand.prompts.P!], ["gpt"]);
  await a.db.run("UPDATE tracking_runs SET lease_until = ? WHERE id = ?", [Date.now() + 300, runId]);
  const status = async () => (await a.db.get<{ status: string }>("SELECT status FROM tracking_runs WHERE id = ?", [runId]))!.status;
  const watch = watchAbandonedRuns(engineless, 100);
  try {
    expect(await status()).toBe("running");
    expect(await until(async () => (await status()) === "interrupted", 5000)).toBe(true);
  } finally {
    watch.stop();
  }
});

test("a run whose brand another process deletes under it ends without an unhandled failure: run_tracking's server goes on", async () => {
  // Bun exits on an unhandled rejection: the end of a run started by run_tracking (which answers at
  // the start and waits for nothing) read the run again and threw once another process had deleted
  // the brand with its runs (spyglass demo --reset, another instance), and the whole server stopped.
  const failures: unknown[] = [];
  const onRejection = (reason: unknown) => failures.push(reason);
  process.on("unhandledRejection", onRejection);
  try {
    const gate = gatedProvider("Acme is fine.", (prompt) => prompt === "held");
    const { a, b } = await pair(toml(gate.fake), toml(gate.fake));
    const brand = await addBrand(a, { name: "Deleted under its run", prompts: [{ key: "H", text: "held" }] });
    // As run_tracking starts it: the run's end is nobody's to wait for.
    const started = await startTracking(a, brand.brandId, { trigger: "tool" });
    expect(started.run.status).toBe("running");
    await gate.asked;
    // The other process deletes the account, its brand and the brand's runs (cascade), as demo --reset did.
    await b.db.run("DELETE FROM accounts WHERE id = ?", [brand.accountId]);
    gate.release();
    // Its end comes within a few milliseconds of the answer; a second leaves room for it under load.
    expect(await until(() => failures.length > 0, 1_000)).toBe(false);
    expect(failures).toEqual([]);
  } finally {
    process.off("unhandledRejection", onRejection);
  }
});
