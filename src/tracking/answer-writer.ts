// Storing answers with their analysis: the answer row with the brand's denormalised figures, its
// mention and citation rows, and its share of the daily rollups: the one fast path a tracking run
// and the demo seeder share.
import { type Queries, type SqlParam } from "../db/queries";
import { ALL_ENGINES, type AnswerStatus } from "../db/values";
import { type AnswerAnalysis, analyzeAnswer } from "./analysis/analyze";
import { writeRows } from "./bulk-rows";
import { applyPromptRollups, type PromptDayDelta, rollupLock } from "./prompt-rollups";
import { applyWindowDeltas } from "./prompt-windows";
import { isOnDomains, type Roster } from "./roster";

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
  /** The prompt's language (BCP 47), when set: its answers are in it (sentimentByMember). */
  language: string | null = null,
): AnswerAnalysis {
  if (status !== "ok") return EMPTY_ANALYSIS;
  return analyzeAnswer({ text, providerCitations, roster: roster.members, language });
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
  positionSquares: number,
  sentimentSquares: number,
];
type MentionDay = [
  answers: number,
  rankSum: number,
  top1: number,
  sentimentSum: number,
  sentimentN: number,
  rankSquares: number,
  sentimentSquares: number,
];

/**
 * Additions to the daily rollups, gathered in memory while rows are written and applied in one
 * upsert per (day, engine[, member]) when flushed, inside the writing transaction. Re-analysis adds
 * an answer's old analysis with sign -1 and its new one with sign +1.
 */
export class RollupDelta {
  readonly answers = new Map<string, { brandId: string; day: number; engine: string; v: AnswerDay }>();
  readonly mentions = new Map<string, { brandId: string; day: number; engine: string; memberId: string; v: MentionDay }>();
  readonly urls = new Map<string, { brandId: string; day: number; engine: string; url: string; domain: string; citations: number }>();
  readonly domains = new Map<
    string,
    { brandId: string; day: number; engine: string; domain: string; citations: number; answers: number }
  >();
  /** Per prompt, day and engine, and per prompt and day for all engines (ALL_ENGINES). */
  readonly prompts = new Map<string, PromptDayDelta>();

  add(
    answer: Pick<NewAnswer, "brandId" | "promptId" | "engine" | "createdAt" | "status">,
    figures: BrandFigures,
    analysis: AnswerAnalysis,
    sign: 1 | -1 = 1,
  ): void {
    const { brandId, engine } = answer;
    const day = dayOf(answer.createdAt);
    const key = `${brandId}\u0000${day}\u0000${engine}`;
    let a = this.answers.get(key);
    if (!a) {
      a = { brandId, day, engine, v: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] };
      this.answers.set(key, a);
    }
    const v = a.v;
    v[0] += sign;
    if (answer.status === "ok") v[1] += sign;
    if (figures.mentioned) v[2] += sign;
    if (figures.position !== null) {
      v[3] += sign * figures.position;
      if (figures.position === 1) v[4] += sign;
      if (figures.position <= 3) v[5] += sign;
      v[10] += sign * figures.position * figures.position;
    }
    if (figures.sentiment !== null) {
      v[6] += sign * figures.sentiment;
      v[7] += sign;
      v[11] += sign * figures.sentiment * figures.sentiment;
    }
    if (figures.cited) v[8] += sign;
    v[9] += sign * figures.rosterMentions;
    for (const m of analysis.mentions) {
      const mkey = `${key}\u0000${m.member_id}`;
      let r = this.mentions.get(mkey);
      if (!r) {
        r = { brandId, day, engine, memberId: m.member_id, v: [0, 0, 0, 0, 0, 0, 0] };
        this.mentions.set(mkey, r);
      }
      r.v[0] += sign;
      r.v[1] += sign * m.rank;
      if (m.rank === 1) r.v[2] += sign;
      r.v[5] += sign * m.rank * m.rank;
      if (m.sentiment !== null) {
        r.v[3] += sign * m.sentiment;
        r.v[4] += sign;
        r.v[6] += sign * m.sentiment * m.sentiment;
      }
    }
    this.addCitations(brandId, day, engine, key, analysis.citations, sign);
    // Valid answers mentioning a competitor: more roster members than the brand's own mention.
    const competitor = figures.rosterMentions > (figures.mentioned ? 1 : 0) ? 1 : 0;
    for (const e of [engine, ALL_ENGINES]) {
      const pkey = `${brandId}\u0000${answer.promptId}\u0000${e}\u0000${day}`;
      let p = this.prompts.get(pkey);
      if (!p) {
        p = { brandId, promptId: answer.promptId, engine: e, day, v: [0, 0, 0, 0, 0] };
        this.prompts.set(pkey, p);
      }
      p.v[0] += sign;
      if (answer.status === "ok") p.v[1] += sign;
      if (figures.mentioned) p.v[2] += sign;
      if (figures.position !== null) p.v[3] += sign * figures.position;
      p.v[4] += sign * competitor;
    }
  }

  /** An answer's citations, counted as they are stored: each URL once per answer. */
  private addCitations(
    brandId: string,
    day: number,
    engine: string,
    key: string,
    citations: AnswerAnalysis["citations"],
    sign: 1 | -1,
  ): void {
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
      u.citations += sign;
      const dkey = `${key}\u0000${c.domain}`;
      let d = this.domains.get(dkey);
      if (!d) {
        d = { brandId, day, engine, domain: c.domain, citations: 0, answers: 0 };
        this.domains.set(dkey, d);
      }
      d.citations += sign;
      if (!domains.has(c.domain)) {
        domains.add(c.domain);
        d.answers += sign;
      }
    }
  }
}

const ANSWER_COLUMNS = `brand_id, run_id, prompt_id, engine, model, sample, status, text, provider_citations, error,
         latency_ms, tokens_in, tokens_out, created_at, brand_mentioned, brand_position, brand_sentiment, brand_cited, roster_mentions`;
const INSERT_ANSWER = `INSERT INTO answers (${ANSWER_COLUMNS})
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19) RETURNING id`;
const INSERT_ANSWERS = `INSERT INTO answers (id, ${ANSWER_COLUMNS})`;
const MENTIONS_HEAD = `INSERT INTO mentions (answer_id, brand_id, member_id, is_brand, "offset", rank, sentiment, engine, prompt_id, created_at)`;
const INSERT_MENTION = `${MENTIONS_HEAD} VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)`;
const CITATIONS_HEAD = "INSERT INTO citations (answer_id, brand_id, url, domain, engine, prompt_id, created_at)";
const INSERT_CITATION = `${CITATIONS_HEAD} VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT DO NOTHING`;
/**
 * `n` answer ids taken ahead of a multi-row insert that names them, so that no id depends on the
 * order of RETURNING rows: on PostgreSQL from the column's sequence (shared safely with concurrent
 * writers), on SQLite the next ones AUTOINCREMENT would give (BEGIN IMMEDIATE: no other writer until
 * the transaction ends; the inserted ids move sqlite_sequence on). Either way, the ids the same
 * answers written one by one would get.
 */
const RESERVE_ANSWER_IDS = {
  sqlite: `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?1)
       SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'answers'), 0), coalesce((SELECT max(id) FROM answers), 0)) + 1 + i AS id
       FROM n`,
  postgres: "SELECT nextval(pg_get_serial_sequence('answers', 'id')) AS id FROM generate_series(1, ?1)",
};
const UPSERT_ANSWER_DAY = {
  head: `INSERT INTO answer_days AS r (brand_id, day, engine, total, valid, mentioned, position_sum, top1, top3, sentiment_sum, sentiment_n, cited,
         roster_mentions, position_squares, sentiment_squares)`,
  tail: `ON CONFLICT (brand_id, day, engine) DO UPDATE SET total = r.total + excluded.total, valid = r.valid + excluded.valid,
         mentioned = r.mentioned + excluded.mentioned, position_sum = r.position_sum + excluded.position_sum, top1 = r.top1 + excluded.top1,
         top3 = r.top3 + excluded.top3, sentiment_sum = r.sentiment_sum + excluded.sentiment_sum, sentiment_n = r.sentiment_n + excluded.sentiment_n,
         cited = r.cited + excluded.cited, roster_mentions = r.roster_mentions + excluded.roster_mentions,
         position_squares = r.position_squares + excluded.position_squares, sentiment_squares = r.sentiment_squares + excluded.sentiment_squares`,
};
const UPSERT_MENTION_DAY = {
  head: "INSERT INTO mention_days AS r (brand_id, day, engine, member_id, answers, rank_sum, top1, sentiment_sum, sentiment_n, rank_squares, sentiment_squares)",
  tail: `ON CONFLICT (brand_id, day, engine, member_id) DO UPDATE SET answers = r.answers + excluded.answers, rank_sum = r.rank_sum + excluded.rank_sum,
         top1 = r.top1 + excluded.top1, sentiment_sum = r.sentiment_sum + excluded.sentiment_sum, sentiment_n = r.sentiment_n + excluded.sentiment_n,
         rank_squares = r.rank_squares + excluded.rank_squares, sentiment_squares = r.sentiment_squares + excluded.sentiment_squares`,
};
const UPSERT_URL_DAY = {
  head: "INSERT INTO citation_url_days AS r (brand_id, day, engine, url, domain, citations)",
  tail: "ON CONFLICT (brand_id, day, engine, url) DO UPDATE SET citations = r.citations + excluded.citations",
};
const UPSERT_DOMAIN_DAY = {
  head: "INSERT INTO citation_domain_days AS r (brand_id, day, engine, domain, citations, answers)",
  tail: "ON CONFLICT (brand_id, day, engine, domain) DO UPDATE SET citations = r.citations + excluded.citations, answers = r.answers + excluded.answers",
};
/** Rollup rows that re-analysis brought to zero answers or citations are dropped, as if never written. */
const DROP_EMPTY = {
  mention: "DELETE FROM mention_days WHERE brand_id = ?1 AND day = ?2 AND engine = ?3 AND member_id = ?4 AND answers = 0",
  url: "DELETE FROM citation_url_days WHERE brand_id = ?1 AND day = ?2 AND engine = ?3 AND url = ?4 AND citations = 0",
  domain: "DELETE FROM citation_domain_days WHERE brand_id = ?1 AND day = ?2 AND engine = ?3 AND domain = ?4 AND citations = 0",
};

/**
 * Writes answers, their analysis and rollups through the connection it is handed (the writing
 * transaction's); one per AppContext (TrackingService.writer).
 */
export class AnswerWriter {
  /** Inserts the answer, its analysis and its share of the daily rollups; call first in a transaction (`tx`): it takes the brand's rollup lock. Returns the answer id. */
  async write(tx: Queries, answer: NewAnswer, analysis: AnswerAnalysis, roster: Roster): Promise<number> {
    await tx.lock(rollupLock(answer.brandId));
    const delta = new RollupDelta();
    const id = await this.append(
      tx,
      answer,
      analysis,
      brandFigures(analysis, roster),
      JSON.stringify(answer.providerCitations),
      roster.brandId,
      delta,
    );
    await this.applyRollups(tx, delta);
    return id;
  }

  /**
   * Inserts the answer and its analysis, with figures computed by the caller; its rollup additions
   * go to `delta`, to be applied in the same transaction. A bulk loader calls `appendMany`.
   */
  async append(
    tx: Queries,
    answer: NewAnswer,
    analysis: AnswerAnalysis,
    figures: BrandFigures,
    providerCitationsJson: string,
    rosterBrandId: string,
    delta: RollupDelta,
  ): Promise<number> {
    const row = await tx.get<{ id: number }>(INSERT_ANSWER, answerRow(answer, figures, providerCitationsJson));
    const id = row!.id;
    await this.writeAnalysis(tx, id, answer, analysis, rosterBrandId);
    delta.add(answer, figures, analysis);
    return id;
  }

  /**
   * `append` for many answers at once, in a few multi-row statements: the answers (ids taken ahead,
   * RESERVE_ANSWER_IDS), then their mentions and citations. Call in a transaction (`tx`); it takes the
   * answers' brands' rollup locks. Returns the ids in the order of `items`.
   */
  async appendMany(tx: Queries, items: readonly AppendItem[], rosterBrandId: string, delta: RollupDelta): Promise<number[]> {
    if (items.length === 0) return [];
    for (const brandId of new Set(items.map((item) => item.answer.brandId))) await tx.lock(rollupLock(brandId));
    const ids = (await tx.all<{ id: number }>(RESERVE_ANSWER_IDS, [items.length])).map((row) => row.id).sort((a, b) => a - b);
    await writeRows(
      tx,
      INSERT_ANSWERS,
      20,
      items.map((item, k) => [ids[k]!, ...answerRow(item.answer, item.figures, item.providerCitationsJson)]),
    );
    const mentions: SqlParam[][] = [];
    const citations: SqlParam[][] = [];
    items.forEach(({ answer, analysis }, k) => {
      mentions.push(...mentionRows(ids[k]!, answer, analysis, rosterBrandId));
      citations.push(...citationRows(ids[k]!, answer, analysis));
    });
    await writeRows(tx, MENTIONS_HEAD, 10, mentions);
    await writeRows(tx, CITATIONS_HEAD, 7, citations, "ON CONFLICT DO NOTHING");
    for (const { answer, figures, analysis } of items) delta.add(answer, figures, analysis);
    return ids;
  }

  /** Adds the gathered rollup additions (or re-analysis changes) to the stored rollups. */
  async applyRollups(tx: Queries, delta: RollupDelta): Promise<void> {
    const zero = (v: readonly number[]) => v.every((x) => x === 0);
    const answers = [...delta.answers.values()].filter(({ v }) => !zero(v));
    await writeRows(
      tx,
      UPSERT_ANSWER_DAY.head,
      15,
      answers.map(({ brandId, day, engine, v }) => [brandId, day, engine, ...v]),
      UPSERT_ANSWER_DAY.tail,
    );
    const mentions = [...delta.mentions.values()].filter(({ v }) => !zero(v));
    await writeRows(
      tx,
      UPSERT_MENTION_DAY.head,
      11,
      mentions.map(({ brandId, day, engine, memberId, v }) => [brandId, day, engine, memberId, ...v]),
      UPSERT_MENTION_DAY.tail,
    );
    const urls = [...delta.urls.values()].filter((u) => u.citations !== 0);
    await writeRows(
      tx,
      UPSERT_URL_DAY.head,
      6,
      urls.map((u) => [u.brandId, u.day, u.engine, u.url, u.domain, u.citations]),
      UPSERT_URL_DAY.tail,
    );
    const domains = [...delta.domains.values()].filter((d) => d.citations !== 0 || d.answers !== 0);
    await writeRows(
      tx,
      UPSERT_DOMAIN_DAY.head,
      6,
      domains.map((d) => [d.brandId, d.day, d.engine, d.domain, d.citations, d.answers]),
      UPSERT_DOMAIN_DAY.tail,
    );
    // Re-analysis only: the rows its changes took to nothing.
    for (const { brandId, day, engine, memberId, v } of mentions) {
      if (v[0] < 0) await tx.run(DROP_EMPTY.mention, [brandId, day, engine, memberId]);
    }
    for (const u of urls) if (u.citations < 0) await tx.run(DROP_EMPTY.url, [u.brandId, u.day, u.engine, u.url]);
    for (const d of domains) if (d.citations < 0) await tx.run(DROP_EMPTY.domain, [d.brandId, d.day, d.engine, d.domain]);
    await applyPromptRollups(tx, delta.prompts.values());
    await applyWindowDeltas(tx, delta.prompts.values());
  }

  async writeAnalysis(
    tx: Queries,
    answerId: number,
    answer: Pick<NewAnswer, "brandId" | "engine" | "promptId" | "createdAt">,
    analysis: AnswerAnalysis,
    rosterBrandId: string,
  ): Promise<void> {
    for (const row of mentionRows(answerId, answer, analysis, rosterBrandId)) await tx.run(INSERT_MENTION, row);
    for (const row of citationRows(answerId, answer, analysis)) await tx.run(INSERT_CITATION, row);
  }
}

/** One answer for `appendMany`: what `append` takes. */
export interface AppendItem {
  answer: NewAnswer;
  analysis: AnswerAnalysis;
  figures: BrandFigures;
  providerCitationsJson: string;
}

/** The answers row's values after its id, in ANSWER_COLUMNS order. */
function answerRow(answer: NewAnswer, figures: BrandFigures, providerCitationsJson: string): SqlParam[] {
  return [
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
  ];
}

type AnswerKey = Pick<NewAnswer, "brandId" | "engine" | "promptId" | "createdAt">;

function mentionRows(answerId: number, answer: AnswerKey, analysis: AnswerAnalysis, rosterBrandId: string): SqlParam[][] {
  return analysis.mentions.map((m) => [
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
  ]);
}

function citationRows(answerId: number, answer: AnswerKey, analysis: AnswerAnalysis): SqlParam[][] {
  return analysis.citations.map((c) => [answerId, answer.brandId, c.url, c.domain, answer.engine, answer.promptId, answer.createdAt]);
}
