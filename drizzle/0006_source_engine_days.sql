CREATE TABLE IF NOT EXISTS `answer_source_engine_days` (
	`brand_id` text NOT NULL,
	`domain` text NOT NULL,
	`day` integer NOT NULL,
	`engine` text NOT NULL,
	`hosts` text NOT NULL,
	`answers` integer NOT NULL,
	PRIMARY KEY(`brand_id`, `domain`, `day`, `engine`, `hosts`),
	FOREIGN KEY (`brand_id`) REFERENCES `brands`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
-- Hand-written, appended to the generated SQL (IF NOT EXISTS above, as in 0005, so that the migration
-- may run again over a database that has the table): triggers keep answer_source_engine_days equal
-- to answer_source_days summed over prompts through every write to it (SearchStore's upserts, its
-- rebuilds, the cascades of a prompt's deletion), then the backfill from the rows already stored.
CREATE TRIGGER IF NOT EXISTS `answer_source_days_insert` AFTER INSERT ON `answer_source_days` BEGIN
  INSERT INTO `answer_source_engine_days` (`brand_id`, `domain`, `day`, `engine`, `hosts`, `answers`)
  VALUES (NEW.`brand_id`, NEW.`domain`, NEW.`day`, NEW.`engine`, NEW.`hosts`, NEW.`answers`)
  ON CONFLICT (`brand_id`, `domain`, `day`, `engine`, `hosts`) DO UPDATE SET `answers` = `answers` + excluded.`answers`;
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `answer_source_days_update` AFTER UPDATE OF `answers` ON `answer_source_days` BEGIN
  UPDATE `answer_source_engine_days` SET `answers` = `answers` + NEW.`answers` - OLD.`answers`
  WHERE `brand_id` = NEW.`brand_id` AND `domain` = NEW.`domain` AND `day` = NEW.`day` AND `engine` = NEW.`engine` AND `hosts` = NEW.`hosts`;
END;
--> statement-breakpoint
CREATE TRIGGER IF NOT EXISTS `answer_source_days_delete` AFTER DELETE ON `answer_source_days` BEGIN
  UPDATE `answer_source_engine_days` SET `answers` = `answers` - OLD.`answers`
  WHERE `brand_id` = OLD.`brand_id` AND `domain` = OLD.`domain` AND `day` = OLD.`day` AND `engine` = OLD.`engine` AND `hosts` = OLD.`hosts`;
  DELETE FROM `answer_source_engine_days`
  WHERE `brand_id` = OLD.`brand_id` AND `domain` = OLD.`domain` AND `day` = OLD.`day` AND `engine` = OLD.`engine` AND `hosts` = OLD.`hosts` AND `answers` <= 0;
END;
--> statement-breakpoint
DELETE FROM `answer_source_engine_days`;
--> statement-breakpoint
INSERT INTO `answer_source_engine_days` (`brand_id`, `domain`, `day`, `engine`, `hosts`, `answers`)
SELECT `brand_id`, `domain`, `day`, `engine`, `hosts`, sum(`answers`) FROM `answer_source_days`
GROUP BY `brand_id`, `domain`, `day`, `engine`, `hosts`;
