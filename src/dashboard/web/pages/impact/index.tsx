// Article impact, through get_article_impact: for each published article linked to a prompt, that
// prompt's visibility and citation rate in the window before publication and the window after,
// with n, the 95% interval in small type and the verdict in words. The window (days) is kept in the
// URL (?window=N); the shared analytics filter does not apply (the windows are set by each article's
// publication date, over all engines). Every figure is the tool's; nothing is recomputed here.

import { useId } from "preact/hooks";
import { useLocation } from "preact-iso";
import { type ToolOutput } from "../../../../catalogue/types";
import { ApiError, api } from "../../api";
import { DownloadCsv } from "../../components/download-csv";
import { Interval, percent } from "../../components/figures";
import { brandPath } from "../../components/layout";
import { usePaged } from "../../components/paged";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { MoreButton } from "../../components/rows";
import { EmptyState, formatDay, formatDays, LoadFailed, PageHeading, useLoad } from "../../components/ui";
import { articlePath } from "../articles/paths";
import { points } from "../overview/format";
import { VerdictWord } from "../overview/tiles";

type Impact = ToolOutput<"get_article_impact">["articles"][number];
type Figure = Impact["visibility"];
type Rate = Figure["before"];
type Window = Impact["before"];

const WINDOWS = [7, 14, 30, 60, 90] as const;
const DEFAULT_WINDOW = 14;

/** The verdict of the tools in words: the intervals overlap (within noise) or the change is up or down. */
export function verdict(f: Figure): "up" | "down" | "within noise" | "no data" {
  if (f.within_noise === null || f.change_pp === null) return "no data";
  if (f.within_noise) return "within noise";
  return f.change_pp > 0 ? "up" : "down";
}

function RateCell({ r, label }: { r: Rate; label: string }) {
  // A window without a valid answer (the publication day, or a prompt not tracked then) has no rate to show.
  if (r.n === 0) {
    return (
      <td class="num fact-wide" data-label={label}>
        <span class="muted">no answers</span>
      </td>
    );
  }
  return (
    <td class="num fact-wide" data-label={label}>
      <span class="figure">{percent(r.rate)}</span>{" "}
      <small class="muted rate-detail">
        {r.successes}/{r.n}
        {r.low !== null && r.high !== null && (
          <>
            {" "}
            · <Interval low={r.low} high={r.high} />
          </>
        )}
      </small>
    </td>
  );
}

function ChangeCell({ f }: { f: Figure }) {
  return (
    <td class="fact-wide" data-label="Change">
      <VerdictWord verdict={verdict(f)} />
      {f.change_pp !== null && (
        <>
          {" "}
          <span class="nowrap">· {points(f.change_pp)}</span>
        </>
      )}
    </td>
  );
}

/**
 * A window's days, and where it began before the brand's first stored answer, from when it has
 * answers: a 90-day window of a brand tracked for 30 named 60 days no answer could be of.
 */
function windowText(w: Window, firstDay: string | null): string {
  if (w.days === 0 || w.start_date === null) return "no day yet";
  const end = w.end_date ?? w.start_date;
  const days = `${w.days} ${w.days === 1 ? "day" : "days"}`;
  if (firstDay !== null && w.start_date < firstDay) {
    return firstDay > end
      ? `${formatDays(w.start_date, end)} (${days}, before the brand's first answer)`
      : `${formatDays(w.start_date, end)} (${days}; answers from ${formatDay(firstDay)})`;
  }
  return `${formatDays(w.start_date, end)} (${days})`;
}

function ArticleCard({ brandId, item, firstDay }: { brandId: string; item: Impact; firstDay: string | null }) {
  const headingId = useId();
  const cited = item.article_cited;
  return (
    <section class="card stack impact-card" aria-labelledby={headingId}>
      <h2 id={headingId}>
        <a href={articlePath(brandId, item.article.id)}>{item.article.title || item.article.slug}</a>
      </h2>
      <p>
        Prompt: <a href={brandPath(brandId, `/performance/${encodeURIComponent(item.prompt.id)}`)}>{item.prompt.text}</a>
        <br />
        <small class="muted">
          Published {formatDay(item.article.published_at.slice(0, 10))} · before: {windowText(item.before, firstDay)} · after:{" "}
          {windowText(item.after, firstDay)}
        </small>
      </p>
      <div class="table-wrap">
        <table class="cards-narrow cards-facts">
          <caption class="offscreen">Before and after publication: {item.article.title || item.article.slug}</caption>
          <thead>
            <tr>
              <th scope="col">Figure</th>
              <th scope="col" class="num">
                Before
              </th>
              <th scope="col" class="num">
                After
              </th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            <tr>
              <th scope="row">Visibility</th>
              <RateCell r={item.visibility.before} label="Before" />
              <RateCell r={item.visibility.after} label="After" />
              <ChangeCell f={item.visibility} />
            </tr>
            <tr>
              <th scope="row">Citation rate</th>
              <RateCell r={item.citation_rate.before} label="Before" />
              <RateCell r={item.citation_rate.after} label="After" />
              <ChangeCell f={item.citation_rate} />
            </tr>
          </tbody>
        </table>
      </div>
      <p>
        Article's URL cited since publication: <strong>{cited.cited ? "yes" : "no"}</strong>
        {cited.cited && (
          <small class="muted">
            {" "}
            · {cited.citations} {cited.citations === 1 ? "citation" : "citations"}, first{" "}
            {cited.first_cited_at ? formatDay(cited.first_cited_at.slice(0, 10)) : ""}, last{" "}
            {cited.last_cited_at ? formatDay(cited.last_cited_at.slice(0, 10)) : ""}
          </small>
        )}
      </p>
    </section>
  );
}

export function ArticleImpact({ brandId }: { brandId: string }) {
  const { query, path, route } = useLocation();
  const selectId = useId();
  const requested = Number(query.window);
  const windowDays = (WINDOWS as readonly number[]).includes(requested) ? requested : DEFAULT_WINDOW;
  // ?article=: one article's card (the editor links to it), else every article's.
  const articleId = query.article || undefined;
  const list = usePaged<Impact>(
    async (cursor) => {
      const out = await api.tool(brandId, "get_article_impact", {
        window_days: windowDays,
        ...(articleId ? { article_id: articleId } : {}),
        limit: 10,
        ...(cursor ? { cursor } : {}),
      });
      return { items: out.articles, next: out.next_cursor };
    },
    [brandId, windowDays, articleId],
  );
  // The brand's first stored answer: a window that begins before it says from when it has answers.
  const brand = useLoad(() => api.tool(brandId, "get_brand", {}), [brandId]);
  const allArticles = () => {
    const next = new URLSearchParams(query);
    next.delete("article");
    const search = next.toString();
    return search ? `${path}?${search}` : path;
  };
  const setWindow = (value: string) => {
    const next = new URLSearchParams(query);
    if (Number(value) === DEFAULT_WINDOW) next.delete("window");
    else next.set("window", value);
    const search = next.toString();
    route(search ? `${path}?${search}` : path);
  };
  return (
    <>
      <PageHeading title="Article impact">
        <DownloadCsv
          brandId={brandId}
          tool="get_article_impact"
          input={{ window_days: windowDays, ...(articleId ? { article_id: articleId } : {}) }}
          label="article impact figures"
        />
      </PageHeading>
      <p class="page-intro">
        For each published article linked to a prompt: the prompt's answers in the days before the publication day and the same number of
        days after it (fewer when the article is recent), over all engines. "Within noise" means the two 95% intervals overlap.
      </p>
      {/* Its label above its select, as every page's filters have theirs (beside it, the two sat ~9 px apart). */}
      <div class="filters">
        <div class="field">
          <label for={selectId}>Window (days before and after)</label>
          <select id={selectId} value={String(windowDays)} onChange={(e) => setWindow(e.currentTarget.value)}>
            {WINDOWS.map((w) => (
              <option key={w} value={String(w)}>
                {w} days
              </option>
            ))}
          </select>
        </div>
      </div>
      {isPlanRequired(list.failure) ? (
        <PlanNeeded required="visibility" what="Article impact" />
      ) : list.failure instanceof ApiError && list.failure.code === "article_not_found" ? (
        <EmptyState title="There is no such article">
          <p>
            It may have been deleted, or the link is mistyped. The <a href={brandPath(brandId, "/articles")}>Articles</a> page lists the
            brand's articles.
          </p>
        </EmptyState>
      ) : (
        list.error && <LoadFailed error={list.error} failure={list.failure} retry={list.reload} />
      )}
      {!list.loaded && !list.error && (
        <p class="muted" role="status">
          Loading…
        </p>
      )}
      {articleId && (
        <p>
          One article's impact. <a href={allArticles()}>Every article's impact</a>
        </p>
      )}
      {list.loaded && list.items.length === 0 && articleId ? (
        <EmptyState title="This article has no impact to measure yet">
          <p>
            Its impact is measured once it is published and linked to the prompt it answers (in its editor, on the{" "}
            <a href={brandPath(brandId, "/articles")}>Articles</a> page).
          </p>
        </EmptyState>
      ) : list.loaded && list.items.length === 0 ? (
        <EmptyState title="No article to measure yet">
          <p>
            Article impact needs a published article linked to a prompt: link an article to the prompt it answers and publish it on the{" "}
            <a href={brandPath(brandId, "/articles")}>Articles</a> page. Its figures appear once answers have been tracked before and after
            the publication day.
          </p>
        </EmptyState>
      ) : (
        <div class="stack">
          {list.items.map((item) => (
            <ArticleCard key={item.article.id} brandId={brandId} item={item} firstDay={brand.data?.answers.first_day ?? null} />
          ))}
        </div>
      )}
      <MoreButton list={list} label="More articles" />
    </>
  );
}
