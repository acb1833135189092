// Two instances on one database, in process (two app contexts, two connections; SQLite file or
// PostgreSQL): a run started through one is shared with the other's workers through the queue, and
// an answer on its way while the other instance changes the roster is stored analysed with the new
// roster (the roster version lives in the database). The compiled binaries' version of this, with
// a scheduled tick and a kill -9, is test/e2e/tracking-instances.test.ts.
import { afterAll, expect, test } from "bun:test";
import { createCompetitor } from "../../src/competitors/service";
import { type AppContext, createAppContext } from "../../src/context";
import { runTracking, stopTracking } from "../../src/tracking/service";
import { addBrand, configOf } from "../analytics/dataset";
import { openTestDatabase, secondConnection } from "../support/database";
import { answer, type FakeProvider, startFakeOpenAI } from "../support/fake-providers";

const KEY = { INSTANCES_TEST_KEY: "sk-instances" };
const fakes: FakeProvider[] = [];
const apps: AppContext[] = [];

afterAll(async () => {
  for (const app of apps) await stopTracking(app);
  for (const app of apps) await app.db.close();
  await Promise.all(fakes.map((f) => f.stop()));
});

function toml(fake: FakeProvider): string {
  return `[tracking]
concurrency = 2

[[engines]]
id = "gpt"
api = "openai"
base_url = "${fake.url}"
model = "gpt-test"
api_key_env = "INSTANCES_TEST_KEY"
max_retries = 0
`;
}

/** Two instances on one database, each asking its own stand-in provider (the same engine id). */
async function twoInstances(latencyMs: number, text: string): Promise<{ a: AppContext; b: AppContext; fakes: FakeProvider[] }> {
  const own = [0, 1].map(() => startFakeOpenAI({ apiKey: KEY.INSTANCES_TEST_KEY, latencyMs, fallback: answer(text) }));
  fakes.push(...own);
  const first = await openTestDatabase({ file: `${configOf("").dataDir}/spyglass.db` });
  const a = createAppContext(configOf(toml(own[0]!)), first, { llm: { env: KEY } });
  const b = createAppContext(configOf(toml(own[1]!)), await secondConnection(first), { llm: { env: KEY } });
  apps.push(a, b);
  return { a, b, fakes: own };
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
  // Slow enough for the other instance to add the competitor and finish its re-analysis first.
  const { a, b } = await twoInstances(1500, "Acme and Globex are both fine.");
  const s = await addBrand(a, { name: "Acme", prompts: [{ key: "P", text: "best crm" }] });
  // Instance a has read the brand's roster (no Globex) before its answer arrives.
  const started = a.tracking.runner.start(s.brandId, { trigger: "tool" });
  const { runId, done } = await started;
  await Bun.sleep(200);
  const globex = await createCompetitor(b, s.brandId, { name: "Globex" });
  // Its re-analysis (of no stored answer yet) has run on instance b, not a.
  await b.tracking.reanalyzeBrand(s.brandId);
  expect(await done).toBe("completed");
  const mentioned = await a.db.all<{ member_id: string }>(
    "SELECT m.member_id FROM mentions m JOIN answers x ON x.id = m.answer_id WHERE x.run_id = ? ORDER BY m.rank",
    [runId],
  );
  expect(mentioned.map((m) => m.member_id)).toEqual([s.brandId, globex.id]);
});
