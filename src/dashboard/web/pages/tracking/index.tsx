// Tracking (get_tracking_status, run_tracking): the engines the server asks (never their keys),
// the schedule and next run, the last run, and "Run now" with its progress read from the run's
// status every 1.5 s while it runs (announced politely; polling stops when done or on leaving).
import { useEffect, useRef, useState } from "preact/hooks";
import { type ToolOutput } from "../../../../catalogue/types";
import { enginesAnsweringNothing } from "../../../../tracking/answered-nothing";
import { api, errorMessage } from "../../api";
import { NoEngines } from "../../components/engines";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { describeSchedule } from "../../components/schedule";
import { Button, formatDate, LoadFailed, Notice, PageHeading, useLoad } from "../../components/ui";

const POLL_MS = 1500;

/** What started a run (runner.ts's RunTrigger): the dashboard's Run now and an AI client both call run_tracking. */
const RUN_TRIGGER: Record<string, string> = {
  schedule: "on schedule",
  tool: "Run now or an AI client",
  cli: "from the command line",
};

const RUN_STATUS: Record<string, string> = {
  running: "Running",
  completed: "Completed",
  failed: "Failed",
  interrupted: "Interrupted",
};

type Forecast = ToolOutput<"get_tracking_status">["forecast"];

/**
 * A run's status as a badge coloured by how it went: a run that completed with answers in error
 * says so (it read "Completed" beside "3 of 6 answers failed").
 */
function RunStatus({ status, errors }: { status: string; errors: number }) {
  const withErrors = status === "completed" && errors > 0;
  const tone = status === "failed" ? "bad" : status === "interrupted" || withErrors ? "warn" : status === "completed" ? "good" : "neutral";
  return <span class={`badge run-status tone-${tone}`}>{withErrors ? "Completed with errors" : (RUN_STATUS[status] ?? status)}</span>;
}

/** A count with thousands separators, as every figure of the dashboard ("60,480"). */
function count(value: number): string {
  return value.toLocaleString("en-US");
}

function money(value: number | null): string {
  if (value === null) return "unknown";
  return value < 1 ? value.toFixed(4) : value.toFixed(2);
}

/** Requests per run and per month, and the estimated cost where the config gives prices. */
function ForecastCard({ forecast: f, engineLabel }: { forecast: Forecast; engineLabel: (id: string) => string }) {
  return (
    <section class="card stack" aria-labelledby="forecast-heading">
      <h2 id="forecast-heading">Forecast</h2>
      <p>
        {count(f.prompts)} active prompt{f.prompts === 1 ? "" : "s"} × {count(f.engines)} engine{f.engines === 1 ? "" : "s"} ×{" "}
        {count(f.samples)} sample
        {f.samples === 1 ? "" : "s"} = <strong>{count(f.requests_per_run)} requests per run</strong>;{" "}
        {f.schedule.enabled
          ? `${f.schedule.runs_per_month} scheduled runs in the next 30 days`
          : "no scheduled run (scheduled tracking is off)"}{" "}
        → <strong>{count(f.requests_per_month)} requests per month</strong> ({count(f.requests_per_day)} a day).
      </p>
      <p>
        Estimated cost:{" "}
        {f.estimated_cost_per_run === null ? (
          "unknown: add price_per_request or price_per_million_input_tokens / price_per_million_output_tokens to the engines in spyglass.toml."
        ) : (
          <>
            <strong>
              ~{money(f.estimated_cost_per_run)} per run, ~{money(f.estimated_cost_per_month)} per month
            </strong>{" "}
            (in the currency of the configured prices
            {f.unestimated_engines.length > 0 ? `; not counted: ${f.unestimated_engines.map(engineLabel).join(", ")}` : ""}).
          </>
        )}
      </p>
      <div class="table-wrap">
        <table class="forecast-table cards-narrow cards-facts">
          <caption class="offscreen">Forecast by engine</caption>
          <thead>
            <tr>
              <th scope="col">Engine</th>
              <th scope="col">Web search</th>
              <th scope="col" class="num">
                Requests per run
              </th>
              <th scope="col" class="num">
                Requests per month
              </th>
              <th scope="col">Mean tokens (in / out)</th>
              <th scope="col" class="num">
                Cost per run
              </th>
              <th scope="col" class="num">
                Cost per month
              </th>
            </tr>
          </thead>
          <tbody>
            {f.by_engine.map((e) => (
              <tr key={e.id}>
                <th scope="row">{e.label}</th>
                <td data-label="Web search">{e.web_search ? "On" : "Off"}</td>
                <td class="num" data-label="Requests per run">
                  {count(e.requests_per_run)}
                </td>
                <td class="num" data-label="Requests per month">
                  {count(e.requests_per_month)}
                </td>
                <td class="fact-wide" data-label="Mean tokens (in / out)">
                  {e.token_sample > 0
                    ? `${Math.round(e.avg_tokens_in ?? 0)} / ${Math.round(e.avg_tokens_out ?? 0)} (${e.token_sample} answers)`
                    : "no answers yet"}
                </td>
                <td class="num" data-label="Cost per run">
                  {e.cost_per_run === null ? <span title={e.note ?? undefined}>unknown</span> : money(e.cost_per_run)}
                </td>
                <td class="num" data-label="Cost per month">
                  {e.cost_per_month === null ? "unknown" : money(e.cost_per_month)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p class="muted">
        Requests are counted before retries. A cost is the engine's configured price per request, or its prices per million tokens times its
        mean tokens over its recent valid answers (shown in the table; unknown until it has answered).
      </p>
    </section>
  );
}

export function Tracking({ brandId }: { brandId: string }) {
  const status = useLoad(() => api.tool(brandId, "get_tracking_status", {}), [brandId]);
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const running = status.data?.running ?? false;

  // While a run is going, read the status again until it is over; stop on unmount.
  useEffect(() => {
    if (!running || status.loading) return;
    timer.current = setTimeout(status.reload, POLL_MS);
    return () => {
      if (timer.current) clearTimeout(timer.current);
    };
  }, [running, status.data, status.loading]);

  const runNow = async () => {
    setStarting(true);
    setError(null);
    try {
      // Only the engines that can answer: one without its key would store an error for every prompt.
      const keyed = (status.data?.engines ?? []).filter((e) => e.configured && e.api_key_set).map((e) => e.id);
      const unkeyed = (status.data?.engines ?? []).some((e) => e.configured && !e.api_key_set);
      await api.tool(brandId, "run_tracking", unkeyed ? { engines: keyed } : {});
      status.reload();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setStarting(false);
    }
  };

  if (status.failure && isPlanRequired(status.failure))
    return (
      <>
        <PageHeading title="Tracking" />
        <PlanNeeded required="visibility" what="Tracking the brand's answers" />
      </>
    );
  const data = status.data;
  const run = data?.last_run ?? null;
  // Engines of the last run whose every answer was an error (a revoked key): said in words, not only in the table.
  const silent = enginesAnsweringNothing(run?.by_engine ?? []).map((e) => e.engine);
  // An engine of the last run that answered nothing because its provider refused the key (HTTP 401 or 403): the status it gave.
  const refusedKey = (engine: string): string | null => {
    if (!silent.includes(engine)) return null;
    const status = /\bHTTP (401|403)\b/.exec(run?.by_engine.find((e) => e.engine === engine)?.first_error ?? "");
    return status ? `HTTP ${status[1]}` : null;
  };
  const progress = run
    ? `${RUN_STATUS[run.status] ?? run.status}: ${run.answers_done} of ${run.answers_planned} answers stored (${run.answers.ok} answered, ${run.answers.empty} empty, ${run.answers.refusal} refused, ${run.answers.error} errors).`
    : "";
  // What the live region says: while the run goes on, only each quarter of it (its text changes, and
  // a screen reader speaks, a few times a run rather than at every poll); the whole count at the end.
  const quarter = run ? Math.floor((4 * run.answers_done) / Math.max(run.answers_planned, 1)) : 0;
  const spoken = run?.status === "running" ? `Running: ${Math.min(quarter, 4) * 25}% of ${run.answers_planned} answers stored.` : progress;
  const configured = data?.engines.filter((e) => e.configured) ?? [];
  const keyed = configured.some((e) => e.api_key_set);
  const engineLabel = (id: string) => data?.engines.find((e) => e.id === id)?.label ?? id;
  return (
    <>
      <PageHeading title="Tracking" />
      {status.error && !data && <LoadFailed error={status.error} failure={status.failure} retry={status.reload} />}
      {data?.engines.some((e) => !e.configured) && (
        <Notice kind="info">
          Answers of{" "}
          {data.engines
            .filter((e) => !e.configured)
            .map((e) => e.label)
            .join(", ")}{" "}
          are stored ({data.engines.some((e) => e.demo) ? "demo data" : "from an engine no longer configured"}): they count in the figures,
          but tracking does not ask {data.engines.filter((e) => !e.configured).length === 1 ? "it" : "them"}.
        </Notice>
      )}
      {!data ? (
        <p class="muted">Loading…</p>
      ) : configured.length === 0 ? (
        <NoEngines />
      ) : (
        <>
          <section class="card stack" aria-labelledby="engines-heading">
            <h2 id="engines-heading">Engines</h2>
            {configured.some((e) => !e.api_key_set) && (
              <Notice kind="error">
                No API key for{" "}
                {configured
                  .filter((e) => !e.api_key_set)
                  .map((e) => `${e.label} (${e.id}: ${e.api_key_env ?? "api_key_env"})`)
                  .join(", ")}
                : set {configured.filter((e) => !e.api_key_set).length === 1 ? "that variable" : "those variables"} in the server's
                environment and restart the server. Until then Run now asks only the engines that have their key, and scheduled runs store
                an error for each of its answers.
              </Notice>
            )}
            <div class="table-wrap">
              <table class="engines-table cards-narrow cards-facts">
                <caption class="offscreen">Configured engines</caption>
                <thead>
                  <tr>
                    <th scope="col">Engine</th>
                    <th scope="col">Id</th>
                    <th scope="col">Model</th>
                    <th scope="col">API</th>
                    <th scope="col" class="num">
                      Concurrency
                    </th>
                    <th scope="col">Key</th>
                  </tr>
                </thead>
                <tbody>
                  {configured.map((e) => {
                    const refused = e.api_key_set ? refusedKey(e.id) : null;
                    return (
                      <tr key={e.id}>
                        <th scope="row">{e.label}</th>
                        <td class="mono" data-label="Id">
                          {e.id}
                        </td>
                        <td class="mono nowrap" data-label="Model">
                          {e.model}
                        </td>
                        <td class="mono nowrap keep-whole" data-label="API">
                          {e.api}
                        </td>
                        <td class="num" data-label="Concurrency">
                          {e.concurrency}
                        </td>
                        <td class="fact-wide" data-label="Key">
                          {e.api_key_set ? (
                            refused ? (
                              // Set, but the provider refused it: "Key set" alone read as all is well.
                              <span class="key-missing">
                                <strong>Key refused</strong> in the last run ({refused}).
                              </span>
                            ) : (
                              "Key set"
                            )
                          ) : (
                            <span class="key-missing">
                              <strong>Key missing.</strong> Set <code>{e.api_key_env ?? "the variable its api_key_env names"}</code> in the
                              server's environment, then restart.
                            </span>
                          )}
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </div>
          </section>
          <section class="card stack" aria-labelledby="schedule-heading">
            <h2 id="schedule-heading">Schedule</h2>
            <p>
              {data.schedule.enabled && data.next_run !== null ? (
                <>
                  Asked <strong>{describeSchedule(data.schedule.cron)}</strong> (UTC; <code class="nowrap">{data.schedule.cron}</code> in
                  spyglass.toml), {data.schedule.samples} answer{data.schedule.samples === 1 ? "" : "s"} per prompt and engine. Next run:{" "}
                  {formatDate(data.next_run)}.
                </>
              ) : data.schedule.enabled ? (
                "Scheduled runs leave this brand out; runs start only with Run now."
              ) : (
                "Scheduled tracking is off; runs start only with Run now."
              )}
            </p>
            {data.message && <Notice kind="info">{data.message}</Notice>}
          </section>
          <ForecastCard forecast={data.forecast} engineLabel={engineLabel} />
          <section class="card stack" aria-labelledby="run-heading">
            <h2 id="run-heading">Last run</h2>
            {error && <Notice kind="error">{error}</Notice>}
            {run ? (
              <dl class="run-facts">
                <dt>Status</dt>
                <dd>
                  <RunStatus status={run.status} errors={run.answers.error} />
                  {run.error && <span class="run-error"> {run.error}</span>}
                </dd>
                <dt>Started</dt>
                <dd>
                  {formatDate(run.started_at)} ({RUN_TRIGGER[run.trigger] ?? run.trigger})
                </dd>
                <dt>Finished</dt>
                <dd>{run.finished_at ? formatDate(run.finished_at) : "not yet"}</dd>
                <dt>Engines</dt>
                <dd>{run.engines.map(engineLabel).join(", ")}</dd>
                <dt>Answers</dt>
                <dd>
                  <progress max={Math.max(run.answers_planned, 1)} value={run.answers_done} aria-label="Answers stored of planned" />{" "}
                  {run.answers_done} of {run.answers_planned} stored
                </dd>
                <dt>By status</dt>
                <dd>
                  {run.answers.ok} answered, {run.answers.empty} empty, {run.answers.refusal} refused, {run.answers.error} errors
                </dd>
              </dl>
            ) : (
              <p class="muted">No run yet.</p>
            )}
            {run?.status === "running" &&
              run.waiting.map((w) => (
                <Notice kind="warning" key={w.engine}>
                  {engineLabel(w.engine)}'s provider asked to wait (“{w.reason}”): its requests, and the run with them, go on at{" "}
                  {new Date(w.until).toLocaleTimeString(undefined, { timeZoneName: "short" })}.
                </Notice>
              ))}
            {run && run.status !== "running" && silent.length > 0 && (
              <Notice kind="error">
                {silent.map(engineLabel).join(", ")} answered nothing in this run: every answer was an error (first: “
                {run.by_engine.find((e) => e.engine === silent[0])?.first_error ?? "unknown"}”). Check its API key (in the server's
                environment, in the variable its api_key_env names) and its model and base_url (in spyglass.toml); its figures have no
                answers from this run.
              </Notice>
            )}
            {run && run.by_engine.length > 0 && (
              <div class="table-wrap">
                <table class="run-engines-table cards-narrow cards-facts">
                  <caption class="offscreen">Answers of the last run by engine</caption>
                  <thead>
                    <tr>
                      <th scope="col">Engine</th>
                      <th scope="col" class="num">
                        Answered
                      </th>
                      <th scope="col" class="num">
                        Empty
                      </th>
                      <th scope="col" class="num">
                        Refused
                      </th>
                      <th scope="col" class="num">
                        Errors
                      </th>
                      <th scope="col">First error</th>
                    </tr>
                  </thead>
                  <tbody>
                    {run.by_engine.map((e) => (
                      <tr key={e.engine}>
                        <th scope="row">{engineLabel(e.engine)}</th>
                        <td class="num" data-label="Answered">
                          {e.ok}
                        </td>
                        <td class="num" data-label="Empty">
                          {e.empty}
                        </td>
                        <td class="num" data-label="Refused">
                          {e.refusal}
                        </td>
                        <td class="num" data-label="Errors">
                          {e.error}
                        </td>
                        <td class="run-error fact-wide" data-label="First error">
                          {e.first_error ?? "—"}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            <p class="offscreen" role="status" aria-live="polite" data-testid="run-said">
              {spoken}
            </p>
            <div class="actions">
              {/* Busy or no engine keyed: aria-disabled, not disabled, which would drop the keyboard's focus for the
                  whole run, and keep a keyboard from ever reaching the button and hearing why it does nothing. */}
              <Button
                variant="primary"
                onClick={() => !(starting || running || !keyed) && void runNow()}
                aria-disabled={starting || running || !keyed}
                aria-describedby={keyed ? undefined : "run-now-why"}
              >
                {running ? "Running…" : starting ? "Starting…" : "Run now"}
              </Button>
              {!keyed && (
                <span class="muted" id="run-now-why">
                  No engine has its API key yet (see Engines above).
                </span>
              )}
            </div>
          </section>
        </>
      )}
    </>
  );
}
