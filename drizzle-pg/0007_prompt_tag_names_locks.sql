-- Hand-written. On PostgreSQL writers run side by side (on SQLite they take turns). A prompt's tag
-- names computed by a trigger whose UPDATE of the prompt waited for another transaction's lock on that
-- row (a tag of the prompt renamed at that moment) were computed from the snapshot taken before the
-- wait, without the rename: a STABLE function reads with its statement's snapshot. VOLATILE, it takes
-- a new one when it runs, after the wait.
CREATE OR REPLACE FUNCTION "prompt_tag_names"(prompt text) RETURNS text LANGUAGE sql VOLATILE AS $$
  SELECT coalesce(json_agg(t."name")::text, '[]') FROM "prompt_tags" pt JOIN "tags" t ON t."id" = pt."tag_id" WHERE pt."prompt_id" = prompt
$$;
--> statement-breakpoint
-- And a rename did not see a prompt being given that tag by a transaction not yet committed (its
-- prompt_tags row), whose trigger had read the old name. A rename that changes name_key (in a unique
-- index) already waited for it; a change of case only did not. The rename now locks the tag's row FOR
-- UPDATE, which waits for such a transaction (its foreign key check holds the row FOR KEY SHARE),
-- before it rewrites the names of the tag's prompts.
CREATE OR REPLACE FUNCTION "tags_rename_names"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM "tags" WHERE "id" = NEW."id" FOR UPDATE;
  UPDATE "prompts" SET "tag_names" = "prompt_tag_names"("id")
  WHERE "id" IN (SELECT "prompt_id" FROM "prompt_tags" WHERE "tag_id" = NEW."id");
  RETURN NULL;
END $$;
