// The article as the brand's site receives it: the sanitized HTML the server rendered on save (the
// `html` the public content API serves), never markdown rendered in the browser. This is the
// dashboard's one place for markup from the server, and it has three walls: the server's sanitizer,
// an iframe sandboxed with no permission at all (no scripts, an opaque origin, no navigation of the
// dashboard), and the page's CSP, which the srcdoc document inherits (no inline script, and no
// inline style but the preview's own: article-document.ts). It is drawn in the browser's light or
// dark colours, as the dashboard around it.
import { articleDocument } from "../../components/article-document";

export function ArticlePreview({ html, stale }: { html: string | null; stale: boolean }) {
  return (
    <section class="card stack" aria-labelledby="preview-heading">
      <h2 id="preview-heading">Preview</h2>
      {html === null ? (
        <p class="muted">Save the article to see it as the brand's site will receive it.</p>
      ) : (
        <>
          <p class="muted" role="status">
            {stale
              ? "You have unsaved changes: this preview shows the last saved version. Save to update it."
              : "The saved version, as the public content API serves it (without your site's styles)."}
          </p>
          <iframe class="preview" sandbox="" title="Preview of the saved article" srcdoc={articleDocument(html)} />
        </>
      )}
    </section>
  );
}
