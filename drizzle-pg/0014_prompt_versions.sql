DROP INDEX "prompts_brand_active_idx";--> statement-breakpoint
ALTER TABLE "prompts" ADD COLUMN "version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "prompts_brand_active_idx" ON "prompts" USING btree ("brand_id","archived_at","created_at","id","version");--> statement-breakpoint
-- Hand-written (as in 0005): prompts.version names the state of the row, a value never used before
-- at every insert and at every change of a column a prompt's view is made of (its tags' names
-- included: the tag triggers of 0005 rewrite tag_names). A random integer below 2^52, which
-- JavaScript reads exactly, as on SQLite (0020 there): never the same twice in practice, whatever
-- happens to the database (a sequence's values come again after a restore or a failover that lost
-- its last commits).
CREATE FUNCTION "prompts_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."version" := floor(random() * 4503599627370496)::bigint;
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "prompts_version"
  BEFORE INSERT OR UPDATE OF "text", "country", "language", "archived_at", "created_at", "tag_names" ON "prompts"
  FOR EACH ROW EXECUTE FUNCTION "prompts_version"();
--> statement-breakpoint
UPDATE "prompts" SET "version" = floor(random() * 4503599627370496)::bigint;
