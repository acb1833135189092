CREATE TABLE "engine_pauses" (
	"engine" text NOT NULL,
	"instance" text NOT NULL,
	"paused_until" bigint NOT NULL,
	"reason" text NOT NULL,
	CONSTRAINT "engine_pauses_engine_instance_pk" PRIMARY KEY("engine","instance")
);
