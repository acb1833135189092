-- Hand-written. The answer analysis changed (full-width and half-width forms, ＳＯＮＹ and ｿﾆｰ, are
-- the names they spell): every brand with answers gets a roster version its answers were not
-- analysed with, so the next start re-analyses them in the background, as 0015 does.
INSERT INTO `roster_versions` (`brand_id`, `version`, `analysed`)
  SELECT `id`, 1, 0 FROM `brands` WHERE EXISTS (SELECT 1 FROM `answers` WHERE `answers`.`brand_id` = `brands`.`id`)
  ON CONFLICT (`brand_id`) DO UPDATE SET `version` = `roster_versions`.`version` + 1;
