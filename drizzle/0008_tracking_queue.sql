CREATE TABLE `roster_versions` (
	`brand_id` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL,
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `tracking_tasks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`run_id` text NOT NULL,
	`brand_id` text NOT NULL,
	`prompt_id` text NOT NULL,
	`engine` text NOT NULL,
	`sample` integer NOT NULL,
	`claimed_by` text,
	`lease_until` integer,
	FOREIGN KEY (`run_id`) REFERENCES `tracking_runs`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`prompt_id`) REFERENCES `prompts`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tracking_tasks_slot_idx` ON `tracking_tasks` (`run_id`,`prompt_id`,`engine`,`sample`);--> statement-breakpoint
CREATE INDEX `tracking_tasks_engine_idx` ON `tracking_tasks` (`engine`,`lease_until`);--> statement-breakpoint
ALTER TABLE `tracking_runs` ADD `owner` text;--> statement-breakpoint
ALTER TABLE `tracking_runs` ADD `lease_until` integer;--> statement-breakpoint
ALTER TABLE `tracking_runs` ADD `slot` text;--> statement-breakpoint
CREATE UNIQUE INDEX `tracking_runs_slot_idx` ON `tracking_runs` (`brand_id`,`slot`);--> statement-breakpoint
-- Hand-added: runs left running by a process of an older version hold no lease; a start-up marks them interrupted.
UPDATE `tracking_runs` SET `lease_until` = 0 WHERE `status` = 'running';
