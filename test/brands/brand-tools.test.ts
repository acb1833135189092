// get_brand's tracking set-up as a client reads it, through the MCP door in process.
import { afterEach, expect, test } from "bun:test";
import { createBrand } from "../../src/brands/service";
import { createApiKey } from "../../src/keys/service";
import { call } from "../support/mcp";
import { type SeededToolServer, seededToolServer } from "../support/tool-server";

let s: SeededToolServer | null = null;
afterEach(async () => {
  await s?.close();
  s = null;
});

test("get_brand says that scheduled tracking asks nothing while no engine is configured, though the schedule is on", async () => {
  s = await seededToolServer();
  expect(s.t.config.tracking.enabled).toBe(true);
  expect(s.t.config.engines).toEqual([]);
  const { data, error } = await call(await s.client(s.seed.a.key), "get_brand");
  expect(error).toBeNull();
  // The seeded answers' engine is listed, but not configured: no run asks it.
  expect(data.engines.map((e: { id: string; configured: boolean }) => [e.id, e.configured])).toEqual([["fake", false]]);
  expect(data.tracking).toEqual({ schedule: "0 6 * * *", timezone: "UTC", samples: 1, enabled: false });
});

test("get_brand gives today's date and the days of the first and last stored answer; an empty period's overview says why it is empty", async () => {
  s = await seededToolServer();
  const client = await s.client(s.seed.a.key);
  const { data } = await call(client, "get_brand");
  const stored = (await s.t.db.get<{ first: number; last: number; n: number }>(
    "SELECT min(created_at) AS first, max(created_at) AS last, count(*) AS n FROM answers WHERE brand_id = ?",
    [s.seed.a.brandId],
  ))!;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  expect(stored.n).toBeGreaterThan(0);
  expect(data.answers).toEqual({ today: day(Date.now()), first_day: day(stored.first), last_day: day(stored.last), total: stored.n });

  // A period without answers (a wrong year): the figures are nulls, and the note says where the answers are.
  const empty = await call(client, "get_visibility_overview", { start_date: "2020-01-01", end_date: "2020-01-31" });
  expect(empty.data.answers.total).toBe(0);
  expect(empty.data.note).toBe(
    `No answer in 2020-01-01..2020-01-31. The brand's stored answers span ${day(stored.first)}..${day(stored.last)} (today is ${day(Date.now())}, UTC).`,
  );
  // A period with answers has no note.
  const full = await call(client, "get_visibility_overview", { start_date: day(stored.first), end_date: day(stored.last) });
  expect(full.data.answers.total).toBeGreaterThan(0);
  expect(full.data.note).toBeNull();
  // Every analytics tool says it of an empty period: an empty list of gaps or sources read as "none"
  // (the AI-client walk); and none says it of the period with answers.
  const wrongYear = { start_date: "2020-01-01", end_date: "2020-01-31" };
  const withAnswers = { start_date: day(stored.first), end_date: day(stored.last) };
  for (const name of [
    "get_visibility_trend",
    "get_competitor_ranking",
    "get_prompt_performance",
    "get_content_gaps",
    "get_top_sources",
    "get_search_queries",
  ]) {
    const said = await call(client, name, wrongYear);
    expect([name, said.data.note]).toEqual([name, empty.data.note]);
    expect([name, (await call(client, name, withAnswers)).data.note]).toEqual([name, null]);
  }
  // A tag whose prompts have no answer in the period: said for that tag.
  await call(client, "create_prompts", { prompts: [{ text: "a prompt never asked yet", tags: ["Unasked"] }] });
  const unasked = (await call(client, "get_content_gaps", { tag: "unasked" })).data;
  expect(unasked.total_gaps).toBe(0);
  expect(unasked.note).toStartWith(`No answer in ${unasked.filter.start_date}..${unasked.filter.end_date} for tag Unasked. `);

  // A brand without any stored answer is told so, and where answers come from.
  const fresh = await createBrand(s.t.db, s.seed.a.accountId, { name: "Fresh Brand" });
  const freshKey = (await createApiKey(s.t.db, s.seed.a.accountId, { name: "fresh", brandId: fresh.id })).plaintext;
  const freshClient = await s.client(freshKey);
  expect((await call(freshClient, "get_visibility_overview", {})).data.note).toStartWith(
    `No answer is stored for this brand yet (today is ${day(Date.now())}, UTC)`,
  );
  expect((await call(freshClient, "get_brand")).data.answers).toEqual({
    today: day(Date.now()),
    first_day: null,
    last_day: null,
    total: 0,
  });
});
