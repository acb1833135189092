// The schema of schema.ts for PostgreSQL, table for table: the same table, column, index and
// constraint names (raw SQL, index hints and the migration copy name them), the same keys and ON
// DELETE rules; what each column means is documented there. test/db/schema-parity.test.ts compares
// the two, so a change to one without the other fails. Types: epoch-millisecond timestamps and answer
// ids are bigint (PostgreSQL's integer is 32-bit), read as numbers; booleans stay integers 0/1 and
// JSON stays text, as on SQLite, so that the same SQL text reads and writes both databases alike.
import { sql } from "drizzle-orm";
import { bigint, customType, doublePrecision, index, integer, pgTable, primaryKey, text, uniqueIndex } from "drizzle-orm/pg-core";
import { ANSWER_STATUSES, ARTICLE_STATUSES, COVERAGE_KINDS, PLANS, RUN_STATUSES, SOURCE_KINDS } from "./values";

/** SQLite's integer column in boolean mode: 0/1 in the database, a boolean through the ORM. */
const integerBoolean = customType<{ data: boolean; driverData: number }>({
  dataType: () => "integer",
  toDriver: (value) => (value ? 1 : 0),
  fromDriver: (value) => value === 1,
});

/** SQLite's text column in JSON mode: JSON text in the database, the parsed value through the ORM. */
function jsonText<T>(name: string) {
  return customType<{ data: T; driverData: string }>({
    dataType: () => "text",
    toDriver: (value) => JSON.stringify(value),
    fromDriver: (value) => JSON.parse(value) as T,
  })(name);
}

export const accounts = pgTable("accounts", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  passwordHash: text("password_hash").notNull(),
  plan: text("plan", { enum: PLANS }).notNull().default("none"),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
});

export const sessions = pgTable(
  "sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
  },
  (t) => [index("sessions_account_idx").on(t.accountId)],
);

export const brands = pgTable(
  "brands",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    domain: text("domain"),
    aliases: jsonText<string[]>("aliases").notNull().default(sql`'[]'`),
    siteKey: text("site_key").notNull().unique(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [index("brands_account_idx").on(t.accountId, t.createdAt)],
);

export const apiKeys = pgTable(
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
    keyHash: text("key_hash").notNull().unique(),
    keyPrefix: text("key_prefix").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    lastUsedAt: bigint("last_used_at", { mode: "number" }),
    revokedAt: bigint("revoked_at", { mode: "number" }),
  },
  // brand_id: what a brand's deletion looks its keys up by (every foreign key's column leads an index).
  (t) => [index("api_keys_account_idx").on(t.accountId, t.revokedAt, t.createdAt), index("api_keys_brand_idx").on(t.brandId)],
);

export const tags = pgTable(
  "tags",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    nameKey: text("name_key").notNull(),
    color: text("color"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [uniqueIndex("tags_brand_name_idx").on(t.brandId, t.nameKey)],
);

export const prompts = pgTable(
  "prompts",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    text: text("text").notNull(),
    textKey: text("text_key").notNull(),
    country: text("country"),
    language: text("language"),
    archivedAt: bigint("archived_at", { mode: "number" }),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    // The names of the prompt's tags as a JSON array (in no order), kept by triggers on prompt_tags and
    // tags (migration 0012 / PostgreSQL 0005): a page of list_prompts reads them with the row instead
    // of a correlated subquery per prompt, which was about a fifth of its CPU (bench/door.ts).
    tagNames: text("tag_names").notNull().default("[]"),
    // Which state of the row this is: a new value, never used before, at every insert and every change
    // of what a prompt's view is made of (set by triggers: migration 0020 / PostgreSQL 0014). A page of
    // list_prompts reads its rows' versions from prompts_brand_active_idx alone and reuses the views it
    // made of rows whose version has not changed (src/prompts/service.ts). A migration that rebuilds
    // the table must create the triggers again.
    version: bigint("version", { mode: "number" }).notNull().default(0),
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

export const promptTags = pgTable(
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

export const competitors = pgTable(
  "competitors",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    aliases: jsonText<string[]>("aliases").notNull().default(sql`'[]'`),
    domains: jsonText<string[]>("domains").notNull().default(sql`'[]'`),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [index("competitors_brand_idx").on(t.brandId)],
);

export const trackingRuns = pgTable(
  "tracking_runs",
  {
    id: text("id").primaryKey(),
    brandId: text("brand_id")
      .notNull()
      .references(() => brands.id, { onDelete: "cascade" }),
    status: text("status", { enum: RUN_STATUSES }).notNull(),
    trigger: text("trigger").notNull(),
    engines: jsonText<string[]>("engines").notNull().default(sql`'[]'`),
    promptIds: jsonText<string[] | null>("prompt_ids"),
    answersPlanned: integer("answers_planned").notNull(),
    answersDone: integer("answers_done").notNull().default(0),
    ownerPid: integer("owner_pid"),
    owner: text("owner"),
    leaseUntil: bigint("lease_until", { mode: "number" }),
    slot: text("slot"),
    startedAt: bigint("started_at", { mode: "number" }).notNull(),
    finishedAt: bigint("finished_at", { mode: "number" }),
    error: text("error"),
  },
  (t) => [
    index("tracking_runs_brand_idx").on(t.brandId, t.startedAt),
    index("tracking_runs_status_idx").on(t.status),
    uniqueIndex("tracking_runs_slot_idx").on(t.brandId, t.slot),
  ],
);

export const trackingTasks = pgTable(
  "tracking_tasks",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
    runId: text("run_id")
      .notNull()
      .references(() => trackingRuns.id, { onDelete: "cascade" }),
    brandId: text("brand_id").notNull(),
    promptId: text("prompt_id")
      .notNull()
      .references(() => prompts.id, { onDelete: "cascade" }),
    engine: text("engine").notNull(),
    sample: integer("sample").notNull(),
    claimedBy: text("claimed_by"),
    leaseUntil: bigint("lease_until", { mode: "number" }),
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
export const enginePauses = pgTable(
  "engine_pauses",
  {
    engine: text("engine").notNull(),
    /** The instance whose requests wait (runner.ts INSTANCE_ID). */
    instance: text("instance").notNull(),
    /** Until when (ms) the engine's requests wait. */
    pausedUntil: bigint("paused_until", { mode: "number" }).notNull(),
    /** The provider's answer that asked for the pause ("HTTP 429: Rate limit reached…"). */
    reason: text("reason").notNull(),
  },
  (t) => [primaryKey({ columns: [t.engine, t.instance] })],
);

export const rosterVersions = pgTable("roster_versions", {
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

export const answers = pgTable(
  "answers",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
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
    providerCitations: jsonText<string[]>("provider_citations").notNull().default(sql`'[]'`),
    error: text("error"),
    latencyMs: integer("latency_ms"),
    tokensIn: integer("tokens_in"),
    tokensOut: integer("tokens_out"),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    brandMentioned: integerBoolean("brand_mentioned").notNull().default(sql`0`),
    brandPosition: integer("brand_position"),
    brandSentiment: doublePrecision("brand_sentiment"),
    brandCited: integerBoolean("brand_cited").notNull().default(sql`0`),
    rosterMentions: integer("roster_mentions").notNull().default(0),
  },
  (t) => [
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

export const mentions = pgTable(
  "mentions",
  {
    answerId: bigint("answer_id", { mode: "number" })
      .notNull()
      .references(() => answers.id, { onDelete: "cascade" }),
    brandId: text("brand_id").notNull(),
    memberId: text("member_id").notNull(),
    isBrand: integerBoolean("is_brand").notNull(),
    offset: integer("offset").notNull(),
    rank: integer("rank").notNull(),
    sentiment: doublePrecision("sentiment"),
    engine: text("engine").notNull(),
    promptId: text("prompt_id").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.answerId, t.memberId] }),
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

export const citations = pgTable(
  "citations",
  {
    answerId: bigint("answer_id", { mode: "number" })
      .notNull()
      .references(() => answers.id, { onDelete: "cascade" }),
    brandId: text("brand_id").notNull(),
    url: text("url").notNull(),
    domain: text("domain").notNull(),
    engine: text("engine").notNull(),
    promptId: text("prompt_id").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.answerId, t.url] }),
    index("citations_brand_period_idx").on(t.brandId, t.createdAt, t.engine, t.domain, t.promptId, t.answerId, t.url),
  ],
);

export const searchQueries = pgTable(
  "search_queries",
  {
    answerId: bigint("answer_id", { mode: "number" })
      .notNull()
      .references(() => answers.id, { onDelete: "cascade" }),
    brandId: text("brand_id").notNull(),
    position: integer("position").notNull(),
    query: text("query").notNull(),
    queryKey: text("query_key").notNull(),
    engine: text("engine").notNull(),
    promptId: text("prompt_id").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.answerId, t.position] }),
    index("search_queries_brand_period_idx").on(t.brandId, t.createdAt, t.engine, t.queryKey, t.promptId, t.answerId),
  ],
);

export const searchQueryDays = pgTable(
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
    primaryKey({ columns: [t.brandId, t.queryKey, t.day, t.engine, t.promptId, t.query] }),
    index("search_query_days_period_idx").on(t.brandId, t.day, t.engine, t.queryKey, t.promptId, t.answers),
    index("search_query_days_key_idx").on(t.brandId, t.queryKey, t.promptId, t.query, t.engine, t.day, t.answers, t.uses),
    // A prompt's deletion finds its rows (a foreign key's column leads an index).
    index("search_query_days_prompt_idx").on(t.promptId),
  ],
);

export const answerSourceDays = pgTable(
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

export const answerSourceEngineDays = pgTable(
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

export const answerSources = pgTable(
  "answer_sources",
  {
    answerId: bigint("answer_id", { mode: "number" })
      .notNull()
      .references(() => answers.id, { onDelete: "cascade" }),
    brandId: text("brand_id").notNull(),
    kind: text("kind", { enum: SOURCE_KINDS }).notNull(),
    position: integer("position").notNull(),
    url: text("url").notNull(),
    host: text("host"),
    domain: text("domain"),
    title: text("title"),
    startIndex: integer("start_index"),
    endIndex: integer("end_index"),
    engine: text("engine").notNull(),
    promptId: text("prompt_id").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.answerId, t.kind, t.position] }),
    index("answer_sources_brand_period_idx").on(t.brandId, t.createdAt, t.engine, t.host, t.answerId),
    index("answer_sources_brand_domain_idx").on(t.brandId, t.domain, t.createdAt, t.engine, t.host, t.promptId, t.answerId),
  ],
);

export const answerDays = pgTable(
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
    sentimentSum: doublePrecision("sentiment_sum").notNull(),
    sentimentN: integer("sentiment_n").notNull(),
    cited: integer("cited").notNull(),
    rosterMentions: integer("roster_mentions").notNull(),
    // Sums of squares of the positions and sentiments above: the means' 95% intervals (METRICS.md).
    positionSquares: integer("position_squares").notNull().default(0),
    sentimentSquares: doublePrecision("sentiment_squares").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.brandId, t.day, t.engine] })],
);

export const mentionDays = pgTable(
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
    sentimentSum: doublePrecision("sentiment_sum").notNull(),
    sentimentN: integer("sentiment_n").notNull(),
    rankSquares: integer("rank_squares").notNull().default(0),
    sentimentSquares: doublePrecision("sentiment_squares").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.brandId, t.day, t.engine, t.memberId] })],
);

export const citationUrlDays = pgTable(
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

export const citationDomainDays = pgTable(
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

export const promptDays = pgTable(
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
    index("prompt_days_by_prompt_idx").on(t.promptId, t.engine, t.day, t.total, t.valid, t.mentioned, t.positionSum, t.competitor),
  ],
);

export const promptCoverageDays = pgTable(
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
export const promptWindows = pgTable(
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
    rate: doublePrecision("rate"),
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
export const promptWindowState = pgTable("prompt_window_state", {
  brandId: text("brand_id")
    .primaryKey()
    .references(() => brands.id, { onDelete: "cascade" }),
  endDay: integer("end_day").notNull(),
  complete: integer("complete").notNull().default(0),
});

export const articles = pgTable(
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
    html: text("html").notNull(),
    renderedBy: integer("rendered_by").notNull().default(0),
    status: text("status", { enum: ARTICLE_STATUSES }).notNull().default("draft"),
    publishedAt: bigint("published_at", { mode: "number" }),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    updatedAt: bigint("updated_at", { mode: "number" }).notNull(),
  },
  (t) => [
    uniqueIndex("articles_brand_slug_idx").on(t.brandId, t.slug),
    index("articles_brand_status_idx").on(t.brandId, t.status, t.publishedAt),
    // The start's look for articles an older renderer made (without reading every article's text).
    index("articles_rendered_by_idx").on(t.renderedBy),
    index("articles_prompt_idx").on(t.promptId),
  ],
);

export const oauthClients = pgTable("oauth_clients", {
  id: text("id").primaryKey(),
  kind: text("kind", { enum: ["dcr", "cimd"] }).notNull(),
  name: text("name").notNull(),
  clientUri: text("client_uri"),
  authMethod: text("auth_method", { enum: ["none", "client_secret_basic", "client_secret_post"] })
    .notNull()
    .default("none"),
  secretHash: text("secret_hash"),
  redirectUris: text("redirect_uris").notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
  fetchedAt: bigint("fetched_at", { mode: "number" }),
  // When an account first approved a sign-in with the client: a registration ever used is never
  // deleted as unused, even once its grants went with a deleted brand (clients keep their client_id).
  usedAt: bigint("used_at", { mode: "number" }),
});

export const oauthCodes = pgTable(
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
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
    usedAt: bigint("used_at", { mode: "number" }),
    grantId: text("grant_id"),
  },
  (t) => [index("oauth_codes_account_idx").on(t.accountId), index("oauth_codes_brand_idx").on(t.brandId)],
);

export const oauthGrants = pgTable(
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
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    lastUsedAt: bigint("last_used_at", { mode: "number" }),
    revokedAt: bigint("revoked_at", { mode: "number" }),
  },
  (t) => [index("oauth_grants_account_idx").on(t.accountId, t.revokedAt), index("oauth_grants_brand_idx").on(t.brandId)],
);

export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    grantId: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["access", "refresh"] }).notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
    usedAt: bigint("used_at", { mode: "number" }),
    revokedAt: bigint("revoked_at", { mode: "number" }),
  },
  (t) => [index("oauth_tokens_grant_idx").on(t.grantId)],
);
