// A large brand's re-analysis on an SQLite file runs on a worker thread with its own connection
// (src/db/slice-thread.ts, src/tracking/bulk-worker.ts): the serving thread keeps its event loop, its
// writes go between the worker's slices (src/db/write-gate.ts), a worker that cannot run leaves the
// pass to the serving thread, a stop ends the worker's pass and leaves no lock or writer behind, and
// the next start goes through the answers again. SQLite files only, in the suite's first pass:
// PostgreSQL and `:memory:` re-analyse on the serving thread (test/tracking/reanalysis*.test.ts).
import { Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type AppContext, createAppContext } from "../../src/context";
import { openDatabase } from "../../src/db/client";
import { Reanalysis } from "../../src/tracking/reanalysis";
import { loadRoster } from "../../src/tracking/roster";
import { addBrand, configOf } from "../analytics/dataset";
import { captureLog } from "../support/log";
import { scratchDir } from "../support/scratch";

let app: AppContext;
afterEach(async () => {
  await app?.tracking.reanalysis.stop();
  await app?.db.close();
});

/** A valid answer of the prompt, stored now. */
function okAnswer(brandId: string, promptId: string, sample: number, text: string) {
  return {
    brandId,
    runId: null,
    promptId,
    engine: "gpt",
    model: "m",
    sample,
    status: "ok" as const,
    text,
    providerCitations: [],
    error: null,
    latencyMs: 1,
    tokensIn: 1,
    tokensOut: 1,
    createdAt: Date.now(),
  };
}

/** An app on an SQLite file with `answers` answers of one prompt: odd ones name Acme, even ones Globex. */
async function brandOnFile(answers: number) {
  const path = join(scratchDir("spyglass-reanalysis-"), "spyglass.db");
  app = createAppContext(configOf(""), openDatabase(path));
  const s = await addBrand(app, { name: "Acme", prompts: [{ key: "P", text: "best crm" }] });
  const roster = await loadRoster(app.db, s.brandId);
  await app.db.transaction(async () => {
    for (let i = 0; i < answers; i++) {
      await app.tracking.storeAnswer(okAnswer(s.brandId, s.prompts.P!, i, i % 2 ? "Acme wins." : "Globex wins."), roster);
    }
  });
  return { path, brandId: s.brandId };
}

async function addGlobex(brandId: string): Promise<void> {
  await app.db.run(
    "INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES ('cmp_g', ?, 'Globex', '[]', '[]', 1)",
    [brandId],
  );
}

const globexMentions = async () => (await app.db.get<{ n: number }>("SELECT count(*) AS n FROM mentions WHERE member_id = 'cmp_g'"))!.n;

test("a large brand is re-analysed on a worker thread; a worker that cannot start leaves the pass to the serving thread, with the same result", async () => {
  const { brandId } = await brandOnFile(3_000);
  await addGlobex(brandId);
  // A worker whose entry fails as it loads.
  const broken = join(scratchDir("spyglass-broken-worker-"), "worker.ts");
  writeFileSync(broken, 'throw new Error("this worker is broken on purpose");\n');
  const fallback = new Reanalysis(app.db, app.tracking.writer, { workerUrl: broken });
  let total = 0;
  const failed = await captureLog(async () => {
    total = await fallback.reanalyzeBrand(brandId);
  });
  expect(total).toBe(3_000);
  expect(failed).toContain("the re-analysis worker did not start: the pass runs on the serving thread");
  expect(failed).toContain('"thread":"serving"');
  expect(await globexMentions()).toBe(1_500);

  // The real worker, after the competitor is renamed so that every answer changes again.
  await app.db.run("UPDATE competitors SET name = 'Acme Globex', aliases = '[\"Globex\"]' WHERE id = 'cmp_g'");
  await app.db.run("DELETE FROM mentions WHERE member_id = 'cmp_g'");
  const worked = await captureLog(async () => {
    total = await app.tracking.reanalyzeBrand(brandId);
  });
  expect(total).toBe(3_000);
  expect(worked).toContain('"thread":"worker"');
  expect(worked).not.toContain("the re-analysis worker");
  expect(await globexMentions()).toBe(1_500);
  // A brand below the threshold stays on the serving thread.
  const small = await addBrand(app, { name: "Tiny", prompts: [{ key: "P", text: "tiny crm" }] });
  const tiny = await captureLog(async () => {
    await app.tracking.storeAnswer(okAnswer(small.brandId, small.prompts.P!, 0, "Tiny wins."), await loadRoster(app.db, small.brandId));
    await app.db.run("UPDATE brands SET aliases = '[\"Tiny CRM\"]' WHERE id = ?", [small.brandId]);
    expect(await app.tracking.reanalyzeBrand(small.brandId)).toBe(1);
  });
  expect(tiny).toContain('"thread":"serving"');
});

test("a worker that fails once it has begun fails the pass, as on the serving thread: nothing is redone there, the next start resumes it", async () => {
  const { brandId } = await brandOnFile(1_500);
  await addGlobex(brandId);
  // A worker that begins, then meets an error of the database.
  const failing = join(scratchDir("spyglass-failing-worker-"), "worker.ts");
  writeFileSync(
    failing,
    'self.onmessage = () => { postMessage({ type: "started" }); postMessage({ type: "failed", message: "disk I/O error" }); };\n',
  );
  const reanalysis = new Reanalysis(app.db, app.tracking.writer, { workerUrl: failing });
  const log = await captureLog(async () => {
    await expect(reanalysis.reanalyzeBrand(brandId)).rejects.toThrow("the re-analysis worker stopped: disk I/O error");
  });
  expect(log).not.toContain("the pass runs on the serving thread");
  expect(await globexMentions()).toBe(0);
  // Left for the next start to resume.
  expect(await app.db.get("SELECT version, analysed FROM roster_versions")).toEqual({ version: 1, analysed: 0 });
});

test("a stop ends a worker's pass where it stands: no lock is left held and nothing writes after it", async () => {
  const { path, brandId } = await brandOnFile(20_000);
  await addGlobex(brandId);
  const pass = app.tracking.reanalyzeBrand(brandId);
  // Under way on the worker: some answers already carry the new competitor.
  for (let tries = 0; tries < 2_000 && (await globexMentions()) === 0; tries++) await Bun.sleep(5);
  expect(await globexMentions()).toBeGreaterThan(0);
  await app.tracking.reanalysis.stop();
  const total = await pass;
  expect(total).toBeLessThan(20_000);
  // Another process's connection that never waits: the write lock is free, and nothing commits any more.
  const other = new Database(path);
  try {
    other.exec("PRAGMA busy_timeout = 0");
    const version = () => (other.query("PRAGMA data_version").get() as { data_version: number }).data_version;
    const before = version();
    const mentions = await globexMentions();
    await Bun.sleep(300);
    expect(version()).toBe(before);
    expect(await globexMentions()).toBe(mentions);
    other.exec("BEGIN IMMEDIATE");
    other.exec("ROLLBACK");
  } finally {
    other.close();
  }
  // The next start goes through the brand's answers again, to the end.
  await app.db.close();
  app = createAppContext(configOf(""), openDatabase(path));
  expect(await app.tracking.reanalysis.resumeUnfinished()).toEqual([brandId]);
  const versions = () => app.db.get<{ version: number; analysed: number }>("SELECT version, analysed FROM roster_versions");
  for (let tries = 0; tries < 3_000 && (await versions())!.analysed === 0; tries++) await Bun.sleep(10);
  expect(await versions()).toEqual({ version: 2, analysed: 2 });
  expect(await globexMentions()).toBe(10_000);
});
