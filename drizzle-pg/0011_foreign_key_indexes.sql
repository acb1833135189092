CREATE INDEX "answer_source_days_prompt_idx" ON "answer_source_days" USING btree ("prompt_id");--> statement-breakpoint
CREATE INDEX "answers_prompt_idx" ON "answers" USING btree ("prompt_id");--> statement-breakpoint
CREATE INDEX "api_keys_brand_idx" ON "api_keys" USING btree ("brand_id");--> statement-breakpoint
CREATE INDEX "articles_prompt_idx" ON "articles" USING btree ("prompt_id");--> statement-breakpoint
CREATE INDEX "oauth_codes_account_idx" ON "oauth_codes" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "oauth_codes_brand_idx" ON "oauth_codes" USING btree ("brand_id");--> statement-breakpoint
CREATE INDEX "oauth_grants_brand_idx" ON "oauth_grants" USING btree ("brand_id");--> statement-breakpoint
CREATE INDEX "search_query_days_prompt_idx" ON "search_query_days" USING btree ("prompt_id");--> statement-breakpoint
CREATE INDEX "tracking_tasks_prompt_idx" ON "tracking_tasks" USING btree ("prompt_id");