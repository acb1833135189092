// JSON lines on stdout. Callers never pass secrets (keys, cookies, passwords, provider keys).
//
// The access log (one line per request) is batched: a write per request cost more CPU than
// answering a cached public article. A request's fields are kept as given, and at the flush, after
// at most FLUSH_AFTER_MS or MAX_PENDING requests, their lines are made, encoded straight into one
// reusable byte buffer (not appended to a JS string: pending strings that outlive a young-generation
// collection are promoted, and at thousands of lines a second that grew the old generation by
// megabytes a second, making every collection slower) and written in one call. Any other line
// flushes them first, so the order holds, and the process's `exit` (process.exit, a fatal error,
// the end of serve's shutdown) flushes the rest.
//
// Lines go out through process.stdout. Bun's native `Bun.stdout.writer()` measured cheaper with
// stdout on a pipe, but with it the server once stopped answering for over a minute in CI while its
// pipe's reader was busy, and Bun 1.3's tracker has open reports of exactly that: a FileSink and
// process.stdout on one pipe can hang or spin (oven-sh/bun#35956, #31180). A log must never stall
// the server, so the well-trodden writer it is.
type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };
const FLUSH_AFTER_MS = 100;
/** Room for a flush's lines (MAX_PENDING of ~200 bytes), written in parts when longer; a line longer than it (UTF-8: at most 3 bytes per unit) is written on its own. */
const BUFFER_BYTES = 80 * 1024;

let threshold: number = ORDER.info;
let quiet = false;
const buffer = new Uint8Array(BUFFER_BYTES);
const encoder = new TextEncoder();
let used = 0;
let timer: ReturnType<typeof setTimeout> | null = null;

let toStderr = false;

/**
 * `stderr`: log lines go to stderr (the CLI's commands other than serve, whose stdout is their
 * output: a warning must not break a script that parses `--json`).
 */
export function configureLog(options: { level?: Level; quiet?: boolean; stderr?: boolean }): void {
  if (options.level) threshold = ORDER[options.level];
  if (options.quiet !== undefined) quiet = options.quiet;
  if (options.stderr !== undefined) toStderr = options.stderr;
}

let redirected: ((text: string) => void) | null = null;

/** Sends log output to `write` instead of stdout (tests read the log this way); null restores stdout. */
export function setLogWriter(write: ((text: string) => void) | null): void {
  flushLog();
  redirected = write;
}

// A log that can no longer be written (its reader gone: EPIPE; its file's disk full: ENOSPC) must
// not stop the server: without a listener, the stream's 'error' was uncaught and the process exited 1
// at the next line, a full disk turning a server that still answered reads into none at all. The
// stream is dead after an error: its lines are dropped from then on, and stderr says so once (the
// server goes on; a restart resumes logging).
// (A command other than serve logs to stderr, and its stdout is its output: main.ts reports a failure
// of that itself, see stdoutFailure.)
const failedStreams = new Map<NodeJS.WriteStream, string>();

function watchStream(stream: NodeJS.WriteStream, name: string): void {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (failedStreams.has(stream)) return;
    failedStreams.set(stream, error.code ?? error.message);
    if (stream !== process.stderr && !failedStreams.has(process.stderr) && !toStderr) {
      process.stderr.write(
        `${JSON.stringify({ time: timestamp(), level: "error", msg: `the log's ${name} cannot be written (${error.code ?? error.message}): its lines are dropped until a restart; the server goes on` })}\n`,
      );
    }
  });
}
watchStream(process.stdout, "stdout");
watchStream(process.stderr, "stderr");

/**
 * Why stdout could not be written (ENOSPC, EIO…), once what was written to it so far has been
 * handed on; null when it could. A reader that went away (EPIPE: `| head`) is no failure.
 */
export async function stdoutFailure(): Promise<string | null> {
  await new Promise<void>((resolve) => process.stdout.write("", () => resolve()));
  // The stream's 'error' comes a task after the write's callback.
  await new Promise((resolve) => setTimeout(resolve, 0));
  const code = failedStreams.get(process.stdout) ?? null;
  return code === "EPIPE" ? null : code;
}

function out(data: string | Uint8Array): void {
  if (redirected) {
    redirected(typeof data === "string" ? data : new TextDecoder().decode(data));
    return;
  }
  const stream = toStderr ? process.stderr : process.stdout;
  if (failedStreams.has(stream)) return;
  // Bun's streams keep writableNeedDrain false: whether a write was queued is what write() returned.
  if (!stream.write(data)) queued.add(stream);
}

/** Streams with lines queued in the process (their reader is behind), until their 'drain'. */
const queued = new Set<NodeJS.WriteStream>();
for (const stream of [process.stdout, process.stderr]) stream.on("drain", () => queued.delete(stream));

/**
 * Waits (at most `ms`) until what was written to stdout has left the process: exiting with lines
 * still queued behind a slow reader lost them, "stopped" included.
 */
export async function drainLog(ms: number): Promise<void> {
  flushLog();
  const stream = toStderr ? process.stderr : process.stdout;
  if (redirected || failedStreams.has(stream) || !queued.has(stream)) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    stream.once("drain", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** Writes the batched access-log lines now. */
export function flushLog(): void {
  if (timer) {
    clearTimeout(timer);
    timer = null;
  }
  for (let i = 0; i < pendingCount; i++) {
    writeBatched(accessLine(pendingFields[i] as AccessFields, pendingTimes[i] as number));
    pendingFields[i] = undefined;
  }
  pendingCount = 0;
  writeBuffer();
}

process.on("exit", flushLog);

// Formatting a date is a measurable part of a log line's cost at thousands of lines a second, and
// lines within one millisecond share it.
let stampMs = 0;
let stamp = "";

function timestamp(now = Date.now()): string {
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
function accessLine(fields: AccessFields, time: number): string {
  const id = fields.request_id === undefined ? "" : `"request_id":${jsonString(fields.request_id)},`;
  const status = typeof fields.status === "number" ? fields.status : jsonString(fields.status);
  const ms = fields.ms === undefined || !Number.isFinite(fields.ms) ? "" : `,"ms":${fields.ms}`;
  return `{"time":"${timestamp(time)}","level":"info","msg":"request",${id}"method":${jsonString(fields.method)},"path":${jsonString(fields.path)},"status":${status}${ms}}\n`;
}

/** Characters a JSON string must escape (and lone surrogates, which JSON.stringify escapes too). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/**
 * A JSON string literal. Paths from request.url, methods and request ids almost never need
 * escaping (the URL parser percent-encodes quotes and control characters), and quoting them
 * directly saves a native call per field.
 */
function jsonString(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/** Puts one line into the buffer (written out first when the line might not fit) or, when longer than the buffer, writes it on its own. */
function writeBatched(text: string): void {
  const worstCase = text.length * 3;
  if (used + worstCase > BUFFER_BYTES) writeBuffer();
  if (worstCase > BUFFER_BYTES) {
    out(text);
    return;
  }
  used += encoder.encodeInto(text, buffer.subarray(used)).written;
}

function writeBuffer(): void {
  if (used === 0) return;
  // A copy: the stream may hold on to what it could not write yet, and the buffer is reused.
  const lines = buffer.slice(0, used);
  used = 0;
  out(lines);
}

// An answered request's access-log record: its fields as the caller gave them (a new object each
// time, never changed after) and the time, made into its line at the next flush, with the others,
// not while the request is answered. Measured (scratch A/B of the compiled server, tools/list):
// making the line, one template string, took ~1.5–2 µs of CPU a request in the server, though a
// fraction of a microsecond in a loop; made in a loop at the flush, it costs that fraction.
const MAX_PENDING = 256;
const pendingFields: Array<AccessFields | undefined> = new Array(MAX_PENDING).fill(undefined);
const pendingTimes = new Float64Array(MAX_PENDING);
let pendingCount = 0;

function keep(fields: AccessFields): void {
  pendingFields[pendingCount] = fields;
  pendingTimes[pendingCount] = Date.now();
  pendingCount++;
  if (pendingCount === MAX_PENDING) flushLog();
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
    if (!quiet && ORDER.info >= threshold) keep(fields);
  },
};

/**
 * A failure that repeats every second or so while its cause lasts (a loop that polls a database that
 * is down): logged at error the first time, with a count and the end of it at info when the loop
 * works again, instead of a line a second. A different message while failing is logged too.
 */
export class RepeatedFailure {
  private failing: string | null = null;
  private count = 0;

  constructor(
    private readonly what: string,
    private readonly fields: Record<string, unknown> = {},
    /** What the end of it is called, where "<what>: works again" would read as the failure. */
    private readonly recovered = `${what}: works again`,
  ) {}

  failed(error: unknown): void {
    const message = (error as Error)?.message ?? String(error);
    this.count++;
    if (message === this.failing) return;
    this.failing = message;
    log.error(this.what, { ...this.fields, message, repeats: "logged again only if the message changes, and when it works again" });
  }

  succeeded(): void {
    if (this.failing === null) return;
    log.info(this.recovered, { ...this.fields, failures: this.count });
    this.failing = null;
    this.count = 0;
  }
}
