// Content gaps (get_content_gaps): prompts where competitors are named and the brand is not, with
// who wins them and the domains cited; "Draft an article" turns one into a draft in the editor —
// by the server's writer when configured, otherwise a short outline to edit (create_article).

import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { type ToolOutput } from "../../../../catalogue/types";
import { ApiError, api, errorMessage } from "../../api";
import { readableDomain } from "../../components/domains";
import { DownloadCsv } from "../../components/download-csv";
import { FilterBar, useAnalyticsFilter } from "../../components/filters";
import { brandPath } from "../../components/layout";
import { usePaged } from "../../components/paged";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { MoreButton } from "../../components/rows";
import { Button, EmptyState, LoadFailed, Notice, PageHeading, useLoad, useStillHere } from "../../components/ui";
import { useSession } from "../../session";
import { handArticleOver } from "../article";

type Gap = ToolOutput<"get_content_gaps">["gaps"][number];

/** The outline of a draft written by hand: the prompt as title, what to research as notes. */
export function outlineOf(gap: Gap): { title: string; markdown: string } {
  const title = gap.text.slice(0, 200);
  const lines = [
    "> Draft to edit: an outline built from a content gap. Replace these notes with the article.",
    "",
    `Answer the question: ${gap.text}`,
    "",
    "## Competitors the engines name for it",
    ...(gap.competitors.length
      ? gap.competitors.map((c) => `- ${c.name} (${c.answers} ${c.answers === 1 ? "answer" : "answers"})`)
      : ["- none recorded"]),
    "",
    "## Sources the engines cite (research these)",
    ...(gap.top_domains.length
      ? gap.top_domains.map(
          (d) => `- ${readableDomain(d.domain)} (${d.citations} citation${d.citations === 1 ? "" : "s"}${siteOwnerText(d)})`,
        )
      : ["- none recorded"]),
  ];
  return { title, markdown: lines.join("\n") };
}

type ArticleSummary = ToolOutput<"list_articles">["articles"][number];
type CitedDomain = ToolOutput<"get_content_gaps">["gaps"][number]["top_domains"][number];

/** Whose site a cited domain is, after its count: the brand's own or a competitor's. */
function siteOwnerText(d: CitedDomain): string {
  if (d.owned) return "; your site";
  return d.competitor ? `; ${d.competitor.name}'s site` : "";
}

/**
 * The brand's articles by the prompt they answer (a published one before a draft), for the gaps an
 * article already answers: read once, its first 200, newest first.
 */
function useArticlesByPrompt(brandId: string, enabled: boolean) {
  const loaded = useLoad(
    async () => (enabled ? (await api.tool(brandId, "list_articles", { limit: 200 })).articles : []),
    [brandId, enabled],
  );
  const byPrompt = new Map<string, ArticleSummary>();
  for (const a of loaded.data ?? []) {
    if (a.prompt_id === null) continue;
    const seen = byPrompt.get(a.prompt_id);
    if (!seen || (seen.status !== "published" && a.status === "published")) byPrompt.set(a.prompt_id, a);
  }
  return byPrompt;
}

function DraftButton({
  brandId,
  gap,
  onError,
  another,
}: {
  brandId: string;
  gap: Gap;
  onError: (message: string) => void;
  /** An article already answers the prompt. */
  another: boolean;
}) {
  const { route } = useLocation();
  const stillHere = useStillHere();
  const [busy, setBusy] = useState(false);
  const draft = async () => {
    setBusy(true);
    onError("");
    const here = stillHere();
    try {
      let id: string;
      try {
        id = (await api.tool(brandId, "generate_article", { prompt_id: gap.prompt_id })).article.id;
      } catch (error) {
        if (!(error instanceof ApiError && error.code === "writer_not_configured")) throw error;
        const outline = outlineOf(gap);
        const { article } = await api.tool(brandId, "create_article", { ...outline, prompt_id: gap.prompt_id });
        id = article.id;
        // Said on the article, so that the outline is not taken for the writer's draft (only when the
        // article opens now: opened later, it is read afresh, as any article).
        if (here()) {
          handArticleOver(
            article,
            "Saved as a draft: an outline to write, since this server has no writer model to draft the article (whoever runs Spyglass can add a [writer] section to its configuration file).",
          );
        }
      }
      // The draft is saved either way; a person who went elsewhere meanwhile stays there.
      if (here()) route(brandPath(brandId, `/articles/${encodeURIComponent(id)}`));
    } catch (error) {
      setBusy(false);
      onError(errorMessage(error));
    }
  };
  return (
    <Button
      variant={another ? "secondary" : "primary"}
      onClick={draft}
      disabled={busy}
      aria-label={`Draft ${another ? "another" : "an"} article for “${gap.text.slice(0, 80)}”`}
    >
      {busy ? "Drafting…" : another ? "Draft another article" : "Draft an article"}
    </Button>
  );
}

export function Gaps({ brandId }: { brandId: string }) {
  const { filter } = useAnalyticsFilter();
  const { me } = useSession();
  const [error, setError] = useState("");
  const canDraft = me?.account.plan === "autopilot";
  const articles = useArticlesByPrompt(brandId, canDraft);
  const list = usePaged<Gap>(
    async (cursor) => {
      const page = await api.tool(brandId, "get_content_gaps", { ...filter, limit: 20, cursor });
      return { items: page.gaps, next: page.next_cursor };
    },
    [brandId, filter.start_date, filter.end_date, filter.engine, filter.tag],
  );
  return (
    <>
      <PageHeading title="Content gaps">
        <DownloadCsv brandId={brandId} tool="get_content_gaps" input={filter} label="content gaps" />
      </PageHeading>
      <p class="page-intro">Prompts where the engines name competitors and never the brand: what to write next.</p>
      <FilterBar brandId={brandId} />
      {!canDraft && list.loaded && list.items.length > 0 && <PlanNeeded required="autopilot" what="Drafting an article" />}
      {error && <Notice kind="error">{error}</Notice>}
      {list.failure && isPlanRequired(list.failure) ? (
        <PlanNeeded required="visibility" what="Seeing the content gaps" />
      ) : list.error ? (
        <LoadFailed error={list.error} failure={list.failure} retry={list.reload} />
      ) : list.loaded && list.items.length === 0 ? (
        <EmptyState title="No content gap in this period">
          <p>
            A gap is a prompt whose answers name a competitor and never the brand. None is found when every such prompt names the brand too,
            or when there is nothing to compare yet: no competitor on the <a href={brandPath(brandId, "/competitors")}>Competitors</a> page,
            or no answer in the period (<a href={brandPath(brandId, "/tracking")}>Tracking</a> shows the runs).
          </p>
        </EmptyState>
      ) : (
        <ol class="gap-list">
          {list.items.map((gap) => (
            <li key={gap.prompt_id} class="card stack gap">
              <h2 class="gap-title">{gap.text}</h2>
              <p class="muted">
                Competitors named in {gap.competitor_answers} of {gap.valid_answers} valid answers; the brand in none.
              </p>
              {/* Answers of the period still count, but it is no longer asked: a draft for it may not be wanted. */}
              {gap.archived && (
                <p>
                  <span class="badge">Archived</span> This prompt is no longer tracked; its answers of this period still count here.
                </p>
              )}
              <div class="gap-columns">
                <div>
                  <h3>Competitors who win it</h3>
                  <ul>
                    {gap.competitors.map((c) => (
                      <li key={c.id}>
                        {c.name}{" "}
                        <span class="muted">
                          ({c.answers} {c.answers === 1 ? "answer" : "answers"})
                        </span>
                      </li>
                    ))}
                  </ul>
                </div>
                <div>
                  <h3>Domains cited</h3>
                  {gap.top_domains.length === 0 ? (
                    <p class="muted">None cited.</p>
                  ) : (
                    <ul>
                      {gap.top_domains.map((d) => (
                        <li key={d.domain}>
                          <span class="mono">{readableDomain(d.domain)}</span>{" "}
                          <span class="muted">
                            ({d.citations} citation{d.citations === 1 ? "" : "s"}
                            {siteOwnerText(d)})
                          </span>
                        </li>
                      ))}
                    </ul>
                  )}
                </div>
              </div>
              {canDraft && articles.has(gap.prompt_id) && (
                <p>
                  {articles.get(gap.prompt_id)!.status === "published" ? "A published article answers it: " : "A draft answers it: "}
                  <a href={brandPath(brandId, `/articles/${encodeURIComponent(articles.get(gap.prompt_id)!.id)}`)}>
                    {articles.get(gap.prompt_id)!.title || "Untitled"}
                  </a>
                  {articles.get(gap.prompt_id)!.status === "published" && " (the engines may not have read it yet)"}.
                </p>
              )}
              {canDraft && (
                <div class="actions">
                  <DraftButton brandId={brandId} gap={gap} onError={setError} another={articles.has(gap.prompt_id)} />
                </div>
              )}
            </li>
          ))}
        </ol>
      )}
      <MoreButton list={list} label="More gaps" />
    </>
  );
}
