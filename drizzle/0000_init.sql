CREATE TABLE `accounts` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`password_hash` text NOT NULL,
	`plan` text DEFAULT 'none' NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `accounts_email_unique` ON `accounts` (`email`);--> statement-breakpoint
CREATE TABLE `answer_days` (
	`brand_id` text NOT NULL,
	`day` integer NOT NULL,
	`engine` text NOT NULL,
	`total` integer NOT NULL,
	`valid` integer NOT NULL,
	`mentioned` integer NOT NULL,
	`position_sum` integer NOT NULL,
	`top1` integer NOT NULL,
	`top3` integer NOT NULL,
	`sentiment_sum` real NOT NULL,
	`sentiment_n` integer NOT NULL,
	`cited` integer NOT NULL,
	`roster_mentions` integer NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `engine`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `answers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`brand_id` text NOT NULL,
	`run_id` text,
	`prompt_id` text NOT NULL,
	`engine` text NOT NULL,
	`model` text,
	`sample` integer DEFAULT 0 NOT NULL,
	`status` text NOT NULL,
	`text` text DEFAULT '' NOT NULL,
	`provider_citations` text DEFAULT '[]' NOT NULL,
	`error` text,
	`latency_ms` integer,
	`tokens_in` integer,
	`tokens_out` integer,
	`created_at` integer NOT NULL,
	`brand_mentioned` integer DEFAULT false NOT NULL,
	`brand_position` integer,
	`brand_sentiment` real,
	`brand_cited` integer DEFAULT false NOT NULL,
	`roster_mentions` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`prompt_id`) REFERENCES `prompts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `answers_brand_created_idx` ON `answers` (`brand_id`,`created_at`,`engine`,`status`,`brand_mentioned`,`brand_position`,`brand_sentiment`,`brand_cited`,`roster_mentions`);--> statement-breakpoint
CREATE INDEX `answers_brand_prompt_idx` ON `answers` (`brand_id`,`prompt_id`,`created_at`,`engine`,`status`,`brand_mentioned`,`brand_position`,`brand_sentiment`,`brand_cited`,`roster_mentions`);--> statement-breakpoint
CREATE UNIQUE INDEX `answers_run_slot_idx` ON `answers` (`run_id`,`prompt_id`,`engine`,`sample`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`brand_id` text NOT NULL,
	`name` text NOT NULL,
	`key_hash` text NOT NULL,
	`key_prefix` text NOT NULL,
	`created_at` integer NOT NULL,
	`last_used_at` integer,
	`revoked_at` integer,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_account_idx` ON `api_keys` (`account_id`,`revoked_at`,`created_at`);--> statement-breakpoint
CREATE TABLE `articles` (
	`id` text PRIMARY KEY NOT NULL,
	`brand_id` text NOT NULL,
	`prompt_id` text,
	`title` text DEFAULT '' NOT NULL,
	`description` text,
	`slug` text NOT NULL,
	`markdown` text NOT NULL,
	`html` text NOT NULL,
	`status` text DEFAULT 'draft' NOT NULL,
	`published_at` integer,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`prompt_id`) REFERENCES `prompts`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `articles_brand_slug_idx` ON `articles` (`brand_id`,`slug`);--> statement-breakpoint
CREATE INDEX `articles_brand_status_idx` ON `articles` (`brand_id`,`status`,`published_at`);--> statement-breakpoint
CREATE TABLE `brands` (
	`id` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`name` text NOT NULL,
	`domain` text,
	`aliases` text DEFAULT '[]' NOT NULL,
	`site_key` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `brands_site_key_unique` ON `brands` (`site_key`);--> statement-breakpoint
CREATE INDEX `brands_account_idx` ON `brands` (`account_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `citations` (
	`answer_id` integer NOT NULL,
	`brand_id` text NOT NULL,
	`url` text NOT NULL,
	`domain` text NOT NULL,
	`engine` text NOT NULL,
	`prompt_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`answer_id`, `url`),
	FOREIGN KEY (`answer_id`) REFERENCES `answers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `citations_brand_period_idx` ON `citations` (`brand_id`,`created_at`,`engine`,`domain`,`prompt_id`,`answer_id`,`url`);--> statement-breakpoint
CREATE TABLE `competitors` (
	`id` text PRIMARY KEY NOT NULL,
	`brand_id` text NOT NULL,
	`name` text NOT NULL,
	`aliases` text DEFAULT '[]' NOT NULL,
	`domains` text DEFAULT '[]' NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `competitors_brand_idx` ON `competitors` (`brand_id`);--> statement-breakpoint
CREATE TABLE `mention_days` (
	`brand_id` text NOT NULL,
	`day` integer NOT NULL,
	`engine` text NOT NULL,
	`member_id` text NOT NULL,
	`answers` integer NOT NULL,
	`rank_sum` integer NOT NULL,
	`top1` integer NOT NULL,
	`sentiment_sum` real NOT NULL,
	`sentiment_n` integer NOT NULL,
	PRIMARY KEY(`brand_id`, `day`, `engine`, `member_id`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `mentions` (
	`answer_id` integer NOT NULL,
	`brand_id` text NOT NULL,
	`member_id` text NOT NULL,
	`is_brand` integer NOT NULL,
	`offset` integer NOT NULL,
	`rank` integer NOT NULL,
	`sentiment` real,
	`engine` text NOT NULL,
	`prompt_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`answer_id`, `member_id`),
	FOREIGN KEY (`answer_id`) REFERENCES `answers`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `mentions_brand_prompt_idx` ON `mentions` (`brand_id`,`prompt_id`,`member_id`,`created_at`,`engine`,`is_brand`,`rank`,`sentiment`,`answer_id`);--> statement-breakpoint
CREATE TABLE `prompt_tags` (
	`prompt_id` text NOT NULL,
	`tag_id` text NOT NULL,
	PRIMARY KEY(`prompt_id`, `tag_id`),
	FOREIGN KEY (`prompt_id`) REFERENCES `prompts`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`tag_id`) REFERENCES `tags`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `prompt_tags_tag_idx` ON `prompt_tags` (`tag_id`);--> statement-breakpoint
CREATE TABLE `prompts` (
	`id` text PRIMARY KEY NOT NULL,
	`brand_id` text NOT NULL,
	`text` text NOT NULL,
	`text_key` text NOT NULL,
	`country` text,
	`language` text,
	`archived_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `prompts_brand_text_idx` ON `prompts` (`brand_id`,`text_key`);--> statement-breakpoint
CREATE INDEX `prompts_brand_created_idx` ON `prompts` (`brand_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`account_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sessions_account_idx` ON `sessions` (`account_id`);--> statement-breakpoint
CREATE TABLE `tags` (
	`id` text PRIMARY KEY NOT NULL,
	`brand_id` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`color` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tags_brand_name_idx` ON `tags` (`brand_id`,`name_key`);--> statement-breakpoint
CREATE TABLE `tracking_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`brand_id` text NOT NULL,
	`status` text NOT NULL,
	`trigger` text NOT NULL,
	`engines` text DEFAULT '[]' NOT NULL,
	`answers_planned` integer NOT NULL,
	`answers_done` integer DEFAULT 0 NOT NULL,
	`owner_pid` integer,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`error` text,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `tracking_runs_brand_idx` ON `tracking_runs` (`brand_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `tracking_runs_status_idx` ON `tracking_runs` (`status`);