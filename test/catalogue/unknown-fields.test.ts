// The mistakes models make with field names, answered with the field they meant and the fields there
// are, through the tool catalogue as every door calls it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { closestField } from "../../src/catalogue/invalid-input";
import { call } from "../support/mcp";
import { type SeededToolServer, seededToolServer } from "../support/tool-server";

let s: SeededToolServer;
beforeAll(async () => {
  s = await seededToolServer();
});
afterAll(() => s.close());

test("the likeliest field: snake_case of camelCase, the plural or the id, one or two letters off; none when nothing is close", () => {
  const overview = ["start_date", "end_date", "engine", "tag", "prompt_id"];
  expect(closestField("startDate", overview)).toBe("start_date");
  expect(closestField("prompt", overview)).toBe("prompt_id");
  expect(closestField("engines", overview)).toBe("engine");
  expect(closestField("engine", ["prompt_ids", "engines"])).toBe("engines");
  expect(closestField("start_dat", overview)).toBe("start_date");
  expect(closestField("period", overview)).toBeNull();
});

test("a tool call with an unknown field says which field was meant and lists the fields", async () => {
  const client = await s.client(s.seed.a.key);
  const { error } = await call(client, "run_tracking", { engine: "chatgpt" });
  expect(error).toBe(
    'Invalid input for run_tracking: Unknown field "engine" (did you mean "engines"?); the fields are prompt_ids, engines.',
  );
  const overview = await call(client, "get_visibility_overview", { startDate: "2025-01-01", period: "last_30_days" });
  expect(overview.error).toStartWith(
    'Invalid input for get_visibility_overview: Unknown fields "startDate", "period" (did you mean "start_date" for "startDate"?); the fields are ',
  );
  expect(overview.error).toContain("start_date, end_date");
  // In a list's entry: that entry's fields, and the one meant (the AI-client walk got neither).
  expect((await call(client, "create_prompts", { prompts: [{ text: "a prompt with a tag", tag: "pricing" }] })).error).toBe(
    'Invalid input for create_prompts: prompts[0] unknown field "tag" (did you mean "tags"?); the fields are text, tags, country, language.',
  );
  // A tool that takes no arguments says so.
  expect((await call(client, "get_brand", { x: 1 })).error).toBe(
    'Invalid input for get_brand: Unknown field "x": it takes no arguments; call it with {}.',
  );
});

test("a prompt's text where its id goes is named as such, with the way to the id", async () => {
  const client = await s.client(s.seed.a.key);
  const { error } = await call(client, "get_visibility_overview", { prompt_id: "Which CRM is best for startups?" });
  expect(error).toBe(
    'Prompt not found: a prompt id looks like prm_…, and this looks like a prompt\'s text; list_prompts with query "Which CRM is best for startups?" finds its id.',
  );
  // An id-like value that is no prompt of the brand keeps the plain sentence (another brand's prompt reads the same).
  expect((await call(client, "get_visibility_overview", { prompt_id: "prm_nothing" })).error).toBe(
    "Prompt not found; list_prompts shows the brand's prompts and their ids.",
  );
});

test("a tag or a competitor may be named where its id goes; another brand's name is not found", async () => {
  const client = await s.client(s.seed.a.key);
  const tag = (await call(client, "create_tag", { name: "Enterprise" })).data.tag;
  expect((await call(client, "update_tag", { tag_id: "enterprise", color: "#aa0000" })).data.tag).toMatchObject({
    id: tag.id,
    color: "#aa0000",
  });
  const rival = (await call(client, "create_competitor", { name: "Globex Corp" })).data.competitor;
  expect((await call(client, "update_competitor", { competitor_id: "globex corp", aliases: ["Globex"] })).data.competitor).toMatchObject({
    id: rival.id,
    aliases: ["Globex"],
  });
  // The other brand's client cannot reach them by name either.
  const other = await s.client(s.seed.b.key);
  expect((await call(other, "delete_tag", { tag_id: "Enterprise" })).error).toBe(
    "Tag not found; list_tags shows the brand's tags and their ids.",
  );
  expect((await call(other, "delete_competitor", { competitor_id: "Globex Corp" })).error).toBe(
    "Competitor not found; list_competitors shows the brand's competitors and their ids.",
  );
  expect((await call(client, "delete_tag", { tag_id: "ENTERPRISE" })).data.tag.id).toBe(tag.id);
  expect((await call(client, "delete_competitor", { competitor_id: "Globex Corp" })).data.competitor.id).toBe(rival.id);
  expect((await call(client, "list_tags")).data.tags.map((t: { id: string }) => t.id)).not.toContain(tag.id);
});

test("many or long unknown fields: the first few named, shortened, in a sentence of bounded size", async () => {
  const client = await s.client(s.seed.a.key);
  const args: Record<string, number> = { ["x".repeat(100_000)]: 1 };
  for (let i = 0; i < 2_000; i++) args[`field_${i}`] = i;
  const { error } = await call(client, "list_tags", args);
  expect(error).toStartWith(
    `Invalid input for list_tags: Unknown fields "${"x".repeat(64)}…", "field_0", "field_1", "field_2", "field_3" and 1996 more`,
  );
  expect(error!.length).toBeLessThan(600);
});

test("names outside ASCII match without case on either database: found by name, and taken", async () => {
  const client = await s.client(s.seed.a.key);
  const eco = (await call(client, "create_competitor", { name: "ÉCO Systèmes" })).data.competitor;
  expect((await call(client, "update_competitor", { competitor_id: "éco systèmes", aliases: ["Eco Sys"] })).data.competitor.id).toBe(
    eco.id,
  );
  expect((await call(client, "create_competitor", { name: "éco systèmes" })).error).toBe(
    'A competitor named "éco systèmes" already exists for this brand; update it instead.',
  );
  await call(client, "delete_competitor", { competitor_id: eco.id });
});
