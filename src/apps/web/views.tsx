// What each view draws: the dashboard's trend chart, ranking table and KPI tiles, and the article as
// served, fed with tools' structuredContent exactly as the tools returned it (no figure recomputed).
// Where the host runs this server's tools for its views (serverTools), a view asks it for more: the
// overview adds the trend and the ranking, the trend switches day/week, a draft is published.

import { type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { type JSX } from "preact";
import { useEffect, useState } from "preact/hooks";
import { type ToolOutput } from "../../catalogue/types";
import { articleDocument } from "../../dashboard/web/components/article-document";
import { ArticleStatus } from "../../dashboard/web/components/article-status";
import { formatDate, formatDays } from "../../dashboard/web/components/dates";
import { TrendChart, visibilityAndShareSeries } from "../../dashboard/web/components/trend-chart";
import { chartDates, chartStart, TrendTable, trendSummary } from "../../dashboard/web/components/trend-figures";
import { RankingTable } from "../../dashboard/web/pages/overview/tables";
import { comparedWith, KpiTiles } from "../../dashboard/web/pages/overview/tiles";

/** What a view may ask of its host: run one of this server's tools, and draw a result in its place. */
export interface Host {
  callTool(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  show(result: CallToolResult): void;
}

type Filter = ToolOutput<"get_visibility_trend">["filter"];

function scope(filter: Omit<Filter, "days" | "previous_start_date" | "previous_end_date" | "prompt_id">): string {
  return `${formatDays(filter.start_date, filter.end_date)}${filter.engine ? `, engine ${filter.engine}` : ""}${filter.tag ? `, tag ${filter.tag}` : ""}`;
}

/** The same period and filters as a result's, as a tool's input. */
function sameFilter(filter: Filter): Record<string, string> {
  const args: Record<string, string> = { start_date: filter.start_date, end_date: filter.end_date };
  if (filter.engine) args.engine = filter.engine;
  if (filter.tag) args.tag = filter.tag;
  if (filter.prompt_id) args.prompt_id = filter.prompt_id;
  return args;
}

/** A tool's structuredContent, or its error sentence. */
async function structured<T>(host: Host, name: string, args: Record<string, unknown>): Promise<T> {
  const result = await host.callTool(name, args);
  const first = result.content[0];
  if (result.isError || !result.structuredContent) throw new Error(first?.type === "text" ? first.text : `${name} failed`);
  return result.structuredContent as T;
}

function TrendFigure({ data }: { data: ToolOutput<"get_visibility_trend"> }) {
  const points = data.points;
  return (
    <figure class="trend-figure" aria-labelledby="trend-cap">
      <TrendChart dates={chartDates(points)} series={visibilityAndShareSeries(points.slice(chartStart(points)))} height={220} />
      <figcaption id="trend-cap">
        Visibility and share of voice by {data.interval}, {scope(data.filter)}, with their 95% intervals as bands.{" "}
        {trendSummary(points, data.interval)}
      </figcaption>
      <details>
        <summary>Show the figures as a table</summary>
        <TrendTable points={points} interval={data.interval} />
      </details>
    </figure>
  );
}

/** Day or week: the host runs get_visibility_trend again with the same filters, and the view redraws. */
function IntervalPicker({ data, host }: { data: ToolOutput<"get_visibility_trend">; host: Host }) {
  const [error, setError] = useState<string | null>(null);
  const change = async (interval: string) => {
    setError(null);
    try {
      host.show(await host.callTool("get_visibility_trend", { ...sameFilter(data.filter), interval }));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  return (
    <div class="field inline">
      <label for="interval">Points by</label>
      <select id="interval" value={data.interval} onChange={(e) => change(e.currentTarget.value)}>
        <option value="day">Day</option>
        <option value="week">Week</option>
      </select>
      {error && (
        <p class="notice notice-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function TrendView({ data, host }: { data: ToolOutput<"get_visibility_trend">; host: Host | null }) {
  return (
    <section class="view stack" aria-labelledby="trend-h">
      <h1 id="trend-h">Visibility trend</h1>
      {host && <IntervalPicker data={data} host={host} />}
      <TrendFigure data={data} />
    </section>
  );
}

function RankingView({ data }: { data: ToolOutput<"get_competitor_ranking"> }) {
  return (
    <section class="view" aria-labelledby="ranking-h">
      <h1 id="ranking-h">Competitor ranking</h1>
      <p class="muted">{scope(data.filter)}</p>
      <RankingTable ranking={data} />
    </section>
  );
}

/**
 * "How visible are we?": the tiles, and where the host runs tools for its views, the trend and the
 * ranking of the same period and filters below them (the tools' own results, drawn as they come).
 */
function OverviewView({ data, host }: { data: ToolOutput<"get_visibility_overview">; host: Host | null }) {
  const [trend, setTrend] = useState<ToolOutput<"get_visibility_trend"> | null>(null);
  const [ranking, setRanking] = useState<ToolOutput<"get_competitor_ranking"> | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!host) return;
    const args = sameFilter(data.filter);
    structured<ToolOutput<"get_visibility_trend">>(host, "get_visibility_trend", args).then(setTrend, (e: Error) => setError(e.message));
    structured<ToolOutput<"get_competitor_ranking">>(host, "get_competitor_ranking", args).then(setRanking, (e: Error) =>
      setError(e.message),
    );
  }, [host, data]);
  return (
    <section class="view stack" aria-labelledby="overview-h">
      <h1 id="overview-h">Visibility overview</h1>
      <p class="muted">
        {scope(data.filter)}, {comparedWith(data)}
      </p>
      <KpiTiles overview={data} />
      {error && <p class="notice notice-error">{error}</p>}
      {trend && (
        <section aria-labelledby="overview-trend-h">
          <h2 id="overview-trend-h">Trend</h2>
          <TrendFigure data={trend} />
        </section>
      )}
      {ranking && (
        <section aria-labelledby="overview-ranking-h">
          <h2 id="overview-ranking-h">Competitor ranking</h2>
          <RankingTable ranking={ranking} />
        </section>
      )}
    </section>
  );
}

/**
 * The served HTML with what it would fetch (images from the brand's site) put aside: a view has no
 * network access, so each such element becomes a line naming it. Parsed inert (DOMParser loads and
 * runs nothing) and shown, like the dashboard's preview, in an iframe sandboxed with no permission.
 */
function offline(html: string): { html: string; withheld: number } {
  const doc = new DOMParser().parseFromString(`<!doctype html><html><body>${html}</body></html>`, "text/html");
  let withheld = 0;
  for (const el of Array.from(doc.body.querySelectorAll("[src], [srcset]"))) {
    const src = el.getAttribute("src") ?? el.getAttribute("srcset") ?? "";
    if (src.startsWith("data:")) continue;
    const note = doc.createElement("p");
    note.className = "withheld";
    note.textContent = `[${el.tagName.toLowerCase() === "img" ? "image" : "media"}${el.getAttribute("alt") ? `: ${el.getAttribute("alt")}` : ""} — not loaded here]`;
    el.replaceWith(note);
    withheld++;
  }
  return { html: articleDocument(doc.body.innerHTML), withheld };
}

function ServedArticle({ html, published }: { html: string; published: boolean }) {
  const shown = offline(html);
  return (
    <section class="card stack" aria-labelledby="preview-heading">
      <h2 id="preview-heading">{published ? "As the site serves it" : "As the site will serve it"}</h2>
      <p class="muted">
        The sanitized HTML the public content API serves (without your site's styles)
        {shown.withheld > 0 ? `; ${shown.withheld} image(s) are not loaded in this view, which has no network access.` : "."}
      </p>
      <iframe class="preview" sandbox="" title="The published article" srcdoc={shown.html} />
    </section>
  );
}

/** Publish, from the view: the host forwards the call (it may ask its user first), then draws the result. */
function PublishButton({ articleId, host }: { articleId: string; host: Host | null }) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  if (!host) return <p class="muted">To publish it, ask the assistant to publish this article.</p>;
  const publish = async () => {
    setState({ busy: true, error: null });
    try {
      const result = await host.callTool("publish_to_site", { article_id: articleId });
      // A refusal is said here, under the button: drawn in the view's place, it took the article
      // away with it (the AI-client walk), and the next step is about this article.
      if (result.isError) {
        const first = result.content?.[0];
        setState({ busy: false, error: `Publishing failed: ${first?.type === "text" ? first.text : "the tool reported an error."}` });
        return;
      }
      host.show(result);
    } catch (e) {
      const message = (e as Error).message;
      // An SDK host checks a refusal that carries structuredContent (a plan's, CONTRACT §4) against
      // the tool's output schema, and reports that check instead of the server's sentence.
      const unshown = message.includes("Structured content does not match the tool's output schema");
      setState({
        busy: false,
        error: unshown
          ? "Publishing failed: the server refused it, and this app could not show why (the account's plan may no longer include publishing). Ask the assistant to publish this article to see the reason."
          : `Publishing failed: ${message}`,
      });
    }
  };
  return (
    <div class="stack">
      <button type="button" class="btn btn-primary" disabled={state.busy} onClick={publish}>
        {state.busy ? "Publishing…" : "Publish to the site"}
      </button>
      {state.error && (
        <p class="notice notice-error" role="alert">
          {state.error}
        </p>
      )}
    </div>
  );
}

function PublishView({ data, host }: { data: ToolOutput<"publish_to_site"> | ToolOutput<"get_article">; host: Host | null }) {
  const a = data.article;
  return (
    <section class="view stack" aria-labelledby="publish-h">
      <h1 id="publish-h">
        {a.status === "published" ? "Published" : "Draft, not published yet"}: {a.title || "Untitled"}
      </h1>
      <dl class="facts">
        <dt>Slug</dt>
        <dd>{a.slug}</dd>
        <dt>Status</dt>
        <dd>
          <ArticleStatus status={a.status} />
        </dd>
        <dt>Published</dt>
        <dd>{formatDate(a.published_at)}</dd>
      </dl>
      <ServedArticle html={a.html} published={a.status === "published"} />
      {a.status === "draft" && <PublishButton articleId={a.id} host={host} />}
    </section>
  );
}

export type ViewName = "visibility-trend" | "competitor-ranking" | "overview" | "publish";

/** A view takes the structuredContent of its tool (the catalogue enforced the tool's output schema). */
type ViewComponent = (props: { data: never; host: Host | null }) => JSX.Element;

export const views: Record<ViewName, ViewComponent> = {
  "visibility-trend": TrendView,
  "competitor-ranking": RankingView,
  overview: OverviewView,
  publish: PublishView,
};
