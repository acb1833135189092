// The CSV export, in process: GET /api/brands/:brand_id/export/:tool.csv runs a list tool through the
// catalogue page by page and streams every row, with the session door's guard, plan gate and sentences.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { z } from "zod";
import { buildApp } from "../../src/app";
import { type AnyTool, buildCatalog, defineTool } from "../../src/catalogue/registry";
import { TOOLS } from "../../src/catalogue/tools";
import { columnsOf, csvRowOf, listFieldOf } from "../../src/dashboard/csv";
import { archivePrompt, createPrompts } from "../../src/prompts/service";
import { writeAnswers } from "../support/answers";
import { seedRecords } from "../support/fixtures";
import { BASE, type TestApp, testApp } from "../support/http";
import { captureLog } from "../support/log";

/** RFC 4180, the reading side: quoted fields may hold commas, CRLF and doubled quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === "") quoted = true;
    else if (c === ",") {
      row.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
      i++;
    } else field += c;
  }
  if (field !== "" || row.length > 0) throw new Error(`the CSV does not end with CRLF: ${JSON.stringify(text.slice(-40))}`);
  return rows;
}

/** The rows of a CSV answer, after checking that it starts with UTF-8's byte-order mark. */
async function rowsOf(res: Response): Promise<string[][]> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  return parseCsv(new TextDecoder().decode(bytes.slice(3)));
}

const PAGES = 5;
let pagesRead = 0;

/** Test-only tools: a paged list whose pages are slow to read, with a number, a boolean and an enum to coerce. */
const TEST_TOOLS = [
  defineTool({
    name: "slow_pages",
    title: "Slow pages",
    description: "Use in tests: five pages of items, each page read after a pause; fails at page fail_at when given.",
    input: z.strictObject({
      per_page: z.number().int().min(1).max(10).default(3),
      fail_at: z.number().int().min(1).optional(),
      shout: z.boolean().default(false),
      kind: z.enum(["plain", "nested"]).default("plain"),
      label: z.string().optional(),
      limit: z.number().int().min(1).max(7).default(2),
      cursor: z.string().optional(),
    }),
    output: z.object({
      items: z.array(
        z.object({
          n: z.number(),
          label: z.string(),
          limit: z.number(),
          detail: z.object({ kind: z.string(), tags: z.array(z.object({ id: z.string(), name: z.string().optional() })) }),
        }),
      ),
      next_cursor: z.string().nullable(),
    }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    plan: "visibility",
    handler: async (input) => {
      const page = Number(input.cursor ?? "1");
      if (input.fail_at === page) throw new Error("the disk is on fire");
      await Bun.sleep(40);
      pagesRead++;
      const items = Array.from({ length: input.per_page }, (_, i) => ({
        n: (page - 1) * input.per_page + i + 1,
        label: input.label ?? (input.shout ? "LOUD" : "quiet"),
        limit: input.limit,
        detail: { kind: input.kind, tags: [{ id: "tag_1", name: "Pricing" }, { id: "tag_2" }] },
      }));
      return { items, next_cursor: page < PAGES ? String(page + 1) : null };
    },
  }),
] as AnyTool[];

let t: TestApp;
let testToolsApp: ReturnType<typeof buildApp>;
const cookie: Record<string, string> = {};
const brand: Record<string, string> = {};

function exportCsv(who: string | null, brandId: string, file: string, app: { handle(r: Request): Promise<Response> } = t.app) {
  return app.handle(new Request(`${BASE}/api/brands/${brandId}/export/${file}`, { headers: who ? { cookie: cookie[who]! } : {} }));
}

beforeAll(async () => {
  t = await testApp();
  testToolsApp = buildApp(t.ctx, buildCatalog([...TOOLS, ...TEST_TOOLS]));
  for (const [who, plan, name] of [
    ["vis", "visibility", "Acme Café"],
    ["other", "visibility", "Other brand"],
    ["free", "none", "Free brand"],
    ["auto", "autopilot", "Auto brand"],
  ] as const) {
    cookie[who] = await t.signIn(`${who}@example.com`, { plan });
    brand[who] = (await t.call("POST", "/api/brands", { cookie: cookie[who], body: { name } })).json.brand.id;
  }
  for (let batch = 0; batch < 5; batch++) {
    const texts = Array.from({ length: 90 }, (_, i) => `prompt number ${String(batch * 90 + i + 1).padStart(3, "0")}`);
    await createPrompts(
      t.db,
      brand.vis!,
      texts.map((text, i) => ({ text, tags: i % 10 === 0 ? ["Pricing", "Enterprise"] : [] })),
    );
  }
});

afterAll(() => t.close());

describe("GET /api/brands/:brand_id/export/:tool.csv", () => {
  test("a list longer than a page comes whole: 450 prompts, 450 rows in order after the header", async () => {
    const res = await exportCsv("vis", brand.vis!, "list_prompts.csv");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="acme-cafe-list_prompts.csv"');
    expect(res.headers.get("cache-control")).toBe("no-store");
    const rows = await rowsOf(res);
    expect(rows[0]).toEqual(["id", "text", "tags", "country", "language", "archived", "created_at"]);
    expect(rows.length).toBe(451);
    expect(rows.slice(1).map((r) => r[1])).toEqual(
      Array.from({ length: 450 }, (_, i) => `prompt number ${String(i + 1).padStart(3, "0")}`),
    );
    expect(rows[1]![2]).toBe("Enterprise; Pricing");
    expect(rows[2]![2]).toBe("");
    expect(rows[1]![5]).toBe("false");
  });

  test("the filter is applied and named in the file name", async () => {
    const res = await exportCsv("vis", brand.vis!, "list_prompts.csv?tag=Pricing&query=number%200");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="acme-cafe-list_prompts-pricing-number-0.csv"');
    const rows = (await rowsOf(res)).slice(1);
    // Tagged: the first of every ten of each batch of 90 (1, 11, … 81, 91, 101, …); "number 0" keeps 001-099.
    expect(rows.map((r) => r[1])).toEqual([
      "prompt number 001",
      "prompt number 011",
      "prompt number 021",
      "prompt number 031",
      "prompt number 041",
      "prompt number 051",
      "prompt number 061",
      "prompt number 071",
      "prompt number 081",
      "prompt number 091",
    ]);
  });

  test("query values are coerced by the tool's input schema: booleans, numbers and enums", async () => {
    const archived = (await createPrompts(t.db, brand.other!, [{ text: "an archived prompt" }, { text: "a tracked prompt" }])).created[0]!;
    await archivePrompt(t.db, brand.other!, archived.id);
    const without = await rowsOf(await exportCsv("other", brand.other!, "list_prompts.csv"));
    expect(without.slice(1).map((r) => r[1])).toEqual(["a tracked prompt"]);
    const res = await exportCsv("other", brand.other!, "list_prompts.csv?include_archived=true");
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="other-brand-list_prompts-include_archived.csv"');
    const rows = (await rowsOf(res)).slice(1);
    expect(rows.map((r) => [r[1], r[5]])).toEqual([
      ["an archived prompt", "true"],
      ["a tracked prompt", "false"],
    ]);

    const typed = await exportCsv("vis", brand.vis!, "slow_pages.csv?per_page=1&shout=true&kind=nested", testToolsApp);
    expect(typed.status).toBe(200);
    const typedRows = await rowsOf(typed);
    expect(typedRows[0]).toEqual(["n", "label", "limit", "detail.kind", "detail.tags"]);
    // The exporter pages at the tool's largest limit (7), whatever the tool's default (2).
    expect(typedRows.slice(1)).toEqual([1, 2, 3, 4, 5].map((n) => [String(n), "LOUD", "7", "nested", "Pricing; tag_2"]));

    const wrong = await exportCsv("vis", brand.vis!, "list_prompts.csv?include_archived=yes");
    expect(wrong.status).toBe(400);
    expect((await wrong.json()).error).toStartWith("Invalid input for list_prompts: include_archived");
    // A NUL character in a query's text reached PostgreSQL, which refused it: a 500 there (the PostgreSQL walk).
    for (const query of ["list_prompts.csv?query=%00", "list_prompts.csv?tag=a%00b", "list_answers.csv?prompt_id=%00"]) {
      const nul = await exportCsv("vis", brand.vis!, query);
      expect([query, nul.status]).toEqual([query, 400]);
      expect(await nul.json()).toMatchObject({ code: "invalid_text", error: expect.stringContaining("contains a NUL character") });
    }
    const stray = await exportCsv("vis", brand.vis!, "list_prompts.csv?tga=Pricing");
    expect(stray.status).toBe(400);
    expect((await stray.json()).error).toContain('Unknown field "tga"');
    // A review's: "0x10" and "1e2" were read as 16 and 100, "__proto__" dropped without a word, and a
    // field given twice kept its last value.
    for (const [query, words] of [
      ["per_page=0x10", "Invalid input for slow_pages: per_page"],
      ["per_page=1e2", "Invalid input for slow_pages: per_page"],
      ["__proto__=1", 'Unknown field "__proto__".'],
      ["shout=true&shout=false", "shout: given twice in the address; give it once."],
    ] as const) {
      const refused = await exportCsv("vis", brand.vis!, `slow_pages.csv?${query}`, testToolsApp);
      expect([query, refused.status]).toEqual([query, 400]);
      expect((await refused.json()).error).toStartWith(words);
    }
    const paging = await exportCsv("vis", brand.vis!, "list_prompts.csv?limit=10");
    expect(paging.status).toBe(400);
    expect(await paging.json()).toEqual({
      error: "limit and cursor: the export reads every page itself; leave them out of the address.",
      code: "invalid_input",
    });
  });

  test("a text with a comma, a quote and a line break round-trips through a CSV parser", async () => {
    await t.call("POST", "/api/brands", { cookie: cookie.other, body: { name: "Quoting" } });
    const quoting = (await t.call("GET", "/api/brands", { cookie: cookie.other })).json.brands.find(
      (b: { name: string }) => b.name === "Quoting",
    ).id;
    // The prompt service folds line breaks into spaces, so a test tool's label carries them.
    const text = 'Which CRM, "the best one", for agencies?';
    await createPrompts(t.db, quoting, [{ text }, { text: "plain" }]);
    const rows = await rowsOf(await exportCsv("other", quoting, "list_prompts.csv"));
    expect(rows.slice(1).map((r) => r[1])).toEqual([text, "plain"]);
    const label = 'one, "two"\r\nthree\nfour\rfive';
    const res = await exportCsv("vis", brand.vis!, `slow_pages.csv?per_page=1&label=${encodeURIComponent(label)}`, testToolsApp);
    expect((await rowsOf(res)).slice(1).map((r) => r[1])).toEqual([label, label, label, label, label]);
  });

  test("a cell that a spreadsheet would run as a formula is neutralised with an apostrophe", async () => {
    await t.call("POST", "/api/brands", { cookie: cookie.other, body: { name: "Formulas" } });
    const formulas = (await t.call("GET", "/api/brands", { cookie: cookie.other })).json.brands.find(
      (b: { name: string }) => b.name === "Formulas",
    ).id;
    const texts = ['=HYPERLINK("http://evil.example","x")', "+1+2 best", "-2+3 cheap", "@SUM(A1:A2)", "a safe = text"];
    await createPrompts(
      t.db,
      formulas,
      texts.map((text) => ({ text })),
    );
    const rows = await rowsOf(await exportCsv("other", formulas, "list_prompts.csv"));
    expect(rows.slice(1).map((r) => r[1])).toEqual([
      `'=HYPERLINK("http://evil.example","x")`,
      "'+1+2 best",
      "'-2+3 cheap",
      "'@SUM(A1:A2)",
      "a safe = text",
    ]);
    for (const label of ["\tcmd", "\rcmd"]) {
      const res = await exportCsv("vis", brand.vis!, `slow_pages.csv?per_page=1&label=${encodeURIComponent(label)}`, testToolsApp);
      expect((await rowsOf(res))[1]![1]).toBe(`'${label}`);
    }
  });

  test("a list of objects in a cell reads as words: by name, or by what they are with their counts (a gap's cited domains)", () => {
    const gap = {
      competitors: [{ id: "cmp_1", name: "Contoso CRM", answers: 3 }],
      top_domains: [
        { domain: "hubspot.com", citations: 14, owned: false, competitor: null },
        { domain: "contoso-demo.com", citations: 12, owned: false, competitor: { id: "cmp_1", name: "Contoso CRM" } },
        { domain: "acme.com", citations: 5, owned: true, competitor: null },
      ],
    };
    expect(csvRowOf(gap, ["competitors", "top_domains"])).toBe(
      'Contoso CRM,"hubspot.com (14 citations); contoso-demo.com (12 citations, Contoso CRM); acme.com (5 citations, owned)"\r\n',
    );
    // A search query's prompts by their text: their ids said nothing in a spreadsheet.
    const query = {
      prompts: [
        { id: "prm_1", text: "best crm" },
        { id: "prm_2", text: "crm for startups" },
      ],
    };
    expect(csvRowOf(query, ["prompts"])).toBe("best crm; crm for startups\r\n");
  });

  test("an empty list is a header from the output schema, nested objects flattened with dotted names", async () => {
    const competitors = await rowsOf(await exportCsv("other", brand.other!, "list_competitors.csv"));
    expect(competitors).toEqual([["id", "name", "aliases", "domains", "created_at"]]);
    const answers = await rowsOf(await exportCsv("other", brand.other!, "list_answers.csv"));
    expect(answers[0]!.slice(0, 4)).toEqual(["id", "prompt_id", "prompt_text", "engine"]);
    const performance = await rowsOf(await exportCsv("other", brand.other!, "get_prompt_performance.csv"));
    expect(performance[0]).toContain("visibility.rate");
    expect(performance[0]).toContain("visibility.low");
    expect(performance[0]!.some((c) => c.includes("{") || c === "visibility")).toBe(false);
  });

  test("the answers' export carries each answer's text with include_text (the Answers page's link asks for it)", async () => {
    const ids = await seedRecords(t.db, brand.auto!, "Auto");
    await writeAnswers(t.db, brand.auto!, [
      {
        promptId: ids.promptId,
        engine: "chatgpt",
        daysAgo: 1,
        text: 'Auto brand is "fine", says the answer,\nover two lines.',
        citations: [],
      },
    ]);
    const rows = await rowsOf(await exportCsv("auto", brand.auto!, "list_answers.csv?include_text=true"));
    const column = rows[0]!.indexOf("text");
    expect(column).toBeGreaterThan(0);
    expect(rows.slice(1).map((row) => row[column])).toContain('Auto brand is "fine", says the answer,\nover two lines.');
    const without = await rowsOf(await exportCsv("auto", brand.auto!, "list_answers.csv"));
    expect(without.slice(1).every((row) => row[column] === "")).toBe(true);
  });

  test("unpaged lists export too: the trend's points and the competitor ranking", async () => {
    const trend = await exportCsv("vis", brand.vis!, "get_visibility_trend.csv?interval=week&start_date=2026-01-01&end_date=2026-01-28");
    expect(trend.status).toBe(200);
    expect(trend.headers.get("content-disposition")).toBe(
      'attachment; filename="acme-cafe-get_visibility_trend-2026-01-01-2026-01-28-week.csv"',
    );
    const points = await rowsOf(trend);
    expect(points.length).toBeGreaterThan(1);
    expect(points[0]!.some((c) => c.startsWith("visibility."))).toBe(true);
    expect((await exportCsv("vis", brand.vis!, "get_competitor_ranking.csv")).status).toBe(200);
  });
});

describe("the export's errors come before the first byte, as the session door gives them", () => {
  test("another account's brand is 404, and no session is 401", async () => {
    const stolen = await exportCsv("other", brand.vis!, "list_prompts.csv");
    expect(stolen.status).toBe(404);
    expect(await stolen.json()).toEqual({ error: "Brand not found.", code: "brand_not_found" });
    const anonymous = await exportCsv(null, brand.vis!, "list_prompts.csv");
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: "Unauthorized", code: "unauthorized" });
  });

  test("plan none is 403 plan_required, and so is a tool above the account's plan", async () => {
    const res = await exportCsv("free", brand.free!, "list_prompts.csv");
    expect(res.status).toBe(403);
    expect((await res.json()).code).toBe("plan_required");
    const above = await exportCsv("vis", brand.vis!, "list_articles.csv");
    expect(above.status).toBe(403);
    expect(await above.json()).toMatchObject({ code: "plan_required", required_plan: "autopilot" });
  });

  test("an unknown tool is 404 unknown_tool, a tool that does not list things is 400, and a write tool never runs", async () => {
    const unknown = await exportCsv("vis", brand.vis!, "drop_tables.csv");
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).code).toBe("unknown_tool");
    for (const name of ["get_brand", "get_answer", "create_prompts", "delete_tag"]) {
      const res = await exportCsv("vis", brand.vis!, `${name}.csv`);
      expect([name, res.status]).toEqual([name, 400]);
      expect(await res.json()).toEqual({
        error: `${name} does not return a list, so it has no CSV export; export a tool that lists things, such as list_prompts.`,
        code: "not_a_list",
      });
    }
    expect((await exportCsv("vis", brand.vis!, "list_prompts.json")).status).toBe(404);
    const post = await t.app.handle(
      new Request(`${BASE}/api/brands/${brand.vis}/export/list_prompts.csv`, { method: "POST", headers: { cookie: cookie.vis! } }),
    );
    expect(post.status).toBe(405);
  });
});

describe("which tools export", () => {
  test("every read tool whose result holds exactly one list exports it; every other tool is 400 not_a_list", async () => {
    const exported: string[] = [];
    for (const tool of TOOLS) {
      const res = await exportCsv("auto", brand.auto!, `${tool.name}.csv`);
      const list = tool.annotations.readOnlyHint ? listFieldOf(tool.output) : null;
      if (list) {
        expect([tool.name, res.status]).toEqual([tool.name, 200]);
        expect((await rowsOf(res))[0]).toEqual(columnsOf(list.item));
        exported.push(`${tool.name}.${list.field}`);
      } else {
        expect([tool.name, res.status, (await res.json()).code]).toEqual([tool.name, 400, "not_a_list"]);
      }
    }
    // At least these (tools added later, such as get_article_impact, join by their shape alone).
    expect(exported).toEqual(
      expect.arrayContaining([
        "list_prompts.prompts",
        "list_tags.tags",
        "list_competitors.competitors",
        "get_visibility_overview.by_engine",
        "get_visibility_trend.points",
        "get_competitor_ranking.ranking",
        "get_prompt_performance.prompts",
        "get_top_sources.sources",
        "get_content_gaps.gaps",
        "list_answers.answers",
        "get_tracking_status.engines",
        "list_articles.articles",
      ]),
    );
  });
});

describe("streaming", () => {
  test("the first rows go out before the last page is read", async () => {
    pagesRead = 0;
    const res = await exportCsv("vis", brand.vis!, "slow_pages.csv?per_page=2", testToolsApp);
    const reader = res.body!.getReader();
    const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
    const first = decoder.decode((await reader.read()).value);
    expect(first).toStartWith("\uFEFFn,label,limit,detail.kind,detail.tags\r\n1,quiet,7,plain,Pricing; tag_2\r\n");
    // A page is read only when the client has taken the one before: the server holds one page at a time.
    expect(pagesRead).toBe(1);
    const second = decoder.decode((await reader.read()).value);
    expect(second).toBe("3,quiet,7,plain,Pricing; tag_2\r\n4,quiet,7,plain,Pricing; tag_2\r\n");
    expect(pagesRead).toBe(2);
    let rest = second;
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) rest += decoder.decode(chunk.value);
    expect(pagesRead).toBe(PAGES);
    expect(parseCsv((first + rest).slice(1)).length).toBe(1 + PAGES * 2);
  });

  test("an error after the first byte ends the stream, and the log names the request", async () => {
    let requestId = "";
    let failure: unknown = null;
    const log = await captureLog(async () => {
      const res = await exportCsv("vis", brand.vis!, "slow_pages.csv?fail_at=3", testToolsApp);
      expect(res.status).toBe(200);
      requestId = res.headers.get("x-request-id")!;
      try {
        await res.text();
      } catch (error) {
        failure = error;
      }
    });
    expect(failure).not.toBeNull();
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const stopped = log
      .split("\n")
      .filter((line) => line.includes('"export stopped"'))
      .map((line) => JSON.parse(line));
    expect(stopped).toEqual([expect.objectContaining({ level: "error", request_id: requestId, tool: "slow_pages", code: "internal" })]);
  });

  test("an error on the first page is the tool's JSON answer, not a stream", async () => {
    const res = await exportCsv("vis", brand.vis!, "slow_pages.csv?fail_at=1", testToolsApp);
    expect(res.status).toBe(500);
    expect((await res.json()).code).toBe("internal");
  });
});
