CREATE TABLE `prompt_window_state` (
	`brand_id` text PRIMARY KEY NOT NULL,
	`end_day` integer NOT NULL,
	`complete` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `prompt_windows` (
	`brand_id` text NOT NULL,
	`engine` text NOT NULL,
	`prompt_id` text NOT NULL,
	`total` integer NOT NULL,
	`valid` integer NOT NULL,
	`mentioned` integer NOT NULL,
	`position_sum` integer NOT NULL,
	`competitor` integer NOT NULL,
	`rate` real,
	PRIMARY KEY(`brand_id`, `engine`, `prompt_id`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `prompt_windows_rank_idx` ON `prompt_windows` (`brand_id`,`engine`,`rate`,`valid`,`prompt_id`);