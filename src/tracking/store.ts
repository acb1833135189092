// Persistence of answers with their analysis (mentions, citations, the brand's denormalised figures),
// and re-analysis of a brand's stored answers when its roster changes. Writes use prepared
// statements so that a tracking run and the demo seeder share one fast path.
import { type Statement } from "bun:sqlite";
import { type Db } from "../db/client";
import { type AnswerStatus } from "../db/schema";
import { type AnswerAnalysis, analyzeAnswer } from "./analysis/analyze";
import { registrableDomain } from "./analysis/citations";
import { type RosterMember } from "./analysis/mentions";

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
  /** Roster members mentioned: the answer's number of mention rows. */
  rosterMentions: number;
}

export function brandFigures(analysis: AnswerAnalysis, roster: Roster): BrandFigures {
  const own = analysis.mentions.find((m) => m.member_id === roster.brandId);
  return {
    mentioned: own !== undefined,
    position: own?.rank ?? null,
    sentiment: own?.sentiment ?? null,
    cited: analysis.citations.some((c) => isOnDomains(c.url, roster.brandDomains)),
    rosterMentions: analysis.mentions.length,
  };
}

const EMPTY_ANALYSIS: AnswerAnalysis = { mentions: [], citations: [] };

/** Only valid answers are analysed: the others are outside every denominator (METRICS.md). */
export function analyzeForStorage(
  status: AnswerStatus,
  text: string,
  providerCitations: readonly string[],
  roster: Roster,
): AnswerAnalysis {
  if (status !== "ok") return EMPTY_ANALYSIS;
  return analyzeAnswer({ text, providerCitations, roster: roster.members });
}

const DAY_MS = 86_400_000;

/** The UTC day number of a timestamp, as the rollup tables key it. */
export function dayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

type AnswerDay = [
  total: number,
  valid: number,
  mentioned: number,
  positionSum: number,
  top1: number,
  top3: number,
  sentimentSum: number,
  sentimentN: number,
  cited: number,
  rosterMentions: number,
];
type MentionDay = [answers: number, rankSum: number, top1: number, sentimentSum: number, sentimentN: number];

/**
 * Additions to the daily rollups, gathered in memory while rows are written and applied in one
 * upsert per (day, engine[, member]) when flushed, inside the writing transaction.
 */
export class RollupDelta {
  readonly answers = new Map<string, { brandId: string; day: number; engine: string; v: AnswerDay }>();
  readonly mentions = new Map<string, { brandId: string; day: number; engine: string; memberId: string; v: MentionDay }>();
  readonly urls = new Map<string, { brandId: string; day: number; engine: string; url: string; domain: string; citations: number }>();
  readonly domains = new Map<
    string,
    { brandId: string; day: number; engine: string; domain: string; citations: number; answers: number }
  >();

  add(brandId: string, engine: string, createdAt: number, status: AnswerStatus, figures: BrandFigures, analysis: AnswerAnalysis): void {
    const day = dayOf(createdAt);
    const key = `${brandId}\u0000${day}\u0000${engine}`;
    let a = this.answers.get(key);
    if (!a) {
      a = { brandId, day, engine, v: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0] };
      this.answers.set(key, a);
    }
    const v = a.v;
    v[0] += 1;
    if (status === "ok") v[1] += 1;
    if (figures.mentioned) v[2] += 1;
    if (figures.position !== null) {
      v[3] += figures.position;
      if (figures.position === 1) v[4] += 1;
      if (figures.position <= 3) v[5] += 1;
    }
    if (figures.sentiment !== null) {
      v[6] += figures.sentiment;
      v[7] += 1;
    }
    if (figures.cited) v[8] += 1;
    v[9] += figures.rosterMentions;
    for (const m of analysis.mentions) {
      const mkey = `${key}\u0000${m.member_id}`;
      let r = this.mentions.get(mkey);
      if (!r) {
        r = { brandId, day, engine, memberId: m.member_id, v: [0, 0, 0, 0, 0] };
        this.mentions.set(mkey, r);
      }
      r.v[0] += 1;
      r.v[1] += m.rank;
      if (m.rank === 1) r.v[2] += 1;
      if (m.sentiment !== null) {
        r.v[3] += m.sentiment;
        r.v[4] += 1;
      }
    }
    this.addCitations(brandId, day, engine, key, analysis.citations);
  }

  /** An answer's citations, counted as they are stored: each URL once per answer. */
  private addCitations(brandId: string, day: number, engine: string, key: string, citations: AnswerAnalysis["citations"]): void {
    if (citations.length === 0) return;
    const seen = new Set<string>();
    const domains = new Set<string>();
    for (const c of citations) {
      if (seen.has(c.url)) continue;
      seen.add(c.url);
      const ukey = `${key}\u0000${c.url}`;
      let u = this.urls.get(ukey);
      if (!u) {
        u = { brandId, day, engine, url: c.url, domain: c.domain, citations: 0 };
        this.urls.set(ukey, u);
      }
      u.citations += 1;
      const dkey = `${key}\u0000${c.domain}`;
      let d = this.domains.get(dkey);
      if (!d) {
        d = { brandId, day, engine, domain: c.domain, citations: 0, answers: 0 };
        this.domains.set(dkey, d);
      }
      d.citations += 1;
      if (!domains.has(c.domain)) {
        domains.add(c.domain);
        d.answers += 1;
      }
    }
  }
}

/** Prepared statements for writing answers; prepare once per database and reuse. */
export class AnswerWriter {
  private readonly insertAnswer: Statement;
  private readonly insertMention: Statement;
  private readonly insertCitation: Statement;
  private readonly upsertAnswerDay: Statement;
  private readonly upsertMentionDay: Statement;
  private readonly upsertUrlDay: Statement;
  private readonly upsertDomainDay: Statement;
  /** Per rollup table: drop one day of a brand, and sum it again from the stored rows. */
  private readonly dayRebuilds: Array<{ clear: Statement; refill: Statement }>;

  constructor(db: Db) {
    const sqlite = db.sqlite;
    this.insertAnswer = sqlite.prepare(
      `INSERT INTO answers (brand_id, run_id, prompt_id, engine, model, sample, status, text, provider_citations, error,
         latency_ms, tokens_in, tokens_out, created_at, brand_mentioned, brand_position, brand_sentiment, brand_cited, roster_mentions)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19)`,
    );
    this.insertMention = sqlite.prepare(
      `INSERT INTO mentions (answer_id, brand_id, member_id, is_brand, "offset", rank, sentiment, engine, prompt_id, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`,
    );
    this.insertCitation = sqlite.prepare(
      `INSERT OR IGNORE INTO citations (answer_id, brand_id, url, domain, engine, prompt_id, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
    );
    this.upsertAnswerDay = sqlite.prepare(
      `INSERT INTO answer_days (brand_id, day, engine, total, valid, mentioned, position_sum, top1, top3, sentiment_sum, sentiment_n, cited, roster_mentions)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
       ON CONFLICT (brand_id, day, engine) DO UPDATE SET total = total + excluded.total, valid = valid + excluded.valid,
         mentioned = mentioned + excluded.mentioned, position_sum = position_sum + excluded.position_sum, top1 = top1 + excluded.top1,
         top3 = top3 + excluded.top3, sentiment_sum = sentiment_sum + excluded.sentiment_sum, sentiment_n = sentiment_n + excluded.sentiment_n,
         cited = cited + excluded.cited, roster_mentions = roster_mentions + excluded.roster_mentions`,
    );
    this.upsertMentionDay = sqlite.prepare(
      `INSERT INTO mention_days (brand_id, day, engine, member_id, answers, rank_sum, top1, sentiment_sum, sentiment_n)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
       ON CONFLICT (brand_id, day, engine, member_id) DO UPDATE SET answers = answers + excluded.answers, rank_sum = rank_sum + excluded.rank_sum,
         top1 = top1 + excluded.top1, sentiment_sum = sentiment_sum + excluded.sentiment_sum, sentiment_n = sentiment_n + excluded.sentiment_n`,
    );
    this.upsertUrlDay = sqlite.prepare(
      `INSERT INTO citation_url_days (brand_id, day, engine, url, domain, citations) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
       ON CONFLICT (brand_id, day, engine, url) DO UPDATE SET citations = citations + excluded.citations`,
    );
    this.upsertDomainDay = sqlite.prepare(
      `INSERT INTO citation_domain_days (brand_id, day, engine, domain, citations, answers) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
       ON CONFLICT (brand_id, day, engine, domain) DO UPDATE SET citations = citations + excluded.citations, answers = answers + excluded.answers`,
    );
    // The same sums as the upserts, recomputed from the stored rows of one day.
    const refills: Record<string, string> = {
      answer_days: `INSERT INTO answer_days (brand_id, day, engine, total, valid, mentioned, position_sum, top1, top3, sentiment_sum, sentiment_n, cited, roster_mentions)
         SELECT ?1, ?2, a.engine, count(*), sum(a.status = 'ok'), sum(a.brand_mentioned), total(a.brand_position),
           count(CASE WHEN a.brand_position = 1 THEN 1 END), count(CASE WHEN a.brand_position <= 3 THEN 1 END),
           total(a.brand_sentiment), count(a.brand_sentiment), sum(a.brand_cited), sum(a.roster_mentions)
         FROM answers a WHERE a.brand_id = ?1 AND a.created_at >= ?2 * ${DAY_MS} AND a.created_at < (?2 + 1) * ${DAY_MS}
         GROUP BY a.engine`,
      mention_days: `INSERT INTO mention_days (brand_id, day, engine, member_id, answers, rank_sum, top1, sentiment_sum, sentiment_n)
         SELECT ?1, ?2, a.engine, m.member_id, count(*), sum(m.rank), sum(m.rank = 1), total(m.sentiment), count(m.sentiment)
         FROM answers a JOIN mentions m ON m.answer_id = a.id
         WHERE a.brand_id = ?1 AND a.created_at >= ?2 * ${DAY_MS} AND a.created_at < (?2 + 1) * ${DAY_MS}
         GROUP BY a.engine, m.member_id`,
      citation_url_days: `INSERT INTO citation_url_days (brand_id, day, engine, url, domain, citations)
         SELECT ?1, ?2, c.engine, c.url, min(c.domain), count(*)
         FROM citations c WHERE c.brand_id = ?1 AND c.created_at >= ?2 * ${DAY_MS} AND c.created_at < (?2 + 1) * ${DAY_MS}
         GROUP BY c.engine, c.url`,
      citation_domain_days: `INSERT INTO citation_domain_days (brand_id, day, engine, domain, citations, answers)
         SELECT ?1, ?2, c.engine, c.domain, count(*), count(DISTINCT c.answer_id)
         FROM citations c WHERE c.brand_id = ?1 AND c.created_at >= ?2 * ${DAY_MS} AND c.created_at < (?2 + 1) * ${DAY_MS}
         GROUP BY c.engine, c.domain`,
    };
    this.dayRebuilds = Object.entries(refills).map(([table, refill]) => ({
      clear: sqlite.prepare(`DELETE FROM ${table} WHERE brand_id = ?1 AND day = ?2`),
      refill: sqlite.prepare(refill),
    }));
  }

  /** Inserts the answer, its analysis and its share of the daily rollups; call inside a transaction. Returns the answer id. */
  write(answer: NewAnswer, analysis: AnswerAnalysis, roster: Roster): number {
    const delta = new RollupDelta();
    const id = this.append(
      answer,
      analysis,
      brandFigures(analysis, roster),
      JSON.stringify(answer.providerCitations),
      roster.brandId,
      delta,
    );
    this.applyRollups(delta);
    return id;
  }

  /**
   * Inserts the answer and its analysis, with figures computed by the caller (a bulk loader reuses
   * them across rows); its rollup additions go to `delta`, to be applied in the same transaction.
   */
  append(
    answer: NewAnswer,
    analysis: AnswerAnalysis,
    figures: BrandFigures,
    providerCitationsJson: string,
    rosterBrandId: string,
    delta: RollupDelta,
  ): number {
    const { lastInsertRowid } = this.insertAnswer.run(
      answer.brandId,
      answer.runId,
      answer.promptId,
      answer.engine,
      answer.model,
      answer.sample,
      answer.status,
      answer.text,
      providerCitationsJson,
      answer.error,
      answer.latencyMs,
      answer.tokensIn,
      answer.tokensOut,
      answer.createdAt,
      figures.mentioned ? 1 : 0,
      figures.position,
      figures.sentiment,
      figures.cited ? 1 : 0,
      figures.rosterMentions,
    );
    const id = Number(lastInsertRowid);
    this.writeAnalysis(id, answer, analysis, rosterBrandId);
    delta.add(answer.brandId, answer.engine, answer.createdAt, answer.status, figures, analysis);
    return id;
  }

  /** Adds the gathered rollup additions to the stored rollups. */
  applyRollups(delta: RollupDelta): void {
    for (const { brandId, day, engine, v } of delta.answers.values()) this.upsertAnswerDay.run(brandId, day, engine, ...v);
    for (const { brandId, day, engine, memberId, v } of delta.mentions.values())
      this.upsertMentionDay.run(brandId, day, engine, memberId, ...v);
    for (const u of delta.urls.values()) this.upsertUrlDay.run(u.brandId, u.day, u.engine, u.url, u.domain, u.citations);
    for (const d of delta.domains.values()) this.upsertDomainDay.run(d.brandId, d.day, d.engine, d.domain, d.citations, d.answers);
  }

  /** Recomputes the brand's rollups of the given UTC days from the stored rows (after re-analysis). */
  rebuildRollups(brandId: string, days: Iterable<number>): void {
    for (const day of days) {
      for (const { clear, refill } of this.dayRebuilds) {
        clear.run(brandId, day);
        refill.run(brandId, day);
      }
    }
  }

  writeAnalysis(
    answerId: number,
    answer: Pick<NewAnswer, "brandId" | "engine" | "promptId" | "createdAt">,
    analysis: AnswerAnalysis,
    rosterBrandId: string,
  ): void {
    for (const m of analysis.mentions) {
      this.insertMention.run(
        answerId,
        answer.brandId,
        m.member_id,
        m.member_id === rosterBrandId ? 1 : 0,
        m.offset,
        m.rank,
        m.sentiment,
        answer.engine,
        answer.promptId,
        answer.createdAt,
      );
    }
    for (const c of analysis.citations) {
      this.insertCitation.run(answerId, answer.brandId, c.url, c.domain, answer.engine, answer.promptId, answer.createdAt);
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
 * Recomputes mentions, citations, the denormalised brand columns and the daily rollups of every valid answer of the
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
    "UPDATE answers SET brand_mentioned = ?, brand_position = ?, brand_sentiment = ?, brand_cited = ?, roster_mentions = ? WHERE id = ?",
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
        const days = new Set<number>();
        for (const row of rows) {
          days.add(dayOf(row.created_at));
          const key = `${row.provider_citations}\u0000${row.text}`;
          let analysis = cache.get(key);
          if (!analysis) {
            analysis = analyzeForStorage("ok", row.text, parseList(row.provider_citations), roster);
            cache.set(key, analysis);
          }
          const figures = brandFigures(analysis, roster);
          deleteMentions.run(row.id);
          deleteCitations.run(row.id);
          updateFigures.run(
            figures.mentioned ? 1 : 0,
            figures.position,
            figures.sentiment,
            figures.cited ? 1 : 0,
            figures.rosterMentions,
            row.id,
          );
          writer.writeAnalysis(
            row.id,
            { brandId, engine: row.engine, promptId: row.prompt_id, createdAt: row.created_at },
            analysis,
            roster.brandId,
          );
        }
        // The days these answers fall on are summed again from the stored rows, in the same transaction.
        writer.rebuildRollups(brandId, days);
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
