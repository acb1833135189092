CREATE TABLE "prompt_window_state" (
	"brand_id" text PRIMARY KEY NOT NULL,
	"end_day" integer NOT NULL,
	"complete" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "prompt_windows" (
	"brand_id" text NOT NULL,
	"engine" text NOT NULL,
	"prompt_id" text NOT NULL,
	"total" integer NOT NULL,
	"valid" integer NOT NULL,
	"mentioned" integer NOT NULL,
	"position_sum" integer NOT NULL,
	"competitor" integer NOT NULL,
	"rate" double precision,
	CONSTRAINT "prompt_windows_brand_id_engine_prompt_id_pk" PRIMARY KEY("brand_id","engine","prompt_id")
);
--> statement-breakpoint
ALTER TABLE "prompt_window_state" ADD CONSTRAINT "prompt_window_state_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "prompt_windows" ADD CONSTRAINT "prompt_windows_brand_id_brands_id_fk" FOREIGN KEY ("brand_id") REFERENCES "public"."brands"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "prompt_windows_rank_idx" ON "prompt_windows" USING btree ("brand_id","engine","rate","valid","prompt_id");