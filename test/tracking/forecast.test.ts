// The cost forecast's arithmetic: `spyglass track --dry-run` and get_tracking_status.
//
//   3 active prompts (a 4th archived) × 4 engines × 2 samples = 24 requests per run (6 per engine)
//   "0 */6 * * *" fires 4 times a day: 120 runs in 30 days → 2880 requests per month, 96 a day
//   perreq: 0.01 per request                       → 0.06 per run, 7.2 per month
//   tokens: 2 / 10 per million in / out; its two recent answers used 100/500 and 300/700 tokens
//           → means 200 in / 600 out → (200×2 + 600×10) / 1e6 = 0.0064 per request
//           → 0.0384 per run, 4.608 per month
//   free:   no price → not estimated; pending: priced per token, no answers yet → not estimated
//   total:  0.0984 per run, 11.808 per month

import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Cron } from "croner";
import { type AppContext } from "../../src/context";
import { trackCommand } from "../../src/tracking/cli";
import { forecast, forecastText, runsIn } from "../../src/tracking/forecast";
import { loadRoster } from "../../src/tracking/roster";
import { getTrackingStatus } from "../../src/tracking/service";
import { addBrand, openApp, type SeededBrand } from "../analytics/dataset";

const engine = (id: string, extra: string) => `
[[engines]]
id = "${id}"
api = "openai"
base_url = "http://127.0.0.1:9/v1"
model = "m-${id}"
${extra}
`;

let app: AppContext;
let s: SeededBrand;
afterAll(async () => {
  await app.db.close();
});

beforeAll(async () => {
  app = await openApp(
    `[tracking]\nschedule = "0 */6 * * *"\nsamples = 2\n` +
      engine("perreq", "price_per_request = 0.01") +
      engine("tokens", "price_per_million_input_tokens = 2\nprice_per_million_output_tokens = 10") +
      engine("free", "") +
      engine("pending", "price_per_million_output_tokens = 5"),
  );
  s = await addBrand(app, {
    name: "Acme",
    domain: "acme.com",
    prompts: [
      { key: "a", text: "best crm" },
      { key: "b", text: "crm for startups" },
      { key: "c", text: "cheap crm" },
      { key: "d", text: "old one", archived: true },
    ],
  });
  const roster = await loadRoster(app.db, s.brandId);
  const tokens: Array<[number, number, "ok" | "error"]> = [
    [100, 500, "ok"],
    [300, 700, "ok"],
    [9000, 9000, "error"], // not a valid answer: not in the means
  ];
  for (const [i, [tin, tout, status]] of tokens.entries()) {
    await app.tracking.writer.write(
      app.db,
      {
        brandId: s.brandId,
        runId: null,
        promptId: s.prompts.a!,
        engine: "tokens",
        model: "m-tokens",
        sample: i,
        status,
        text: status === "ok" ? "Acme" : "",
        providerCitations: [],
        error: null,
        latencyMs: 1,
        tokensIn: tin,
        tokensOut: tout,
        createdAt: Date.now() - 3_600_000 * (i + 1),
      },
      { mentions: [], citations: [] },
      roster,
    );
  }
});

describe("the forecast", () => {
  test("prompts × engines × samples per run, × scheduled runs in 30 days per month; costs from prices and recent tokens", async () => {
    const f = await forecast(app, s.brandId);
    expect(f).toMatchObject({
      prompts: 3,
      engines: 4,
      samples: 2,
      schedule: { cron: "0 */6 * * *", enabled: true, runs_per_month: 120, runs_per_day: 4 },
      requests_per_run: 24,
      requests_per_month: 2880,
      requests_per_day: 96,
      estimated_cost_per_run: 0.0984,
      estimated_cost_per_month: 11.808,
      unestimated_engines: ["free", "pending"],
    });
    const by = Object.fromEntries(f.by_engine.map((e) => [e.id, e]));
    expect(by.perreq).toMatchObject({
      requests_per_run: 6,
      requests_per_month: 720,
      cost_per_request: 0.01,
      cost_per_run: 0.06,
      cost_per_month: 7.2,
    });
    expect(by.tokens).toMatchObject({
      avg_tokens_in: 200,
      avg_tokens_out: 600,
      token_sample: 2,
      cost_per_request: 0.0064,
      cost_per_run: 0.0384,
      cost_per_month: 4.608,
    });
    expect(by.free).toMatchObject({ cost_per_run: null });
    expect(by.free!.note).toContain("no price");
    expect(by.pending!.note).toContain("no answer of this engine has token counts yet");
  });

  test("the schedule's runs are counted over 30 days; scheduled tracking off makes none", () => {
    const from = new Date("2025-03-01T10:30:00Z");
    expect(runsIn("0 6 * * *", true, from)).toBe(30);
    // Saturday 1 March: Mondays 3, 10, 17, 24 and 31 March (06:00, before 31 March 10:30).
    expect(runsIn("0 6 * * 1", true, from)).toBe(5);
    expect(runsIn("*/15 * * * *", true, from)).toBe(30 * 96);
    expect(runsIn("0 6 * * *", false, from)).toBe(0);
  });

  test("any schedule's runs are counted exactly, without going through them one by one", () => {
    // What counting them one by one gives (croner's nextRun from run to run: seconds for every minute).
    const oneByOne = (cron: string, from: Date) => {
      const until = from.getTime() + 30 * 86_400_000;
      const job = new Cron(cron, { paused: true, timezone: "UTC" });
      let n = 0;
      for (let next = job.nextRun(from); next !== null && next.getTime() <= until; next = job.nextRun(next)) n++;
      return n;
    };
    const starts = ["2025-03-01T10:30:00Z", "2025-03-03T00:00:00Z", "2025-03-07T18:00:00.500Z", "2025-02-27T23:59:59.999Z"].map(
      (t) => new Date(t),
    );
    for (const cron of [
      "*/5 9-17 * * 1-5",
      "* 9 * * 1-5",
      "0 6 * * 1",
      "*/3 * 1 * *",
      "30 */2 * * *",
      "0 0 L * *",
      "15,45 8 1-7 * 1",
      "*/20 * 12 * * *",
    ]) {
      for (const from of starts) expect({ cron, from, runs: runsIn(cron, true, from) }).toEqual({ cron, from, runs: oneByOne(cron, from) });
    }
    expect(runsIn("* * * * *", true, starts[0]!)).toBe(30 * 1440);
    expect(runsIn("* * * * * *", true, starts[0]!)).toBe(30 * 86_400);
  });

  test("get_tracking_status carries the same forecast", async () => {
    expect((await getTrackingStatus(app, s.brandId, {})).forecast).toEqual(await forecast(app, s.brandId));
  });

  test("spyglass track --dry-run prints it, sends nothing and records no run", async () => {
    const written: string[] = [];
    const out = { stdout: { write: (text: string) => written.push(text) } };
    // The engines' keys are not needed for a dry run.
    expect(await trackCommand(app, { brandId: s.brandId, json: false, dryRun: true, out })).toBe(0);
    const text = written.join("");
    expect(text).toContain(`Acme (${s.brandId}): 3 prompts × 4 engines × 2 samples = 24 requests per run`);
    expect(text).toContain('schedule "0 */6 * * *" (UTC): 120 runs in the next 30 days → 2880 requests per month (96 a day)');
    expect(text).toContain("estimated cost: ~0.0984 per run, ~11.81 per month (not counted: free, pending)");
    expect(text).toContain("Dry run: nothing was sent to any engine.");
    expect(await app.db.get("SELECT count(*) AS n FROM tracking_runs")).toEqual({ n: 0 });

    written.length = 0;
    expect(await trackCommand(app, { brandId: s.brandId, json: true, dryRun: true, out })).toBe(0);
    const [json] = JSON.parse(written.join("")) as Array<{ brand_id: string; requests_per_month: number }>;
    expect(json).toMatchObject({ brand_id: s.brandId, requests_per_month: 2880 });
  });

  test("a brand the schedule leaves out (its account on plan none) is forecast with no scheduled run", async () => {
    const written: string[] = [];
    const out = { stdout: { write: (text: string) => written.push(text) } };
    const accountId = (await app.db.get<{ account_id: string }>("SELECT account_id FROM brands WHERE id = ?", [s.brandId]))!.account_id;
    await app.db.run("UPDATE accounts SET plan = 'none' WHERE id = ?", [accountId]);
    try {
      expect(await trackCommand(app, { brandId: s.brandId, json: false, dryRun: true, out })).toBe(0);
      const text = written.join("");
      expect(text).toContain("not on the schedule (its account has no paid plan, it has no active prompt, or it is the demo's)");
      expect(text).not.toContain("120 runs in the next 30 days");
      // Nothing a month is 0, not "~0.0000" (the CLI walk).
      expect(text).toContain("~0 per month");
      expect(text).not.toContain("0.0000");
      written.length = 0;
      expect(await trackCommand(app, { brandId: s.brandId, json: true, dryRun: true, out })).toBe(0);
      expect(JSON.parse(written.join(""))[0]).toMatchObject({ requests_per_run: 24, requests_per_month: 0 });
    } finally {
      await app.db.run("UPDATE accounts SET plan = 'visibility' WHERE id = ?", [accountId]);
    }
  });

  test("before any answer, an unknown cost says why: a price per token needs a run's token counts; a price per request is its floor", async () => {
    const fresh = await openApp(
      engine("pending", "price_per_million_output_tokens = 5") +
        engine("both", "price_per_request = 0.02\nprice_per_million_input_tokens = 1"),
    );
    try {
      const b = await addBrand(fresh, { name: "New", prompts: [{ key: "a", text: "best crm" }] });
      const f = await forecast(fresh, b.brandId);
      expect(f.by_engine.find((e) => e.id === "both")!.note).toContain("at least 0.0200 a request");
      expect(forecastText(f, "New", b.brandId)).toContain(
        "estimated cost: unknown (the engines priced per token need an answer's token counts first: run tracking once, then check again)",
      );
    } finally {
      await fresh.db.close();
    }
    // Without any price at all, it says that instead (it said "no engine has a price it can be estimated from" for both).
    const unpriced = await openApp(engine("free", ""));
    try {
      const b = await addBrand(unpriced, { name: "Free", prompts: [{ key: "a", text: "best crm" }] });
      expect(forecastText(await forecast(unpriced, b.brandId), "Free", b.brandId)).toContain(
        "estimated cost: unknown (no engine has a price in spyglass.toml)",
      );
    } finally {
      await unpriced.db.close();
    }
  });

  test("one scheduled run is one run", async () => {
    const f = await forecast(app, s.brandId);
    const once = { ...f, schedule: { ...f.schedule, runs_per_month: 1 } };
    expect(forecastText(once, "Acme", s.brandId)).toContain(" 1 run in the next 30 days → ");
  });

  test("without engines, the dry run says that nothing would be asked and how to add an engine", async () => {
    const none = { ...(await forecast(app, s.brandId)), engines: 0, by_engine: [], requests_per_run: 0, requests_per_month: 0 };
    expect(forecastText(none, "Acme", s.brandId)).toBe(
      `Acme (${s.brandId}): 3 prompts × 0 engines × 2 samples = 0 requests per run\n  no engine is configured, so nothing would be asked: add an [[engines]] section to spyglass.toml\n`,
    );
  });
});
