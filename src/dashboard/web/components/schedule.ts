// The tracking schedule in words ("at 06:00, every day") for the pages that show it, from its cron
// expression (spyglass.toml's [tracking] schedule, UTC), by cronstrue; the expression itself stays
// beside it for the self-hoster who edits the file.
import cronstrue from "cronstrue";

/** The schedule as the end of a sentence, lower-case first ("at 06:00, every day"); the expression itself when it cannot be read. */
export function describeSchedule(cron: string): string {
  try {
    // Verbose for its "every day"; but "every 2 minutes, every hour" says the hour twice.
    const text = cronstrue
      .toString(cron, { use24HourTimeFormat: true, verbose: true })
      .replace(/(every (?:\d+ )?minutes?|minutes? past the hour), every hour\b/i, "$1");
    return text.charAt(0).toLowerCase() + text.slice(1);
  } catch {
    return `on the schedule ${cron}`;
  }
}
