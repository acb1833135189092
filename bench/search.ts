// The cost of the search figures on a brand with a month of web-search answers: get_search_queries,
// the overview's retrieval rate and get_answer, timed in process (median, p95 and max of 20 calls each).
// Not a scenario of `./build.sh bench`; run by hand: bun run bench/search.ts [--answers-per-day N]
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { getAnswer } from "../src/analytics/answers";
import { resolveFilter } from "../src/analytics/filters";
import { retrievalCounts, searchQueries } from "../src/analytics/search";
import { visibilityOverview } from "../src/analytics/visibility";
import { loadConfig } from "../src/config";
import { createAppContext } from "../src/context";
import { openDatabase } from "../src/db/client";
import { newId } from "../src/ids";
import { analyzeForStorage } from "../src/tracking/answer-writer";
import { loadRoster } from "../src/tracking/roster";
import { SearchStore } from "../src/tracking/search-store";
import { sqliteOf } from "../test/support/sqlite";

const { values } = parseArgs({ options: { "answers-per-day": { type: "string", default: "2000" } } });
const perDay = Number(values["answers-per-day"]);
const DAY = 86_400_000;
const dir = mkdtempSync(join(tmpdir(), "spyglass-bench-search-"));
writeFileSync(join(dir, "spyglass.toml"), "");
const app = createAppContext(loadConfig({ flags: { data: dir }, env: {} }), openDatabase(join(dir, "spyglass.db")));
const db = sqliteOf(app.db);
const now = Date.now();
const accountId = newId("acc");
const brandId = newId("brd");
db.query("INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES (?, 'b@example.com', 'x', 'visibility', ?)").run(
  accountId,
  now,
);
db.query(
  "INSERT INTO brands (id, account_id, name, domain, aliases, site_key, created_at, updated_at) VALUES (?, ?, 'Acme', 'acme.com', '[]', ?, ?, ?)",
).run(brandId, accountId, newId("pk"), now, now);
const prompts = Array.from({ length: 100 }, (_, i) => {
  const id = newId("prm");
  db.query("INSERT INTO prompts (id, brand_id, text, text_key, created_at) VALUES (?, ?, ?, ?, ?)").run(
    id,
    brandId,
    `prompt ${i}`,
    `prompt ${i}`,
    now,
  );
  return id;
});
const roster = await loadRoster(app.db, brandId);
const store = new SearchStore();
const engines = ["chatgpt", "claude", "gemini", "perplexity"];
const t0 = performance.now();
let firstId = 0;
for (let day = 0; day < 30; day++) {
  await app.db.transaction(async (tx) => {
    for (let i = 0; i < perDay; i++) {
      const promptId = prompts[i % prompts.length]!;
      const engine = engines[i % engines.length]!;
      const createdAt = now - day * DAY - i;
      const text = i % 3 === 0 ? "Acme is a good pick." : "Globex wins.";
      const id = await app.tracking.writer.write(
        tx,
        {
          brandId,
          runId: null,
          promptId,
          engine,
          model: "m",
          sample: day * perDay + i,
          status: "ok",
          text,
          providerCitations: [`https://site${i % 50}.example/page`],
          error: null,
          latencyMs: 1,
          tokensIn: 100,
          tokensOut: 300,
          createdAt,
        },
        analyzeForStorage("ok", text, [`https://site${i % 50}.example/page`], roster),
        roster,
      );
      firstId ||= id;
      await store.write(
        tx,
        id,
        { brandId, engine, promptId, createdAt },
        {
          queries: [`query ${i % 300}`, `query ${(i * 7) % 300}`, `${promptId} details`],
          cited: [{ url: `https://site${i % 50}.example/page`, title: "Page", start: 0, end: 5 }],
          retrieved: Array.from({ length: 5 }, (_, k) => ({
            url: k === 0 && i % 4 === 0 ? "https://acme.com/p" : `https://r${(i + k) % 200}.example/x`,
            title: null,
            start: null,
            end: null,
          })),
        },
      );
    }
  });
}
const seeded = performance.now() - t0;

async function time(label: string, fn: () => Promise<unknown>): Promise<void> {
  const samples: number[] = [];
  for (let i = 0; i < 20; i++) {
    const s = performance.now();
    await fn();
    samples.push(performance.now() - s);
  }
  samples.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(44)} median ${samples[10]!.toFixed(1)} ms, p95 ${samples[18]!.toFixed(1)} ms, max ${samples[19]!.toFixed(1)} ms`,
  );
}

const answers = 30 * perDay;
console.log(`${answers} answers (${answers * 3} queries, ${answers * 6} sources) seeded in ${(seeded / 1000).toFixed(1)} s`);
const filter = await resolveFilter(app, brandId, {});
await time("get_search_queries (30 days, first 20)", () => searchQueries(app, filter, { limit: 20, offset: 0 }));
await time("get_search_queries engine=gemini", async () =>
  searchQueries(app, await resolveFilter(app, brandId, { engine: "gemini" }), { limit: 20, offset: 0 }),
);
await time("get_search_queries prompt_id (one prompt)", async () =>
  searchQueries(app, await resolveFilter(app, brandId, { prompt_id: prompts[7]! }), { limit: 20, offset: 0 }),
);
await time("get_visibility_overview (with retrieval rate)", () => visibilityOverview(app, filter));
await time("  of which the retrieval rate", () => retrievalCounts(app, filter));
await time("get_answer (with queries and sources)", () => getAnswer(app, brandId, String(firstId)));
await app.db.close();
