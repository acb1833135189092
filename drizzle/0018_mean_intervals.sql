ALTER TABLE `answer_days` ADD `position_squares` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `answer_days` ADD `sentiment_squares` real DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `mention_days` ADD `rank_squares` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `mention_days` ADD `sentiment_squares` real DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-written: the squares of the answers and mentions already stored, so that every period's
-- average position and sentiment get their interval (the rollups are kept equal to the answers).
UPDATE `answer_days` SET `position_squares` = s.`p`, `sentiment_squares` = s.`q`
FROM (
  SELECT `brand_id`, `created_at` / 86400000 AS `day`, `engine`,
    coalesce(sum(`brand_position` * `brand_position`), 0) AS `p`, coalesce(sum(`brand_sentiment` * `brand_sentiment`), 0) AS `q`
  FROM `answers` GROUP BY 1, 2, 3
) AS s
WHERE `answer_days`.`brand_id` = s.`brand_id` AND `answer_days`.`day` = s.`day` AND `answer_days`.`engine` = s.`engine`;--> statement-breakpoint
UPDATE `mention_days` SET `rank_squares` = s.`p`, `sentiment_squares` = s.`q`
FROM (
  SELECT `brand_id`, `created_at` / 86400000 AS `day`, `engine`, `member_id`,
    sum(`rank` * `rank`) AS `p`, coalesce(sum(`sentiment` * `sentiment`), 0) AS `q`
  FROM `mentions` GROUP BY 1, 2, 3, 4
) AS s
WHERE `mention_days`.`brand_id` = s.`brand_id` AND `mention_days`.`day` = s.`day` AND `mention_days`.`engine` = s.`engine`
  AND `mention_days`.`member_id` = s.`member_id`;
