// The whole product's schema. Timestamps are integer epoch milliseconds (UTC); ids are text
// (random, prefixed) except for the high-volume answer rows, whose integer ids keep the analytics
// tables compact. Everything here maps directly to PostgreSQL (text, bigint, boolean-as-integer).
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { ANSWER_STATUSES, ARTICLE_STATUSES, COVERAGE_KINDS, PLANS, RUN_STATUSES, SOURCE_KINDS } from "./values";

export * from "./values";

export const accounts = sqliteTable("accounts", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  plan: text("plan", { enum: PLANS }).notNull().default("none"),
  createdAt: integer("created_at").notNull(),
});

export const sessions = sqliteTable(
  "sessions",
  {
    // SHA-256 (hex) of the session token: the token itself is never stored.
    tokenHash: text("token_hash").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("sessions_account_idx").on(t.accountId)],
);

export const brands = sqliteTable(
  "brands",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    domain: text("domain"),
    aliases: text("aliases", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    siteKey: text("site_key").notNull().unique(),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [index("brands_account_idx").on(t.accountId, t.createdAt)],
);

export const apiKeys = sqliteTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    // SHA-256 (hex) of the plaintext key; the plaintext exists only in the creation response.
    keyHash: text("key_hash").notNull().unique(),
    keyPrefix: text("key_prefix").notNull(),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    revokedAt: integer("revoked_at"),
  },
  // brand_id: what a brand's deletion looks its keys up by (every foreign key's column leads an index).
  (t) => [index("api_keys_account_idx").on(t.accountId, t.revokedAt, t.createdAt), index("api_keys_brand_idx").on(t.brandId)],
);

export const tags = sqliteTable(
  "tags",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    // Lowercased name: tags are unique per brand, case-insensitively.
    nameKey: text("name_key").notNull(),
    color: text("color"),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("tags_brand_name_idx").on(t.brandId, t.nameKey)],
);

export const prompts = sqliteTable(
  "prompts",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    text: text("text").notNull(),
    // Lowercased, whitespace-collapsed text: duplicates are detected case- and space-insensitively.
    textKey: text("text_key").notNull(),
    country: text("country"),
    language: text("language"),
    archivedAt: integer("archived_at"),
    createdAt: integer("created_at").notNull(),
    // The names of the prompt's tags as a JSON array (in no order), kept by triggers on prompt_tags and
    // tags (migration 0012 / PostgreSQL 0005): a page of list_prompts reads them with the row instead
    // of a correlated subquery per prompt, which was about a fifth of its CPU (bench/door.ts).
    tagNames: text("tag_names").notNull().default("[]"),
    // Which state of the row this is: a new value, never used before, at every insert and every change
    // of what a prompt's view is made of (set by triggers: migration 0020 / PostgreSQL 0014). A page of
    // list_prompts reads its rows' versions from prompts_brand_active_idx alone and reuses the views it
    // made of rows whose version has not changed (src/prompts/service.ts). A migration that rebuilds
    // the table must create the triggers again.
    version: integer("version").notNull().default(0),
  },
  (t) => [
    uniqueIndex("prompts_brand_text_idx").on(t.brandId, t.textKey),
    index("prompts_brand_created_idx").on(t.brandId, t.createdAt),
    // The brand's active prompts in list order (archived_at IS NULL, then created_at, id): a page of
    // list_prompts, and a tracking run's prompts, read in order without sorting the ties of created_at;
    // with the version, a page's versions are read from the index alone.
    index("prompts_brand_active_idx").on(t.brandId, t.archivedAt, t.createdAt, t.id, t.version),
  ],
);

export const promptTags = sqliteTable(
  "prompt_tags",
  {
    promptId: text("prompt_id")
      .notNull()
      .references(() => prompts.id, { onDelete: "cascade" }),
    tagId: text("tag_id")
      .notNull()
      .references(() => tags.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.promptId, t.tagId] }), index("prompt_tags_tag_idx").on(t.tagId)],
);

export const competitors = sqliteTable(
  "competitors",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    aliases: text("aliases", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    // Lowercased registrable hosts without scheme or `www.`.
    domains: text("domains", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [index("competitors_brand_idx").on(t.brandId)],
);

export const trackingRuns = sqliteTable(
  "tracking_runs",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    status: text("status", { enum: RUN_STATUSES }).notNull(),
    /** "schedule", "cli" or "tool". */
    trigger: text("trigger").notNull(),
    engines: text("engines", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    /** The prompts a run was restricted to (run_tracking prompt_ids); null for all active prompts. Read when it resumes. */
    promptIds: text("prompt_ids", { mode: "json" }).$type<string[] | null>(),
    answersPlanned: integer("answers_planned").notNull(),
    answersDone: integer("answers_done").notNull().default(0),
    /** No longer written (runs are held by a lease, below); kept so older databases need no rewrite. */
    ownerPid: integer("owner_pid"),
    /** The instance coordinating the run (runner.ts INSTANCE_ID), while it is `running`. */
    owner: text("owner"),
    /** Until when (ms) the owner holds the run; it renews the lease while it lives. Past it, any instance takes the run over. */
    leaseUntil: integer("lease_until"),
    /** A scheduled run's tick (ISO time): one run per brand and tick, whichever instance claims it first. */
    slot: text("slot"),
    startedAt: integer("started_at").notNull(),
    finishedAt: integer("finished_at"),
    error: text("error"),
  },
  (t) => [
    index("tracking_runs_brand_idx").on(t.brandId, t.startedAt),
    index("tracking_runs_status_idx").on(t.status),
    uniqueIndex("tracking_runs_slot_idx").on(t.brandId, t.slot),
  ],
);

/**
 * The work queue of running runs: one row per prompt × engine × sample still without an answer.
 * Any instance claims a row (a lease), asks the engine, and deletes the row in the answer's own
 * transaction; a claim whose lease ran out (its instance died) is taken again.
 */
export const trackingTasks = sqliteTable(
  "tracking_tasks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    runId: text("run_id")
      .notNull()
      .references(() => trackingRuns.id, { onDelete: "cascade" }),
    brandId: text("brand_id").notNull(),
    promptId: text("prompt_id")
      .notNull()
      .references(() => prompts.id, { onDelete: "cascade" }),
    engine: text("engine").notNull(),
    sample: integer("sample").notNull(),
    /** The instance that holds the task, while its lease lasts. */
    claimedBy: text("claimed_by"),
    /** Until when (ms) the claim holds; null or past: free to claim. */
    leaseUntil: integer("lease_until"),
  },
  (t) => [
    uniqueIndex("tracking_tasks_slot_idx").on(t.runId, t.promptId, t.engine, t.sample),
    index("tracking_tasks_engine_idx").on(t.engine, t.leaseUntil),
    index("tracking_tasks_prompt_idx").on(t.promptId),
  ],
);

/**
 * Engines a provider asked to wait (a 429 or an overload, with its Retry-After or the backoff's
 * delay): each instance whose requests wait notes the engine, until when, and the provider's words,
 * so that a run's status says why it is not moving, whichever instance asks. Written when a pause
 * starts or grows by more than a few seconds, never per request; a row past its time means nothing.
 */
export const enginePauses = sqliteTable(
  "engine_pauses",
  {
    engine: text("engine").notNull(),
    /** The instance whose requests wait (runner.ts INSTANCE_ID). */
    instance: text("instance").notNull(),
    /** Until when (ms) the engine's requests wait. */
    pausedUntil: integer("paused_until").notNull(),
    /** The provider's answer that asked for the pause ("HTTP 429: Rate limit reached…"). */
    reason: text("reason").notNull(),
  },
  (t) => [primaryKey({ columns: [t.engine, t.instance] })],
);

/** Bumped by every re-analysis of a brand: an answer analysed with an older roster is analysed again before it is stored. */
export const rosterVersions = sqliteTable("roster_versions", {
  brandId: text("brand_id")
    .primaryKey()
    .references(() => brands.id, { onDelete: "cascade" }),
  version: integer("version").notNull(),
  /**
   * The version whose re-analysis went through every answer: behind `version`, a pass was cut short
   * (a stop) and the next start re-analyses the brand again.
   */
  analysed: integer("analysed").notNull().default(0),
});

export const answers = sqliteTable(
  "answers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    runId: text("run_id"),
    promptId: text("prompt_id")
      .notNull()
      .references(() => prompts.id, { onDelete: "cascade" }),
    engine: text("engine").notNull(),
    model: text("model"),
    sample: integer("sample").notNull().default(0),
    status: text("status", { enum: ANSWER_STATUSES }).notNull(),
    text: text("text").notNull().default(""),
    /** Raw URLs from the provider's citation fields, kept so re-analysis needs no provider call. */
    providerCitations: text("provider_citations", { mode: "json" }).$type<string[]>().notNull().default(sql`'[]'`),
    error: text("error"),
    latencyMs: integer("latency_ms"),
    tokensIn: integer("tokens_in"),
    tokensOut: integer("tokens_out"),
    createdAt: integer("created_at").notNull(),
    // The brand's own figures, denormalised from `mentions` so the hot analytics need no join.
    brandMentioned: integer("brand_mentioned", { mode: "boolean" }).notNull().default(false),
    brandPosition: integer("brand_position"),
    brandSentiment: real("brand_sentiment"),
    // Whether the answer cites a URL on one of the brand's own domains (citation_rate).
    brandCited: integer("brand_cited", { mode: "boolean" }).notNull().default(false),
    // Roster members mentioned (its mention rows): share of voice and gaps need no mentions scan.
    rosterMentions: integer("roster_mentions").notNull().default(0),
  },
  (t) => [
    // Newest-first listing and the daily rollup rebuild: covering, no table lookups.
    index("answers_brand_created_idx").on(
      t.brandId,
      t.createdAt,
      t.engine,
      t.status,
      t.brandMentioned,
      t.brandPosition,
      t.brandSentiment,
      t.brandCited,
      t.rosterMentions,
    ),
    // Per-prompt figures (coverage probes, gaps, prompt performance, tag filters): covering.
    index("answers_brand_prompt_idx").on(
      t.brandId,
      t.promptId,
      t.createdAt,
      t.engine,
      t.status,
      t.brandMentioned,
      t.brandPosition,
      t.brandSentiment,
      t.brandCited,
      t.rosterMentions,
    ),
    uniqueIndex("answers_run_slot_idx").on(t.runId, t.promptId, t.engine, t.sample),
    // A prompt's deletion (a brand's) finds its answers: without it, each deleted prompt scanned
    // every brand's answers (a foreign key's column leads an index: test/db/schema-parity.test.ts).
    index("answers_prompt_idx").on(t.promptId),
  ],
);

// Mentions and citations are stored for valid (`ok`) answers only, with the answer's engine, prompt
// and time copied in so that ranking, share of voice, sources and gaps are single-table aggregates.
export const mentions = sqliteTable(
  "mentions",
  {
    answerId: integer("answer_id")
      .notNull()
      .references(() => answers.id, { onDelete: "cascade" }),
    brandId: text("brand_id").notNull(),
    // The brand's id for the brand itself, a competitor's id otherwise.
    memberId: text("member_id").notNull(),
    isBrand: integer("is_brand", { mode: "boolean" }).notNull(),
    offset: integer("offset").notNull(),
    rank: integer("rank").notNull(),
    sentiment: real("sentiment"),
    engine: text("engine").notNull(),
    promptId: text("prompt_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.answerId, t.memberId] }),
    // Per prompt and member (gaps, top competitors, coverage probes, tag-filtered ranking): covering.
    index("mentions_brand_prompt_idx").on(
      t.brandId,
      t.promptId,
      t.memberId,
      t.createdAt,
      t.engine,
      t.isBrand,
      t.rank,
      t.sentiment,
      t.answerId,
    ),
  ],
);

export const citations = sqliteTable(
  "citations",
  {
    answerId: integer("answer_id")
      .notNull()
      .references(() => answers.id, { onDelete: "cascade" }),
    brandId: text("brand_id").notNull(),
    url: text("url").notNull(),
    domain: text("domain").notNull(),
    engine: text("engine").notNull(),
    promptId: text("prompt_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.answerId, t.url] }),
    index("citations_brand_period_idx").on(t.brandId, t.createdAt, t.engine, t.domain, t.promptId, t.answerId, t.url),
  ],
);

// What the assistant searched and read, per valid answer (stored beside mentions and citations,
// by src/tracking/search-store.ts): the web search queries it ran, and the sources its provider
// listed as retrieved or cited. METRICS.md's figures stay on `citations`; these feed the retrieval
// rate and get_search_queries.
export const searchQueries = sqliteTable(
  "search_queries",
  {
    answerId: integer("answer_id")
      .notNull()
      .references(() => answers.id, { onDelete: "cascade" }),
    brandId: text("brand_id").notNull(),
    /** Order in which the assistant ran it, from 0. */
    position: integer("position").notNull(),
    query: text("query").notNull(),
    /** Lowercased, whitespace-collapsed: what makes two answers' queries "the same query". */
    queryKey: text("query_key").notNull(),
    engine: text("engine").notNull(),
    promptId: text("prompt_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.answerId, t.position] }),
    index("search_queries_brand_period_idx").on(t.brandId, t.createdAt, t.engine, t.queryKey, t.promptId, t.answerId),
  ],
);

// Daily rollup of search_queries per prompt, engine, normalised query and spelling, kept equal to the
// sums over its rows by src/tracking/search-store.ts (in the answer's transaction): get_search_queries
// reads as many rows as there are distinct queries × days × engines × prompts, not one per answer.
// `uses`: the day's answers (of that engine and prompt) that ran this spelling; `answers`: those for
// which it is the first spelling of the query they ran, so that summing `answers` over spellings
// counts each answer once. A row exists only while `uses` > 0.
export const searchQueryDays = sqliteTable(
  "search_query_days",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    queryKey: text("query_key").notNull(),
    day: integer("day").notNull(),
    engine: text("engine").notNull(),
    promptId: text("prompt_id")
      .notNull()
      .references(() => prompts.id, { onDelete: "cascade" }),
    query: text("query").notNull(),
    uses: integer("uses").notNull(),
    answers: integer("answers").notNull(),
  },
  (t) => [
    // The answer writer's upserts (tracking/search-store.ts).
    primaryKey({ columns: [t.brandId, t.queryKey, t.day, t.engine, t.promptId, t.query] }),
    // The period's rows of a short period (analytics/search.ts): covering for the ranking.
    index("search_query_days_period_idx").on(t.brandId, t.day, t.engine, t.queryKey, t.promptId, t.answers),
    // The brand's rows in the order the search queries group them (query, prompt, spelling, engine),
    // every column in it: a period that is most of the brand's days is grouped without a sort.
    index("search_query_days_key_idx").on(t.brandId, t.queryKey, t.promptId, t.query, t.engine, t.day, t.answers, t.uses),
    // A prompt's deletion finds its rows (a foreign key's column leads an index).
    index("search_query_days_prompt_idx").on(t.promptId),
  ],
);

// Daily rollup of answer_sources per registrable domain, for the retrieval rate: per day, engine, prompt
// and registrable domain, the answers whose sources (cited or retrieved) on that domain had exactly the
// hosts `hosts` (a JSON array, sorted, distinct). An answer is in one row per registrable domain, so
// the answers with a source on the brand's domain (its host or a subdomain) are a sum over the rows
// of one registrable domain, whatever the brand's domain is. Kept by src/tracking/search-store.ts.
export const answerSourceDays = sqliteTable(
  "answer_source_days",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    domain: text("domain").notNull(),
    day: integer("day").notNull(),
    engine: text("engine").notNull(),
    promptId: text("prompt_id")
      .notNull()
      .references(() => prompts.id, { onDelete: "cascade" }),
    hosts: text("hosts").notNull(),
    answers: integer("answers").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.brandId, t.domain, t.day, t.engine, t.promptId, t.hosts] }),
    // A prompt's deletion finds its rows (a foreign key's column leads an index).
    index("answer_source_days_prompt_idx").on(t.promptId),
  ],
);

// answer_source_days without the prompt: per day, engine and registrable domain, the answers whose
// sources there had exactly the hosts `hosts`. The retrieval rate without a tag or prompt filter reads
// it: a few rows per day and engine, where answer_source_days has one per prompt (a brand with 12,000
// prompts read millions of rows for one overview). Kept equal to answer_source_days by triggers on it
// (migration 0006), so that its every write, rebuild and cascade reaches this table too.
export const answerSourceEngineDays = sqliteTable(
  "answer_source_engine_days",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    domain: text("domain").notNull(),
    day: integer("day").notNull(),
    engine: text("engine").notNull(),
    hosts: text("hosts").notNull(),
    answers: integer("answers").notNull(),
  },
  (t) => [primaryKey({ columns: [t.brandId, t.domain, t.day, t.engine, t.hosts] })],
);

export const answerSources = sqliteTable(
  "answer_sources",
  {
    answerId: integer("answer_id")
      .notNull()
      .references(() => answers.id, { onDelete: "cascade" }),
    brandId: text("brand_id").notNull(),
    /** "cited": a passage of the answer cites it (one row per passage); "retrieved": the search returned it and no passage cites it. */
    kind: text("kind", { enum: SOURCE_KINDS }).notNull(),
    position: integer("position").notNull(),
    url: text("url").notNull(),
    /** Host without `www.`, lowercased; null for a redirect that could not be resolved (never a domain of its own). */
    host: text("host"),
    /** Registrable domain of `host`; null with it. */
    domain: text("domain"),
    title: text("title"),
    startIndex: integer("start_index"),
    endIndex: integer("end_index"),
    engine: text("engine").notNull(),
    promptId: text("prompt_id").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.answerId, t.kind, t.position] }),
    index("answer_sources_brand_period_idx").on(t.brandId, t.createdAt, t.engine, t.host, t.answerId),
    // The retrieval rate reads only the rows on the brand's registrable domains: covering.
    index("answer_sources_brand_domain_idx").on(t.brandId, t.domain, t.createdAt, t.engine, t.host, t.promptId, t.answerId),
  ],
);

// Daily rollups of answers and mentions per engine (UTC day = created_at ÷ 86,400,000), kept equal
// to the sums over the raw rows by every write and re-analysis (src/tracking/answer-writer.ts and
// reanalysis.ts): period figures without a tag filter are sums over at most a few hundred rows.
// Periods are whole UTC days.
export const answerDays = sqliteTable(
  "answer_days",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    day: integer("day").notNull(),
    engine: text("engine").notNull(),
    total: integer("total").notNull(),
    valid: integer("valid").notNull(),
    mentioned: integer("mentioned").notNull(),
    positionSum: integer("position_sum").notNull(),
    top1: integer("top1").notNull(),
    top3: integer("top3").notNull(),
    sentimentSum: real("sentiment_sum").notNull(),
    sentimentN: integer("sentiment_n").notNull(),
    cited: integer("cited").notNull(),
    rosterMentions: integer("roster_mentions").notNull(),
    // Sums of squares of the positions and sentiments above: the means' 95% intervals (METRICS.md).
    positionSquares: integer("position_squares").notNull().default(0),
    sentimentSquares: real("sentiment_squares").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.brandId, t.day, t.engine] })],
);

export const mentionDays = sqliteTable(
  "mention_days",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    day: integer("day").notNull(),
    engine: text("engine").notNull(),
    memberId: text("member_id").notNull(),
    answers: integer("answers").notNull(),
    rankSum: integer("rank_sum").notNull(),
    top1: integer("top1").notNull(),
    sentimentSum: real("sentiment_sum").notNull(),
    sentimentN: integer("sentiment_n").notNull(),
    rankSquares: integer("rank_squares").notNull().default(0),
    sentimentSquares: real("sentiment_squares").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.brandId, t.day, t.engine, t.memberId] })],
);

// Daily rollups of citations per engine, for the sources report without a tag filter. Per URL, the
// citations are the answers citing it (an answer cites a URL once: the citations' primary key); per
// registrable domain, an answer may cite several of its URLs, so the answers citing it are counted
// apart. Kept equal to the citations rows like the rollups above.
export const citationUrlDays = sqliteTable(
  "citation_url_days",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    day: integer("day").notNull(),
    engine: text("engine").notNull(),
    url: text("url").notNull(),
    domain: text("domain").notNull(),
    citations: integer("citations").notNull(),
  },
  (t) => [primaryKey({ columns: [t.brandId, t.day, t.engine, t.url] })],
);

export const citationDomainDays = sqliteTable(
  "citation_domain_days",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    day: integer("day").notNull(),
    engine: text("engine").notNull(),
    domain: text("domain").notNull(),
    citations: integer("citations").notNull(),
    answers: integer("answers").notNull(),
  },
  (t) => [primaryKey({ columns: [t.brandId, t.day, t.engine, t.domain] })],
);

// Rollups per prompt, UTC day and engine, plus one row per prompt and day for all engines together
// (engine "*", which no configured engine id can be): per-prompt figures (prompt performance,
// content gaps) read a prompt's days instead of its answers. `competitor` counts the valid answers
// that mention a competitor. Kept equal to the answers by the same writes as the daily rollups.
export const promptDays = sqliteTable(
  "prompt_days",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    promptId: text("prompt_id").notNull(),
    engine: text("engine").notNull(),
    day: integer("day").notNull(),
    total: integer("total").notNull(),
    valid: integer("valid").notNull(),
    mentioned: integer("mentioned").notNull(),
    positionSum: integer("position_sum").notNull(),
    competitor: integer("competitor").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.brandId, t.promptId, t.engine, t.day] }),
    // A prompt's days on one engine, covering: no table lookups. Led by the prompt, not the brand (a
    // prompt id names one brand's prompt): every seek of a ranking over 12,000 prompts compared the
    // same 20-byte brand id first; without it the seeks measured 1.6× faster (migration 0007).
    index("prompt_days_by_prompt_idx").on(t.promptId, t.engine, t.day, t.total, t.valid, t.mentioned, t.positionSum, t.competitor),
  ],
);

// Prompt coverage (METRICS.md) without visiting prompts: for each prompt and engine (or "*"), the
// days it had a valid answer ("valid") or an answer mentioning the brand ("mentioned") are its
// occurrences; each occurrence is counted under (day, the prompt's previous occurrence day, -1 when
// none). The prompts with an occurrence in [s, e] are then the occurrences in [s, e] whose previous
// one is before s: Σ prompts over day in [s, e] and prev_day < s, a few rows per day.
export const promptCoverageDays = sqliteTable(
  "prompt_coverage_days",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    engine: text("engine").notNull(),
    kind: text("kind", { enum: COVERAGE_KINDS }).notNull(),
    day: integer("day").notNull(),
    prevDay: integer("prev_day").notNull(),
    prompts: integer("prompts").notNull(),
  },
  (t) => [primaryKey({ columns: [t.brandId, t.engine, t.kind, t.day, t.prevDay] })],
);

// The per-prompt rollups summed over the default period (the DEFAULT_DAYS days ending on the
// brand's prompt_window_state.end_day), per engine and for all engines together ("*"): the ranking
// of every prompt for the default filter reads one row per prompt instead of its days (issue 19:
// 12,000 prompts × 30 days). `rate` is mentioned / valid as the rankings compute it (null without a
// valid answer). Kept equal to prompt_days by the same writes while the state's end_day stands;
// rebuilt from prompt_days, in slices, when the period has moved on (tracking/prompt-windows.ts).
export const promptWindows = sqliteTable(
  "prompt_windows",
  {
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    engine: text("engine").notNull(),
    promptId: text("prompt_id").notNull(),
    total: integer("total").notNull(),
    valid: integer("valid").notNull(),
    mentioned: integer("mentioned").notNull(),
    positionSum: integer("position_sum").notNull(),
    competitor: integer("competitor").notNull(),
    rate: real("rate"),
  },
  (t) => [
    primaryKey({ columns: [t.brandId, t.engine, t.promptId] }),
    // The ranking's order (rate, then valid answers, then the prompt), read from its end.
    index("prompt_windows_rank_idx").on(t.brandId, t.engine, t.rate, t.valid, t.promptId),
    // The content gaps (no answer mentions the brand, some mention a competitor) in their order: a
    // page reads its rows, and their count reads these entries only.
    index("prompt_windows_gaps_idx")
      .on(t.brandId, t.engine, sql`${t.competitor} DESC`, t.promptId)
      .where(sql`${t.mentioned} = 0 AND ${t.competitor} > 0`),
  ],
);

// Which period a brand's prompt_windows hold: the DEFAULT_DAYS days ending on end_day (a UTC day
// number), complete once every prompt has been summed for it.
export const promptWindowState = sqliteTable("prompt_window_state", {
  brandId: text("brand_id")
    .primaryKey()
    .references(() => brands.id, { onDelete: "cascade" }),
  endDay: integer("end_day").notNull(),
  complete: integer("complete").notNull().default(0),
});

export const articles = sqliteTable(
  "articles",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    promptId: text("prompt_id").references(() => prompts.id, { onDelete: "set null" }),
    title: text("title").notNull().default(""),
    description: text("description"),
    slug: text("slug").notNull(),
    markdown: text("markdown").notNull(),
    // Rendered and sanitized once, when the article is saved.
    html: text("html").notNull(),
    // The renderer's version that made html (content/renderer-version.ts): a start with a newer
    // renderer renders the article again (content/rerender.ts).
    renderedBy: integer("rendered_by").notNull().default(0),
    status: text("status", { enum: ARTICLE_STATUSES }).notNull().default("draft"),
    publishedAt: integer("published_at"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("articles_brand_slug_idx").on(t.brandId, t.slug),
    index("articles_brand_status_idx").on(t.brandId, t.status, t.publishedAt),
    // The start's look for articles an older renderer made (without reading every article's text).
    index("articles_rendered_by_idx").on(t.renderedBy),
    index("articles_prompt_idx").on(t.promptId),
  ],
);

// OAuth 2.1 (src/oauth, CONTRACT §8). A client registered by RFC 7591 or described by a Client ID
// Metadata Document (then `id` is the document's URL and the row is its cache).
export const oauthClients = sqliteTable("oauth_clients", {
  id: text("id").primaryKey(),
  kind: text("kind", { enum: ["dcr", "cimd"] }).notNull(),
  name: text("name").notNull(),
  clientUri: text("client_uri"),
  // "none" (a public client, PKCE only), or how a confidential DCR client sends its secret.
  authMethod: text("auth_method", { enum: ["none", "client_secret_basic", "client_secret_post"] })
    .notNull()
    .default("none"),
  // SHA-256 of a confidential client's secret; the secret exists only in the registration response.
  secretHash: text("secret_hash"),
  // JSON array of the exact redirect URIs.
  redirectUris: text("redirect_uris").notNull(),
  createdAt: integer("created_at").notNull(),
  // When the metadata document was last fetched (CIMD only).
  fetchedAt: integer("fetched_at"),
  // When an account first approved a sign-in with the client: a registration ever used is never
  // deleted as unused, even once its grants went with a deleted brand (clients keep their client_id).
  usedAt: integer("used_at"),
});

// One authorization code: stored only as its SHA-256, single-use, short-lived.
export const oauthCodes = sqliteTable(
  "oauth_codes",
  {
    codeHash: text("code_hash").primaryKey(),
    clientId: text("client_id").notNull(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    resource: text("resource").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    usedAt: integer("used_at"),
    // The grant its exchange created: revoked if the code is presented again.
    grantId: text("grant_id"),
  },
  (t) => [index("oauth_codes_account_idx").on(t.accountId), index("oauth_codes_brand_idx").on(t.brandId)],
);

// A grant: one account's consent for one client to act for one brand, frozen at consent.
export const oauthGrants = sqliteTable(
  "oauth_grants",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    clientId: text("client_id").notNull(),
    clientName: text("client_name").notNull(),
    resource: text("resource").notNull(),
    createdAt: integer("created_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("oauth_grants_account_idx").on(t.accountId, t.revokedAt), index("oauth_grants_brand_idx").on(t.brandId)],
);

// Access and refresh tokens, stored only as SHA-256 of the plaintext.
export const oauthTokens = sqliteTable(
  "oauth_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    grantId: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["access", "refresh"] }).notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    // A refresh token once exchanged; presented again, it revokes the grant.
    usedAt: integer("used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [index("oauth_tokens_grant_idx").on(t.grantId)],
);
