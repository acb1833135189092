// get_search_queries reads the daily rollup search_query_days, the retrieval rate answer_source_days.
// Over random answers (random queries in random spellings, repeated within an answer; random cited and
// retrieved sources on the brand's hosts and others; over days, engines, prompts and tags), their
// results under every kind of filter must equal the same figures computed from scratch from the
// search_queries and answer_sources rows; the rollups must equal a rebuild from those rows after
// writes, after a prompt's deletion and after the migration that adds them to an existing database.
// And a query is shown in its most used spelling.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { DAY_MS, type Filter, type FilterInput, resolveFilter } from "../../src/analytics/filters";
import { retrievalCounts, type SearchQueryItem, searchQueries } from "../../src/analytics/search";
import { type AppContext, createAppContext } from "../../src/context";
import { openDatabase } from "../../src/db/client";
import { type Queries } from "../../src/db/queries";
import { analyzeForStorage } from "../../src/tracking/answer-writer";
import { loadRoster } from "../../src/tracking/roster";
import { SearchStore } from "../../src/tracking/search-store";
import { downgradeTo } from "../support/migrations";
import { scratchDir } from "../support/scratch";
import { addBrand, memoryApp, openApp, type SeededBrand } from "./dataset";

const START = Date.parse("2025-03-01T00:00:00Z");
const NOW = START + 20 * DAY_MS;

/** A small seeded generator (mulberry32), so that a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const BASES = ["best crm", "crm pricing 2025", "acme vs globex", "cheap crm tools", "crm for startups", "zeta review", "top sales apps"];

function spelling(base: string, rand: () => number): string {
  const r = rand();
  if (r < 0.5) return base;
  if (r < 0.7) return base.toUpperCase();
  if (r < 0.85) return base.replace(/(^| )(\w)/g, (_, s: string, c: string) => s + c.toUpperCase());
  return ` ${base.replace(/ /g, "  ")} `;
}

const SOURCE_URLS = [
  "https://acme.com/pricing",
  "https://www.acme.com/",
  "https://shop.acme.com/cart",
  "https://blog.acme.com/post",
  "https://globex.com/x",
  "https://review.io/a",
  "https://vertexaisearch.cloud.google.com/grounding-api-redirect/abc",
];

function sources(rand: () => number) {
  return Array.from({ length: Math.floor(rand() * 4) }, () => ({
    url: SOURCE_URLS[Math.floor(rand() * SOURCE_URLS.length)]!,
    title: null,
    start: null,
    end: null,
  }));
}

function brand(app: AppContext): Promise<SeededBrand> {
  return addBrand(app, {
    name: "Acme",
    domain: "acme.com",
    tags: ["sales", "price"],
    prompts: [
      { key: "a", text: "best crm", tags: ["sales"] },
      { key: "b", text: "crm pricing", tags: ["price", "sales"] },
      { key: "c", text: "crm for startups" },
      { key: "d", text: "cheap crm", tags: ["price"] },
      { key: "e", text: "old prompt", archived: true },
      // More prompts than a query lists (five): the most used are shown.
      { key: "f", text: "crm with email" },
      { key: "g", text: "crm for agencies", tags: ["sales"] },
      { key: "h", text: "crm migration" },
    ],
  });
}

/** Writes `n` random valid answers with their queries, each in one transaction as a tracking run does. */
async function writeRandomAnswers(app: AppContext, s: SeededBrand, seed: number, n: number): Promise<void> {
  const rand = random(seed);
  const roster = await loadRoster(app.db, s.brandId);
  const store = new SearchStore();
  const prompts = Object.values(s.prompts);
  const engines = ["chatgpt", "gemini", "claude"];
  for (let i = 0; i < n; i++) {
    const promptId = prompts[Math.floor(rand() * prompts.length)]!;
    const engine = engines[Math.floor(rand() * engines.length)]!;
    // 14 days, any time of day (the day edges included).
    const createdAt = START + Math.floor(rand() * 14) * DAY_MS + (rand() < 0.1 ? 0 : Math.floor(rand() * DAY_MS));
    const queries = Array.from({ length: Math.floor(rand() * 5) }, () => spelling(BASES[Math.floor(rand() * BASES.length)]!, rand));
    await app.db.transaction(async (tx) => {
      const id = await app.tracking.writer.write(
        tx,
        {
          brandId: s.brandId,
          runId: null,
          promptId,
          engine,
          model: "m",
          sample: i,
          status: "ok",
          text: "Acme.",
          providerCitations: [],
          error: null,
          latencyMs: 1,
          tokensIn: 1,
          tokensOut: 1,
          createdAt,
        },
        analyzeForStorage("ok", "Acme.", [], roster),
        roster,
      );
      await store.write(
        tx,
        id,
        { brandId: s.brandId, engine, promptId, createdAt },
        { queries, cited: sources(rand), retrieved: sources(rand) },
      );
    });
  }
}

/** Answers whose sources are on the brand's domain (its host or a subdomain), per engine, current and previous period, from the rows. */
async function retrievalFromScratch(app: AppContext, filter: Filter) {
  const domain = (await app.db.get<{ domain: string | null }>("SELECT domain FROM brands WHERE id = ?", [filter.brandId]))!.domain;
  const scope = filter.scope === null ? null : new Set(JSON.parse(filter.scope) as string[]);
  const sets = new Map<string, [Set<number>, Set<number>]>();
  for (const r of await app.db.all<{ answer_id: number; host: string | null; engine: string; prompt_id: string; created_at: number }>(
    "SELECT answer_id, host, engine, prompt_id, created_at FROM answer_sources WHERE brand_id = ?",
    [filter.brandId],
  )) {
    if (domain === null || r.host === null || !(r.host === domain || r.host.endsWith(`.${domain}`))) continue;
    if (r.created_at < filter.previous.start || r.created_at >= filter.period.end) continue;
    if ((filter.engine !== null && r.engine !== filter.engine) || (scope !== null && !scope.has(r.prompt_id))) continue;
    const pair = sets.get(r.engine) ?? [new Set<number>(), new Set<number>()];
    pair[r.created_at >= filter.period.start ? 0 : 1].add(r.answer_id);
    sets.set(r.engine, pair);
  }
  const byEngine = new Map<string, [number, number]>([...sets].map(([engine, [cur, prev]]) => [engine, [cur.size, prev.size]]));
  const overall = [...byEngine.values()].reduce<[number, number]>((a, b) => [a[0] + b[0], a[1] + b[1]], [0, 0]);
  return { overall, byEngine };
}

/** The list get_search_queries must return, computed from the search_queries rows alone. */
async function fromScratch(app: AppContext, filter: Filter): Promise<SearchQueryItem[]> {
  const scope = filter.scope === null ? null : new Set(JSON.parse(filter.scope) as string[]);
  const rows = (
    await app.db.all<{ answer_id: number; query: string; query_key: string; engine: string; prompt_id: string; created_at: number }>(
      "SELECT answer_id, query, query_key, engine, prompt_id, created_at FROM search_queries WHERE brand_id = ?",
      [filter.brandId],
    )
  ).filter(
    (r) =>
      r.created_at >= filter.period.start &&
      r.created_at < filter.period.end &&
      (filter.engine === null || r.engine === filter.engine) &&
      (scope === null || scope.has(r.prompt_id)),
  );
  const groups = new Map<string, typeof rows>();
  for (const r of rows) groups.set(r.query_key, [...(groups.get(r.query_key) ?? []), r]);
  const texts = new Map(
    (await app.db.all<{ id: string; text: string }>("SELECT id, text FROM prompts WHERE brand_id = ?", [filter.brandId])).map((p) => [
      p.id,
      p.text,
    ]),
  );
  const counts = (values: string[]) => {
    const m = new Map<string, number>();
    for (const v of values) m.set(v, (m.get(v) ?? 0) + 1);
    // Most first; ties in code-point order.
    return [...m].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).map(([v]) => v);
  };
  const items = [...groups].map(([key, g]) => ({
    id: key,
    query: counts(g.map((r) => r.query))[0]!,
    answers: new Set(g.map((r) => r.answer_id)).size,
    prompt_count: new Set(g.map((r) => r.prompt_id)).size,
    engines: [...new Set(g.map((r) => r.engine))].sort(),
    prompts: counts(g.map((r) => r.prompt_id))
      .slice(0, 5)
      .map((id) => ({ id, text: texts.get(id)! })),
  }));
  return items.sort((x, y) => y.prompt_count - x.prompt_count || y.answers - x.answers || (x.id < y.id ? -1 : 1));
}

async function rollupRows(db: Queries, brandId: string) {
  return {
    queries: await db.all(
      "SELECT query_key, day, engine, prompt_id, query, uses, answers FROM search_query_days WHERE brand_id = ? ORDER BY 1, 2, 3, 4, 5",
      [brandId],
    ),
    sources: await db.all(
      "SELECT domain, day, engine, prompt_id, hosts, answers FROM answer_source_days WHERE brand_id = ? ORDER BY 1, 2, 3, 4, 5",
      [brandId],
    ),
    // Kept by triggers on answer_source_days: its sum over prompts, through every write, rebuild and cascade.
    sourceEngines: await db.all(
      "SELECT domain, day, engine, hosts, answers FROM answer_source_engine_days WHERE brand_id = ? ORDER BY 1, 2, 3, 4",
      [brandId],
    ),
  };
}

/** Thrown to roll the scratch transaction of rebuiltRows back. */
class Rollback {
  constructor(readonly rows: Awaited<ReturnType<typeof rollupRows>>) {}
}

/** The rollups as search_queries and answer_sources say they must be: rebuilt from those rows in a scratch transaction, then rolled back. */
async function rebuiltRows(app: AppContext, brandId: string) {
  try {
    await app.db.transaction(async (tx) => {
      await new SearchStore().rebuildDays(tx, brandId, 0, 1_000_000);
      throw new Rollback({
        ...(await rollupRows(tx, brandId)),
        // By its definition, not through the triggers: answer_source_days summed over prompts.
        sourceEngines: await tx.all(
          `SELECT domain, day, engine, hosts, sum(answers) AS answers FROM answer_source_days WHERE brand_id = ?
           GROUP BY domain, day, engine, hosts ORDER BY 1, 2, 3, 4`,
          [brandId],
        ),
      });
    });
  } catch (e) {
    if (e instanceof Rollback) return e.rows;
    throw e;
  }
  throw new Error("the scratch transaction was not rolled back");
}

function filters(s: SeededBrand): FilterInput[] {
  return [
    { start_date: "2025-03-01", end_date: "2025-03-14" },
    { start_date: "2025-03-03", end_date: "2025-03-09" },
    { start_date: "2025-03-05", end_date: "2025-03-05" },
    { start_date: "2025-03-01", end_date: "2025-03-14", engine: "gemini" },
    { start_date: "2025-03-02", end_date: "2025-03-12", tag: "sales" },
    { start_date: "2025-03-01", end_date: "2025-03-14", tag: "price", engine: "chatgpt" },
    { start_date: "2025-03-04", end_date: "2025-03-13", prompt_id: s.prompts.b! },
    { start_date: "2025-03-01", end_date: "2025-03-14", prompt_id: s.prompts.e!, engine: "claude" },
    { start_date: "2025-03-01", end_date: "2025-03-14", tag: "price", prompt_id: s.prompts.c! },
    {},
  ];
}

// A test per seed: each is a few thousand queries, and on a loaded CI machine the three in one test
// came near the per-test limit (45 s of 60 on PostgreSQL).
for (const seed of [1, 2, 3]) {
  test(`over random answers (seed ${seed}), every filter's queries (page by page) and retrieval counts equal those computed from the rows`, async () => {
    const app = await openApp();
    const s = await brand(app);
    await writeRandomAnswers(app, s, seed, 400);
    expect(await rollupRows(app.db, s.brandId)).toEqual(await rebuiltRows(app, s.brandId));
    for (const input of filters(s)) {
      const filter = await resolveFilter(app, s.brandId, input, NOW);
      const expected = await fromScratch(app, filter);
      const all = await searchQueries(app, filter, { limit: 100, offset: 0 });
      expect({ input, queries: all.queries }).toEqual({ input, queries: expected });
      expect(all.more).toBe(false);
      // Pages of 3 put together give the same list, and say when more follow.
      const pages: SearchQueryItem[] = [];
      for (let offset = 0; ; offset += 3) {
        const page = await searchQueries(app, filter, { limit: 3, offset });
        pages.push(...page.queries);
        expect(page.more).toBe(offset + 3 < expected.length);
        if (!page.more) break;
      }
      expect(pages).toEqual(expected);
      // The retrieval rate's numerators, for the brand's domain and for a subdomain of it.
      for (const domain of ["acme.com", "shop.acme.com"]) {
        await app.db.run("UPDATE brands SET domain = ? WHERE id = ?", [domain, s.brandId]);
        expect({ input, domain, counts: await retrievalCounts(app, filter) }).toEqual({
          input,
          domain,
          counts: await retrievalFromScratch(app, filter),
        });
      }
    }
    // The data set is not trivial: some queries recur across prompts, in several spellings.
    const wide = (await searchQueries(app, await resolveFilter(app, s.brandId, filters(s)[0]!, NOW), { limit: 100, offset: 0 })).queries;
    expect(wide.some((q) => q.prompt_count > 1)).toBe(true);
    expect(wide.some((q) => q.prompt_count > 5 && q.prompts.length === 5)).toBe(true);
    const spellings = (await app.db.get<{ n: number }>("SELECT count(DISTINCT query) AS n FROM search_queries"))!.n;
    expect(spellings).toBeGreaterThan(wide.length);
    // acme.com's count includes the answers on blog.acme.com, shop.acme.com's does not.
    const counts = async (domain: string) => {
      await app.db.run("UPDATE brands SET domain = ? WHERE id = ?", [domain, s.brandId]);
      return (await retrievalCounts(app, await resolveFilter(app, s.brandId, filters(s)[0]!, NOW))).overall[0];
    };
    expect(await counts("acme.com")).toBeGreaterThan(await counts("shop.acme.com"));
    expect(await counts("shop.acme.com")).toBeGreaterThan(0);
    await app.db.close();
  });
}

test("a query is shown in its most used spelling within the filter; a tie goes to the first in code-point order", async () => {
  const app = await openApp();
  const s = await brand(app);
  const store = new SearchStore();
  const roster = await loadRoster(app.db, s.brandId);
  let sample = 0;
  const write = (engine: string, queries: string[]) =>
    app.db.transaction(async (tx) => {
      const createdAt = START + DAY_MS;
      const id = await app.tracking.writer.write(
        tx,
        {
          brandId: s.brandId,
          runId: null,
          promptId: s.prompts.a!,
          engine,
          model: "m",
          sample: sample++,
          status: "ok",
          text: "x",
          providerCitations: [],
          error: null,
          latencyMs: 1,
          tokensIn: 1,
          tokensOut: 1,
          createdAt,
        },
        analyzeForStorage("ok", "x", [], roster),
        roster,
      );
      await store.write(tx, id, { brandId: s.brandId, engine, promptId: s.prompts.a!, createdAt }, { queries, cited: [], retrieved: [] });
    });
  // "best crm" three times, "Best CRM" twice (min() would have shown "Best CRM"); "CRM Tools" and "crm tools" once each.
  await write("chatgpt", ["best crm", "CRM Tools"]);
  await write("chatgpt", ["best crm"]);
  await write("gemini", ["Best CRM", "crm tools"]);
  // One answer that ran two spellings of a query counts once, and both its spellings count.
  await write("gemini", ["Best CRM", "best crm"]);
  const shown = async (input: FilterInput) =>
    (
      await searchQueries(app, await resolveFilter(app, s.brandId, { start_date: "2025-03-01", end_date: "2025-03-03", ...input }, NOW), {
        limit: 10,
        offset: 0,
      })
    ).queries.map((q) => [q.query, q.answers]);
  expect(await shown({})).toEqual([
    ["best crm", 4],
    ["CRM Tools", 2],
  ]);
  expect(await shown({ engine: "gemini" })).toEqual([
    ["Best CRM", 2],
    ["crm tools", 1],
  ]);
  await app.db.close();
});

test("deleting a prompt (its answers go with it) leaves the rollups equal to the rows", async () => {
  const app = await openApp();
  const s = await brand(app);
  await writeRandomAnswers(app, s, 7, 200);
  await app.db.run("DELETE FROM prompts WHERE id = ?", [s.prompts.b!]);
  for (const table of ["search_query_days", "answer_source_days"])
    expect(await app.db.get(`SELECT count(*) AS n FROM ${table} WHERE prompt_id = ?`, [s.prompts.b!])).toEqual({ n: 0 });
  expect(await rollupRows(app.db, s.brandId)).toEqual(await rebuiltRows(app, s.brandId));
  const filter = await resolveFilter(app, s.brandId, filters(s)[0]!, NOW);
  expect((await searchQueries(app, filter, { limit: 100, offset: 0 })).queries).toEqual(await fromScratch(app, filter));
  expect(await retrievalCounts(app, filter)).toEqual(await retrievalFromScratch(app, filter));
  await app.db.close();
});

// SQLite only by nature (a file made by an older release and its migrations); PostgreSQL starts from one baseline.
test("upgrading a database made before the rollups fills them from the stored queries and sources", async () => {
  const path = join(scratchDir("spyglass-sqd-"), "spyglass.db");
  const db = openDatabase(path);
  const app = createAppContext(memoryApp().config, db);
  const s = await brand(app);
  await writeRandomAnswers(app, s, 11, 300);
  const expected = await rollupRows(app.db, s.brandId);
  expect(expected.queries.length).toBeGreaterThan(0);
  expect(expected.sources.length).toBeGreaterThan(0);
  // The database as the release before the rollups left it.
  downgradeTo(db.sqlite, "0004_prompt_rollups");
  db.close();
  const upgraded = openDatabase(path);
  try {
    const upgradedApp = createAppContext(app.config, upgraded);
    expect(await rollupRows(upgradedApp.db, s.brandId)).toEqual(expected);
    const filter = await resolveFilter(upgradedApp, s.brandId, filters(s)[4]!, NOW);
    expect((await searchQueries(upgradedApp, filter, { limit: 100, offset: 0 })).queries).toEqual(await fromScratch(upgradedApp, filter));
    expect(await retrievalCounts(upgradedApp, filter)).toEqual(await retrievalFromScratch(upgradedApp, filter));
  } finally {
    upgraded.close();
  }
});
