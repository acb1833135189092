// A next_cursor goes back to the call that gave it: through the tool catalogue, as every door calls
// it. Passed to another tool, or with other filters (an offset into another list), it was accepted
// and silently skipped or repeated rows.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { fortnightOfAnswers, writeAnswers } from "../support/answers";
import { call } from "../support/mcp";
import { type SeededToolServer, seededToolServer } from "../support/tool-server";

let s: SeededToolServer;
beforeAll(async () => {
  s = await seededToolServer();
});
afterAll(() => s.close());

const OTHER_LIST =
  /^cursor: this next_cursor is of another list \(another tool, or other filters or order, or a period that has moved on: the default one ends today\); call (\w+) with the arguments that gave it, or without a cursor for the first page\.$/;

test("a keyset cursor pages its own list, whatever the limit, and is refused by another tool or another filter", async () => {
  const client = await s.client(s.seed.a.key);
  await call(client, "create_prompts", { prompts: [{ text: "second prompt to page" }, { text: "third prompt to page" }] });
  const all = (await call(client, "list_prompts", { limit: 50 })).data.prompts.map((p: { id: string }) => p.id);
  expect(all).toHaveLength(3);
  const first = (await call(client, "list_prompts", { limit: 1 })).data;
  const rest = (await call(client, "list_prompts", { limit: 5, cursor: first.next_cursor })).data;
  expect([first.prompts[0].id, ...rest.prompts.map((p: { id: string }) => p.id)]).toEqual(all);
  expect(rest.next_cursor).toBeNull();
  // The same shape of cursor (a date and an id) fitted list_competitors, and listed from there.
  expect((await call(client, "list_competitors", { cursor: first.next_cursor })).error).toMatch(OTHER_LIST);
  expect((await call(client, "list_prompts", { include_archived: true, cursor: first.next_cursor })).error).toMatch(OTHER_LIST);
  expect((await call(client, "list_prompts", { cursor: "garbage" })).error).toBe(
    "cursor: pass back the next_cursor of a previous result unchanged.",
  );
});

test("an offset cursor is refused with another grouping, another filter or by another tool", async () => {
  const client = await s.client(s.seed.a.key);
  await writeAnswers(s.t.db, s.seed.a.brandId, fortnightOfAnswers(s.seed.a.ids.promptId, s.seed.a.brandName, "Acme Rival"));
  const first = (await call(client, "get_top_sources", { limit: 1 })).data;
  expect(first.sources).toHaveLength(1);
  const next = (await call(client, "get_top_sources", { limit: 1, cursor: first.next_cursor })).data;
  expect(next.sources[0].domain).not.toBe(first.sources[0].domain);
  // The offset of a list by domain, taken into the list by URL or of one engine, skipped rows unsaid.
  for (const other of [{ level: "url" }, { engine: "chatgpt" }]) {
    expect((await call(client, "get_top_sources", { ...other, limit: 1, cursor: first.next_cursor })).error).toMatch(OTHER_LIST);
  }
  expect((await call(client, "get_content_gaps", { cursor: first.next_cursor })).error).toMatch(OTHER_LIST);
  // What changes no row's place may change from page to page: the page size, and include_text.
  const answers = (await call(client, "list_answers", { engine: "chatgpt", limit: 2 })).data;
  const more = await call(client, "list_answers", { engine: "chatgpt", include_text: true, limit: 3, cursor: answers.next_cursor });
  expect(more.error).toBeNull();
  expect(more.data.answers[0].text).toEqual(expect.any(String));
  expect(more.data.answers.map((a: { id: string }) => a.id)).not.toContain(answers.answers[1].id);
});

test("a tool that echoes its filter takes a next page asked with that filter as echoed: the default dates written out, the tag spelled otherwise", async () => {
  const client = await s.client(s.seed.a.key);
  await call(client, "update_prompt", { prompt_id: s.seed.a.ids.promptId, tags: ["Pricing"] });
  const first = (await call(client, "get_top_sources", { tag: "Pricing", limit: 1 })).data;
  expect(first.sources).toHaveLength(1);
  expect(first.next_cursor).toEqual(expect.any(String));
  // The call an AI client makes next: the echoed filter copied into it (the AI-client walk was refused here).
  const { start_date, end_date } = first.filter;
  const next = await call(client, "get_top_sources", { tag: "pricing", start_date, end_date, limit: 1, cursor: first.next_cursor });
  expect(next.error).toBeNull();
  expect(next.data.sources[0].domain).not.toBe(first.sources[0].domain);
  // A period that is not the same one is still another list.
  const shifted = { start_date: first.filter.previous_start_date, end_date: first.filter.previous_end_date };
  expect((await call(client, "get_top_sources", { tag: "Pricing", ...shifted, limit: 1, cursor: first.next_cursor })).error).toMatch(
    OTHER_LIST,
  );
  expect((await call(client, "get_top_sources", { limit: 1, cursor: first.next_cursor })).error).toMatch(OTHER_LIST);
  expect((await call(client, "get_prompt_performance", { tag: "Pricing", cursor: first.next_cursor })).error).toMatch(OTHER_LIST);
});
