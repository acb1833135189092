ALTER TABLE "articles" ADD COLUMN "rendered_by" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "articles_rendered_by_idx" ON "articles" USING btree ("rendered_by");