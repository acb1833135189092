// How a message says until when something waits (src/moment.ts): the time, UTC, and the date too
// when it is not today's, so that a wait past midnight does not read as earlier today.
import { expect, test } from "bun:test";
import { moment } from "../src/moment";

const at = (iso: string) => Date.parse(iso);

test("a moment of today is its time of day, UTC", () => {
  expect(moment(at("2026-11-30T14:05:09.700Z"), at("2026-11-30T13:59:00Z"))).toBe("14:05:09 UTC");
});

test("a moment of another day has its date: a wait past midnight, or a lease read the day after", () => {
  expect(moment(at("2026-12-01T00:10:00Z"), at("2026-11-30T23:50:00Z"))).toBe("2026-12-01 00:10:00 UTC");
  expect(moment(at("2026-11-30T23:50:00Z"), at("2026-12-01T00:10:00Z"))).toBe("2026-11-30 23:50:00 UTC");
});
