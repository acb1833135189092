// The overview's signed figures: the sign is the shown figure's (a review saw "−0.0 against the
// previous period" for a change that rounds to nothing).

import { describe, expect, test } from "bun:test";
import { formatDay, formatDays } from "../../src/dashboard/web/components/dates";
import { describeSchedule } from "../../src/dashboard/web/components/schedule";
import { otherLeadingHeading } from "../../src/dashboard/web/pages/article/headings";
import { points, signed } from "../../src/dashboard/web/pages/overview/format";

describe("signed figures", () => {
  test("a change that rounds to zero has no sign of its own", () => {
    expect(signed(-0.02, 1)).toBe("±0.0");
    expect(signed(0.04, 1)).toBe("±0.0");
    expect(points(-0.04)).toBe("±0.0 points");
  });

  test("others keep theirs", () => {
    expect(signed(-0.05, 1)).toBe("−0.1");
    expect(signed(1.26, 1)).toBe("+1.3");
    expect(points(3.2)).toBe("+3.2 points");
    expect(points(-1)).toBe("−1.0 points");
    expect(signed(null, 1)).toBe("");
  });
});

describe("the schedule in words", () => {
  test("each period once: every 2 minutes is not also every hour", () => {
    expect(describeSchedule("*/2 * * * *", false)).toBe("every 2 minutes, every day");
    expect(describeSchedule("15 * * * *", false)).toBe("at 15 minutes past the hour, every day");
    expect(describeSchedule("0 6 * * *", false)).toBe("at 06:00, every day");
    expect(describeSchedule("*/15 9-17 * * 1-5", false)).toBe("every 15 minutes, between 09:00 and 17:59, Monday through Friday");
    expect(describeSchedule("not a cron", false)).toBe("on the schedule not a cron");
  });

  test('on a 12-hour clock, hours as the pages\' dates write them ("7:00 PM", not "19:00" nor "07:00 PM")', () => {
    expect(describeSchedule("0 19 * * *", true)).toBe("at 7:00 PM, every day");
    expect(describeSchedule("30 0 * * *", true)).toBe("at 12:30 AM, every day");
    expect(describeSchedule("*/15 9-17 * * 1-5", true)).toBe("every 15 minutes, between 9:00 AM and 5:59 PM, Monday through Friday");
    expect(describeSchedule("0 10 * * *", true)).toBe("at 10:00 AM, every day");
  });
});

describe("the editor's note on a leading heading that is not the title", () => {
  test("names the heading when the site would show it beside the title, and not otherwise", () => {
    expect(otherLeadingHeading("The Ultimate Widget Guide", "# The Complete Guide to Widgets\n\nBody")).toBe(
      "The Complete Guide to Widgets",
    );
    expect(otherLeadingHeading("Choosing a CRM", "\n# Choosing a *CRM*\n\nBody")).toBeNull();
    expect(otherLeadingHeading("choosing  a crm", "# Choosing a CRM #\n\nBody")).toBeNull();
    expect(otherLeadingHeading("Choosing a CRM", "Intro\n\n# Other")).toBeNull();
    expect(otherLeadingHeading("Choosing a CRM", "## Other")).toBeNull();
    expect(otherLeadingHeading("", "# Anything")).toBeNull();
  });
});

describe("days as people read them", () => {
  test("an analytics day and a period, the year written once when both days share it", () => {
    expect(formatDay("2026-10-30")).toBe("Oct 30, 2026");
    expect(formatDays("2026-10-30", "2026-11-28")).toBe("Oct 30 – Nov 28, 2026");
    expect(formatDays("2025-12-30", "2026-01-05")).toBe("Dec 30, 2025 – Jan 5, 2026");
    expect(formatDays("2026-11-28", "2026-11-28")).toBe("Nov 28, 2026");
  });

  test("a UTC day stays that day whatever the machine's time zone, and what is no day is shown as it is", () => {
    // Midnight UTC is the evening before west of Greenwich: the day is written in UTC.
    expect(formatDay("2026-01-01")).toBe("Jan 1, 2026");
    expect(formatDay("not a day")).toBe("not a day");
    expect(formatDays("2026-01-01", "later")).toBe("2026-01-01 – later");
  });
});
