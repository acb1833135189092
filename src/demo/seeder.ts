// `spyglass demo`: a clearly labelled demo account (Autopilot) with a brand, competitors, tagged
// prompts and 60 days × 3 engines of answers composed from templates and analysed with the real
// analysis code, plus one published article. `--scale N` multiplies the prompts for benchmarks.
// The data set is built to show every verdict: per engine, the chance of a mention differs between
// the previous 30 days and the last 30 (ChatGPT up, Claude down, Perplexity the same), while citation
// chances stay the same (within noise) and provider errors become rarer (no-answer rate down). The article is linked to the weakest prompt
// that is not a gap and published 14 days ago: after it, that prompt's answers mention the brand
// far more often and some cite the article's URL, so get_article_impact has an effect to show.
// Deterministic (seeded), and fast: a pool of distinct answers is analysed once, then rows are
// written through tracking's answer writer in large transactions. Every other record is made
// through its feature's service, as a user's would be.
import { createAccount, deleteAccount, findAccountByEmail } from "../accounts/service";
import { createBrand, listBrands } from "../brands/service";
import { createCompetitor } from "../competitors/service";
import { publishArticle } from "../content/publishing";
import { createArticle } from "../content/service";
import { type AppContext } from "../context";
import { type AnswerStatus } from "../db/values";
import { Conflict, Invalid } from "../errors";
import { createApiKey } from "../keys/service";
import { createPrompts, type NewPrompt, PROMPTS_PER_CALL } from "../prompts/service";
import { createTag } from "../prompts/tags";
import { type AnswerAnalysis } from "../tracking/analysis/analyze";
import { analyzeForStorage, type BrandFigures, brandFigures, type NewAnswer, RollupDelta } from "../tracking/answer-writer";
import { loadRoster, type Roster } from "../tracking/roster";
import { type SearchRecord, SearchStore } from "../tracking/search-store";
import * as T from "./templates";

export const DEMO_DAYS = 60;
/** The article is published this many days before today (noon UTC). */
export const DEMO_ARTICLE_AGE_DAYS = 14;
/** Chance of a mention on the article's prompt (times the engine's bias) once the article is out. */
const ARTICLE_AFFINITY = 0.8;
/** Chance that an answer on the article's prompt after publication cites the article. */
const ARTICLE_CITED = 0.4;
export const MAX_SCALE = 500;
const POOL_SIZE = 1_500;
/** Rows drawn before they are written (the seeded sequence depends on it: keep it). */
const ROWS_PER_BUFFER = 20_000;
/**
 * Writing time per transaction before the event loop and the database lock are yielded (the slice's
 * rollups, applied after it, add a few milliseconds). On SQLite a transaction holds the process (its queries are synchronous); on PostgreSQL the process goes on
 * while a slice waits for the server, and a slice holds only the new brand's rollup lock.
 */
const SLICE_MS = { sqlite: 10, postgres: 200 };
/**
 * Answers per batch of multi-row statements; a slice writes batches until its time is up. On SQLite
 * small, so that a slice ends close to its time; on PostgreSQL, where each statement is a round trip, large.
 */
const BATCH_ROWS = { sqlite: 16, postgres: 256 };

export interface DemoOptions {
  scale?: number;
  /** Delete an existing demo account first; without it, a second run is refused. */
  reset?: boolean;
  now?: number;
  seed?: number;
}

export interface DemoResult {
  login: { email: string; password: string };
  account_id: string;
  brand: { id: string; name: string; domain: string | null; site_key: string };
  api_key: string;
  competitors: number;
  prompts: number;
  answers: number;
  article: { id: string; slug: string } | null;
  seconds: number;
}

/** mulberry32: a small seeded generator, so the demo data set is the same on every machine. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Refuses a scale out of range (the CLI checks it before it opens, or creates, the database). */
export function checkDemoScale(scale: number): void {
  if (!Number.isInteger(scale) || scale < 1 || scale > MAX_SCALE) {
    throw new Invalid(`--scale must be a whole number from 1 to ${MAX_SCALE}.`, "invalid_scale");
  }
}

export async function seedDemo(app: AppContext, options: DemoOptions = {}): Promise<DemoResult> {
  const started = performance.now();
  const scale = options.scale ?? 1;
  checkDemoScale(scale);
  const db = app.db;
  const existing = await findAccountByEmail(db, T.DEMO_EMAIL);
  if (existing) {
    if (!options.reset) {
      throw new Conflict(
        `The demo account (${T.DEMO_EMAIL}) already exists; run "spyglass demo --reset" to delete it and seed it again.`,
        "demo_exists",
      );
    }
    // Not under a tracking run of the demo's (the server's, started from the dashboard or a client):
    // its end then found its brand gone. Closed to new runs while it goes, as a brand's deletion is.
    const runner = app.tracking.runner;
    const closed: string[] = [];
    try {
      for (const brand of await listBrands(db, existing.id)) {
        if (!(await runner.closeBrand(brand.id))) {
          throw new Conflict(
            `A tracking run of ${brand.name} is under way: run "spyglass demo --reset" once it has ended (the brand's Tracking page shows its progress). Nothing was deleted.`,
            "tracking_running",
          );
        }
        closed.push(brand.id);
      }
      await deleteAccount(db, existing.id);
    } finally {
      for (const id of closed) runner.reopenBrand(id);
    }
  }

  const rand = random(options.seed ?? 20250101);
  const pick = <X>(list: readonly X[]): X => list[Math.floor(rand() * list.length)]!;
  const password = `demo-${Buffer.from(crypto.getRandomValues(new Uint8Array(9))).toString("base64url")}`;
  const account = await createAccount(db, { email: T.DEMO_EMAIL, password, plan: "autopilot" });
  const brand = await createBrand(db, account.id, T.DEMO_BRAND);
  const now = options.now ?? Date.now();

  for (const competitor of T.DEMO_COMPETITORS) await createCompetitor(app, brand.id, competitor);
  // Each competitor above started a re-analysis of the brand's answers (none yet): let it end
  // before any answer is written, or it would go over all of them once more.
  await app.tracking.reanalyzeBrand(brand.id);
  const tagNames: string[] = [];
  for (const t of T.DEMO_TAGS) tagNames.push((await createTag(db, brand.id, t)).name);
  const planned: Array<{ prompt: NewPrompt; tag: number; affinity: number }> = [];
  for (let copy = 0; copy < scale; copy++) {
    for (const [tag, base] of T.DEMO_PROMPTS) {
      const text = copy === 0 ? base : `${base.replace(/\?$/, "")} for ${variant(copy)}?`;
      // One prompt in five is a gap (the brand never appears); the rest range from weak to strong.
      const affinity = rand() < 0.2 ? 0 : 0.15 + rand() * 0.75;
      planned.push({ prompt: { text, tags: [tagNames[tag]!], language: "en" }, tag, affinity });
    }
  }
  const promptRows: Array<{ id: string; tag: number; affinity: number }> = [];
  // issue 21: createPrompts is handed the transaction (tx) once it takes Queries (branch conv-content).
  await db.transaction(async () => {
    for (let start = 0; start < planned.length; start += PROMPTS_PER_CALL) {
      const chunk = planned.slice(start, start + PROMPTS_PER_CALL);
      const { created } = await createPrompts(
        db,
        brand.id,
        chunk.map((p) => p.prompt),
      );
      if (created.length !== chunk.length) throw new Error("demo prompt texts must be distinct");
      created.forEach((prompt, k) => {
        promptRows.push({ id: prompt.id, tag: chunk[k]!.tag, affinity: chunk[k]!.affinity });
      });
    }
  });

  const roster = await loadRoster(db, brand.id);
  const pool = buildPool(roster, rand, pick);
  const withBrand = pool.filter((p) => p.hasBrand);
  const withoutBrand = pool.filter((p) => !p.hasBrand);

  const today = Math.floor(now / 86_400_000) * 86_400_000;
  // The article: written for the weakest prompt the brand still appears on, published in the past.
  const articlePrompt = promptRows.filter((p) => p.affinity > 0).reduce((a, b) => (b.affinity < a.affinity ? b : a));
  const publishedAt = Math.min(now - 1000, today - DEMO_ARTICLE_AGE_DAYS * 86_400_000 + 12 * 3_600_000);
  // Written two days before it was published (its created_at came after its published_at).
  const draft = await createArticle(db, brand.id, { ...T.DEMO_ARTICLE, promptId: articlePrompt.id }, publishedAt - 2 * 86_400_000);
  const article = await publishArticle(app, brand.id, draft.id, publishedAt);
  // Answers that mention the brand and cite the article's page on the brand's site.
  const articleUrl = `https://${T.DEMO_BRAND.domain}/blog/${article.slug}`;
  const citingArticle = withBrand.slice(0, 40).map((entry) => {
    const base = entry.variants[0];
    return analysedVariant(`${base.text}\n\nSee: ${articleUrl}`, [], roster);
  });

  const writer = app.tracking.writer;
  const searches = new SearchStore();
  // A bulk load on SQLite: a bigger page cache keeps the growing indexes in memory. Durability is
  // unchanged (WAL, synchronous=NORMAL); the cache goes back to its usual size afterwards.
  const sqlite = db.dialect === "sqlite";
  const cacheSize = sqlite ? ((await db.get<{ cache_size: number }>("PRAGMA cache_size"))?.cache_size ?? -32000) : 0;
  if (sqlite) await db.run("PRAGMA cache_size = -262144");
  let answers = 0;
  // Rows wait in a buffer of ROWS_PER_BUFFER; their latency is drawn when the buffer is written,
  // which keeps the seeded sequence (and so the demo data set) as it was. The buffer is written in
  // slices of SLICE_MS, each one transaction, yielding in between: no long stall of the event loop
  // or of another process waiting for the database. A batch's rows go in a few multi-row statements.
  const rows: PendingRow[] = [];
  const sliceMs = sqlite ? SLICE_MS.sqlite : SLICE_MS.postgres;
  const batchRows = sqlite ? BATCH_ROWS.sqlite : BATCH_ROWS.postgres;
  const flush = async (): Promise<void> => {
    const ready = rows.map((row) => {
      const answer: NewAnswer = {
        brandId: brand.id,
        runId: null,
        promptId: row.promptId,
        engine: row.engine.id,
        model: row.engine.model,
        sample: 0,
        status: row.status,
        text: row.text,
        providerCitations: row.variant?.providerCitations ?? [],
        error: row.error,
        latencyMs: row.status === "error" ? 60_000 : 1_500 + Math.floor(rand() * 6_000),
        tokensIn: row.status === "error" ? null : 12 + (row.p % 20),
        tokensOut: row.text === "" ? null : Math.round(row.text.length / 4),
        createdAt: row.createdAt,
      };
      return { answer, variant: row.variant, row };
    });
    rows.length = 0;
    for (let next = 0; next < ready.length; ) {
      await db.transaction(async (tx) => {
        const started = performance.now();
        const delta = new RollupDelta();
        do {
          const batch = ready.slice(next, next + batchRows);
          next += batch.length;
          const ids = await writer.appendMany(
            tx,
            batch.map(({ answer, variant: v }) => ({
              answer,
              analysis: v?.analysis ?? NO_ANALYSIS,
              figures: v?.figures ?? NO_FIGURES,
              providerCitationsJson: v?.citationsJson ?? "[]",
            })),
            roster.brandId,
            delta,
          );
          await searches.writeMany(
            tx,
            batch.flatMap(({ row }, k) =>
              row.status === "ok"
                ? [
                    {
                      answerId: ids[k]!,
                      answer: { brandId: brand.id, engine: row.engine.id, promptId: row.promptId, createdAt: row.createdAt },
                      record: demoSearch(row),
                    },
                  ]
                : [],
            ),
          );
        } while (next < ready.length && performance.now() - started < sliceMs);
        await writer.applyRollups(tx, delta);
      });
      await db.betweenSlices();
    }
  };
  for (let d = DEMO_DAYS - 1; d >= 0; d--) {
    const dayStart = today - d * 86_400_000;
    // The last 30 days are the current period; before them, the previous one. Within each, a gentle
    // upward trend, so the trend tool has something to show.
    const current = d < DEMO_DAYS / 2;
    const half = DEMO_DAYS / 2;
    const trend = 0.95 + 0.1 * ((half - 1 - (d % half)) / (half - 1));
    for (const [e, engine] of T.DEMO_ENGINES.entries()) {
      const shift = current ? engine.currentFactor : engine.previousFactor;
      for (const [p, prompt] of promptRows.entries()) {
        const createdAt = Math.min(now - 1000, dayStart + 6 * 3_600_000 + e * 600_000 + (p % 3_600) * 1_000);
        const afterArticle = prompt === articlePrompt && createdAt > publishedAt;
        const roll = rand();
        let status: AnswerStatus = "ok";
        // Fewer provider errors in the last 30 days than before: the no-answer rate goes down.
        const errors = current ? 0.03 : 0.06;
        if (roll < errors) status = "error";
        else if (roll < errors + 0.02) status = "refusal";
        else if (roll < errors + 0.03) status = "empty";
        let text = "";
        let error: string | null = null;
        let variant: PoolVariant | null = null;
        if (status === "ok") {
          const affinity = afterArticle ? ARTICLE_AFFINITY : prompt.affinity;
          const mentionBrand = rand() < Math.min(0.97, affinity * engine.brandBias * shift * trend);
          const entry = pick(mentionBrand ? withBrand : withoutBrand);
          const cite = rand() < engine.citationRate;
          variant = entry.variants[cite ? (engine.providerCitations ? 2 : 1) : 0];
          if (afterArticle && mentionBrand && rand() < ARTICLE_CITED) variant = pick(citingArticle);
          text = variant.text;
        } else if (status === "refusal") {
          text = pick(T.REFUSALS);
        } else if (status === "error") {
          error = pick(T.ERRORS);
        }
        rows.push({ promptId: prompt.id, p, engine, status, text, error, variant, createdAt });
        answers++;
        if (rows.length >= ROWS_PER_BUFFER) await flush();
      }
    }
  }
  await flush();
  if (sqlite) await db.run(`PRAGMA cache_size = ${cacheSize}`);

  const key = await createApiKey(db, account.id, { name: "Demo key", brandId: brand.id });
  await db.run("ANALYZE");

  return {
    login: { email: T.DEMO_EMAIL, password },
    account_id: account.id,
    brand: { id: brand.id, name: brand.name, domain: brand.domain, site_key: brand.site_key },
    api_key: key.plaintext,
    competitors: T.DEMO_COMPETITORS.length,
    prompts: promptRows.length,
    answers,
    article: { id: article.id, slug: article.slug },
    seconds: Math.round((performance.now() - started) / 10) / 100,
  };
}

function variant(copy: number): string {
  const industry = T.SCALE_INDUSTRIES[copy % T.SCALE_INDUSTRIES.length]!;
  const region = T.SCALE_REGIONS[Math.floor(copy / T.SCALE_INDUSTRIES.length) % T.SCALE_REGIONS.length]!;
  const round = Math.floor(copy / (T.SCALE_INDUSTRIES.length * T.SCALE_REGIONS.length));
  return round === 0 ? `${industry} ${region}` : `${industry} ${region} (${round + 1})`;
}

/** One stored form of a pool answer, analysed once, with the figures and JSON every row of it reuses. */
interface PoolVariant {
  text: string;
  providerCitations: string[];
  citationsJson: string;
  analysis: AnswerAnalysis;
  figures: BrandFigures;
}

interface PoolEntry {
  hasBrand: boolean;
  /** [no citations, markdown links and bare URLs in the text, provider-field citations]. */
  variants: [PoolVariant, PoolVariant, PoolVariant];
}

interface PendingRow {
  promptId: string;
  p: number;
  engine: (typeof T.DEMO_ENGINES)[number];
  status: AnswerStatus;
  text: string;
  error: string | null;
  variant: PoolVariant | null;
  createdAt: number;
}

/** Queries shared by many prompts, so get_search_queries has recurring ones to put first. */
const SHARED_QUERIES = ["best crm software 2025", "crm comparison small business", "crm pricing plans", "crm reviews g2"];
const RETRIEVED_PAGES = ["https://www.g2.com/categories/crm", "https://www.capterra.com/customer-relationship-management-software/"];

/**
 * What the demo's assistants searched and read, derived from the row itself (not from the seeded
 * random sequence, which the demo's figures depend on): the prompt as a query and a shared one, the
 * provider-cited URLs, two review sites, and for about a third of the answers a brand page.
 */
function demoSearch(row: PendingRow): SearchRecord {
  const day = Math.floor(row.createdAt / 86_400_000);
  const h = (row.p * 31 + day * 7 + row.engine.id.length * 13) % 12;
  if (h >= 10) return { queries: [], cited: [], retrieved: [] };
  const own = h % 3 === 0 ? [`https://${T.DEMO_BRAND.domain}/features`] : [];
  return {
    queries: [promptQuery(row), SHARED_QUERIES[(row.p + h) % SHARED_QUERIES.length]!],
    cited: (row.variant?.providerCitations ?? []).map((url) => ({ url, title: null, start: null, end: null })),
    retrieved: [...own, ...RETRIEVED_PAGES].map((url) => ({ url, title: null, start: null, end: null })),
  };
}

const promptQueries = new Map<string, string>();
function promptQuery(row: PendingRow): string {
  let q = promptQueries.get(row.promptId);
  if (q === undefined) {
    q = (T.DEMO_PROMPTS[row.p % T.DEMO_PROMPTS.length]?.[1] ?? "crm")
      .toLowerCase()
      .replace(/[?.!]/g, "")
      .replace(/^(what is|what are|which|how do i|how to|is there)\s+/, "")
      .trim();
    promptQueries.set(row.promptId, q);
  }
  return q;
}

const NO_ANALYSIS: AnswerAnalysis = { mentions: [], citations: [] };
const NO_FIGURES: BrandFigures = { mentioned: false, position: null, sentiment: null, cited: false, rosterMentions: 0 };

function analysedVariant(text: string, providerCitations: string[], roster: Roster): PoolVariant {
  const analysis = analyzeForStorage("ok", text, providerCitations, roster);
  return { text, providerCitations, citationsJson: JSON.stringify(providerCitations), analysis, figures: brandFigures(analysis, roster) };
}

/** Distinct answers, each analysed once with the real analysis code and reused across rows. */
function buildPool(roster: Roster, rand: () => number, pick: <X>(list: readonly X[]) => X): PoolEntry[] {
  const pool: PoolEntry[] = [];
  const brandNames = ["Northwind CRM", "Northwind"];
  for (let i = 0; i < POOL_SIZE; i++) {
    const hasBrand = i % 2 === 0;
    const members: Array<{ name: string; domain: string }> = [];
    if (hasBrand) members.push({ name: pick(brandNames), domain: T.DEMO_BRAND.domain });
    for (const c of T.DEMO_COMPETITORS) {
      if (rand() < 0.55) members.push({ name: rand() < 0.8 || c.aliases.length === 0 ? c.name : c.aliases[0]!, domain: c.domains[0]! });
    }
    // Some answers name nobody on the roster (generic advice).
    if (!hasBrand && rand() < 0.15) members.length = 0;
    shuffle(members, rand);
    const sentences = members.map((m) => {
      const mood = rand();
      const template = mood < 0.5 ? pick(T.POSITIVE) : mood < 0.8 ? pick(T.NEUTRAL) : pick(T.NEGATIVE);
      return template.replace("{name}", m.name);
    });
    const body =
      members.length === 0
        ? "Look for a tool with good pipeline views, email sync and fair per-seat pricing."
        : sentences.map((s, k) => `${k + 1}. ${s}`).join("\n");
    const plain = `${pick(T.INTROS)}\n\n${body}\n\n${pick(T.CLOSINGS)}`;

    const sources: string[] = [];
    const third = 1 + Math.floor(rand() * 3);
    for (let k = 0; k < third; k++) sources.push(pick(T.THIRD_PARTY_SOURCES));
    for (const m of members) if (rand() < 0.35) sources.push(`https://${rand() < 0.3 ? "www." : ""}${m.domain}${pick(T.MEMBER_PAGES)}`);
    const unique = [...new Set(sources)];
    const linked = `${plain}\n\nSources: ${unique.map((url, k) => (k % 2 === 0 ? `[${new URL(url).hostname.replace(/^www\./, "")}](${url})` : url)).join(", ")}`;
    const variant = (text: string, providerCitations: string[]) => analysedVariant(text, providerCitations, roster);
    pool.push({ hasBrand, variants: [variant(plain, []), variant(linked, []), variant(plain, unique)] });
  }
  return pool;
}

function shuffle<X>(list: X[], rand: () => number): void {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
}
