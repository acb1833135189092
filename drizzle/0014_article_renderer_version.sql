ALTER TABLE `articles` ADD `rendered_by` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `articles_rendered_by_idx` ON `articles` (`rendered_by`);