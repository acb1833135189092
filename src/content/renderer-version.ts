// The version of what the article renderer makes of an article (render.ts, sanitize.ts and the
// libraries they use: marked, DOMPurify). Stored with each article's HTML (articles.rendered_by); a
// server whose version is newer renders the older articles again when it starts (rerender.ts), so a
// fix to the renderer, a sanitizer's above all, reaches articles saved before it, not only the next
// ones edited. Bump it whenever the HTML of some article would change:
// test/content/renderer-version.test.ts fails until it is bumped.
// 2: footnotes, heading ids and in-page links (ids prefixed "user-content-").
export const RENDERER_VERSION = 2;
