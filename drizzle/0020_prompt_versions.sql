DROP INDEX `prompts_brand_active_idx`;--> statement-breakpoint
ALTER TABLE `prompts` ADD `version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `prompts_brand_active_idx` ON `prompts` (`brand_id`,`archived_at`,`created_at`,`id`,`version`);--> statement-breakpoint
-- Hand-written (as in 0012): prompts.version names the state of the row, a value never used before
-- at every insert and at every change of a column a prompt's view is made of (its tags' names
-- included: the tag triggers of 0012 rewrite tag_names). random() >> 11: a random 53-bit integer, which
-- JavaScript reads exactly, never the same twice in practice (not even for a transaction rolled back,
-- as a counter would be). The triggers' own UPDATE sets only version, which fires neither again.
-- A later migration that rebuilds the prompts table (drizzle-kit's __new_prompts) drops these
-- triggers with it: it must create them again.
CREATE TRIGGER IF NOT EXISTS `prompts_version_insert` AFTER INSERT ON `prompts` BEGIN
  UPDATE `prompts` SET `version` = random() >> 11 WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `prompts_version_update`
  AFTER UPDATE OF `text`, `country`, `language`, `archived_at`, `created_at`, `tag_names` ON `prompts` BEGIN
  UPDATE `prompts` SET `version` = random() >> 11 WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
UPDATE `prompts` SET `version` = random() >> 11;
