CREATE TABLE `citation_domain_days` (
	`brand_id` text NOT NULL,
	`day` integer NOT NULL,
	`engine` text NOT NULL,
	`domain` text NOT NULL,
	`citations` integer NOT NULL,
	`answers` integer NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `engine`, `domain`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `citation_url_days` (
	`brand_id` text NOT NULL,
	`day` integer NOT NULL,
	`engine` text NOT NULL,
	`url` text NOT NULL,
	`domain` text NOT NULL,
	`citations` integer NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `engine`, `url`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Backfill from the citations already stored (the same sums as AnswerWriter.rebuildRollups).
INSERT INTO `citation_url_days` (`brand_id`, `day`, `engine`, `url`, `domain`, `citations`)
SELECT `brand_id`, `created_at` / 86400000, `engine`, `url`, min(`domain`), count(*)
FROM `citations` GROUP BY `brand_id`, `created_at` / 86400000, `engine`, `url`;
--> statement-breakpoint
INSERT INTO `citation_domain_days` (`brand_id`, `day`, `engine`, `domain`, `citations`, `answers`)
SELECT `brand_id`, `created_at` / 86400000, `engine`, `domain`, count(*), count(DISTINCT `answer_id`)
FROM `citations` GROUP BY `brand_id`, `created_at` / 86400000, `engine`, `domain`;
