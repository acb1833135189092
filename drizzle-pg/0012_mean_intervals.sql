ALTER TABLE "answer_days" ADD COLUMN "position_squares" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "answer_days" ADD COLUMN "sentiment_squares" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "mention_days" ADD COLUMN "rank_squares" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "mention_days" ADD COLUMN "sentiment_squares" double precision DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written: the squares of the answers and mentions already stored, so that every period's
-- average position and sentiment get their interval (the rollups are kept equal to the answers).
UPDATE "answer_days" AS d SET "position_squares" = s."p", "sentiment_squares" = s."q"
FROM (
  SELECT "brand_id", "created_at" / 86400000 AS "day", "engine",
    coalesce(sum("brand_position" * "brand_position"), 0) AS "p", coalesce(sum("brand_sentiment" * "brand_sentiment"), 0) AS "q"
  FROM "answers" GROUP BY 1, 2, 3
) AS s
WHERE d."brand_id" = s."brand_id" AND d."day" = s."day" AND d."engine" = s."engine";--> statement-breakpoint
UPDATE "mention_days" AS d SET "rank_squares" = s."p", "sentiment_squares" = s."q"
FROM (
  SELECT "brand_id", "created_at" / 86400000 AS "day", "engine", "member_id",
    sum("rank" * "rank") AS "p", coalesce(sum("sentiment" * "sentiment"), 0) AS "q"
  FROM "mentions" GROUP BY 1, 2, 3, 4
) AS s
WHERE d."brand_id" = s."brand_id" AND d."day" = s."day" AND d."engine" = s."engine" AND d."member_id" = s."member_id";
