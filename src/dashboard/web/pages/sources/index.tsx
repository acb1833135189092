// The sources the engines cite (get_top_sources), by domain or by URL, for the shared filter; a
// chosen source (?source=, a domain or a URL by the level) shows the answers that cite it (list_answers
// with cited_domain or cited_url).

import { Fragment } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { useLocation } from "preact-iso";
import { type ToolOutput } from "../../../../catalogue/types";
import { api } from "../../api";
import { readableDomain, readableUrl } from "../../components/domains";
import { DownloadCsv } from "../../components/download-csv";
import { useEngineLabels } from "../../components/engines";
import { percent, rangeText } from "../../components/figures";
import { answersPeriod, answersQuery, FilterBar, filterQuery, useAnalyticsFilter } from "../../components/filters";
import { brandPath } from "../../components/layout";
import { usePaged } from "../../components/paged";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { MoreButton } from "../../components/rows";
import { Breakable, EmptyState, formatDate, LoadFailed, PageHeading } from "../../components/ui";
import { WebLink } from "../../components/web-link";
import { AnswerByPrompt } from "../answers";

type Source = ToolOutput<"get_top_sources">["sources"][number];

/** A link only for http(s) URLs; anything else is shown as text. */
export function SourceUrl({ url }: { url: string }) {
  return (
    <WebLink class="url" url={url}>
      <Breakable text={readableUrl(url)} />
    </WebLink>
  );
}

/** Whose site a source is: the brand's own, a competitor's (by its domains on the Competitors page), or someone else's. */
function SiteOwner({ source }: { source: Source }) {
  if (source.owned) return <span class="badge badge-owned">Your site</span>;
  if (source.competitor) return <span class="site-competitor">Competitor: {source.competitor.name}</span>;
  return <span class="muted">Other</span>;
}

function CitingAnswers({
  brandId,
  source,
  level,
  filter,
  closeHref,
  onClose,
}: {
  brandId: string;
  /** A domain, or a URL when `level` is "url". */
  source: string;
  /** Where "Close" goes: the list without a chosen source. */
  closeHref: string;
  /** Called as the panel closes (its Close link, or Escape inside it), before the address changes. */
  onClose: () => void;
  level: "domain" | "url";
  filter: { start_date?: string; end_date?: string; engine?: string; tag?: string };
}) {
  // The page's period, its default written out (list_answers without dates is all time), fixed for
  // the list's pages: worked out at each page, the default's first day moved at midnight and the
  // next page's cursor was of another list.
  const period = answersPeriod(filter);
  const list = usePaged(
    async (cursor) => {
      const page = await api.tool(brandId, "list_answers", {
        ...(level === "url" ? { cited_url: source } : { cited_domain: source }),
        ...period,
        engine: filter.engine,
        limit: 20,
        cursor,
      });
      return { items: page.answers, next: page.next_cursor };
    },
    [brandId, source, level, period.start_date, period.end_date, filter.engine],
  );
  const engineLabel = useEngineLabels(brandId);
  const { route } = useLocation();
  const panel = useRef<HTMLElement>(null);
  // In sight once chosen (its row may be near the bottom of the screen).
  useEffect(() => panel.current?.scrollIntoView({ block: "nearest" }), []);
  return (
    <section
      ref={panel}
      class="card stack"
      aria-labelledby="citing-heading"
      // Escape inside closes it, as Close does (a disclosure, not a dialog: the rest of the page stays reachable).
      onKeyDown={(event) => {
        if (event.key !== "Escape" || event.defaultPrevented) return;
        event.preventDefault();
        onClose();
        route(closeHref);
      }}
    >
      <div class="citing-head">
        <h2 id="citing-heading">
          Answers citing{" "}
          <span class="mono">
            <Breakable text={source} />
          </span>
        </h2>
        <a
          href={closeHref}
          class="btn"
          aria-label={`Close the answers citing ${source}`}
          // A plain click closes it here; one that opens a new tab (a modifier, the middle button) leaves it open.
          onClick={(event) => {
            if (event.button === 0 && !event.ctrlKey && !event.metaKey && !event.shiftKey && !event.altKey) onClose();
          }}
        >
          Close
        </a>
      </div>
      <p class="muted">
        <a
          class="citing-open"
          href={`${brandPath(brandId, "/answers")}${answersQuery(filter, { [level === "url" ? "cites_url" : "cites"]: source })}`}
        >
          Open them in Answers
        </a>
      </p>
      {filter.tag && <p class="muted">Period and engine apply to this list; the tag filter does not.</p>}
      {list.error && <LoadFailed error={list.error} failure={list.failure} retry={list.reload} />}
      {list.loaded && list.items.length === 0 ? (
        <p class="muted">No answer of this period cites it.</p>
      ) : (
        <div class="table-wrap">
          <table class="citing-table cards-narrow cards-line">
            <caption class="offscreen">Answers citing {source}</caption>
            <thead>
              <tr>
                <th scope="col">Prompt</th>
                <th scope="col">Engine</th>
                <th scope="col">Date</th>
              </tr>
            </thead>
            <tbody>
              {/* As the Answers list: each answer named by the prompt it answers, its link; the date last. */}
              {list.items.map((a) => {
                const when = formatDate(a.created_at, true);
                return (
                  <tr key={a.id}>
                    <th scope="row" class="prompt-text">
                      <AnswerByPrompt brandId={brandId} answer={a} engine={engineLabel(a.engine)} when={when} />
                    </th>
                    <td class="answer-engine" data-label="Engine">
                      {engineLabel(a.engine)}
                    </td>
                    <td class="answer-date line-own" data-label="Date">
                      {when}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton list={list} label="More answers" />
    </section>
  );
}

export function Sources({ brandId }: { brandId: string }) {
  const { filter, query } = useAnalyticsFilter();
  const { path, route } = useLocation();
  const level = query.level === "url" ? "url" : "domain";
  const chosen = query.source ?? null;
  const list = usePaged<Source>(
    async (cursor) => {
      const page = await api.tool(brandId, "get_top_sources", { ...filter, level, limit: 50, cursor });
      return { items: page.sources, next: page.next_cursor };
    },
    [brandId, filter.start_date, filter.end_date, filter.engine, filter.tag, level],
  );
  const setParams = (patch: Record<string, string | null>) => {
    const next = new URLSearchParams(query);
    for (const [k, v] of Object.entries(patch)) {
      if (v) next.set(k, v);
      else next.delete(k);
    }
    const search = next.toString();
    route(search ? `${path}?${search}` : path);
  };
  const sourceHref = (source: string) => {
    const next = new URLSearchParams(query);
    next.set("source", source);
    return `${path}?${next.toString()}`;
  };
  // What a row's "Answers citing" lists: its URL by URL, its domain otherwise.
  const sourceOf = (s: Source) => (level === "url" && s.url ? s.url : s.domain);
  const carried = filterQuery(query);
  const closeHref = `${brandPath(brandId, "/sources")}${carried}${level === "url" ? `${carried ? "&" : "?"}level=url` : ""}`;
  // Closed, the panel gives the keyboard back to its row's "Answers citing" link (it fell to the page's start).
  const returnTo = useRef<string | null>(null);
  const citingLink = (source: string) => (el: HTMLAnchorElement | null) => {
    if (el && returnTo.current === source && chosen !== source) {
      returnTo.current = null;
      el.focus();
    }
  };
  // Past the render that closed it: a source not among the rows shown must not take the keyboard later.
  useEffect(() => {
    if (!chosen) returnTo.current = null;
  }, [chosen]);
  const citing = chosen && (
    <CitingAnswers
      key={`${level} ${chosen}`}
      brandId={brandId}
      source={chosen}
      level={level}
      filter={filter}
      closeHref={closeHref}
      onClose={() => {
        returnTo.current = chosen;
      }}
    />
  );
  return (
    <>
      <PageHeading title="Sources">
        <DownloadCsv brandId={brandId} tool="get_top_sources" input={{ ...filter, level }} label="sources" />
      </PageHeading>
      <p class="page-intro">Which websites the engines cite in their answers, most cited first.</p>
      <FilterBar brandId={brandId} also={level === "url" ? "By URL" : "By domain"}>
        <fieldset class="segmented">
          <legend>Group by</legend>
          <label>
            <input type="radio" name="level" value="domain" checked={level === "domain"} onChange={() => setParams({ level: null })} />{" "}
            Domain
          </label>
          <label>
            <input type="radio" name="level" value="url" checked={level === "url"} onChange={() => setParams({ level: "url" })} /> URL
          </label>
        </fieldset>
      </FilterBar>
      {list.failure && isPlanRequired(list.failure) ? (
        <PlanNeeded required="visibility" what="Seeing the cited sources" />
      ) : list.error ? (
        <LoadFailed error={list.error} failure={list.failure} retry={list.reload} />
      ) : list.loaded && list.items.length === 0 ? (
        <EmptyState title="No source cited in this period">
          <p>Sources appear once the engines' answers cite websites. Try a longer period or another engine.</p>
        </EmptyState>
      ) : (
        <div class="table-wrap">
          <table class="sources-table cards-narrow cards-facts" aria-busy={!list.loaded}>
            {/* The shares' n is the period's citations, the same on every row: said once, here. */}
            <caption>
              Cited sources by {level === "url" ? "URL" : "domain"}
              {list.items[0] && <>, each one's share of the period's {list.items[0].citation_share.n.toLocaleString("en-US")} citations</>}
            </caption>
            <thead>
              <tr>
                <th scope="col">{level === "url" ? "URL" : "Domain"}</th>
                <th scope="col" class="num">
                  Citations
                </th>
                <th scope="col" class="num">
                  Citation share (95% interval)
                </th>
                <th scope="col">Whose site</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((s) => (
                <Fragment key={s.url ?? s.domain}>
                  <tr class={chosen === sourceOf(s) ? "chosen" : undefined}>
                    <th scope="row">
                      {level === "url" && s.url ? <SourceUrl url={s.url} /> : <span class="mono">{readableDomain(s.domain)}</span>}
                      <div class="source-answers">
                        <a
                          ref={citingLink(sourceOf(s))}
                          href={sourceHref(sourceOf(s))}
                          aria-current={chosen === sourceOf(s) ? "true" : undefined}
                          aria-label={`Answers citing ${sourceOf(s)}`}
                        >
                          Answers citing
                        </a>
                      </div>
                    </th>
                    <td class="num" data-label="Citations">
                      {s.citations.toLocaleString("en-US")}
                      {/* A URL is counted once per answer citing it: its citations are its answers. */}
                      {level !== "url" && (
                        <span class="cell-meta">
                          {/* Not "409, in 409 answers": the count said once when each answer cites the domain once. */}
                          {s.answers === s.citations && s.answers > 1
                            ? "in as many answers"
                            : `in ${s.answers.toLocaleString("en-US")} answer${s.answers === 1 ? "" : "s"}`}
                        </span>
                      )}
                    </td>
                    <td class="num" data-label="Citation share">
                      {percent(s.citation_share.rate)}
                      <span class="cell-meta">{rangeText(s.citation_share)}</span>
                    </td>
                    <td data-label="Whose site">
                      <SiteOwner source={s} />
                    </td>
                  </tr>
                  {/* The answers citing the chosen source, under its row (they were after the whole list). */}
                  {chosen === sourceOf(s) && (
                    <tr class="citing-row">
                      <td colSpan={4}>{citing}</td>
                    </tr>
                  )}
                </Fragment>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton list={list} label="More sources" />
      {/* A source that is not among the rows shown (a link to one further down the list) gets its answers here. */}
      {list.loaded && !list.items.some((s) => chosen === sourceOf(s)) && citing}
    </>
  );
}
