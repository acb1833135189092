// The tracking schedule in words ("at 06:00, every day") for the pages that show it, from its cron
// expression (spyglass.toml's [tracking] schedule, UTC), by cronstrue; the expression itself stays
// beside it for the self-hoster who edits the file.
import cronstrue from "cronstrue";

/** Whether the browser's language writes hours on a 12-hour clock ("7:00 PM"), as the pages' dates then do. */
function twelveHourClock(): boolean {
  const cycle = new Intl.DateTimeFormat(undefined, { hour: "numeric" }).resolvedOptions().hourCycle;
  return cycle === "h11" || cycle === "h12";
}

/**
 * The schedule as the end of a sentence, lower-case first ("at 06:00, every day", or "at 6:00 AM,
 * every day" on a 12-hour clock, as the page's dates beside it are written); the expression itself
 * when it cannot be read.
 */
export function describeSchedule(cron: string, hour12 = twelveHourClock()): string {
  try {
    // Verbose for its "every day"; but "every 2 minutes, every hour" says the hour twice.
    const text = cronstrue
      .toString(cron, { use24HourTimeFormat: !hour12, verbose: true })
      .replace(/(every (?:\d+ )?minutes?|minutes? past the hour), every hour\b/i, "$1")
      // "07:00 PM" as the dates write it: "7:00 PM".
      .replace(/\b0(\d:\d\d [AP]M)\b/g, "$1");
    return text.charAt(0).toLowerCase() + text.slice(1);
  } catch {
    return `on the schedule ${cron}`;
  }
}
