CREATE TABLE IF NOT EXISTS `answer_source_days` (
	`brand_id` text NOT NULL,
	`domain` text NOT NULL,
	`day` integer NOT NULL,
	`engine` text NOT NULL,
	`prompt_id` text NOT NULL,
	`hosts` text NOT NULL,
	`answers` integer NOT NULL,
	PRIMARY KEY(`brand_id`, `domain`, `day`, `engine`, `prompt_id`, `hosts`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`prompt_id`) REFERENCES `prompts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS `search_query_days` (
	`brand_id` text NOT NULL,
	`query_key` text NOT NULL,
	`day` integer NOT NULL,
	`engine` text NOT NULL,
	`prompt_id` text NOT NULL,
	`query` text NOT NULL,
	`uses` integer NOT NULL,
	`answers` integer NOT NULL,
	PRIMARY KEY(`brand_id`, `query_key`, `day`, `engine`, `prompt_id`, `query`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`prompt_id`) REFERENCES `prompts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `search_query_days_period_idx` ON `search_query_days` (`brand_id`,`day`,`engine`,`query_key`,`prompt_id`,`answers`);--> statement-breakpoint
-- Hand-written, appended to the generated SQL (as IF NOT EXISTS above, so that the migration may run
-- again over a database that has the tables): the backfill of both rollups from the rows already
-- stored, the same sums as SearchStore.rebuildDays. search_query_days: `answers` credits an answer to
-- the first (by position) of its spellings of a query, so that summing over spellings counts it once.
DELETE FROM `search_query_days`;
--> statement-breakpoint
INSERT INTO `search_query_days` (`brand_id`, `query_key`, `day`, `engine`, `prompt_id`, `query`, `uses`, `answers`)
SELECT `brand_id`, `query_key`, `created_at` / 86400000, `engine`, `prompt_id`, `query`, count(*), sum(`first`)
FROM (
  SELECT q.`brand_id`, q.`query_key`, q.`created_at`, q.`engine`, q.`prompt_id`, q.`query`,
    CASE WHEN q.`position` = min(q.`position`) OVER (PARTITION BY q.`answer_id`, q.`query_key`) THEN 1 ELSE 0 END AS `first`
  FROM `search_queries` q
) s
GROUP BY `brand_id`, `query_key`, `created_at` / 86400000, `engine`, `prompt_id`, `query`;
--> statement-breakpoint
-- answer_source_days: per answer and registrable domain, the sorted distinct hosts of its sources there.
DELETE FROM `answer_source_days`;
--> statement-breakpoint
INSERT INTO `answer_source_days` (`brand_id`, `domain`, `day`, `engine`, `prompt_id`, `hosts`, `answers`)
SELECT `brand_id`, `domain`, `created_at` / 86400000, `engine`, `prompt_id`, `hosts`, count(*)
FROM (
  SELECT `brand_id`, `domain`, `created_at`, `engine`, `prompt_id`, `answer_id`, json_group_array(`host`) AS `hosts`
  FROM (
    SELECT DISTINCT `brand_id`, `domain`, `created_at`, `engine`, `prompt_id`, `answer_id`, `host`
    FROM `answer_sources` WHERE `domain` IS NOT NULL ORDER BY `answer_id`, `domain`, `host`
  ) h
  GROUP BY `answer_id`, `domain`, `brand_id`, `created_at`, `engine`, `prompt_id`
) a
GROUP BY `brand_id`, `domain`, `created_at` / 86400000, `engine`, `prompt_id`, `hosts`;
