// Persistence of answers with their analysis (mentions, citations, the brand's denormalised figures),
// and re-analysis of a brand's stored answers when its roster changes. Writes use prepared
// statements so that a tracking run and the demo seeder share one fast path.
import type { Statement } from "bun:sqlite";
import type { Db } from "../db/client";
import type { AnswerStatus } from "../db/schema";
import { analyzeAnswer, type AnswerAnalysis } from "./analysis/analyze";
import { registrableDomain } from "./analysis/citations";
import type { RosterMember } from "./analysis/mentions";

/** The brand plus its competitors, brand first; `domains` decide whether a citation is "owned". */
export interface Roster {
  brandId: string;
  members: Array<RosterMember & { isBrand: boolean; domains: string[] }>;
  /** Hosts of the brand's own site (its domain), lowercased, without `www.`. */
  brandDomains: string[];
}

interface BrandRosterRow {
  name: string;
  domain: string | null;
  aliases: string;
}

interface CompetitorRow {
  id: string;
  name: string;
  aliases: string;
  domains: string;
}

/** Reads the roster as it stands now (brand name and aliases, competitors with aliases and domains). */
export function loadRoster(db: Db, brandId: string): Roster {
  const brand = db.sqlite.query<BrandRosterRow, [string]>("SELECT name, domain, aliases FROM brands WHERE id = ?").get(brandId);
  if (!brand) throw new Error(`brand ${brandId} does not exist`);
  const competitors = db.sqlite
    .query<CompetitorRow, [string]>("SELECT id, name, aliases, domains FROM competitors WHERE brand_id = ? ORDER BY created_at, id")
    .all(brandId);
  const brandDomains = brand.domain ? [brand.domain.toLowerCase()] : [];
  return {
    brandId,
    brandDomains,
    members: [
      { id: brandId, name: brand.name, aliases: parseList(brand.aliases), isBrand: true, domains: brandDomains },
      ...competitors.map((c) => ({
        id: c.id,
        name: c.name,
        aliases: parseList(c.aliases),
        isBrand: false,
        domains: parseList(c.domains),
      })),
    ],
  };
}

/** True when the URL's host is one of `domains` or a subdomain of one. */
export function isOnDomains(url: string, domains: readonly string[]): boolean {
  if (domains.length === 0) return false;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase().replace(/^www\./, "");
  } catch {
    return false;
  }
  return domains.some((d) => host === d || host.endsWith(`.${d}`));
}

/** The registrable domains that count as the brand's own at `level: "domain"` (get_top_sources). */
export function ownedRegistrableDomains(roster: Roster): Set<string> {
  return new Set(roster.brandDomains.map((d) => registrableDomain(d)));
}

export interface NewAnswer {
  brandId: string;
  runId: string | null;
  promptId: string;
  engine: string;
  model: string | null;
  sample: number;
  status: AnswerStatus;
  text: string;
  providerCitations: readonly string[];
  error: string | null;
  latencyMs: number | null;
  tokensIn: number | null;
  tokensOut: number | null;
  createdAt: number;
}

/** The brand's figures derived from an analysis, as stored on the answer row. */
export interface BrandFigures {
  mentioned: boolean;
  position: number | null;
  sentiment: number | null;
  cited: boolean;
}

export function brandFigures(analysis: AnswerAnalysis, roster: Roster): BrandFigures {
  const own = analysis.mentions.find((m) => m.member_id === roster.brandId);
  return {
    mentioned: own !== undefined,
    position: own?.rank ?? null,
    sentiment: own?.sentiment ?? null,
    cited: analysis.citations.some((c) => isOnDomains(c.url, roster.brandDomains)),
  };
}

const EMPTY_ANALYSIS: AnswerAnalysis = { mentions: [], citations: [] };

/** Only valid answers are analysed: the others are outside every denominator (METRICS.md). */
export function analyzeForStorage(status: AnswerStatus, text: string, providerCitations: readonly string[], roster: Roster): AnswerAnalysis {
  if (status !== "ok") return EMPTY_ANALYSIS;
  return analyzeAnswer({ text, providerCitations, roster: roster.members });
}

type Bind = Record<string, string | number | bigint | boolean | null>;

/** Prepared statements for writing answers; prepare once per database and reuse. */
export class AnswerWriter {
  private readonly insertAnswer: Statement;
  private readonly insertMention: Statement;
  private readonly insertCitation: Statement;

  constructor(private readonly db: Db) {
    this.insertAnswer = db.sqlite.prepare(
      `INSERT INTO answers (brand_id, run_id, prompt_id, engine, model, sample, status, text, provider_citations, error,
         latency_ms, tokens_in, tokens_out, created_at, brand_mentioned, brand_position, brand_sentiment, brand_cited)
       VALUES ($brand_id, $run_id, $prompt_id, $engine, $model, $sample, $status, $text, $provider_citations, $error,
         $latency_ms, $tokens_in, $tokens_out, $created_at, $mentioned, $position, $sentiment, $cited)
       RETURNING id`,
    );
    this.insertMention = db.sqlite.prepare(
      `INSERT INTO mentions (answer_id, brand_id, member_id, is_brand, "offset", rank, sentiment, engine, prompt_id, created_at)
       VALUES ($answer_id, $brand_id, $member_id, $is_brand, $offset, $rank, $sentiment, $engine, $prompt_id, $created_at)`,
    );
    this.insertCitation = db.sqlite.prepare(
      `INSERT OR IGNORE INTO citations (answer_id, brand_id, url, domain, engine, prompt_id, created_at)
       VALUES ($answer_id, $brand_id, $url, $domain, $engine, $prompt_id, $created_at)`,
    );
  }

  /** Inserts the answer and its analysis; call inside a transaction when writing many. Returns the answer id. */
  write(answer: NewAnswer, analysis: AnswerAnalysis, roster: Roster): number {
    const figures = brandFigures(analysis, roster);
    const row = this.insertAnswer.get({
      brand_id: answer.brandId,
      run_id: answer.runId,
      prompt_id: answer.promptId,
      engine: answer.engine,
      model: answer.model,
      sample: answer.sample,
      status: answer.status,
      text: answer.text,
      provider_citations: JSON.stringify(answer.providerCitations),
      error: answer.error,
      latency_ms: answer.latencyMs,
      tokens_in: answer.tokensIn,
      tokens_out: answer.tokensOut,
      created_at: answer.createdAt,
      mentioned: figures.mentioned ? 1 : 0,
      position: figures.position,
      sentiment: figures.sentiment,
      cited: figures.cited ? 1 : 0,
    } satisfies Bind) as { id: number };
    this.writeAnalysis(row.id, answer, analysis, roster);
    return row.id;
  }

  writeAnalysis(
    answerId: number,
    answer: Pick<NewAnswer, "brandId" | "engine" | "promptId" | "createdAt">,
    analysis: AnswerAnalysis,
    roster: Roster,
  ): void {
    for (const m of analysis.mentions) {
      this.insertMention.run({
        answer_id: answerId,
        brand_id: answer.brandId,
        member_id: m.member_id,
        is_brand: m.member_id === roster.brandId ? 1 : 0,
        offset: m.offset,
        rank: m.rank,
        sentiment: m.sentiment,
        engine: answer.engine,
        prompt_id: answer.promptId,
        created_at: answer.createdAt,
      } satisfies Bind);
    }
    for (const c of analysis.citations) {
      this.insertCitation.run({
        answer_id: answerId,
        brand_id: answer.brandId,
        url: c.url,
        domain: c.domain,
        engine: answer.engine,
        prompt_id: answer.promptId,
        created_at: answer.createdAt,
      } satisfies Bind);
    }
  }
}

const writers = new WeakMap<Db, AnswerWriter>();

export function answerWriter(db: Db): AnswerWriter {
  let writer = writers.get(db);
  if (!writer) {
    writer = new AnswerWriter(db);
    writers.set(db, writer);
  }
  return writer;
}

/** Analyses and stores one answer in its own transaction (a tracking run stores each answer as it arrives). */
export function storeAnswer(db: Db, answer: NewAnswer, roster: Roster): number {
  const analysis = analyzeForStorage(answer.status, answer.text, answer.providerCitations, roster);
  const writer = answerWriter(db);
  return db.sqlite.transaction(() => writer.write(answer, analysis, roster)).immediate();
}

// ---------------------------------------------------------------------------------------------
// Re-analysis

/** Answers per transaction: small enough that a tracking run or a tool call never waits long for the lock. */
const REANALYSIS_CHUNK = 2_000;

/** Bumped on every re-analysis so that a running tracking run reloads the roster before its next write. */
const rosterVersions = new Map<string, number>();

export function rosterVersion(brandId: string): number {
  return rosterVersions.get(brandId) ?? 0;
}

interface StoredAnswerRow {
  id: number;
  engine: string;
  prompt_id: string;
  created_at: number;
  text: string;
  provider_citations: string;
}

const running = new Map<string, { again: boolean; done: Promise<number> }>();

/**
 * Recomputes mentions, citations and the denormalised brand columns of every valid answer of the
 * brand from the stored text and provider citations, with the roster as it stands now. Each chunk
 * is one transaction, and the event loop is yielded between chunks so a server stays responsive.
 * A call while one is under way for the same brand makes that one start over once more (the roster
 * changed again) and shares its promise. Resolves to the number of answers re-analysed.
 */
export function reanalyzeBrand(db: Db, brandId: string): Promise<number> {
  rosterVersions.set(brandId, rosterVersion(brandId) + 1);
  const current = running.get(brandId);
  if (current) {
    current.again = true;
    return current.done;
  }
  const state = { again: false, done: Promise.resolve(0) };
  state.done = (async () => {
    try {
      let total = 0;
      do {
        state.again = false;
        total = await reanalyzeOnce(db, brandId, () => state.again);
      } while (state.again);
      return total;
    } finally {
      running.delete(brandId);
    }
  })();
  running.set(brandId, state);
  return state.done;
}

async function reanalyzeOnce(db: Db, brandId: string, restart: () => boolean): Promise<number> {
  const select = db.sqlite.query<StoredAnswerRow, [string, number, number]>(
    `SELECT id, engine, prompt_id, created_at, text, provider_citations FROM answers
     WHERE brand_id = ? AND status = 'ok' AND id > ? ORDER BY id LIMIT ?`,
  );
  const deleteMentions = db.sqlite.prepare("DELETE FROM mentions WHERE answer_id = ?");
  const deleteCitations = db.sqlite.prepare("DELETE FROM citations WHERE answer_id = ?");
  const updateFigures = db.sqlite.prepare(
    "UPDATE answers SET brand_mentioned = ?, brand_position = ?, brand_sentiment = ?, brand_cited = ? WHERE id = ?",
  );
  const writer = answerWriter(db);
  let after = 0;
  let total = 0;
  for (;;) {
    if (restart()) return total;
    const roster = loadRoster(db, brandId);
    // Demo and real data repeat answer texts; analysing each distinct one once per chunk is enough.
    const cache = new Map<string, AnswerAnalysis>();
    const processed = db.sqlite
      .transaction(() => {
        const rows = select.all(brandId, after, REANALYSIS_CHUNK);
        for (const row of rows) {
          const key = `${row.provider_citations}\u0000${row.text}`;
          let analysis = cache.get(key);
          if (!analysis) {
            analysis = analyzeForStorage("ok", row.text, parseList(row.provider_citations), roster);
            cache.set(key, analysis);
          }
          const figures = brandFigures(analysis, roster);
          deleteMentions.run(row.id);
          deleteCitations.run(row.id);
          updateFigures.run(figures.mentioned ? 1 : 0, figures.position, figures.sentiment, figures.cited ? 1 : 0, row.id);
          writer.writeAnalysis(row.id, { brandId, engine: row.engine, promptId: row.prompt_id, createdAt: row.created_at }, analysis, roster);
        }
        return rows;
      })
      .immediate();
    total += processed.length;
    if (processed.length < REANALYSIS_CHUNK) return total;
    after = processed[processed.length - 1]!.id;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function parseList(json: string): string[] {
  try {
    const value = JSON.parse(json) as unknown;
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}
