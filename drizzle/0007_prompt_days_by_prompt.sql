-- IF EXISTS / IF NOT EXISTS (hand-added, as in 0005 and 0006): the migration may run again over a
-- database that already has the new index (the upgrade tests replay migrations).
DROP INDEX IF EXISTS `prompt_days_covering_idx`;--> statement-breakpoint
CREATE INDEX IF NOT EXISTS `prompt_days_by_prompt_idx` ON `prompt_days` (`prompt_id`,`engine`,`day`,`total`,`valid`,`mentioned`,`position_sum`,`competitor`);
