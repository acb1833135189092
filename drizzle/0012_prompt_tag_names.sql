ALTER TABLE `prompts` ADD `tag_names` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- Hand-written (as in 0006): prompts.tag_names is the JSON array of the names of the prompt's tags,
-- kept through every write that can change it (a prompt's tags set or added, a tag renamed, a tag
-- deleted: its prompt_tags rows go by cascade, which fires the delete trigger), then the backfill.
CREATE TRIGGER IF NOT EXISTS `prompt_tags_insert_names` AFTER INSERT ON `prompt_tags` BEGIN
  UPDATE `prompts` SET `tag_names` = (
    SELECT json_group_array(t.`name`) FROM `prompt_tags` pt JOIN `tags` t ON t.`id` = pt.`tag_id` WHERE pt.`prompt_id` = NEW.`prompt_id`
  ) WHERE `id` = NEW.`prompt_id`;
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `prompt_tags_delete_names` AFTER DELETE ON `prompt_tags` BEGIN
  UPDATE `prompts` SET `tag_names` = (
    SELECT json_group_array(t.`name`) FROM `prompt_tags` pt JOIN `tags` t ON t.`id` = pt.`tag_id` WHERE pt.`prompt_id` = OLD.`prompt_id`
  ) WHERE `id` = OLD.`prompt_id`;
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `tags_rename_names` AFTER UPDATE OF `name` ON `tags` WHEN OLD.`name` IS NOT NEW.`name` BEGIN
  UPDATE `prompts` SET `tag_names` = (
    SELECT json_group_array(t.`name`) FROM `prompt_tags` pt JOIN `tags` t ON t.`id` = pt.`tag_id` WHERE pt.`prompt_id` = `prompts`.`id`
  ) WHERE `id` IN (SELECT `prompt_id` FROM `prompt_tags` WHERE `tag_id` = NEW.`id`);
END;
--> statement-breakpoint
UPDATE `prompts` SET `tag_names` = (
  SELECT json_group_array(t.`name`) FROM `prompt_tags` pt JOIN `tags` t ON t.`id` = pt.`tag_id` WHERE pt.`prompt_id` = `prompts`.`id`
) WHERE `id` IN (SELECT `prompt_id` FROM `prompt_tags`);
