// A moment said in a message: its time of day, UTC, with its date when that is not today's
// ("14:05:09 UTC", or "2026-12-01 06:00:00 UTC" just before midnight). Every message that says
// until when something waits (a provider's pause, a key held, a run's lease) says it this way.

export function moment(ms: number, now = Date.now()): string {
  const at = new Date(ms).toISOString();
  const day = at.slice(0, 10) === new Date(now).toISOString().slice(0, 10) ? "" : `${at.slice(0, 10)} `;
  return `${day}${at.slice(11, 19)} UTC`;
}
