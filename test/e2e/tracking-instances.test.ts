// Tracking shared by several Spyglass instances (the compiled binary) on one PostgreSQL (issue 21):
// a scheduled tick runs each brand once, not once per instance, with the answers asked by every
// instance (each instance has its own stand-in provider, so the requests each one sent are
// counted); and a `kill -9` of the instance that owns a run mid-way leaves the run to another,
// which finishes it without storing any answer twice.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openPostgres, type PostgresDb } from "../../src/db/postgres";
import { type Sandbox, type ServerProcess, sandbox } from "../support/binary";
import { answer, type FakeProvider, startFakeOpenAI } from "../support/fake-providers";
import { raw, rpc } from "../support/mcp";
import { freshPostgresUrl } from "../support/postgres";

setDefaultTimeout(120_000);

const KEY_ENV = { E2E_INSTANCES_KEY: "sk-e2e-instances" };
const fakes: FakeProvider[] = [];
const boxes: Sandbox[] = [];
const servers: ServerProcess[] = [];

function toml(fake: FakeProvider, tracking: string): string {
  return `[tracking]
${tracking}
concurrency = 2

[[engines]]
id = "gpt"
api = "openai"
base_url = "${fake.url}"
model = "gpt-test"
api_key_env = "E2E_INSTANCES_KEY"
max_retries = 0
`;
}

/** Starts `n` instances on the database at `url`, each asking its own stand-in provider. */
async function instances(
  url: string,
  n: number,
  tracking: string,
  latencyMs: number,
): Promise<{ boxes: Sandbox[]; fakes: FakeProvider[] }> {
  const own = { boxes: [] as Sandbox[], fakes: [] as FakeProvider[] };
  for (let i = 0; i < n; i++) {
    const fake = startFakeOpenAI({ apiKey: KEY_ENV.E2E_INSTANCES_KEY, latencyMs, fallback: answer("Acme is a fine choice.") });
    const box = await sandbox({ toml: toml(fake, tracking), env: { SPYGLASS_DATABASE_URL: url, ...KEY_ENV } });
    own.fakes.push(fake);
    own.boxes.push(box);
    fakes.push(fake);
    boxes.push(box);
  }
  return own;
}

/** An account on Visibility with `brands` brands of `prompts` prompts each (through the CLI and the tool server of `server`). */
async function seed(box: Sandbox, server: ServerProcess, brands: number, prompts: number): Promise<Array<{ id: string; key: string }>> {
  const email = `agency-${servers.length}@example.com`;
  await box.cliJson(["account", "create", "--email", email, "--password", "a long password", "--plan", "visibility"]);
  const made: Array<{ id: string; key: string }> = [];
  for (let b = 0; b < brands; b++) {
    const { id } = await box.cliJson<{ id: string }>([
      "brand",
      "create",
      "--email",
      email,
      "--name",
      `Brand ${b}`,
      "--domain",
      `brand${b}.com`,
    ]);
    const { plaintext } = await box.cliJson<{ plaintext: string }>(["key", "create", "--email", email, "--brand", id, "--name", "ci"]);
    const list = Array.from({ length: prompts }, (_, i) => ({ text: `which tool for job ${b}-${i}` }));
    const created = await tool(server, plaintext, "create_prompts", { prompts: list });
    expect(created.created).toHaveLength(prompts);
    made.push({ id, key: plaintext });
  }
  return made;
}

async function tool(server: ServerProcess, key: string, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const res = await raw(server.url, { headers: { authorization: `Bearer ${key}` }, body: rpc("tools/call", { name, arguments: args }) });
  expect(res.status).toBe(200);
  const result = JSON.parse(res.text).result;
  if (result.isError) throw new Error(result.content[0].text);
  return result.structuredContent;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await Bun.sleep(50);
  }
}

interface RunRow {
  id: string;
  brand_id: string;
  status: string;
  trigger: string;
  answers_planned: number;
  answers_done: number;
  owner: string | null;
}

/** The run's answers: how many, and how many distinct prompt × engine × sample slots. */
async function answerSlots(db: PostgresDb, runId: string): Promise<{ answers: number; slots: number }> {
  return (await db.get<{ answers: number; slots: number }>(
    `SELECT count(*) AS answers, count(DISTINCT prompt_id || '/' || engine || '/' || sample) AS slots FROM answers WHERE run_id = ?`,
    [runId],
  ))!;
}

afterAll(async () => {
  for (const box of boxes) box.cleanup();
  await Promise.all(fakes.map((fake) => fake.stop()));
});

describe("three instances, one schedule", () => {
  let db: PostgresDb;
  let brandIds: string[];
  let own: { boxes: Sandbox[]; fakes: FakeProvider[] };

  beforeAll(async () => {
    const url = await freshPostgresUrl();
    db = await openPostgres(url, { poolSize: 2 });
    // Answers of a second each: the run lasts a few seconds, longer than the idle poll (1 s) by which
    // an instance that claimed no brand joins in.
    own = await instances(url, 3, `schedule = "0 0 1 1 *"\nlease_seconds = 10`, 1_000);
    // Seeded through one instance first (its schedule a year away) …
    const seeder = await own.boxes[0]!.serve();
    brandIds = (await seed(own.boxes[0]!, seeder, 2, 20)).map((b) => b.id);
    await seeder.stop();
    // … then all three start with a tick some seconds ahead (UTC, with seconds). They must have started
    // before the tick, or the test proves nothing: on a machine loaded enough to start them later,
    // they are stopped and started again with a tick further ahead.
    const files = own.boxes.map((box) => join(box.dataDir, "spyglass.toml"));
    const tomls = files.map((file) => readFileSync(file, "utf8"));
    for (let lead = 10_000; ; lead *= 2) {
      const at = new Date(Math.ceil((Date.now() + lead) / 1000) * 1000);
      const cron = `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} * * *`;
      for (const [i, file] of files.entries()) writeFileSync(file, tomls[i]!.replace('schedule = "0 0 1 1 *"', `schedule = "${cron}"`));
      const started = await Promise.all(own.boxes.map((box) => box.serve()));
      if (Date.now() < at.getTime() - 1_000) {
        servers.push(...started);
        break;
      }
      await Promise.all(started.map((server) => server.stop()));
      // A tick that came while they stopped leaves no run behind for the next try to count.
      for (const table of ["answers", "tracking_tasks", "tracking_runs"]) await db.run(`DELETE FROM ${table}`);
      if (lead >= 40_000) throw new Error(`the instances took more than ${lead / 1000} s to start`);
    }
  }, 180_000);

  afterAll(async () => {
    await db?.close();
  });

  test("each brand runs once for the tick, and every instance asked part of the answers", async () => {
    const runs = await until(
      "both scheduled runs to end",
      () =>
        db.all<RunRow>(`SELECT id, brand_id, status, "trigger", answers_planned, answers_done, owner FROM tracking_runs ORDER BY brand_id`),
      (rows) => rows.length >= 2 && rows.every((r) => r.status !== "running"),
      90_000,
    );
    // One run per brand (not one per instance), both from the schedule, both complete.
    expect(runs.map((r) => r.brand_id).sort()).toEqual([...brandIds].sort());
    for (const run of runs) {
      expect(run).toMatchObject({ status: "completed", trigger: "schedule", answers_planned: 20, answers_done: 20 });
      expect(await answerSlots(db, run.id)).toEqual({ answers: 20, slots: 20 });
    }
    // 40 answers asked once each, shared between the three instances.
    const sent = own.fakes.map((fake) => fake.requests.length);
    expect(sent.reduce((a, b) => a + b, 0)).toBe(40);
    for (const n of sent) expect(n).toBeGreaterThan(0);
    expect(await db.get<{ n: number }>("SELECT count(*) AS n FROM tracking_tasks")).toEqual({ n: 0 });
    for (const server of servers.splice(0)) await server.stop();
  });
});

describe("two instances, one killed mid-run", () => {
  test("kill -9 of the run's owner: the other instance takes the run over and finishes it, no answer stored twice", async () => {
    const url = await freshPostgresUrl();
    const db = await openPostgres(url, { poolSize: 2 });
    try {
      // No schedule: the run starts from a tool call; a lease of 2 s, so the takeover comes soon.
      const own = await instances(url, 2, "enabled = false\nlease_seconds = 2", 300);
      const [first, second] = await Promise.all(own.boxes.map((box) => box.serve()));
      servers.push(first!, second!);
      const [brand] = await seed(own.boxes[0]!, first!, 1, 16);
      const started = await tool(first!, brand!.key, "run_tracking");
      const runId: string = started.run.id;
      expect(started.run.answers_planned).toBe(16);
      const owner = (await db.get<RunRow>("SELECT owner FROM tracking_runs WHERE id = ?", [runId]))!.owner;
      // Some answers stored, and the owner asking more when it dies.
      await until(
        "a few answers and the owner asking",
        async () => ({ stored: (await answerSlots(db, runId)).answers, asking: own.fakes[0]!.inFlight }),
        (v) => v.stored >= 2 && v.asking > 0,
      );
      first!.proc.kill("SIGKILL");
      await first!.proc.exited;
      const run = await until(
        "the run to end on the other instance",
        async () =>
          (await db.get<RunRow>(`SELECT id, status, answers_done, answers_planned, owner FROM tracking_runs WHERE id = ?`, [runId]))!,
        (r) => r.status !== "running",
        60_000,
      );
      expect(run).toMatchObject({ status: "completed", answers_planned: 16, answers_done: 16 });
      expect(run.owner).not.toBe(owner);
      // Every slot answered exactly once, though the dead instance's requests in flight were asked again.
      expect(await answerSlots(db, runId)).toEqual({ answers: 16, slots: 16 });
      expect(own.fakes[1]!.requests.length).toBeGreaterThan(0);
      expect(own.fakes[0]!.requests.length + own.fakes[1]!.requests.length).toBeGreaterThanOrEqual(16);
      expect(await db.get<{ n: number }>("SELECT count(*) AS n FROM tracking_tasks")).toEqual({ n: 0 });
      expect(await second!.stop()).toBe(0);
    } finally {
      await db.close();
    }
  });
});
