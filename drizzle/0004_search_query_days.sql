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
-- again over a database that has the table): the backfill from the search queries already stored, the
-- same sums as SearchStore.rebuildDays. `answers` credits an answer to the first (by position) of its
-- spellings of a query, so that summing over spellings counts it once.
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
