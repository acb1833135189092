// The random answer sets, filters and from-scratch checks shared by rollups-random.test.ts and
// rollups-race.test.ts.
import { expect } from "bun:test";
import { join } from "node:path";
import { type FilterInput, resolveFilter } from "../../src/analytics/filters";
import { contentGaps, promptPerformance } from "../../src/analytics/prompts";
import { type Figures, visibilityOverview } from "../../src/analytics/visibility";
import { type AppContext, createAppContext } from "../../src/context";
import { openDatabase } from "../../src/db/client";
import { type Queries } from "../../src/db/queries";
import { ALL_ENGINES, type AnswerStatus } from "../../src/db/schema";
import { loadRoster } from "../../src/tracking/roster";
import { openTestDatabase } from "../support/database";
import { scratchDir } from "../support/scratch";
import { addBrand, configOf, openApp, type SeededBrand } from "./dataset";

const DAY = 86_400_000;
const START = Date.parse("2025-03-01T00:00:00Z");
export const DAYS = 40;
export const ENGINES = ["gpt", "claude", "sonar"];
const STATUSES: AnswerStatus[] = ["ok", "ok", "ok", "ok", "ok", "ok", "error", "refusal", "empty"];
export const TEXTS = [
  "Acme is the best; Globex is fine. See https://acme.com/pricing and https://g2.com/crm.",
  "Globex leads, then Initech. Acme is pricey.",
  "Initech, honestly. Roadrunner too.",
  "Nobody you know.",
  "Roadrunner and Acme, in that order.",
  "Hooli is new; Globex is old.",
  "Acme alone.",
  "Initech or Hooli? https://initech.com/ says Initech.",
];

export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A brand with competitors, tags and prompts; `file`: on an SQLite file (as `serve` runs) rather than the test database. */
/** `file`: the test database in a file (SQLite) or PostgreSQL, as the pass runs; `sqliteFile`: an SQLite file in either pass. */
export async function world(
  options: { file?: boolean; sqliteFile?: boolean } = {},
): Promise<{ app: AppContext; s: SeededBrand; prompts: string[] }> {
  const file = () => join(scratchDir("spyglass-race-"), "spyglass.db");
  const app = options.sqliteFile
    ? createAppContext(configOf(""), openDatabase(file()))
    : options.file
      ? createAppContext(configOf(""), await openTestDatabase({ file: file() }))
      : await openApp();
  const s = await addBrand(app, {
    name: "Acme",
    domain: "acme.com",
    competitors: [
      { key: "G", name: "Globex" },
      { key: "I", name: "Initech", domains: ["initech.com"] },
    ],
    tags: ["red", "blue", "green"],
    prompts: Array.from({ length: 9 }, (_, i) => ({
      key: `P${i}`,
      text: `prompt ${i}`,
      tags: i % 3 === 0 ? ["red", "blue"] : i % 3 === 1 ? ["blue"] : ["green"],
      archived: i === 8,
    })),
  });
  return { app, s, prompts: Object.values(s.prompts) };
}

export async function storeRandom(
  app: AppContext,
  s: SeededBrand,
  prompts: string[],
  rand: () => number,
  n: number,
  sample: number,
  /** The first of the DAYS days the answers fall on. */
  start = START,
): Promise<void> {
  const roster = await loadRoster(app.db, s.brandId);
  const answered = prompts.filter((_, i) => i !== 7);
  await app.db.transaction(async () => {
    for (let i = 0; i < n; i++) {
      const status = STATUSES[Math.floor(rand() * STATUSES.length)]!;
      await app.tracking.storeAnswer(
        {
          brandId: s.brandId,
          runId: null,
          // Prompt 7 never gets answers: a prompt without data (the archived prompt 8 has some).
          promptId: answered[Math.floor(rand() * answered.length)]!,
          engine: ENGINES[Math.floor(rand() * ENGINES.length)]!,
          model: "m",
          sample: sample + i,
          status,
          text: status === "ok" ? TEXTS[Math.floor(rand() * TEXTS.length)]! : "",
          providerCitations: rand() < 0.2 ? ["https://www.acme.com/blog/"] : [],
          error: null,
          latencyMs: 1,
          tokensIn: 1,
          tokensOut: 1,
          // Days 10 to 12 have nothing at all.
          createdAt:
            start +
            [...Array(DAYS).keys()].filter((d) => d < 10 || d > 12)[Math.floor(rand() * (DAYS - 3))]! * DAY +
            Math.floor(rand() * DAY),
        },
        roster,
      );
    }
  });
}

interface Row {
  prompt_id: string;
  engine: string;
  created_at: number;
  status: string;
  brand_mentioned: number;
  brand_position: number | null;
  roster_mentions: number;
}

const ANSWER_ROWS =
  "SELECT prompt_id, engine, created_at, status, brand_mentioned, brand_position, roster_mentions FROM answers WHERE brand_id = ?";

/** The filter's answers, straight from the answers table. */
async function answersOf(
  app: AppContext,
  brandId: string,
  promptIds: Set<string> | null,
  engine: string | null,
  from: number,
  to: number,
): Promise<Row[]> {
  return (await app.db.all<Row>(ANSWER_ROWS, [brandId])).filter(
    (a) =>
      a.created_at >= from &&
      a.created_at < to &&
      (engine === null || a.engine === engine) &&
      (promptIds === null || promptIds.has(a.prompt_id)),
  );
}

async function scopeOf(app: AppContext, s: SeededBrand, input: FilterInput): Promise<Set<string> | null> {
  let ids: Set<string> | null = null;
  if (input.tag !== undefined) {
    ids = new Set(
      (await app.db.all<{ prompt_id: string }>("SELECT prompt_id FROM prompt_tags WHERE tag_id = ?", [s.tags[input.tag]!])).map(
        (r) => r.prompt_id,
      ),
    );
  }
  if (input.prompt_id !== undefined) ids = new Set(ids === null || ids.has(input.prompt_id) ? [input.prompt_id] : []);
  return ids;
}

export async function expectFiguresFromScratch(app: AppContext, s: SeededBrand, input: FilterInput): Promise<void> {
  const f = await resolveFilter(app, s.brandId, input);
  const scope = await scopeOf(app, s, input);
  const cur = await answersOf(app, s.brandId, scope, f.engine, f.period.start, f.period.end);
  const prev = await answersOf(app, s.brandId, scope, f.engine, f.previous.start, f.previous.end);
  const ok = (rows: Row[]) => rows.filter((a) => a.status === "ok");
  const covered = (rows: Row[], pick: (a: Row) => boolean) => new Set(rows.filter(pick).map((a) => a.prompt_id)).size;

  const o = await visibilityOverview(app, f);
  const check = (figures: Figures, rowsNow: Row[], rowsBefore: Row[]) => {
    expect(figures.answers).toEqual({
      total: rowsNow.length,
      valid: ok(rowsNow).length,
      no_answer: rowsNow.length - ok(rowsNow).length,
    });
    expect([figures.visibility.successes, figures.visibility.n]).toEqual([
      rowsNow.filter((a) => a.brand_mentioned).length,
      ok(rowsNow).length,
    ]);
    expect(figures.share_of_voice.n).toBe(rowsNow.reduce((n, a) => n + a.roster_mentions, 0));
    expect([figures.prompt_coverage.successes, figures.prompt_coverage.n]).toEqual([
      covered(rowsNow, (a) => a.brand_mentioned === 1),
      covered(rowsNow, (a) => a.status === "ok"),
    ]);
    expect([figures.prompt_coverage.previous.successes, figures.prompt_coverage.previous.n]).toEqual([
      covered(rowsBefore, (a) => a.brand_mentioned === 1),
      covered(rowsBefore, (a) => a.status === "ok"),
    ]);
  };
  check(o, cur, prev);
  for (const e of o.by_engine) {
    check(
      e,
      cur.filter((a) => a.engine === e.engine),
      prev.filter((a) => a.engine === e.engine),
    );
  }

  const perf = await promptPerformance(app, f, { limit: 100, offset: 0, order: "visibility_desc" });
  const byPrompt = new Map<string, Row[]>();
  for (const a of cur) byPrompt.set(a.prompt_id, [...(byPrompt.get(a.prompt_id) ?? []), a]);
  expect(
    perf.prompts
      .map((p) => ({ id: p.id, ...p.answers, mentioned: p.visibility.successes, position: p.avg_position.value }))
      .sort((a, b) => a.id.localeCompare(b.id)),
  ).toEqual(
    [...byPrompt.entries()]
      .map(([id, rows]) => {
        const mentioned = rows.filter((a) => a.brand_mentioned).length;
        const posSum = rows.reduce((n, a) => n + (a.brand_position ?? 0), 0);
        return {
          id,
          total: rows.length,
          valid: ok(rows).length,
          mentioned,
          position: mentioned === 0 ? null : Math.round((posSum / mentioned) * 10_000) / 10_000,
        };
      })
      .sort((a, b) => a.id.localeCompare(b.id)),
  );

  const gaps = await contentGaps(app, f, { limit: 100, offset: 0 });
  const expectedGaps = [...byPrompt.entries()]
    .map(([id, rows]) => ({
      prompt_id: id,
      competitor_answers: rows.filter((a) => a.roster_mentions > a.brand_mentioned).length,
      valid_answers: ok(rows).length,
      brand: rows.some((a) => a.brand_mentioned === 1),
    }))
    .filter((g) => !g.brand && g.competitor_answers > 0)
    .map(({ brand: _, ...g }) => g)
    .sort((a, b) => b.competitor_answers - a.competitor_answers || a.prompt_id.localeCompare(b.prompt_id));
  expect(gaps.total_gaps).toBe(expectedGaps.length);
  expect(gaps.gaps.map(({ prompt_id, competitor_answers, valid_answers }) => ({ prompt_id, competitor_answers, valid_answers }))).toEqual(
    expectedGaps,
  );
}

/**
 * prompt_days and prompt_coverage_days against the same sums computed in JavaScript from the answers,
 * all read at one moment: in one transaction, which on PostgreSQL reads one snapshot (REPEATABLE
 * READ; READ COMMITTED would let a re-analysis slice commit between the reads).
 */
export function expectPromptRollupsRight(app: AppContext, brandId: string): Promise<void> {
  return app.db.transaction(async (tx) => {
    if (tx.dialect === "postgres") await tx.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ");
    await expectRollupsOf(tx, brandId);
  });
}

async function expectRollupsOf(db: Queries, brandId: string): Promise<void> {
  const rows = await db.all<Row>(ANSWER_ROWS, [brandId]);
  const days = new Map<string, { prompt_id: string; engine: string; day: number; v: number[] }>();
  for (const a of rows) {
    for (const engine of [a.engine, ALL_ENGINES]) {
      const day = Math.floor(a.created_at / DAY);
      const key = `${a.prompt_id} ${engine} ${day}`;
      const d = days.get(key) ?? { prompt_id: a.prompt_id, engine, day, v: [0, 0, 0, 0, 0] };
      d.v[0]! += 1;
      d.v[1]! += a.status === "ok" ? 1 : 0;
      d.v[2]! += a.brand_mentioned;
      d.v[3]! += a.brand_position ?? 0;
      d.v[4]! += a.roster_mentions > a.brand_mentioned ? 1 : 0;
      days.set(key, d);
    }
  }
  const expectedDays = [...days.values()]
    .map((d) => ({
      prompt_id: d.prompt_id,
      engine: d.engine,
      day: d.day,
      total: d.v[0],
      valid: d.v[1],
      mentioned: d.v[2],
      position_sum: d.v[3],
      competitor: d.v[4],
    }))
    .sort((a, b) => a.prompt_id.localeCompare(b.prompt_id) || a.engine.localeCompare(b.engine) || a.day - b.day);
  const storedDays = (
    await db.all<{ prompt_id: string; engine: string; day: number }>(
      "SELECT prompt_id, engine, day, total, valid, mentioned, position_sum, competitor FROM prompt_days WHERE brand_id = ?",
      [brandId],
    )
  ).sort((a, b) => a.prompt_id.localeCompare(b.prompt_id) || a.engine.localeCompare(b.engine) || a.day - b.day);
  expect(storedDays).toEqual(expectedDays);

  const coverage = new Map<string, number>();
  for (const kind of ["valid", "mentioned"] as const) {
    const occurrences = new Map<string, number[]>();
    for (const d of expectedDays) {
      if ((kind === "valid" ? d.valid : d.mentioned)! > 0) {
        const key = `${d.prompt_id} ${d.engine}`;
        occurrences.set(key, [...(occurrences.get(key) ?? []), d.day]);
      }
    }
    for (const [key, list] of occurrences) {
      const engine = key.split(" ")[1]!;
      list.forEach((day, i) => {
        const k = `${engine} ${kind} ${day} ${i === 0 ? -1 : list[i - 1]}`;
        coverage.set(k, (coverage.get(k) ?? 0) + 1);
      });
    }
  }
  const storedCoverage = Object.fromEntries(
    (
      await db.all<{ engine: string; kind: string; day: number; prev_day: number; prompts: number }>(
        "SELECT engine, kind, day, prev_day, prompts FROM prompt_coverage_days WHERE brand_id = ?",
        [brandId],
      )
    ).map((r) => [`${r.engine} ${r.kind} ${r.day} ${r.prev_day}`, r.prompts]),
  );
  expect(storedCoverage).toEqual(Object.fromEntries(coverage));
}

export function randomFilters(prompts: string[], rand: () => number, n: number): FilterInput[] {
  const day = (k: number) => new Date(START + k * DAY).toISOString().slice(0, 10);
  const out: FilterInput[] = [];
  for (let i = 0; i < n; i++) {
    const a = Math.floor(rand() * DAYS);
    const b = Math.min(DAYS + 2, a + Math.floor(rand() * 25));
    const input: FilterInput = { start_date: day(a), end_date: day(b) };
    if (rand() < 0.4) input.engine = ENGINES[Math.floor(rand() * ENGINES.length)]!;
    if (rand() < 0.3) input.tag = ["red", "blue", "green"][Math.floor(rand() * 3)]!;
    if (rand() < 0.2) input.prompt_id = prompts[Math.floor(rand() * prompts.length)]!;
    out.push(input);
  }
  // The whole range, and the period before any answer.
  out.push({ start_date: day(0), end_date: day(DAYS) }, { start_date: "2024-01-01", end_date: "2024-01-31" });
  return out;
}

export async function addCompetitor(app: AppContext, brandId: string, id: string, name: string): Promise<void> {
  await app.db.run("INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES (?, ?, ?, '[]', '[]', 9)", [
    id,
    brandId,
    name,
  ]);
}
