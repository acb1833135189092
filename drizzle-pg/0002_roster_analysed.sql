ALTER TABLE "roster_versions" ADD COLUMN "analysed" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Hand-added: the re-analyses of an older version are taken as finished (it did not record them).
UPDATE "roster_versions" SET "analysed" = "version";