// The dashboard's words for the service's refusals that speak to an AI client (src/dashboard/web/api.ts).
import { expect, test } from "bun:test";
import { ApiError, errorMessage } from "../../src/dashboard/web/api";

/** What the dashboard says of a 400 with `message` and `code`. */
const said = (message: string, code: string) => errorMessage(new ApiError(400, message, code, null));

test("a next page refused as of another list (a page left open past midnight) says to reload, not to call a tool", () => {
  expect(
    said(
      "cursor: this next_cursor is of another list (another tool, or other filters or order, or a period that has moved on: the default one ends today); call get_top_sources with the arguments that gave it, or without a cursor for the first page.",
      "invalid_cursor",
    ),
  ).toBe(
    "This list has changed since its first page was read (its period ends today, and a new day has begun): reload the page to read it from the top.",
  );
});

test("a future From without a To says that the period ends today", () => {
  expect(said("start_date must be on or before end_date (end_date, not given, is today: 2026-11-30).", "invalid_date_range")).toBe(
    "The period's From date is after today, where it ends without a To date: choose a From date up to today.",
  );
});
