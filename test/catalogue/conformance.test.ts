// A tool's result is used as it is only when parsing it through its output schema would give the
// same value back (src/catalogue/conformance.ts); anything else is parsed as before: stripped,
// reordered or refused exactly as zod does.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { z } from "zod";
import { conformingOutput, hasConformanceCheck, verifyConformance } from "../../src/catalogue/conformance";
import { TOOLS } from "../../src/catalogue/tools";
import { call } from "../support/mcp";
import { type SeededToolServer, seededToolServer } from "../support/tool-server";

// Every kind the output schemas use.
const schema = z.object({
  id: z.string(),
  count: z.number().int(),
  share: z.number().nullable(),
  flag: z.boolean(),
  status: z.enum(["ok", "error"]),
  kind: z.literal("prompt"),
  note: z.string().optional(),
  items: z.array(z.object({ name: z.string(), rank: z.number().int().nullable() })),
});

const good = () => ({
  id: "prm_1",
  count: 3,
  share: 0.25,
  flag: true,
  status: "ok" as const,
  kind: "prompt" as const,
  items: [
    { name: "Acme", rank: 1 },
    { name: "Globex", rank: null },
  ],
});

/** What zod makes of `value`: its parse, or the error's message. */
function zodOf(value: unknown): { value: unknown } | { error: string } {
  const parsed = schema.safeParse(value);
  return parsed.success ? { value: parsed.data } : { error: parsed.error.message };
}

function conformingOf(value: unknown): { value: unknown } | { error: string } {
  try {
    return { value: conformingOutput(schema, value) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

beforeAll(() => verifyConformance(false));
afterAll(() => verifyConformance(true));

test("a result that is exactly its schema's output is passed on as it is, not copied", () => {
  const value = good();
  expect(conformingOutput(schema, value)).toBe(value);
  const withNote = { ...good(), note: "n" };
  // The optional field in its place.
  const ordered = {
    id: "prm_1",
    count: 3,
    share: null,
    flag: false,
    status: "error" as const,
    kind: "prompt" as const,
    note: "n",
    items: [],
  };
  expect(conformingOutput(schema, ordered)).toBe(ordered);
  // An object without a prototype is a plain object too.
  const bare = Object.assign(Object.create(null), good());
  expect(conformingOutput(schema, bare)).toBe(bare);
  expect(Object.keys(conformingOutput(schema, withNote))).toEqual(Object.keys(schema.shape));
});

test("anything else is what zod makes of it: extra fields dropped, fields put in the schema's order, wrong types refused", () => {
  const cases: unknown[] = [
    { ...good(), secret: "must not leave" },
    { ...good(), items: [{ name: "Acme", rank: 1, key_hash: "x" }] },
    { count: 3, id: "prm_1", share: 0.25, flag: true, status: "ok", kind: "prompt", items: [] },
    { ...good(), note: undefined },
    { ...good(), count: 1.5 },
    { ...good(), count: 2 ** 53 },
    { ...good(), share: Number.NaN },
    { ...good(), share: Number.POSITIVE_INFINITY },
    { ...good(), share: "0.25" },
    { ...good(), flag: 1 },
    { ...good(), status: "pending" },
    { ...good(), kind: "tag" },
    { ...good(), id: null },
    { ...good(), items: "none" },
    { ...good(), items: [null] },
    // biome-ignore lint/suspicious/noSparseArray: a hole in an array is one of the cases
    { ...good(), items: [, { name: "Acme", rank: 1 }] },
    { ...good(), items: [{ name: "Acme" }] },
    { id: "prm_1" },
    null,
    [],
    "text",
    new Date(0),
    Object.assign(new (class Row {})(), good()),
  ];
  for (const value of cases) {
    const ours = conformingOf(value);
    expect(ours).toEqual(zodOf(value));
    if ("value" in ours) {
      expect(ours.value).not.toBe(value);
      expect(Object.keys(ours.value as object)).toEqual(Object.keys((zodOf(value) as { value: object }).value));
      expect(JSON.stringify(ours.value)).not.toContain("must not leave");
      expect(JSON.stringify(ours.value)).not.toContain("key_hash");
    }
  }
});

test("a schema with a kind the check does not know (a default, a union, a refinement) is always parsed", () => {
  const withDefault = z.object({ tags: z.array(z.string()).default([]) });
  expect(conformingOutput(withDefault, {})).toEqual({ tags: [] });
  const union = z.object({ value: z.union([z.string(), z.number()]) });
  const value = { value: 1 };
  expect(conformingOutput(union, value)).toEqual(value);
  expect(conformingOutput(union, value)).not.toBe(value);
  const refined = z.object({ day: z.string().regex(/^\d{4}-\d{2}-\d{2}$/) });
  expect(() => conformingOutput(refined, { day: "today" })).toThrow();
});

test("formats, numeric enums, array subclasses and toJSON are zod's to judge (from a review)", () => {
  // A format of the schema itself (z.email(), z.int32()) is no plain string or number: no check.
  expect(hasConformanceCheck(z.object({ e: z.email() }))).toBe(false);
  expect(hasConformanceCheck(z.object({ n: z.int32() }))).toBe(false);
  expect(hasConformanceCheck(z.object({ d: z.iso.datetime() }))).toBe(false);
  // z.int() is the safe-integer check written as a format.
  const integer = z.object({ n: z.int() });
  expect(hasConformanceCheck(integer)).toBe(true);
  expect(() => conformingOutput(integer, { n: 1.5 })).toThrow();
  // A TypeScript enum's values, not its reverse-mapped names.
  enum Level {
    Low,
    High,
  }
  const levels = z.object({ level: z.enum(Level) });
  const low = { level: Level.Low };
  expect(conformingOutput(levels, low)).toBe(low);
  expect(() => conformingOutput(levels, { level: "Low" })).toThrow();
  // What JSON.stringify would write differently from what the check walked is parsed.
  const list = z.object({ items: z.array(z.string()) });
  class Items extends Array<string> {}
  const subclass = { items: Items.from(["x"]) };
  expect(conformingOutput(list, subclass)).not.toBe(subclass);
  const arrayWithToJson = { items: Object.assign(["x"], { toJSON: () => ({ secret: "must not leave" }) }) };
  expect(JSON.stringify(conformingOutput(list, arrayWithToJson))).toBe('{"items":["x"]}');
  const objectWithToJson = Object.defineProperty({ items: ["x"] }, "toJSON", { value: () => ({ secret: "must not leave" }) });
  expect(JSON.stringify(conformingOutput(list, objectWithToJson))).toBe('{"items":["x"]}');
});

test("every tool's output schema has a check: none is parsed on every call", () => {
  expect(TOOLS.filter((tool) => !hasConformanceCheck(tool.output)).map((tool) => tool.name)).toEqual([]);
  expect(hasConformanceCheck(z.object({ tags: z.array(z.string()).default([]) }))).toBe(false);
});

/** Where a result and its parse first differ: a key missing, added or out of order, or a value. */
function firstDifference(result: unknown, parsed: unknown, path = "result"): string | null {
  if (typeof result !== "object" || result === null || typeof parsed !== "object" || parsed === null)
    return Object.is(result, parsed) ? null : `${path}: ${JSON.stringify(result)} became ${JSON.stringify(parsed)}`;
  const ours = Object.keys(result);
  const theirs = Object.keys(parsed);
  if (ours.join() !== theirs.join()) return `${path}: keys ${ours.join(", ")} became ${theirs.join(", ")}`;
  for (const key of ours) {
    const found = firstDifference((result as Record<string, unknown>)[key], (parsed as Record<string, unknown>)[key], `${path}.${key}`);
    if (found) return found;
  }
  return null;
}

let s: SeededToolServer;
beforeAll(async () => {
  s = await seededToolServer();
});
afterAll(() => s.close());

test("the tools' handlers build exactly their schemas' output: their results pass as they are", async () => {
  const ctx = {
    account: { id: s.seed.a.accountId },
    brand: { id: s.seed.a.brandId, name: "Acme Analytics", domain: "acme-analytics.com" },
    plan: "autopilot" as const,
    app: s.t.ctx,
    requestId: "req_conformance",
  };
  const passed: string[] = [];
  const copied: Array<{ tool: string; difference: string | null }> = [];
  // Every read tool that needs no argument, on the seeded brand's prompts, answers and articles.
  for (const tool of TOOLS.filter((t) => t.annotations.readOnlyHint)) {
    const input = tool.input.safeParse({});
    if (!input.success) continue;
    const result = await tool.handler(input.data, ctx);
    const output = conformingOutput(tool.output, result);
    if (output === result) passed.push(tool.name);
    else copied.push({ tool: tool.name, difference: firstDifference(result, output) });
  }
  expect(copied).toEqual([]);
  expect(passed).toContain("list_prompts");
  expect(passed).toContain("list_answers");
  expect(passed).toContain("get_visibility_overview");
  expect(passed.length).toBeGreaterThanOrEqual(10);
});

test("list_answers writes the prompt's text beside its id, in its schema's order", async () => {
  const client = await s.client(s.seed.a.key);
  const answers = await call(client, "list_answers", { limit: 5 });
  expect(Object.keys(answers.data.answers[0]).slice(0, 3)).toEqual(["id", "prompt_id", "prompt_text"]);
});
