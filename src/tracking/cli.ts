// What `spyglass track` does and prints; main.ts only dispatches to it.
import { Presets, SingleBar } from "cli-progress";
import { planChangeHint } from "../accounts/plans";
import { getBrand } from "../brands/service";
import { ConfigError } from "../config";
import { type AppContext } from "../context";
import { markInterruptedRuns } from "./runner";
import { enginesWithoutKey, type RunView, runTracking, stopTracking, trackableBrandIds } from "./service";

export interface CliOutput {
  stdout: NodeJS.WriteStream | { write(text: string): unknown; isTTY?: boolean };
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
export async function trackCommand(app: AppContext, opts: { brandId?: string; json: boolean; out?: CliOutput }): Promise<number> {
  const stdout = opts.out?.stdout ?? process.stdout;
  const unset = enginesWithoutKey(app);
  if (unset.length > 0) {
    const where = app.config.configFile ?? "configuration";
    const engines = unset.map((e) => `engines[${e.index}] ("${e.id}"): api_key_env names ${e.variable}`).join("; ");
    const [which, what] =
      unset.length === 1 ? ["which is not set", "it to the provider's API key"] : ["which are not set", "them to the providers' API keys"];
    throw new ConfigError(`${where}: ${engines}, ${which} in the environment; set ${what} and run spyglass track again`);
  }
  markInterruptedRuns(app);
  const brandIds = opts.brandId !== undefined ? [getBrand(app.db, opts.brandId).id] : trackableBrandIds(app);
  if (brandIds.length === 0) {
    stdout.write(
      opts.json
        ? "[]\n"
        : `Nothing to track: no brand on a paid plan has an active prompt (a plan: ${planChangeHint("visibility")}; prompts: an AI client's create_prompts tool).\n`,
    );
    return 0;
  }
  let stopping = false;
  const onSignal = (): void => {
    stopping = true;
    void stopTracking(app);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const runs: RunView[] = [];
  const tty = stdout.isTTY === true && !opts.json;
  try {
    for (const brandId of brandIds) {
      if (stopping) break;
      const brand = getBrand(app.db, brandId);
      const started = performance.now();
      const bar = tty
        ? new SingleBar(
            {
              format: `${brand.name.slice(0, 30)} [{bar}] {value}/{total} answers | {percentage}% | ETA {eta_formatted}`,
              hideCursor: true,
              stream: stdout as NodeJS.WriteStream,
            },
            Presets.shades_classic,
          )
        : null;
      let barStarted = false;
      const run = await runTracking(app, brandId, {
        trigger: "cli",
        onProgress: ({ done, planned }) => {
          if (!bar) return;
          if (!barStarted) {
            bar.start(planned, 0);
            barStarted = true;
          }
          bar.update(done);
        },
      }).finally(() => bar?.stop());
      runs.push(run);
      if (!opts.json) stdout.write(`${runSummary(run, brand.name, (performance.now() - started) / 1000)}\n`);
    }
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
  if (opts.json) stdout.write(`${JSON.stringify(runs)}\n`);
  if (stopping) return 130;
  return runs.some((r) => r.status !== "completed") ? 1 : 0;
}
