DROP INDEX "prompts_brand_active_idx";--> statement-breakpoint
ALTER TABLE "prompts" ADD COLUMN "version" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "prompts_brand_active_idx" ON "prompts" USING btree ("brand_id","archived_at","created_at","id","version");--> statement-breakpoint
-- Hand-written (as in 0005): prompts.version names the state of the row, a value never used before
-- at every insert and at every change of a column a prompt's view is made of (its tags' names
-- included: the tag triggers of 0005 rewrite tag_names). A sequence's values are never handed out
-- twice, not even to a transaction rolled back.
CREATE SEQUENCE "prompt_versions";
--> statement-breakpoint
CREATE FUNCTION "prompts_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."version" := nextval('prompt_versions');
  RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "prompts_version"
  BEFORE INSERT OR UPDATE OF "text", "country", "language", "archived_at", "created_at", "tag_names" ON "prompts"
  FOR EACH ROW EXECUTE FUNCTION "prompts_version"();
--> statement-breakpoint
UPDATE "prompts" SET "version" = nextval('prompt_versions');
