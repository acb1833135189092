// JSON lines on stdout. Callers never pass secrets (keys, cookies, passwords, provider keys).
type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

let threshold: number = ORDER.info;
let quiet = false;

export function configureLog(options: { level?: Level; quiet?: boolean }): void {
  if (options.level) threshold = ORDER[options.level];
  if (options.quiet !== undefined) quiet = options.quiet;
}

function write(level: Level, msg: string, fields?: Record<string, unknown>): void {
  if (quiet || ORDER[level] < threshold) return;
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields })}\n`);
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => write("debug", msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => write("info", msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => write("warn", msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => write("error", msg, fields),
};
