// Prompt performance: get_prompt_performance's table under the shared filter, sorted by the tool's
// `order` (in the URL), paged with its cursor; and a prompt's page with its answers (list_answers).
// Every figure is the tool's, shown as given (METRICS.md), never recomputed here.

import { useLocation } from "preact-iso";
import { type ToolOutput } from "../../../../catalogue/types";
import { ApiError, api } from "../../api";
import { DownloadCsv } from "../../components/download-csv";
import { Interval, percent } from "../../components/figures";
import { type AnalyticsFilter, answersPeriod, answersQuery, FilterBar, filterQuery, useAnalyticsFilter } from "../../components/filters";
import { brandPath } from "../../components/layout";
import { usePaged } from "../../components/paged";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { MoreButton } from "../../components/rows";
import { ScrollTable } from "../../components/scroll-table";
import { Button, EmptyState, LoadFailed, Notice, PageHeading, useLoad } from "../../components/ui";
import { AnswerTable } from "../answers";
import { TrendSection } from "../overview/trend";

type PromptRow = ToolOutput<"get_prompt_performance">["prompts"][number];
type Rate = PromptRow["visibility"];

/** A rate with its n and 95% interval in small type. */
export function RateCell({ rate }: { rate: Rate }) {
  return (
    <>
      {percent(rate.rate)}
      <small class="figure-detail">
        {" "}
        n = {rate.n}
        {rate.low !== null && rate.high !== null && (
          <>
            , <Interval low={rate.low} high={rate.high} />
          </>
        )}
      </small>
    </>
  );
}

export function position(mean: { value: number | null; n: number }): string {
  return mean.value === null ? "—" : `${mean.value.toFixed(1)} (n = ${mean.n})`;
}

const ORDERS = { visibility_desc: "Highest visibility first", visibility_asc: "Lowest visibility first" } as const;
type Order = keyof typeof ORDERS;

export function PromptPerformance({ brandId }: { brandId: string }) {
  const { filter, query, path, route } = { ...useAnalyticsFilter(), ...useLocation() };
  const order: Order = query.order === "visibility_asc" ? "visibility_asc" : "visibility_desc";
  const key = JSON.stringify([filter, order]);
  const list = usePaged<PromptRow>(
    async (cursor) => {
      const out = await api.tool(brandId, "get_prompt_performance", { ...filter, order, limit: 20, cursor });
      return { items: out.prompts, next: out.next_cursor };
    },
    [brandId, key],
  );
  const setOrder = (next: Order) => {
    const q = new URLSearchParams(query);
    if (next === "visibility_desc") q.delete("order");
    else q.set("order", next);
    const s = q.toString();
    route(s ? `${path}?${s}` : path);
  };
  const carry = filterQuery(query);
  return (
    <div class="stack">
      <PageHeading title="Prompt performance">
        <DownloadCsv brandId={brandId} tool="get_prompt_performance" input={{ ...filter, order }} label="prompt figures" />
      </PageHeading>
      <FilterBar brandId={brandId} />
      {isPlanRequired(list.failure) ? (
        <PlanNeeded required="visibility" what="Prompt performance" />
      ) : list.error ? (
        <LoadFailed error={list.error} failure={list.failure} retry={list.reload} />
      ) : !list.loaded ? (
        <p class="loading" role="status">
          Loading…
        </p>
      ) : list.items.length === 0 ? (
        <EmptyState title="No prompt to show">
          <p>
            Add prompts on the <a href={brandPath(brandId, "/prompts")}>Prompts</a> page; their figures appear once answers are tracked.
          </p>
        </EmptyState>
      ) : (
        <>
          {/* On a phone the rows are cards and the header row is out of sight: the order is chosen here. */}
          <p class="narrow-only sort-narrow">
            {order === "visibility_desc" ? "Highest visibility first." : "Lowest visibility first."}{" "}
            <Button onClick={() => setOrder(order === "visibility_desc" ? "visibility_asc" : "visibility_desc")}>
              {order === "visibility_desc" ? "Show lowest first" : "Show highest first"}
            </Button>
          </p>
          <ScrollTable label="Prompts by visibility, scrollable">
            <table class="performance-table cards-narrow cards-facts">
              <caption class="visually-hidden">Prompts by visibility</caption>
              <thead>
                <tr>
                  <th scope="col">Prompt</th>
                  <th scope="col" class="num" aria-sort={order === "visibility_desc" ? "descending" : "ascending"}>
                    <span class="narrow-only">Visibility</span>
                    <button
                      type="button"
                      class="sort-button wide-only"
                      onClick={() => setOrder(order === "visibility_desc" ? "visibility_asc" : "visibility_desc")}
                    >
                      Visibility <span aria-hidden="true">{order === "visibility_desc" ? "▼" : "▲"}</span>
                      <span class="visually-hidden">
                        , sorted {order === "visibility_desc" ? "highest first" : "lowest first"}; sort{" "}
                        {order === "visibility_desc" ? "lowest first" : "highest first"}
                      </span>
                    </button>
                  </th>
                  <th scope="col" class="num">
                    Average position
                  </th>
                  <th scope="col" class="num">
                    Answers
                  </th>
                  <th scope="col">Top competitor</th>
                </tr>
              </thead>
              <tbody>
                {list.items.map((p) => (
                  <tr key={p.id} data-prompt-id={p.id}>
                    <th scope="row">
                      <a href={`${brandPath(brandId, `/performance/${encodeURIComponent(p.id)}`)}${carry}`}>{p.text}</a>
                      {/* No longer asked: its answers of the period still count. */}
                      {p.archived && <span class="badge">Archived</span>}
                    </th>
                    <Figures row={p} />
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollTable>
          <MoreButton list={list} label="More prompts" />
        </>
      )}
    </div>
  );
}

/** The prompt's row of get_prompt_performance under a filter (the tool's prompt_id); null when it has no answer there. */
async function promptRow(brandId: string, promptId: string, filter: AnalyticsFilter): Promise<PromptRow | null> {
  const page = await api.tool(brandId, "get_prompt_performance", { ...filter, prompt_id: promptId, limit: 1 });
  return page.prompts.find((p) => p.id === promptId) ?? null;
}

function Figures({ row }: { row: PromptRow }) {
  return (
    <>
      <td class="num" data-figure="visibility" data-label="Visibility">
        <RateCell rate={row.visibility} />
      </td>
      <td class="num" data-figure="position" data-label="Average position">
        {position(row.avg_position)}
      </td>
      <td class="num" data-figure="answers" data-label="Answers">
        {row.answers.valid} valid <small class="figure-detail">of {row.answers.total}</small>
      </td>
      <td data-figure="competitor" data-label="Top competitor">
        {row.top_competitor ? (
          <>
            {row.top_competitor.name} <small class="figure-detail">in {row.top_competitor.answers} answers</small>
          </>
        ) : (
          "—"
        )}
      </td>
    </>
  );
}

/** The prompt's figures over the filter, overall and per configured engine, as get_prompt_performance gives them. */
function PromptFigures({ brandId, promptId, filter }: { brandId: string; promptId: string; filter: AnalyticsFilter }) {
  const figures = useLoad(async () => {
    const brand = await api.tool(brandId, "get_brand", {});
    const engines = filter.engine ? [] : brand.engines;
    const [all, ...each] = await Promise.all([
      promptRow(brandId, promptId, filter),
      ...engines.map((e) => promptRow(brandId, promptId, { ...filter, engine: e.id })),
    ]);
    return {
      rows: [
        { label: filter.engine ? (brand.engines.find((e) => e.id === filter.engine)?.label ?? filter.engine) : "All engines", row: all },
        ...engines.map((e, i) => ({ label: e.label, row: each[i] ?? null })),
      ],
    };
  }, [brandId, promptId, JSON.stringify(filter)]);
  if (isPlanRequired(figures.failure)) return <PlanNeeded required="visibility" what="A prompt's figures" />;
  if (figures.error) return <LoadFailed error={figures.error} failure={figures.failure} retry={figures.reload} />;
  if (!figures.data)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  return (
    <ScrollTable label="The prompt's figures, scrollable">
      <table class="prompt-figures cards-narrow cards-facts">
        <caption class="visually-hidden">The prompt's figures over the period</caption>
        <thead>
          <tr>
            <th scope="col">Engines</th>
            <th scope="col" class="num">
              Visibility
            </th>
            <th scope="col" class="num">
              Average position
            </th>
            <th scope="col" class="num">
              Answers
            </th>
            <th scope="col">Top competitor</th>
          </tr>
        </thead>
        <tbody>
          {figures.data.rows.map(({ label, row }) => (
            <tr key={label}>
              <th scope="row">{label}</th>
              {row ? <Figures row={row} /> : <td colSpan={4}>No answer in this period.</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollTable>
  );
}

/** One prompt: its text, its figures and its answers over the filter's dates. */
export function PromptPage({ brandId, params }: { brandId: string; params: Record<string, string> }) {
  const promptId = params.promptId ?? "";
  const { filter, query } = useAnalyticsFilter();
  // The prompt alone (archived too); one that is not the brand's is "not found".
  const prompt = useLoad(async () => {
    try {
      const page = await api.tool(brandId, "list_prompts", { prompt_id: promptId, include_archived: true, limit: 1 });
      return { prompt: page.prompts[0] ?? null };
    } catch (error) {
      if (error instanceof ApiError && error.code === "prompt_not_found") return { prompt: null };
      throw error;
    }
  }, [brandId, promptId]);
  const carry = filterQuery(query);
  return (
    <div class="stack">
      <p>
        <a href={`${brandPath(brandId, "/performance")}${carry}`}>All prompts' performance</a>
      </p>
      {/* Headed by the prompt itself, "Prompt" above it: the page's heading was the word "Prompt", its
          subject in a pale box under it. */}
      <PageHeading title={prompt.data?.prompt?.text ?? "Prompt"} kind={prompt.data?.prompt ? "Prompt" : undefined} />
      {prompt.data && !prompt.data.prompt && <Notice kind="error">This prompt does not exist.</Notice>}
      {prompt.error &&
        (isPlanRequired(prompt.failure) ? (
          <PlanNeeded required="visibility" what="A prompt's page" />
        ) : (
          <LoadFailed error={prompt.error} failure={prompt.failure} retry={prompt.reload} />
        ))}
      <FilterBar brandId={brandId} />
      <h2>Figures</h2>
      <PromptFigures brandId={brandId} promptId={promptId} filter={filter} />
      {/* By week at first: one prompt has few answers a day (its samples times its engines), and daily
          points of three answers drew bands from 20% to 100%. */}
      <TrendSection brandId={brandId} filter={{ ...filter, prompt_id: promptId }} engines={null} initial="week" />
      <h2>Answers</h2>
      <p>
        <a href={`${brandPath(brandId, "/answers")}${answersQuery(filter, { prompt: promptId })}`}>
          Filter this prompt's answers of the period
        </a>
      </p>
      <AnswerTable brandId={brandId} input={{ prompt_id: promptId, engine: filter.engine, ...answersPeriod(filter) }} showPrompt={false} />
    </div>
  );
}
