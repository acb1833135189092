// An article's status as a badge, the same in the dashboard's articles list and the MCP Apps publish
// view: Published in the good tone (what the brand's site serves), Draft in a neutral one.

export function ArticleStatus({ status }: { status: string }) {
  const published = status === "published";
  return <span class={`badge article-status ${published ? "tone-good" : "tone-neutral"}`}>{published ? "Published" : "Draft"}</span>;
}
