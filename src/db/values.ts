// The fixed values some columns take, for the features that need them without the tables: importing
// schema.ts defines every table with drizzle's builders, which only the ORM (the tests) and
// migrate-to-postgres use, and a start need not (see SqliteDb.orm). schema.ts and schema-pg.ts
// declare the columns with these lists.
export const PLANS = ["none", "visibility", "autopilot"] as const;
export type Plan = (typeof PLANS)[number];

export const RUN_STATUSES = ["running", "completed", "interrupted", "failed"] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const ANSWER_STATUSES = ["ok", "empty", "refusal", "error"] as const;
export type AnswerStatus = (typeof ANSWER_STATUSES)[number];

export const SOURCE_KINDS = ["cited", "retrieved"] as const;
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** The engine of the rollup rows that count all engines together ("*", which no configured engine id can be). */
export const ALL_ENGINES = "*";

export const COVERAGE_KINDS = ["valid", "mentioned"] as const;

export const ARTICLE_STATUSES = ["draft", "published"] as const;
