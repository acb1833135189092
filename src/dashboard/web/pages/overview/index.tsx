// The brand's overview (issue 15, part 1): KPI tiles from get_visibility_overview with n, interval
// and the change against the previous period; the trend; the competitor ranking; the figures by
// engine. Everything follows the analytics filter in the URL.
import { DownloadCsv } from "../../components/download-csv";
import "./overview.css";
import { type ComponentChildren } from "preact";
import { useId } from "preact/hooks";
import { api } from "../../api";
import { formatDate } from "../../components/dates";
import { FilterBar, useAnalyticsFilter } from "../../components/filters";
import { brandPath } from "../../components/layout";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { EmptyState, formatDays, LoadFailed, Notice, PageHeading, useLoad } from "../../components/ui";
import { EngineTable, RankingTable } from "./tables";
import { comparedWith, KpiTiles } from "./tiles";
import { TrendSection } from "./trend";

/**
 * What stands between the brand and its first answers, step by step, each marked done or not from
 * get_tracking_status: the prompts to ask, an engine with its key, and a run. A brand with prompts
 * but no engine is pointed at the engine, not told to add prompts.
 */
function NoAnswersYet({ brandId }: { brandId: string }) {
  const status = useLoad(() => api.tool(brandId, "get_tracking_status", {}), [brandId]);
  const s = status.data;
  const prompts = s?.forecast.prompts ?? 0;
  const configured = s?.engines.filter((e) => e.configured) ?? [];
  const keyed = configured.filter((e) => e.api_key_set);
  const unkeyed = configured.filter((e) => !e.api_key_set);
  const tracking = brandPath(brandId, "/tracking");
  const step = (done: boolean, children: ComponentChildren) => (
    <li class={done ? "step-done" : undefined}>
      {done && <span class="offscreen">Done: </span>}
      {children}
    </li>
  );
  return (
    <EmptyState title="No answers yet">
      <p>The overview fills in once tracking has stored answers for this brand:</p>
      {status.error && <LoadFailed error={status.error} failure={status.failure} retry={status.reload} />}
      {!s && !status.error && (
        <p class="loading" role="status">
          Loading the steps…
        </p>
      )}
      {s && (
        <ol class="steps">
          {step(
            prompts > 0,
            prompts > 0 ? (
              <>
                {prompts.toLocaleString("en-US")} {prompts === 1 ? "prompt is" : "prompts are"} tracked (
                <a href={brandPath(brandId, "/prompts")}>Prompts</a>).
              </>
            ) : (
              <>
                <a href={brandPath(brandId, "/prompts")}>Add the prompts</a> people ask AI assistants about your market.
              </>
            ),
          )}
          {step(
            keyed.length > 0,
            keyed.length > 0 ? (
              <>Engines to ask: {keyed.map((e) => e.label).join(", ")}.</>
            ) : unkeyed.length > 0 ? (
              <>
                Set the API key of {unkeyed.map((e) => `${e.label} (${e.api_key_env ?? "its api_key_env"})`).join(", ")} in the server's
                environment and restart the server (<a href={tracking}>Tracking</a> shows the engines).
              </>
            ) : (
              <>
                Configure an engine (an AI provider, its model and the environment variable holding its API key) in the server's{" "}
                <code>spyglass.toml</code> and restart the server.
              </>
            ),
          )}
          {step(
            false,
            s.running ? (
              <>
                A run is under way: <a href={tracking}>Tracking</a> shows its progress.
              </>
            ) : !s.schedule.enabled ? (
              <>
                Run tracking on the <a href={tracking}>Tracking</a> page (this server makes no scheduled runs).
              </>
            ) : (
              <>
                Run tracking on the <a href={tracking}>Tracking</a> page, or wait for the schedule
                {s.next_run ? ` (next run ${formatDate(s.next_run)})` : ""}.
              </>
            ),
          )}
        </ol>
      )}
      <p>
        To look around first, seed sample data with <code>spyglass demo</code>.
      </p>
    </EmptyState>
  );
}

export function Overview({ brandId }: { brandId: string }) {
  const id = useId();
  const { filter } = useAnalyticsFilter();
  const key = JSON.stringify(filter);
  const overview = useLoad(() => api.tool(brandId, "get_visibility_overview", filter), [brandId, key]);
  const ranking = useLoad(() => api.tool(brandId, "get_competitor_ranking", filter), [brandId, key]);
  const filtered = Boolean(filter.engine || filter.tag || filter.start_date || filter.end_date);
  const o = overview.data;

  if (isPlanRequired(overview.failure)) {
    return (
      <>
        <PageHeading title="Overview" />
        <PlanNeeded required="visibility" what="The overview" />
      </>
    );
  }
  if (o && o.answers.total === 0 && !filtered) {
    return (
      <>
        <PageHeading title="Overview" />
        <NoAnswersYet brandId={brandId} />
      </>
    );
  }
  return (
    <>
      <PageHeading title="Overview" />
      <FilterBar brandId={brandId} />
      {overview.error && <LoadFailed error={overview.error} failure={overview.failure} retry={overview.reload} />}
      {o && (
        <section aria-labelledby={`${id}-kpi`} aria-busy={overview.loading}>
          <h2 id={`${id}-kpi`} class="section-title">
            {formatDays(o.filter.start_date, o.filter.end_date)}
            <span class="section-meta">
              {" "}
              · {o.answers.valid.toLocaleString("en-US")} valid answers of {o.answers.total.toLocaleString("en-US")} · {comparedWith(o)}
            </span>
          </h2>
          {/* Figures still moving (the stored answers analysed again): said above them, as to an AI client. */}
          {o.answers.total > 0 && o.note && <Notice kind="info">{o.note}</Notice>}
          <KpiTiles overview={o} />
        </section>
      )}
      {!o && !overview.error && (
        <p class="loading" role="status">
          Loading the figures…
        </p>
      )}
      <div class="overview-grid">
        <TrendSection brandId={brandId} filter={filter} engines={o?.by_engine ?? null} />
        <section class="panel" aria-labelledby={`${id}-rank`}>
          {/* Its download at its head, where every other page has its own. */}
          <div class="panel-head">
            <h2 id={`${id}-rank`}>Competitor ranking</h2>
            {ranking.data && <DownloadCsv brandId={brandId} tool="get_competitor_ranking" input={filter} label="competitor ranking" />}
          </div>
          {ranking.error && <LoadFailed error={ranking.error} failure={ranking.failure} retry={ranking.reload} />}
          {ranking.data && <RankingTable ranking={ranking.data} />}
        </section>
      </div>
      {o && (
        <section class="panel" aria-labelledby={`${id}-eng`}>
          <h2 id={`${id}-eng`}>By engine</h2>
          <EngineTable overview={o} />
        </section>
      )}
    </>
  );
}
