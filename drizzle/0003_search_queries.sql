CREATE TABLE `answer_sources` (
	`answer_id` integer NOT NULL,
	`brand_id` text NOT NULL,
	`kind` text NOT NULL,
	`position` integer NOT NULL,
	`url` text NOT NULL,
	`host` text,
	`domain` text,
	`title` text,
	`start_index` integer,
	`end_index` integer,
	`engine` text NOT NULL,
	`prompt_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`answer_id`, `kind`, `position`),
	FOREIGN KEY (`answer_id`) REFERENCES `answers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `answer_sources_brand_period_idx` ON `answer_sources` (`brand_id`,`created_at`,`engine`,`host`,`answer_id`);--> statement-breakpoint
CREATE INDEX `answer_sources_brand_domain_idx` ON `answer_sources` (`brand_id`,`domain`,`created_at`,`engine`,`host`,`prompt_id`,`answer_id`);--> statement-breakpoint
CREATE TABLE `search_queries` (
	`answer_id` integer NOT NULL,
	`brand_id` text NOT NULL,
	`position` integer NOT NULL,
	`query` text NOT NULL,
	`query_key` text NOT NULL,
	`engine` text NOT NULL,
	`prompt_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`answer_id`, `position`),
	FOREIGN KEY (`answer_id`) REFERENCES `answers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `search_queries_brand_period_idx` ON `search_queries` (`brand_id`,`created_at`,`engine`,`query_key`,`prompt_id`,`answer_id`);--> statement-breakpoint
ALTER TABLE `tracking_runs` ADD `prompt_ids` text;