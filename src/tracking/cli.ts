// What `spyglass track` does and prints; main.ts only dispatches to it.
import { Presets, SingleBar } from "cli-progress";
import { planChangeHint } from "../accounts/plans";
import { getBrand } from "../brands/service";
import { ConfigError, configPlace } from "../config";
import { type AppContext } from "../context";
import { stayUp, watchDatabaseFile } from "../db/file-watch";
import { Conflict } from "../errors";
import { printable } from "../labels";
import { moment } from "../moment";
import { enginesAnsweringNothing } from "./answered-nothing";
import { forecast, forecastText } from "./forecast";
import { markInterruptedRuns } from "./runner";
import { enginesWithoutKey, type RunView, runTracking, stopTracking, trackableBrandIds } from "./service";

export interface CliOutput {
  stdout: NodeJS.WriteStream | { write(text: string): unknown; isTTY?: boolean };
  stderr?: { write(text: string): unknown };
}

/** Summary line of a finished run, for logs and pipes. */
export function runSummary(run: RunView, brandName: string, seconds: number): string {
  const a = run.answers;
  const tail = run.error ? `; ${run.error}` : "";
  return `${run.id} ${brandName} (${run.brand_id}): ${run.status}, ${run.answers_done}/${run.answers_planned} answers (ok ${a.ok}, empty ${a.empty}, refusal ${a.refusal}, error ${a.error}) in ${seconds.toFixed(1)} s${tail}`;
}

/**
 * Runs tracking now for one brand or every trackable one, one brand after the other. A progress bar
 * on a terminal, one summary line per run otherwise; `json` prints the run records. SIGINT/SIGTERM
 * abort in-flight requests and mark the run interrupted. Returns the process exit code.
 */
export async function trackCommand(
  app: AppContext,
  opts: { brandId?: string; json: boolean; dryRun?: boolean; out?: CliOutput },
): Promise<number> {
  const stdout = opts.out?.stdout ?? process.stdout;
  const stderr = opts.out?.stderr ?? process.stderr;
  if (opts.dryRun) return await dryRun(app, { brandId: opts.brandId, json: opts.json, stdout });
  if (app.config.engines.length === 0) {
    throw new ConfigError(
      `No engines are configured: add an [[engines]] section (api, base_url, model, api_key_env) to ${configPlace(app.config)}, then run spyglass track again`,
    );
  }
  const unset = enginesWithoutKey(app);
  if (unset.length > 0) {
    const where = app.config.configFile ?? "configuration";
    // One clause per variable, naming every engine that reads it.
    const byVariable = new Map<string, string[]>();
    for (const e of unset) byVariable.set(e.variable, [...(byVariable.get(e.variable) ?? []), `engines[${e.index}] ("${e.id}")`]);
    const engines = [...byVariable].map(([variable, names]) => `${names.join(" and ")}: api_key_env names ${variable}`).join("; ");
    const [which, what] =
      byVariable.size === 1
        ? ["which is not set", "it to the provider's API key"]
        : ["which are not set", "them to the providers' API keys"];
    throw new ConfigError(`${where}: ${engines}, ${which} in the environment; set ${what} and run spyglass track again`);
  }
  await markInterruptedRuns(app);
  const brandIds = opts.brandId !== undefined ? [(await getBrand(app.db, opts.brandId)).id] : await trackableBrandIds(app);
  if (brandIds.length === 0) {
    stdout.write(
      opts.json
        ? "[]\n"
        : `Nothing to track: no brand on a paid plan has an active prompt, the demo's left out (--brand ID runs it anyway). A plan: ${planChangeHint("visibility")}; prompts: the dashboard's Prompts page, or an AI client's create_prompts tool.\n`,
    );
    return 0;
  }
  let stopping = false;
  const onSignal = (): void => {
    stopping = true;
    void stopTracking(app, "spyglass track was stopped");
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  // The database file deleted or replaced during a run (file-watch.ts): the run stops, and what was
  // stored is written out when it has.
  let fileLost: string | null = null;
  const databaseFile =
    app.db.dialect === "sqlite"
      ? watchDatabaseFile(app.db, "the run stops", (problem) => {
          fileLost = problem;
          stopping = true;
          void stopTracking(app, problem);
        })
      : null;
  const runs: RunView[] = [];
  const skipped: string[] = [];
  let anEngineAnsweredNothing = false;
  const tty = stdout.isTTY === true && !opts.json;
  // An engine its provider asked to wait (a 429): said on the progress bar while it lasts, or as a
  // line on stderr (a cron job's log), instead of a run that stops moving for no reason given.
  let pause: { until: number; text: string } | null = null;
  /** Puts the pause on the progress bar; false when there is no bar drawn to put it on. */
  let showPause: () => boolean = () => false;
  app.tracking.runner.onEnginePause = (engine, until, reason) => {
    const label = app.config.engines.find((e) => e.id === engine)?.label ?? engine;
    const at = moment(until);
    pause = { until, text: ` | ${printable(label)} waits for its provider until ${at} (${printable(reason).slice(0, 40)})` };
    // On the bar once it is drawn (after a first answer); before that, and without a terminal, a line.
    if (!showPause())
      stderr.write(`spyglass: ${printable(label)}'s provider asked to wait (${printable(reason)}); its requests go on at ${at}\n`);
  };
  try {
    for (const brandId of brandIds) {
      if (stopping) break;
      const brand = await getBrand(app.db, brandId);
      const started = performance.now();
      const bar = tty
        ? new SingleBar(
            {
              format: `${printable(brand.name).slice(0, 30)} [{bar}] {value}/{total} answers | {percentage}% | ETA {eta_formatted}{pause}`,
              hideCursor: true,
              stream: stdout as NodeJS.WriteStream,
            },
            Presets.shades_classic,
          )
        : null;
      let barStarted = false;
      let done = 0;
      showPause = () => {
        if (!bar || !barStarted) return false;
        bar.update(done, { pause: pause && pause.until > Date.now() ? pause.text : "" });
        return true;
      };
      let run: RunView;
      try {
        run = await runTracking(app, brandId, {
          trigger: "cli",
          onProgress: ({ done: answered, planned }) => {
            if (!bar) return;
            if (!barStarted) {
              bar.start(planned, 0, { pause: "" });
              barStarted = true;
            }
            done = answered;
            showPause();
          },
        }).finally(() => {
          bar?.stop();
          // A pause heard after the bar is gone is said as a line.
          barStarted = false;
        });
      } catch (error) {
        // Every brand asked for: one whose run is under way elsewhere (serve's schedule, another
        // track) is named and passed over, and the others are tracked; the exit status says so.
        if (opts.brandId !== undefined || !(error instanceof Conflict) || error.code !== "run_in_progress") throw error;
        skipped.push(brand.name);
        stderr.write(`spyglass: ${printable(brand.name)} (${brand.id}) skipped: ${error.message}\n`);
        continue;
      }
      runs.push(run);
      if (enginesAnsweringNothing(run.by_engine).length > 0) anEngineAnsweredNothing = true;
      if (!opts.json) stdout.write(`${runSummary(run, printable(brand.name), (performance.now() - started) / 1000)}\n`);
    }
  } finally {
    app.tracking.runner.onEnginePause = null;
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    // The caller closes the database next: no worker may still be on its way to it.
    await stopTracking(app);
    databaseFile?.stop();
    // Written nowhere, the process stays up holding the file (the log says how to copy it out).
    if (databaseFile && !(await databaseFile.keep())) await stayUp();
  }
  if (opts.json) stdout.write(`${JSON.stringify(runs)}\n`);
  if (fileLost !== null) return 1;
  if (stopping) return 130;
  // A run in which an engine answered nothing is a failure for a cron job's alerting too.
  return runs.some((r) => r.status !== "completed") || anEngineAnsweredNothing || skipped.length > 0 ? 1 : 0;
}

/**
 * `spyglass track --dry-run`: what a run would ask and roughly cost, per brand, without sending a
 * request or storing anything (no API key is needed).
 */
async function dryRun(app: AppContext, opts: { brandId?: string; json: boolean; stdout: CliOutput["stdout"] }): Promise<number> {
  // A brand the schedule leaves out (named with --brand) has runs only when asked: none in the forecast's month.
  const onSchedule = new Set(await trackableBrandIds(app));
  const brandIds = opts.brandId !== undefined ? [(await getBrand(app.db, opts.brandId)).id] : [...onSchedule];
  const forecasts = await Promise.all(
    brandIds.map(async (id) => ({
      brand: await getBrand(app.db, id),
      forecast: await forecast(app, id, new Date(), { scheduled: onSchedule.has(id) }),
      resumes: await app.tracking.runner.resumableRun(id),
    })),
  );
  if (opts.json) {
    const records = forecasts.map((f) => ({ brand_id: f.brand.id, brand: f.brand.name, ...f.forecast, resumes: f.resumes }));
    opts.stdout.write(`${JSON.stringify(records)}\n`);
    return 0;
  }
  if (forecasts.length === 0) {
    opts.stdout.write(
      `Nothing to track: no brand on a paid plan has an active prompt, the demo's left out (--brand ID forecasts it anyway), so a run would send no request.\n`,
    );
    return 0;
  }
  const place = configPlace(app.config);
  for (const f of forecasts) {
    opts.stdout.write(forecastText(f.forecast, printable(f.brand.name), f.brand.id, onSchedule.has(f.brand.id), place));
    // The next run resumes an interrupted one rather than asking everything again: fewer requests.
    if (f.resumes) {
      const left = Math.max(0, f.forecast.requests_per_run - f.resumes.answered);
      opts.stdout.write(
        `  the next run resumes the interrupted run ${f.resumes.runId}: ${f.resumes.answered} of its answers are stored, so it sends about ${left} requests\n`,
      );
    }
  }
  if (forecasts.length > 1) {
    const run = forecasts.reduce((s, f) => s + f.forecast.requests_per_run, 0);
    const month = forecasts.reduce((s, f) => s + f.forecast.requests_per_month, 0);
    opts.stdout.write(`All ${forecasts.length} brands: ${run} requests per run, ${month} per month.\n`);
  }
  opts.stdout.write("Dry run: nothing was sent to any engine.\n");
  return 0;
}
