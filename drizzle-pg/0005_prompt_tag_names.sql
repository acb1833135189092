ALTER TABLE "prompts" ADD COLUMN "tag_names" text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- Hand-written (as in 0000's triggers): prompts.tag_names is the JSON array of the names of the
-- prompt's tags, kept through every write that can change it (a prompt's tags set or added, a tag
-- renamed, a tag deleted: its prompt_tags rows go by cascade, which fires the delete trigger), then
-- the backfill.
CREATE FUNCTION "prompt_tag_names"(prompt text) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(t."name")::text, '[]') FROM "prompt_tags" pt JOIN "tags" t ON t."id" = pt."tag_id" WHERE pt."prompt_id" = prompt
$$;
--> statement-breakpoint
CREATE FUNCTION "prompt_tags_names"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    UPDATE "prompts" SET "tag_names" = "prompt_tag_names"(OLD."prompt_id") WHERE "id" = OLD."prompt_id";
  ELSE
    UPDATE "prompts" SET "tag_names" = "prompt_tag_names"(NEW."prompt_id") WHERE "id" = NEW."prompt_id";
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "prompt_tags_names" AFTER INSERT OR DELETE ON "prompt_tags"
  FOR EACH ROW EXECUTE FUNCTION "prompt_tags_names"();
--> statement-breakpoint
CREATE FUNCTION "tags_rename_names"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "prompts" SET "tag_names" = "prompt_tag_names"("id")
  WHERE "id" IN (SELECT "prompt_id" FROM "prompt_tags" WHERE "tag_id" = NEW."id");
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "tags_rename_names" AFTER UPDATE OF "name" ON "tags"
  FOR EACH ROW WHEN (OLD."name" IS DISTINCT FROM NEW."name") EXECUTE FUNCTION "tags_rename_names"();
--> statement-breakpoint
UPDATE "prompts" SET "tag_names" = "prompt_tag_names"("id") WHERE "id" IN (SELECT "prompt_id" FROM "prompt_tags");
