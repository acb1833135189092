// What the engines searched the web for while answering the brand's prompts (get_search_queries):
// each query with the answers that ran it (a link to them on the Answers page, list_answers with
// searched), the prompts that led to it and the engines that ran it, for the shared filter.

import { type ToolOutput } from "../../../../catalogue/types";
import { api } from "../../api";
import { DownloadCsv } from "../../components/download-csv";
import { useEngineLabels } from "../../components/engines";
import { answersQuery, FilterBar, useAnalyticsFilter } from "../../components/filters";
import { brandPath } from "../../components/layout";
import { usePaged } from "../../components/paged";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { MoreButton } from "../../components/rows";
import { Breakable, EmptyState, LoadFailed, PageHeading } from "../../components/ui";

type Query = ToolOutput<"get_search_queries">["queries"][number];

/** The prompts that led to a query (the tool names up to 5), each a link to its figures, and how many more. */
function QueryPrompts({ brandId, query }: { brandId: string; query: Query }) {
  const more = query.prompt_count - query.prompts.length;
  return (
    <>
      <ul class="plain-list">
        {query.prompts.map((p) => (
          <li key={p.id}>
            <a href={brandPath(brandId, `/performance/${encodeURIComponent(p.id)}`)}>{p.text}</a>
          </li>
        ))}
      </ul>
      {more > 0 && (
        <span class="cell-meta">
          and {more.toLocaleString("en-US")} more prompt{more === 1 ? "" : "s"}
        </span>
      )}
    </>
  );
}

export function SearchQueries({ brandId }: { brandId: string }) {
  const { filter } = useAnalyticsFilter();
  const engineLabel = useEngineLabels(brandId);
  const list = usePaged<Query>(
    async (cursor) => {
      const page = await api.tool(brandId, "get_search_queries", { ...filter, limit: 50, cursor });
      return { items: page.queries, next: page.next_cursor };
    },
    [brandId, filter.start_date, filter.end_date, filter.engine, filter.tag],
  );
  return (
    <>
      <PageHeading title="Search queries">
        <DownloadCsv brandId={brandId} tool="get_search_queries" input={filter} label="search queries" />
      </PageHeading>
      <p class="page-intro">
        What the engines searched the web for while answering the brand's prompts: the pages those searches find are the ones their answers
        cite. Queries that several prompts led to come first.
      </p>
      <FilterBar brandId={brandId} />
      {list.failure && isPlanRequired(list.failure) ? (
        <PlanNeeded required="visibility" what="Seeing the engines' search queries" />
      ) : list.error ? (
        <LoadFailed error={list.error} failure={list.failure} retry={list.reload} />
      ) : list.loaded && list.items.length === 0 ? (
        <EmptyState title="No search query in this period">
          <p>
            Queries appear when an engine searches the web to answer a prompt, and only engines with web search on report them (the{" "}
            <a href={brandPath(brandId, "/tracking")}>Tracking</a> page lists the engines and the runs). Try a longer period or another
            engine.
          </p>
        </EmptyState>
      ) : (
        <div class="table-wrap">
          <table class="searches-table cards-narrow cards-facts" aria-busy={!list.loaded}>
            <caption class="offscreen">Search queries the engines ran</caption>
            <thead>
              <tr>
                <th scope="col">Query</th>
                <th scope="col" class="num">
                  Answers
                </th>
                <th scope="col">Prompts that led to it</th>
                <th scope="col">Engines</th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((q) => (
                <tr key={q.id}>
                  <th scope="row">
                    <span class="search-query">
                      <Breakable text={q.query} />
                    </span>
                    <div class="source-answers">
                      <a
                        href={`${brandPath(brandId, "/answers")}${answersQuery(filter, { searched: q.id })}`}
                        aria-label={`Answers that searched it: ${q.query}`}
                      >
                        Answers that searched it
                      </a>
                    </div>
                  </th>
                  <td class="num" data-label="Answers">
                    {q.answers.toLocaleString("en-US")}
                  </td>
                  <td class="fact-wide" data-label="Prompts">
                    <QueryPrompts brandId={brandId} query={q} />
                  </td>
                  <td data-label="Engines">{q.engines.map(engineLabel).join(", ")}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton list={list} label="More search queries" />
    </>
  );
}
