CREATE TABLE `engine_pauses` (
	`engine` text NOT NULL,
	`instance` text NOT NULL,
	`paused_until` integer NOT NULL,
	`reason` text NOT NULL,
	PRIMARY KEY(`engine`, `instance`)
);
