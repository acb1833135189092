// Deleting a brand: everything of it goes (every table keyed by brand), nothing of another brand,
// its API key and site key stop at once, another account cannot, and a run under way refuses it.
import { type Database } from "bun:sqlite";
import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findAccountByEmail } from "../../src/accounts/service";
import { deleteBrand } from "../../src/brands/delete";
import { brandTables, deleteBrandRows } from "../../src/db/brand-rows";
import { createApiKey } from "../../src/keys/service";
import { writeAnswers } from "../support/answers";
import { seedRecords } from "../support/fixtures";
import { type TestApp, testApp } from "../support/http";

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

/** Rows of the brand in every table keyed by brand, and its own row. */
async function rowsOf(brandId: string): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of brandTables()) {
    const { n } = (await t.db.get<{ n: number }>(`SELECT count(*) AS n FROM "${table.name}" WHERE brand_id = ?`, [brandId]))!;
    if (n > 0) counts[table.name] = Number(n);
  }
  const brand = await t.db.get<{ n: number }>("SELECT count(*) AS n FROM brands WHERE id = ?", [brandId]);
  counts.brands = Number(brand!.n);
  return counts;
}

async function setUp() {
  t = await testApp();
  const cookie = await t.signIn("owner@example.com", { plan: "autopilot" });
  const accountId = (await findAccountByEmail(t.db, "owner@example.com"))!.id;
  const brand = async (name: string, word: string) => {
    const created = (await t.call("POST", "/api/brands", { cookie, body: { name, domain: `${word.toLowerCase()}.com` } })).json.brand;
    const ids = await seedRecords(t.db, created.id, word);
    const key = (await createApiKey(t.db, accountId, { name: `${word} key`, brandId: created.id })).plaintext;
    // A few hundred answers with their mentions, citations and daily sums: more than one slice.
    const days = Array.from({ length: 300 }, (_, i) => ({
      promptId: ids.promptId,
      engine: i % 2 ? "chatgpt" : "claude",
      daysAgo: i % 20,
      text: `${name} is the pick; ${word} Rival is an alternative.`,
      citations: [`https://${word.toLowerCase()}.com/pricing`, "https://www.g2.com/crm"],
    }));
    await writeAnswers(t.db, created.id, days);
    return { id: created.id as string, siteKey: created.site_key as string, key, ids };
  };
  return { cookie, accountId, acme: await brand("Acme", "Acme"), beta: await brand("Beta", "Beta") };
}

const listTools = (key: string) =>
  t.call("POST", "/api/mcp/mcp", {
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_brand", arguments: {} } },
    headers: { authorization: `Bearer ${key}`, accept: "application/json, text/event-stream" },
  });

test("deleting a brand deletes every row of it, in slices, and nothing of another brand; its keys stop at once", async () => {
  const { cookie, acme, beta } = await setUp();
  const before = await rowsOf(acme.id);
  expect(before).toMatchObject({ brands: 1, answers: 301, prompts: 2, articles: 1, api_keys: 1, competitors: 1, tags: 1 });
  expect(before.mentions).toBeGreaterThan(300);
  expect(before.answer_days).toBeGreaterThan(0);
  const betaBefore = await rowsOf(beta.id);
  expect((await listTools(acme.key)).status).toBe(200);
  expect((await t.call("GET", `/api/public/articles?key=${acme.siteKey}`)).json.articles).toHaveLength(1);

  const res = await t.call("DELETE", `/api/brands/${acme.id}`, { cookie });
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ deleted: { id: acme.id, name: "Acme" } });

  expect(await rowsOf(acme.id)).toEqual({ brands: 0 });
  expect(await rowsOf(beta.id)).toEqual(betaBefore);
  // Its key, its site key and its articles are gone; the other brand's work.
  expect((await listTools(acme.key)).status).toBe(401);
  expect((await t.call("GET", `/api/public/articles?key=${acme.siteKey}`)).json).toEqual({ articles: [] });
  expect((await t.call("GET", `/api/public/articles/${acme.ids.articleSlug}?key=${acme.siteKey}`)).status).toBe(404);
  expect((await listTools(beta.key)).status).toBe(200);
  expect((await t.call("GET", `/api/public/articles?key=${beta.siteKey}`)).json.articles).toHaveLength(1);
  expect((await t.call("GET", "/api/brands", { cookie })).json.brands.map((b: { name: string }) => b.name)).toEqual(["Beta"]);
  // Once gone, it is not found.
  expect((await t.call("DELETE", `/api/brands/${acme.id}`, { cookie })).status).toBe(404);
});

test("two deletions of one brand at once end together, once; another account's meanwhile is 404", async () => {
  const { cookie, acme } = await setUp();
  const stranger = await t.signIn("stranger@example.com", { plan: "autopilot" });
  // The first deletion is held where it waits for a re-analysis of the brand, until the other two
  // requests have been answered or have reached the deletion: three requests sent "at once" could
  // otherwise arrive one after the other's end on a loaded machine (CI on PostgreSQL once saw the
  // second one 404, the brand gone before its turn).
  const reanalysis = t.ctx.tracking.reanalysis;
  const settled = reanalysis.settled.bind(reanalysis);
  let entered!: () => void;
  const inside = new Promise<void>((resolve) => (entered = resolve));
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  reanalysis.settled = async (brandId: string) => {
    entered();
    await held;
    return settled(brandId);
  };
  let first: ReturnType<typeof t.call>;
  let second: Awaited<ReturnType<typeof t.call>>;
  let foreign: Awaited<ReturnType<typeof t.call>>;
  try {
    first = t.call("DELETE", `/api/brands/${acme.id}`, { cookie });
    await inside;
    const secondCall = t.call("DELETE", `/api/brands/${acme.id}`, { cookie });
    foreign = await t.call("DELETE", `/api/brands/${acme.id}`, { cookie: stranger });
    // The second is waiting for the first: it has not been answered while the first is held.
    expect(await Promise.race([secondCall.then(() => "answered"), Bun.sleep(300).then(() => "waiting")])).toBe("waiting");
    release();
    second = await secondCall;
  } finally {
    release();
    reanalysis.settled = settled;
  }
  const firstDone = await first;
  expect([firstDone.status, second.status, foreign.status]).toEqual([200, 200, 404]);
  expect(second.json).toEqual(firstDone.json);
  expect(await rowsOf(acme.id)).toEqual({ brands: 0 });
});

test("the rows go in slices, credentials first, children before their parents", async () => {
  const { beta } = await setUp();
  const slices: Array<[string, number]> = [];
  await deleteBrandRows(t.db, beta.id, { onSlice: (table, rows) => slices.push([table, rows]) });
  const tables = slices.map(([table]) => table);
  expect(tables[0]).toBe("api_keys");
  expect(tables.lastIndexOf("mentions")).toBeLessThan(tables.indexOf("answers"));
  expect(tables.lastIndexOf("answers")).toBeLessThan(tables.indexOf("prompts"));
  // 301 answers: more than the first slice's 200 rows.
  expect(slices.filter(([table, rows]) => table === "answers" && rows > 0).length).toBeGreaterThan(1);
  expect(await rowsOf(beta.id)).toEqual({ brands: 0 });
});

test("another account's brand is 404 and stays whole; a brand with a run under way is refused, 409, and stays whole", async () => {
  const { cookie, accountId, acme } = await setUp();
  const before = await rowsOf(acme.id);
  const stranger = await t.signIn("stranger@example.com", { plan: "autopilot" });
  const refused = await t.call("DELETE", `/api/brands/${acme.id}`, { cookie: stranger });
  expect(refused.status).toBe(404);
  expect(refused.json.code).toBe("brand_not_found");
  expect(await rowsOf(acme.id)).toEqual(before);

  await t.db.run(
    "INSERT INTO tracking_runs (id, brand_id, status, trigger, answers_planned, started_at) VALUES ('run_x', ?, 'running', 'cli', 10, ?)",
    [acme.id, Date.now()],
  );
  const busy = await t.call("DELETE", `/api/brands/${acme.id}`, { cookie });
  expect(busy.status).toBe(409);
  expect(busy.json).toEqual({
    error: "A tracking run of Acme is under way: delete the brand once it has ended (the Tracking page shows its progress).",
    code: "tracking_running",
  });
  expect((await rowsOf(acme.id)).answers).toBe(before.answers);
  // Once the run has ended, it goes.
  await t.db.run("UPDATE tracking_runs SET status = 'completed' WHERE id = 'run_x'");
  await expect(deleteBrand(t.ctx, accountId, acme.id)).resolves.toEqual({ id: acme.id, name: "Acme" });
});

test("a deleted brand's words leave the SQLite file, not only its rows (nothing readable in freed space)", async () => {
  const path = join(mkdtempSync(join(tmpdir(), "spyglass-delete-")), "spyglass.db");
  t = await testApp({ dbPath: path });
  const cookie = await t.signIn("owner@example.com", { plan: "autopilot" });
  const created = (await t.call("POST", "/api/brands", { cookie, body: { name: "Zyxwvut", domain: "zyxwvut.com" } })).json.brand;
  const ids = await seedRecords(t.db, created.id, "Zyxwvut");
  await writeAnswers(
    t.db,
    created.id,
    Array.from({ length: 40 }, (_, i) => ({
      promptId: ids.promptId,
      engine: "chatgpt",
      daysAgo: i % 5,
      text: `Quorblat confidential plan ${i}: Zyxwvut is the pick.`,
      citations: [],
    })),
  );
  const sqlite = (t.db as unknown as { sqlite: Database }).sqlite;
  const fileHolds = (word: string) => {
    sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return readFileSync(path).includes(Buffer.from(word));
  };
  expect(fileHolds("Quorblat confidential")).toBe(true);
  expect((await t.call("DELETE", `/api/brands/${created.id}`, { cookie })).status).toBe(200);
  expect(fileHolds("Quorblat confidential")).toBe(false);
  expect(fileHolds("Zyxwvut")).toBe(false);
});
