ALTER TABLE `oauth_clients` ADD `used_at` integer;--> statement-breakpoint
-- Hand-written: clients already signed in with (a grant or a code) are marked used, as of their registration.
UPDATE `oauth_clients` SET `used_at` = `created_at`
  WHERE `id` IN (SELECT `client_id` FROM `oauth_grants`) OR `id` IN (SELECT `client_id` FROM `oauth_codes`);
