// What each view draws: the dashboard's trend chart, ranking table, KPI tiles and article preview,
// fed with a tool's structuredContent exactly as the tool returned it (no figure recomputed).
import { type JSX } from "preact";
import { useState } from "preact/hooks";
import { type ToolOutput } from "../../catalogue/types";
import { TrendChart, type TrendSeries } from "../../dashboard/web/components/trend-chart";
import { count, percent } from "../../dashboard/web/pages/overview/format";
import { RankingTable } from "../../dashboard/web/pages/overview/tables";
import { KpiTiles } from "../../dashboard/web/pages/overview/tiles";

/** Runs a tool of this server through the host and draws its result; null when the host cannot. */
type CallTool = ((name: string, args: Record<string, unknown>) => Promise<void>) | null;

const pc = (r: number | null) => (r === null ? null : Math.round(r * 1000) / 10);

function scope(filter: { start_date: string; end_date: string; engine: string | null; tag: string | null }): string {
  return `${filter.start_date} to ${filter.end_date}${filter.engine ? `, engine ${filter.engine}` : ""}${filter.tag ? `, tag ${filter.tag}` : ""}`;
}

function TrendView({ data }: { data: ToolOutput<"get_visibility_trend"> }) {
  const points = data.points;
  const series: TrendSeries[] = [
    {
      label: "Visibility",
      color: "--chart-1",
      values: points.map((p) => pc(p.visibility.rate)),
      low: points.map((p) => pc(p.visibility.low)),
      high: points.map((p) => pc(p.visibility.high)),
    },
    {
      label: "Share of voice",
      color: "--chart-2",
      values: points.map((p) => pc(p.share_of_voice.rate)),
      low: points.map((p) => pc(p.share_of_voice.low)),
      high: points.map((p) => pc(p.share_of_voice.high)),
    },
  ];
  const seen = points.filter((p) => p.visibility.n > 0);
  const first = seen[0];
  const last = seen[seen.length - 1];
  return (
    <figure class="trend-figure view" aria-labelledby="trend-cap">
      <h1>Visibility trend</h1>
      <TrendChart dates={points.map((p) => p.date)} series={series} height={220} />
      <figcaption id="trend-cap">
        Visibility and share of voice by {data.interval}, {scope(data.filter)}, with their 95% intervals as bands.{" "}
        {first && last
          ? `Visibility went from ${percent(first.visibility.rate)} (${first.date}) to ${percent(last.visibility.rate)} (${last.date}).`
          : "No answers in this period."}
      </figcaption>
      <details>
        <summary>Show the figures as a table</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">{data.interval === "week" ? "Week of" : "Day"}</th>
              <th scope="col">Answers</th>
              <th scope="col">Visibility</th>
              <th scope="col">95% interval</th>
              <th scope="col">Share of voice</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.date}>
                <th scope="row">{p.date}</th>
                <td>{count(p.answers.valid)}</td>
                <td>{percent(p.visibility.rate)}</td>
                <td>{p.visibility.low === null ? "" : `${percent(p.visibility.low)}–${percent(p.visibility.high)}`}</td>
                <td>{percent(p.share_of_voice.rate)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
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

function OverviewView({ data }: { data: ToolOutput<"get_visibility_overview"> }) {
  return (
    <section class="view" aria-labelledby="overview-h">
      <h1 id="overview-h">Visibility overview</h1>
      <p class="muted">
        {scope(data.filter)}, against {data.filter.previous_start_date} to {data.filter.previous_end_date}
      </p>
      <KpiTiles overview={data} />
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
  return { html: `<!doctype html><html><body>${doc.body.innerHTML}</body></html>`, withheld };
}

function ServedArticle({ html, published }: { html: string; published: boolean }) {
  const shown = offline(html);
  return (
    <section class="card stack" aria-labelledby="preview-heading">
      <h2 id="preview-heading">{published ? "As the site is served it" : "As the site will be served it"}</h2>
      <p class="muted">
        The sanitized HTML the public content API serves (without your site's styles)
        {shown.withheld > 0 ? `; ${shown.withheld} image(s) are not loaded in this view, which has no network access.` : "."}
      </p>
      <iframe class="preview" sandbox="" title="The published article" srcdoc={shown.html} />
    </section>
  );
}

/** Publish, from the view: the host forwards the call (it may ask its user first), then draws the result. */
function PublishButton({ articleId, callTool }: { articleId: string; callTool: CallTool }) {
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });
  if (!callTool) return <p class="muted">To publish it, ask the assistant to publish this article.</p>;
  const publish = async () => {
    setState({ busy: true, error: null });
    try {
      await callTool("publish_to_site", { article_id: articleId });
    } catch (e) {
      setState({ busy: false, error: `Publishing failed: ${(e as Error).message}` });
    }
  };
  return (
    <div class="stack">
      <button type="button" class="btn btn-primary" disabled={state.busy} onClick={publish}>
        {state.busy ? "Publishing…" : "Publish to the site"}
      </button>
      {state.error && (
        <p class="notice error" role="alert">
          {state.error}
        </p>
      )}
    </div>
  );
}

function PublishView({ data, callTool }: { data: ToolOutput<"publish_to_site"> | ToolOutput<"get_article">; callTool: CallTool }) {
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
        <dd>{a.status}</dd>
        <dt>Published</dt>
        <dd>{a.published_at ?? "never"}</dd>
      </dl>
      <ServedArticle html={a.html} published={a.status === "published"} />
      {a.status === "draft" && <PublishButton articleId={a.id} callTool={callTool} />}
    </section>
  );
}

export type ViewName = "visibility-trend" | "competitor-ranking" | "overview" | "publish";

/** A view takes the structuredContent of its tool (the catalogue enforced the tool's output schema). */
type ViewComponent = (props: { data: never; callTool: CallTool }) => JSX.Element;

export const views: Record<ViewName, ViewComponent> = {
  "visibility-trend": TrendView,
  "competitor-ranking": RankingView,
  overview: OverviewView,
  publish: PublishView,
};
