// Answers: list_answers with its filters in the URL, paged with its cursor; and one answer
// (get_answer) with every roster mention highlighted. The highlighting is built from the stored
// offsets as text nodes and <mark> elements made by Preact: the answer's text is never parsed as HTML.
import { useId } from "preact/hooks";
import { useLocation } from "preact-iso";
import { type ToolInput, type ToolOutput } from "../../../../catalogue/types";
import { ApiError, api } from "../../api";
import { formatDays } from "../../components/dates";
import { readableDomain, readableUrl } from "../../components/domains";
import { DownloadCsv } from "../../components/download-csv";
import { AnswerStatus, answerStatusLabel, useEngineLabels } from "../../components/engines";
import { FilterFold, reversed } from "../../components/filters";
import { brandPath } from "../../components/layout";
import { type Paged, usePaged } from "../../components/paged";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { short } from "../../components/prompts";
import { MoreButton } from "../../components/rows";
import { Breakable, Button, EmptyState, formatDate, LoadFailed, Notice, PageHeading, useLoad } from "../../components/ui";
import { isWebUrl, WebLink } from "../../components/web-link";

type Summary = ToolOutput<"list_answers">["answers"][number];
type Answer = ToolOutput<"get_answer">["answer"];
type ListInput = ToolInput<"list_answers">;

/**
 * A source as a link: its title (or URL) as text, its domain beside it; a redirect the server could
 * not resolve says so, and so does a URL that is no web address (stored before they were refused).
 */
function SourceLink({ source }: { source: { url: string; domain: string | null; title: string | null } }) {
  return (
    <>
      <WebLink url={source.url}>{source.title ?? readableUrl(source.url)}</WebLink>{" "}
      <span class="source-site">
        {source.domain !== null
          ? readableDomain(source.domain)
          : isWebUrl(source.url)
            ? "(redirect; the site is not named)"
            : "(not a web address)"}
      </span>
    </>
  );
}

/** What the assistant searched, and the sources its provider lists as cited and as retrieved, kept apart. */
function SearchTrail({ brandId, answer: a }: { brandId: string; answer: Answer }) {
  return (
    <section aria-labelledby="answer-search" class="panel search-trail">
      <h2 id="answer-search">What the assistant searched</h2>
      <p>
        What the engine's provider reports of its web search: the queries it made (each a link to every answer that ran it), the pages it
        marks as cited, and those it read without citing.
      </p>
      <h3 id="answer-queries">Search queries</h3>
      {a.search_queries.length === 0 ? (
        <p>No web search query was reported for this answer.</p>
      ) : (
        <ol aria-labelledby="answer-queries" class="search-queries">
          {a.search_queries.map((q, i) => (
            <li key={i}>
              <a
                href={`${brandPath(brandId, "/answers")}?${new URLSearchParams({ searched: q })}`}
                aria-label={`Answers that searched ${q}`}
              >
                {q}
              </a>
            </li>
          ))}
        </ol>
      )}
      <h3 id="answer-cited">Cited sources</h3>
      {a.cited_sources.length === 0 ? (
        <p>The provider lists no cited source.</p>
      ) : (
        <ul aria-labelledby="answer-cited" class="source-list">
          {a.cited_sources.map((c, i) => (
            <li key={i}>
              <SourceLink source={c} />
              {c.owned && <span class="badge">Your site</span>}
              {c.start !== null && c.end !== null && c.end > c.start && (
                <blockquote class="cited-passage">{a.text.slice(c.start, c.end)}</blockquote>
              )}
            </li>
          ))}
        </ul>
      )}
      <h3 id="answer-retrieved">Retrieved, not cited</h3>
      {a.retrieved_sources.length === 0 ? (
        <p>No other source was retrieved.</p>
      ) : (
        <ul aria-labelledby="answer-retrieved" class="source-list">
          {a.retrieved_sources.map((r, i) => (
            <li key={i}>
              <SourceLink source={r} />
              {r.owned && <span class="badge">Your site</span>}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const STATUSES = ["ok", "empty", "refusal", "error"] as const;

function answerHref(brandId: string, id: string): string {
  return brandPath(brandId, `/answers/${encodeURIComponent(id)}`);
}

/**
 * An answer in a list, named by the prompt it answers (its visible text, first), then its engine and
 * date: a screen reader's list of links tells the rows apart. The Answers list and the answers citing
 * a source.
 */
export function AnswerByPrompt({ brandId, answer, engine, when }: { brandId: string; answer: Summary; engine: string; when: string }) {
  const prompt = answer.prompt_text || answer.prompt_id;
  return (
    <a href={answerHref(brandId, answer.id)} aria-label={`${prompt}: ${engine}'s answer of ${when}`}>
      {prompt}
    </a>
  );
}

/** A table of answers read through list_answers with the given input, newest first. */
export function AnswerTable({
  brandId,
  input,
  showPrompt = true,
  remember,
}: {
  brandId: string;
  input: Omit<ListInput, "limit" | "cursor">;
  showPrompt?: boolean;
  /** Keep the list's place for Back (usePaged): on a page whose content above the list is its own (the Answers page). */
  remember?: string;
}) {
  const clean = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Omit<ListInput, "limit" | "cursor">;
  const list = usePaged<Summary>(
    async (cursor) => {
      const out = await api.tool(brandId, "list_answers", { ...clean, limit: 20, cursor });
      return { items: out.answers, next: out.next_cursor };
    },
    [brandId, JSON.stringify(clean)],
    remember,
  );
  const engineLabel = useEngineLabels(brandId);
  // What a filter's change brought, said once it has come (a screen reader hears the table change
  // nowhere else): in one region that stays, whatever the list below shows.
  const n = list.items.length;
  const said =
    !list.loaded || list.loading || list.error
      ? ""
      : n === 0
        ? "No answer matches these filters."
        : `${n} answer${n === 1 ? "" : "s"} shown${list.hasMore ? ", newest first; more to load below" : ""}.`;
  return (
    <>
      <p class="offscreen" role="status" aria-live="polite" data-testid="answers-said">
        {said}
      </p>
      <AnswerRows brandId={brandId} list={list} engineLabel={engineLabel} showPrompt={showPrompt} />
    </>
  );
}

function AnswerRows({
  brandId,
  list,
  engineLabel,
  showPrompt,
}: {
  brandId: string;
  list: Paged<Summary>;
  engineLabel: (id: string) => string;
  showPrompt: boolean;
}) {
  if (isPlanRequired(list.failure)) return <PlanNeeded required="visibility" what="Answers" />;
  if (list.error) return <LoadFailed error={list.error} failure={list.failure} retry={list.reload} />;
  if (!list.loaded)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  if (list.items.length === 0)
    return (
      <EmptyState title="No answer to show">
        <p>Answers appear here once tracking has asked the engines; widen the filters to see more.</p>
      </EmptyState>
    );
  return (
    <>
      <div class="table-wrap">
        <table class="answers-table cards-narrow cards-line">
          <caption class="visually-hidden">Answers, newest first</caption>
          <thead>
            <tr>
              {/* Each row is named by what it answers (the prompt, its link to the answer), unless the
                  table is one prompt's: then by its date. The dates of a run are all alike. */}
              <th scope="col">{showPrompt ? "Prompt" : "Date"}</th>
              <th scope="col">Engine</th>
              <th scope="col">Status</th>
              <th scope="col">Brand mentioned</th>
              <th scope="col" class="num">
                Position
              </th>
              {showPrompt && <th scope="col">Date</th>}
            </tr>
          </thead>
          <tbody>
            {list.items.map((a) => {
              const when = formatDate(a.created_at, true);
              return (
                <tr key={a.id} data-answer-id={a.id}>
                  <th scope="row" class={showPrompt ? "answer-prompt" : undefined}>
                    {/* Named by more than its visible text (which comes first): a screen reader's list of links tells the rows apart. */}
                    {showPrompt ? (
                      <AnswerByPrompt brandId={brandId} answer={a} engine={engineLabel(a.engine)} when={when} />
                    ) : (
                      <a
                        href={answerHref(brandId, a.id)}
                        aria-label={`${when}: ${engineLabel(a.engine)}'s answer${a.prompt_text ? ` to “${short(a.prompt_text)}”` : ""}`}
                      >
                        {when}
                      </a>
                    )}
                  </th>
                  {/* On a phone the facts are one line under the prompt, "ChatGPT · Mentioned · #1", and
                      the date under it: a fact that says nothing there (Answered, a mention or position
                      an error cannot have) is left out (.line-none). */}
                  <td class="answer-engine" data-label="Engine">
                    {engineLabel(a.engine)}
                  </td>
                  <td class={a.status === "ok" ? "line-none" : "line-next"} data-label="Status">
                    <AnswerStatus status={a.status} />
                  </td>
                  {/* An answer that could not be read is neither (METRICS.md: never "not mentioned"). */}
                  <td class={a.status === "ok" ? "line-next" : "line-none"} data-label="Brand mentioned">
                    {a.status !== "ok" ? (
                      "—"
                    ) : (
                      <>
                        <span class="wide-only">{a.mentioned ? "Yes" : "No"}</span>
                        <span class={`narrow-only${a.mentioned ? " mention-yes" : ""}`}>{a.mentioned ? "Mentioned" : "Not mentioned"}</span>
                      </>
                    )}
                  </td>
                  <td class={`num ${a.position === null ? "line-none" : "line-next"}`} data-label="Position">
                    {a.position === null ? (
                      "—"
                    ) : (
                      <>
                        <span class="wide-only">{a.position}</span>
                        <span class="narrow-only">#{a.position}</span>
                      </>
                    )}
                  </td>
                  {showPrompt && (
                    <td class="answer-date line-own" data-label="Date">
                      {when}
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <MoreButton list={list} label="More answers" />
    </>
  );
}

/** The answers page: list_answers with prompt, engine, status, mentioned and dates in the URL. */
export function Answers({ brandId }: { brandId: string }) {
  const { query, path, route } = useLocation();
  const id = useId();
  const engines = useLoad(() => api.tool(brandId, "get_brand", {}).then((b) => b.engines), [brandId]);
  // The chosen prompt's text (archived prompts too), in one request.
  const promptText = useLoad(async () => {
    if (!query.prompt) return null;
    const one = await api.tool(brandId, "list_prompts", { prompt_id: query.prompt, include_archived: true, limit: 1 });
    return one.prompts[0]?.text ?? null;
  }, [brandId, query.prompt]);
  const set = (key: string, value: string) => {
    const q = new URLSearchParams(query);
    if (value) q.set(key, value);
    else q.delete(key);
    const s = q.toString();
    route(s ? `${path}?${s}` : path);
  };
  const status = STATUSES.find((s) => s === query.status);
  // From after To lists the answers between them, as the figures' pages do, and says so once.
  const swapped = reversed(query);
  const [start, end] = swapped ? [query.end, query.start] : [query.start, query.end];
  const input: Omit<ListInput, "limit" | "cursor"> = {
    prompt_id: query.prompt || undefined,
    engine: query.engine || undefined,
    status,
    mentioned: query.mentioned === "yes" ? true : query.mentioned === "no" ? false : undefined,
    start_date: start || undefined,
    end_date: end || undefined,
    cited_domain: query.cites || undefined,
    cited_url: query.cites_url || undefined,
    searched: query.searched || undefined,
  };
  const day = (d: string) => formatDays(d, d);
  const summary = [
    query.engine ? (engines.data?.find((e) => e.id === query.engine)?.label ?? query.engine) : "All engines",
    status ? answerStatusLabel(status) : "Any status",
    query.mentioned === "yes" ? "Brand mentioned" : query.mentioned === "no" ? "Brand not mentioned" : "Mentioned or not",
    start && end ? formatDays(start, end) : start ? `From ${day(start)}` : end ? `Until ${day(end)}` : "All dates",
  ];
  return (
    <div class="stack">
      <PageHeading title="Answers">
        {/* The export carries each answer's text: what was said, not only whether the brand was in it. */}
        <DownloadCsv brandId={brandId} tool="list_answers" input={{ ...input, include_text: true }} label="answers" />
      </PageHeading>
      <form class="filter-bar" aria-label="Filter the answers" onSubmit={(e) => e.preventDefault()}>
        <FilterFold summary={summary}>
          <div class="field">
            <label for={`${id}-engine`}>Engine</label>
            <select id={`${id}-engine`} value={query.engine ?? ""} onChange={(e) => set("engine", e.currentTarget.value)}>
              <option value="">All engines</option>
              {query.engine && !engines.data?.some((e) => e.id === query.engine) && <option value={query.engine}>{query.engine}</option>}
              {engines.data?.map((e) => (
                <option key={e.id} value={e.id}>
                  {e.label}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for={`${id}-status`}>Status</label>
            <select id={`${id}-status`} value={status ?? ""} onChange={(e) => set("status", e.currentTarget.value)}>
              <option value="">Any status</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {answerStatusLabel(s)}
                </option>
              ))}
            </select>
          </div>
          <div class="field">
            <label for={`${id}-mentioned`}>Brand mentioned</label>
            <select id={`${id}-mentioned`} value={query.mentioned ?? ""} onChange={(e) => set("mentioned", e.currentTarget.value)}>
              <option value="">Either</option>
              <option value="yes">Mentioned</option>
              <option value="no">Not mentioned</option>
            </select>
          </div>
          <div class="field">
            <label for={`${id}-start`}>From</label>
            <input id={`${id}-start`} type="date" value={query.start ?? ""} onChange={(e) => set("start", e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for={`${id}-end`}>To</label>
            <input id={`${id}-end`} type="date" value={query.end ?? ""} onChange={(e) => set("end", e.currentTarget.value)} />
          </div>
          {swapped && (
            <p class="hint filter-note" role="status">
              From is after To: the answers are of {formatDays(start!, end!)}.
            </p>
          )}
        </FilterFold>
        {query.prompt && (
          <div class="field">
            <span>Prompt: {promptText.data ?? query.prompt}</span>
            <Button onClick={() => set("prompt", "")}>All prompts</Button>
          </div>
        )}
        {query.cites && (
          <div class="field">
            <span>Citing: {query.cites}</span>
            <Button onClick={() => set("cites", "")}>Any source</Button>
          </div>
        )}
        {query.cites_url && (
          <div class="field">
            <span class="url">Citing: {query.cites_url}</span>
            <Button onClick={() => set("cites_url", "")}>Any page</Button>
          </div>
        )}
        {query.searched && (
          <div class="field">
            <span>Searched: {query.searched}</span>
            <Button onClick={() => set("searched", "")}>Any search</Button>
          </div>
        )}
      </form>
      {/* Back from an answer opened here finds the rows read and the scroll as they were. */}
      <AnswerTable brandId={brandId} input={input} remember="answers" />
    </div>
  );
}

interface Segment {
  text: string;
  mention?: Answer["mentions"][number];
}

/**
 * The text cut at each mention: a mention starts at its stored offset (the first occurrence of the
 * member's name or one of its aliases, METRICS.md) and covers the longest of those names found
 * there, ignoring case; an offset where none is found is left unmarked rather than guessed.
 */
export function segments(text: string, mentions: Answer["mentions"], names: Map<string, string[]>): Segment[] {
  const marks = mentions
    .map((m) => {
      const candidates = [m.name, ...(names.get(m.member_id) ?? [])].sort((a, b) => b.length - a.length);
      const length = candidates.find((n) => text.slice(m.offset, m.offset + n.length).toLowerCase() === n.toLowerCase())?.length;
      return length ? { m, start: m.offset, end: m.offset + length } : null;
    })
    .filter((x): x is { m: Answer["mentions"][number]; start: number; end: number } => x !== null)
    .sort((a, b) => a.start - b.start);
  const out: Segment[] = [];
  let at = 0;
  for (const { m, start, end } of marks) {
    if (start < at) continue;
    if (start > at) out.push({ text: text.slice(at, start) });
    out.push({ text: text.slice(start, end), mention: m });
    at = end;
  }
  if (at < text.length) out.push({ text: text.slice(at) });
  return out;
}

/** The stored score toward the member, in [−1, 1] (METRICS.md), as given. */
function sentiment(value: number | null): string {
  if (value === null) return "not scored";
  return `${value > 0 ? "+" : value < 0 ? "−" : ""}${Math.abs(value).toFixed(2)}`;
}

export function AnswerPage({ brandId, params }: { brandId: string; params: Record<string, string> }) {
  const answerId = params.answerId ?? "";
  const loaded = useLoad(async () => {
    const [answer, brand] = await Promise.all([
      api.tool(brandId, "get_answer", { answer_id: answerId }),
      api.tool(brandId, "get_brand", {}),
    ]);
    const names = new Map<string, string[]>([[brand.brand.id, brand.brand.aliases]]);
    for (const c of brand.competitors) names.set(c.id, c.aliases);
    return { answer: answer.answer, names, engines: new Map(brand.engines.map((e) => [e.id, e.label])) };
  }, [brandId, answerId]);
  if (isPlanRequired(loaded.failure)) return <PlanNeeded required="visibility" what="An answer's page" />;
  const a = loaded.data?.answer;
  return (
    <div class="stack">
      <p>
        <a href={brandPath(brandId, "/answers")}>All answers</a>
      </p>
      {/* Headed, as a prompt's page is, by the prompt this answers: the page's heading was the word "Answer". */}
      <PageHeading title={a ? a.prompt_text || a.prompt_id : "Answer"} kind={a ? "Answer to" : undefined} />
      {loaded.error && (
        <LoadFailed
          error={
            loaded.failure instanceof ApiError && loaded.failure.code === "answer_not_found"
              ? "There is no such answer for this brand: the link may be mistyped, or the answer belongs to another brand."
              : loaded.error
          }
          failure={loaded.failure}
          retry={loaded.reload}
        />
      )}
      {!a && !loaded.error && (
        <p class="loading" role="status">
          Loading…
        </p>
      )}
      {a && loaded.data && (
        <>
          <p>
            <a href={brandPath(brandId, `/performance/${encodeURIComponent(a.prompt_id)}`)}>This prompt's figures and answers</a>
          </p>
          <dl class="answer-facts">
            <dt>Engine</dt>
            <dd>{loaded.data.engines.get(a.engine) ?? a.engine}</dd>
            <dt>Model</dt>
            <dd>{a.model ?? "—"}</dd>
            <dt>Status</dt>
            <dd>
              <AnswerStatus status={a.status} />
            </dd>
            <dt>Date</dt>
            <dd>{formatDate(a.created_at)}</dd>
            <dt>Latency</dt>
            <dd>{a.latency_ms === null ? "—" : a.latency_ms < 1000 ? `${a.latency_ms} ms` : `${(a.latency_ms / 1000).toFixed(1)} s`}</dd>
            <dt>Tokens</dt>
            <dd>{a.tokens_in === null && a.tokens_out === null ? "—" : `${a.tokens_in ?? "—"} in, ${a.tokens_out ?? "—"} out`}</dd>
          </dl>
          {a.error && <Notice kind="error">The engine answered with an error: {a.error}</Notice>}
          {a.text === "" && a.status !== "ok" ? (
            // Nothing to read: no empty box, no "no name mentioned", no empty search sections.
            <section aria-labelledby="answer-text">
              <h2 id="answer-text">Answer text</h2>
              <p>
                {a.status === "error"
                  ? "None: the request to the engine failed, so there is no text, mention or citation to show."
                  : "None: the engine answered with no text."}{" "}
                The answer counts in the no-answer rate, and in no other figure.
              </p>
            </section>
          ) : (
            <AnswerBody brandId={brandId} answer={a} names={loaded.data.names} />
          )}
        </>
      )}
    </div>
  );
}

/** An answer's text with its mentions highlighted, the mentions' table, its citations and its searches. */
function AnswerBody({ brandId, answer: a, names }: { brandId: string; answer: Answer; names: Map<string, string[]> }) {
  return (
    <>
      <section aria-labelledby="answer-text">
        <h2 id="answer-text">Answer text</h2>
        <p class="legend">
          Highlighted: <mark class="mention mention-brand">Your brand</mark> <mark class="mention mention-competitor">A competitor</mark>
        </p>
        <div class="answer-text">
          {segments(a.text, a.mentions, names).map((s, i) =>
            s.mention ? (
              <mark
                key={i}
                class={`mention ${s.mention.is_brand ? "mention-brand" : "mention-competitor"}`}
                data-member={s.mention.name}
                data-offset={s.mention.offset}
              >
                <span class="visually-hidden">{s.mention.is_brand ? "Your brand: " : `Competitor ${s.mention.name}: `}</span>
                {s.text}
              </mark>
            ) : (
              s.text
            ),
          )}
        </div>
        {a.text_truncated && <Notice kind="info">The text is long: only its beginning is shown.</Notice>}
      </section>
      <section aria-labelledby="answer-mentions">
        <h2 id="answer-mentions">Mentions</h2>
        {a.mentions.length === 0 ? (
          <p>No tracked name is mentioned in this answer.</p>
        ) : (
          <div class="table-wrap">
            <table class="mentions-table">
              <caption class="visually-hidden">The names this answer mentions, in order</caption>
              <thead>
                <tr>
                  <th scope="col" class="num">
                    Position
                  </th>
                  <th scope="col">Name</th>
                  <th scope="col" class="num">
                    Sentiment (−1 to +1)
                  </th>
                </tr>
              </thead>
              <tbody>
                {a.mentions.map((m) => (
                  <tr key={m.member_id}>
                    <td class="num">{m.position}</td>
                    <th scope="row">
                      {m.name}
                      {m.is_brand && <span class="badge">Your brand</span>}
                    </th>
                    <td class="num">{sentiment(m.sentiment)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <section aria-labelledby="answer-citations">
        <h2 id="answer-citations">Citations</h2>
        <p class="muted">
          The links this answer cites, from its provider's citation fields and from its text, each counted once. Citation rate and the
          Sources page count these.
        </p>
        {a.citations.length === 0 ? (
          <p>This answer cites no URL.</p>
        ) : (
          <ul class="source-list">
            {a.citations.map((c, i) => (
              <li key={i}>
                <WebLink url={c.link}>
                  <Breakable text={readableUrl(c.link)} />
                </WebLink>
                {c.owned && <span class="badge">Your site</span>}
              </li>
            ))}
          </ul>
        )}
      </section>
      <SearchTrail brandId={brandId} answer={a} />
    </>
  );
}
