// The brand's articles: drafts and those published on its site, filtered by status (in the URL, so a
// reload or a shared link keeps it), paged with the tool's cursor, and the writer model's form.
import { useLocation } from "preact-iso";
import { api } from "../../api";
import { ArticleStatus } from "../../components/article-status";
import { DownloadCsv } from "../../components/download-csv";
import { useFlash } from "../../components/flash";
import { brandPath } from "../../components/layout";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { EmptyState, formatDate, LoadFailed, Notice, PageHeading, useLoad } from "../../components/ui";
import { useSession } from "../../session";
import { articlePath, articlesPath, type Filter } from "./paths";
import { WriterForm } from "./writer";

const FILTERS: Array<{ value: Filter; label: string }> = [
  { value: undefined, label: "All" },
  { value: "draft", label: "Drafts" },
  { value: "published", label: "Published" },
];

/** True when the account's plan cannot use articles; the server says so too, for anyone who gets past this. */
export function useNeedsAutopilot(): boolean {
  const { me } = useSession();
  return me !== null && me.account.plan !== "autopilot";
}

function NewArticleLink({ brandId }: { brandId: string }) {
  return (
    <a class="btn btn-primary" href={brandPath(brandId, "/articles/new")}>
      New article
    </a>
  );
}

function StatusFilter({ brandId, current }: { brandId: string; current: Filter }) {
  return (
    <nav aria-label="Filter by status" class="filters">
      <ul>
        {FILTERS.map((f) => (
          <li key={f.label}>
            <a href={articlesPath(brandId, { status: f.value })} aria-current={f.value === current ? "page" : undefined}>
              {f.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

function ArticleTable({ brandId, status, cursor }: { brandId: string; status: Filter; cursor: string | undefined }) {
  const loaded = useLoad(
    () => api.tool(brandId, "list_articles", { ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) }),
    [brandId, status, cursor],
  );
  if (loaded.failure && isPlanRequired(loaded.failure)) return <PlanNeeded required="autopilot" what="Writing and publishing articles" />;
  if (loaded.error) return <LoadFailed error={loaded.error} failure={loaded.failure} retry={loaded.reload} />;
  if (!loaded.data) return <p class="muted">Loading…</p>;
  const { articles, next_cursor } = loaded.data;
  if (articles.length === 0 && !cursor) {
    if (status) {
      return (
        <EmptyState title={status === "draft" ? "No draft" : "Nothing published yet"}>
          <p>
            {status === "draft"
              ? "Every article of this brand has been published. Write a new one to answer another prompt."
              : "Open a draft and publish it: the brand's site then reads it through the public content API."}
          </p>
          <p>
            <a href={articlesPath(brandId)}>See all articles</a>
          </p>
        </EmptyState>
      );
    }
    return (
      <EmptyState title="No article yet">
        <p>
          Articles close content gaps: where AI engines answer a tracked prompt without naming the brand, an article on the brand's own site
          that answers it gives them something to find and cite. Write one in Markdown (or have the writer draft it), review it, then
          publish it to the site.
        </p>
        <p>
          <NewArticleLink brandId={brandId} />
        </p>
      </EmptyState>
    );
  }
  return (
    <>
      <div class="table-wrap">
        <table class="articles-table cards-narrow cards-facts">
          <caption class="offscreen">Articles, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Slug</th>
              <th scope="col">Status</th>
              <th scope="col">First published</th>
            </tr>
          </thead>
          <tbody>
            {articles.map((a) => (
              <tr key={a.id}>
                <th scope="row">
                  <a href={articlePath(brandId, a.id)}>{a.title || "Untitled"}</a>
                </th>
                <td class="fact-wide" data-label="Slug">
                  <code class="slug">{a.slug}</code>
                </td>
                <td data-label="Status">
                  <ArticleStatus status={a.status} />
                </td>
                <td class="date" data-label="First published">
                  {/* A draft that was published keeps its first publication: said with what became of it. */}
                  {a.published_at ? formatDate(a.published_at) : "never"}
                  {a.published_at && a.status !== "published" && <span class="muted"> (since unpublished)</span>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {articles.length === 0 && <p class="muted">No more articles.</p>}
      {(cursor || next_cursor) && (
        <nav aria-label="Pages of articles" class="pager">
          {cursor && <a href={articlesPath(brandId, { status })}>Newest articles</a>}
          {next_cursor && <a href={articlesPath(brandId, { status, cursor: next_cursor })}>Older articles</a>}
        </nav>
      )}
    </>
  );
}

export function Articles({ brandId }: { brandId: string }) {
  const { query } = useLocation();
  // The editor's deletion, said here, where it sends the writer.
  const deleted = useFlash("articles");
  const needsAutopilot = useNeedsAutopilot();
  const status: Filter = query.status === "draft" || query.status === "published" ? query.status : undefined;
  const cursor = query.cursor || undefined;
  return (
    <>
      <PageHeading title="Articles">
        {!needsAutopilot && (
          <div class="actions">
            <DownloadCsv brandId={brandId} tool="list_articles" input={status ? { status } : {}} label="articles" />
            <NewArticleLink brandId={brandId} />
          </div>
        )}
      </PageHeading>
      {deleted !== null && <Notice kind="success">{deleted}</Notice>}
      {needsAutopilot ? (
        <PlanNeeded required="autopilot" what="Writing and publishing articles" />
      ) : (
        <>
          <StatusFilter brandId={brandId} current={status} />
          <ArticleTable brandId={brandId} status={status} cursor={cursor} />
          <WriterForm brandId={brandId} />
        </>
      )}
    </>
  );
}
