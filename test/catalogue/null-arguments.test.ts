// Model clients that send null for every optional field they leave unset (OpenAI's strict function
// calling does): such nulls mean "not given", through the MCP door in process.
import { afterEach, expect, test } from "bun:test";
import { call } from "../support/mcp";
import { type SeededToolServer, seededToolServer } from "../support/tool-server";

let s: SeededToolServer | null = null;
afterEach(async () => {
  await s?.close();
  s = null;
});

test("null for an optional field is taken as not given; a field that takes null keeps its meaning", async () => {
  s = await seededToolServer();
  const a = await s.client(s.seed.a.key);
  const plain = await call(a, "list_prompts", {});
  const nulls = await call(a, "list_prompts", { tag: null, query: null, limit: null, cursor: null });
  expect(nulls.error).toBeNull();
  expect(nulls.data).toEqual(plain.data);
  // Null where a value is required is still refused, by name.
  expect((await call(a, "create_competitor", { name: null })).error).toBe("Invalid input for create_competitor: name must be a string.");
  // update_brand's domain: null removes the domain, as documented.
  expect((await call(a, "get_brand")).data.brand.domain).toBe("acme-analytics.com");
  const updated = await call(a, "update_brand", { domain: null, name: null });
  expect(updated.error).toBeNull();
  expect(updated.data.brand).toMatchObject({ name: "Acme Analytics", domain: null });
});
