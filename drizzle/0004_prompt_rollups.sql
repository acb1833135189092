CREATE TABLE `prompt_coverage_days` (
	`brand_id` text NOT NULL,
	`engine` text NOT NULL,
	`kind` text NOT NULL,
	`day` integer NOT NULL,
	`prev_day` integer NOT NULL,
	`prompts` integer NOT NULL,
	PRIMARY KEY(`brand_id`, `engine`, `kind`, `day`, `prev_day`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `prompt_days` (
	`brand_id` text NOT NULL,
	`prompt_id` text NOT NULL,
	`engine` text NOT NULL,
	`day` integer NOT NULL,
	`total` integer NOT NULL,
	`valid` integer NOT NULL,
	`mentioned` integer NOT NULL,
	`position_sum` integer NOT NULL,
	`competitor` integer NOT NULL,
	PRIMARY KEY(`brand_id`, `prompt_id`, `engine`, `day`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `prompt_days_covering_idx` ON `prompt_days` (`brand_id`,`prompt_id`,`engine`,`day`,`total`,`valid`,`mentioned`,`position_sum`,`competitor`);--> statement-breakpoint
-- Backfill from the answers already stored (the same sums as the answer writer's prompt rollups).
INSERT INTO `prompt_days` (`brand_id`, `prompt_id`, `engine`, `day`, `total`, `valid`, `mentioned`, `position_sum`, `competitor`)
SELECT `brand_id`, `prompt_id`, `engine`, `created_at` / 86400000, count(*), sum(`status` = 'ok'), sum(`brand_mentioned`),
  coalesce(sum(`brand_position`), 0), sum(`roster_mentions` > `brand_mentioned`)
FROM `answers` GROUP BY `brand_id`, `prompt_id`, `engine`, `created_at` / 86400000;
--> statement-breakpoint
INSERT INTO `prompt_days` (`brand_id`, `prompt_id`, `engine`, `day`, `total`, `valid`, `mentioned`, `position_sum`, `competitor`)
SELECT `brand_id`, `prompt_id`, '*', `day`, sum(`total`), sum(`valid`), sum(`mentioned`), sum(`position_sum`), sum(`competitor`)
FROM `prompt_days` GROUP BY `brand_id`, `prompt_id`, `day`;
--> statement-breakpoint
INSERT INTO `prompt_coverage_days` (`brand_id`, `engine`, `kind`, `day`, `prev_day`, `prompts`)
SELECT `brand_id`, `engine`, 'valid', `day`, `prev_day`, count(*) FROM (
  SELECT `brand_id`, `engine`, `day`, coalesce(lag(`day`) OVER (PARTITION BY `brand_id`, `prompt_id`, `engine` ORDER BY `day`), -1) AS `prev_day`
  FROM `prompt_days` WHERE `valid` > 0)
GROUP BY `brand_id`, `engine`, `day`, `prev_day`;
--> statement-breakpoint
INSERT INTO `prompt_coverage_days` (`brand_id`, `engine`, `kind`, `day`, `prev_day`, `prompts`)
SELECT `brand_id`, `engine`, 'mentioned', `day`, `prev_day`, count(*) FROM (
  SELECT `brand_id`, `engine`, `day`, coalesce(lag(`day`) OVER (PARTITION BY `brand_id`, `prompt_id`, `engine` ORDER BY `day`), -1) AS `prev_day`
  FROM `prompt_days` WHERE `mentioned` > 0)
GROUP BY `brand_id`, `engine`, `day`, `prev_day`;
