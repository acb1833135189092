// JSON lines on stdout. Callers never pass secrets (keys, cookies, passwords, provider keys).
//
// The access log (one line per request) is batched: a synchronous write per request cost more CPU
// than answering a cached public article. Its lines are held for at most FLUSH_AFTER_MS or
// FLUSH_AT_BYTES and written in one call; any other line flushes them first, so the order holds, and
// the process's `exit` (process.exit, a fatal error, the end of serve's shutdown) flushes the rest.
type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const FLUSH_AFTER_MS = 10;
const FLUSH_AT_BYTES = 64 * 1024;

let threshold: number = ORDER.info;
let quiet = false;
let pending = "";
let timer: ReturnType<typeof setTimeout> | null = null;

export function configureLog(options: { level?: Level; quiet?: boolean }): void {
  if (options.level) threshold = ORDER[options.level];
  if (options.quiet !== undefined) quiet = options.quiet;
}

/** Writes the batched access-log lines now. */
export function flushLog(): void {
  if (timer) {
    clearTimeout(timer);
    timer = null;
  }
  if (pending === "") return;
  const lines = pending;
  pending = "";
  process.stdout.write(lines);
}

process.on("exit", flushLog);

// Formatting a date is a measurable part of a log line's cost at thousands of lines a second, and
// lines within one millisecond share it.
let stampMs = 0;
let stamp = "";

function timestamp(): string {
  const now = Date.now();
  if (now !== stampMs) {
    stampMs = now;
    stamp = new Date(now).toISOString();
  }
  return stamp;
}

function line(level: Level, msg: string, fields?: Record<string, unknown>): string {
  return `${JSON.stringify({ time: timestamp(), level, msg, ...fields })}\n`;
}

function write(level: Level, msg: string, fields?: Record<string, unknown>): void {
  if (quiet || ORDER[level] < threshold) return;
  flushLog();
  process.stdout.write(line(level, msg, fields));
}

function writeBatched(level: Level, msg: string, fields: Record<string, unknown>): void {
  if (quiet || ORDER[level] < threshold) return;
  pending += line(level, msg, fields);
  if (pending.length >= FLUSH_AT_BYTES) flushLog();
  else if (!timer) {
    timer = setTimeout(flushLog, FLUSH_AFTER_MS);
    timer.unref();
  }
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
  /** The access log's line for one answered request (info level, batched). */
  request: (fields: Record<string, unknown>) => writeBatched("info", "request", fields),
};
