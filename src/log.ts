// JSON lines on stdout. Callers never pass secrets (keys, cookies, passwords, provider keys).
//
// The access log (one line per request) is batched: a write per request cost more CPU than
// answering a cached public article. Its lines are held for at most FLUSH_AFTER_MS or FLUSH_AT_BYTES
// and written in one call; any other line flushes them first, so the order holds, and the process's
// `exit` (process.exit, a fatal error, the end of serve's shutdown) flushes the rest.
//
// Lines go out through Bun's native stdout writer, not process.stdout: measured with stdout on a
// pipe (as under systemd or docker), process.stdout's stream machinery cost a server answering one
// connection about a fifth of its throughput; the native writer costs next to nothing.
type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const FLUSH_AFTER_MS = 10;
const FLUSH_AT_BYTES = 64 * 1024;

let threshold: number = ORDER.info;
let quiet = false;
let pending = "";
let timer: ReturnType<typeof setTimeout> | null = null;
let sink: ReturnType<typeof Bun.stdout.writer> | null = null;

export function configureLog(options: { level?: Level; quiet?: boolean }): void {
  if (options.level) threshold = ORDER[options.level];
  if (options.quiet !== undefined) quiet = options.quiet;
}

let redirected: ((text: string) => void) | null = null;

/** Sends log output to `write` instead of stdout (tests read the log this way); null restores stdout. */
export function setLogWriter(write: ((text: string) => void) | null): void {
  flushLog();
  redirected = write;
}

function out(text: string): void {
  if (redirected) return redirected(text);
  sink ??= Bun.stdout.writer();
  sink.write(text);
  void sink.flush();
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
  out(lines);
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
  out(line(level, msg, fields));
}

/** One access-log line's fields; undefined ones are left out. */
export interface AccessFields {
  request_id?: string;
  method: string;
  path: string;
  status: number | string;
  ms?: number;
}

// The same JSON as `line("info", "request", fields)`, written out by hand: at tens of thousands of
// lines a second, stringifying a spread object was a measurable share of a cached public answer.
function accessLine(fields: AccessFields): string {
  const id = fields.request_id === undefined ? "" : `"request_id":${JSON.stringify(fields.request_id)},`;
  const status = typeof fields.status === "number" ? fields.status : JSON.stringify(fields.status);
  const ms = fields.ms === undefined || !Number.isFinite(fields.ms) ? "" : `,"ms":${fields.ms}`;
  return `{"time":"${timestamp()}","level":"info","msg":"request",${id}"method":${JSON.stringify(fields.method)},"path":${JSON.stringify(fields.path)},"status":${status}${ms}}\n`;
}

function writeBatched(text: string): void {
  pending += text;
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
  request: (fields: AccessFields) => {
    if (!quiet && ORDER.info >= threshold) writeBatched(accessLine(fields));
  },
};
