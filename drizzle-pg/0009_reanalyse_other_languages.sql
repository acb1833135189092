-- Hand-written. The answer analysis changed (names in scripts written without spaces, no sentiment
-- for answers not in English, bare URLs ending at CJK punctuation, percent-escapes in upper case):
-- every brand with answers gets a roster version its answers were not analysed with, so the next
-- start re-analyses them in the background ("re-analysis resumed"), as after a roster change.
INSERT INTO "roster_versions" ("brand_id", "version", "analysed")
  SELECT "id", 1, 0 FROM "brands" WHERE EXISTS (SELECT 1 FROM "answers" WHERE "answers"."brand_id" = "brands"."id")
  ON CONFLICT ("brand_id") DO UPDATE SET "version" = "roster_versions"."version" + 1;
