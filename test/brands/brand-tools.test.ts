// get_brand's tracking set-up as a client reads it, through the MCP door in process.
import { afterEach, expect, test } from "bun:test";
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
