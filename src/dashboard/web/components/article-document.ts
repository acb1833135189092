// The document an article preview shows (the dashboard's editor, the MCP Apps publish view): the
// sanitized HTML the public content API serves, in a plain readable style rather than the browser's
// default serif. The frame showing it is sandboxed with no permission and inherits its page's CSP,
// which admits this one style by its hash (src/dashboard/pages.ts, src/apps/views.ts) and no other
// inline style.

/** Neutral typography, in the browser's light or dark colours: not the site's styles, which Spyglass cannot know. */
export const ARTICLE_STYLE = [
  ":root{color-scheme:light dark}",
  'body{margin:0 auto;padding:1rem 1.25rem;max-width:42rem;font:1rem/1.6 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;overflow-wrap:anywhere}',
  "h1,h2,h3,h4{line-height:1.25;margin:1.5em 0 .5em}",
  "h1:first-child,h2:first-child{margin-top:.5em}",
  "img{max-width:100%;height:auto}",
  // A table wider than the frame scrolls sideways rather than breaking its words mid-letter ("Nee/d"
  // at 390 px: overflow-wrap:anywhere lets a cell shrink to one letter).
  "table{border-collapse:collapse;margin:1em 0;display:block;max-width:100%;overflow-x:auto}",
  "th,td{border:1px solid color-mix(in srgb,currentColor 25%,transparent);padding:.25rem .625rem;overflow-wrap:normal}",
  // A column's alignment from its Markdown (|---:|, the cells' align attribute) as the site would show it.
  "th:not([align]),td:not([align]){text-align:start}",
  "code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.9em}",
  "pre{overflow-x:auto;padding:.75rem 1rem;border-radius:6px;background:color-mix(in srgb,currentColor 8%,transparent)}",
  "blockquote{margin:1em 0;padding-left:1rem;border-left:3px solid color-mix(in srgb,currentColor 30%,transparent)}",
].join("");

/** The srcdoc of a preview: `body` is sanitized HTML (the server's, or the MCP view's copy of it). */
export function articleDocument(body: string): string {
  return `<!doctype html><html><head><meta name="color-scheme" content="light dark"><style>${ARTICLE_STYLE}</style></head><body>${body}</body></html>`;
}
