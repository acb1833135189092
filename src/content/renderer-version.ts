// The version of what the article renderer makes of an article (render.ts, sanitize.ts and the
// libraries they use: marked, DOMPurify). Stored with each article's HTML (articles.rendered_by); a
// server whose version is newer renders the older articles again when it starts (rerender.ts), so a
// fix to the renderer, a sanitizer's above all, reaches articles saved before it, not only the next
// ones edited. Bump it whenever the HTML of some article would change:
// test/content/renderer-version.test.ts fails until it is bumped.
// 2: footnotes, heading ids and in-page links (ids prefixed "user-content-").
// 3: footnote ids "fn-" (a heading's could be the same), a label's non-ASCII letters reach their
//    note, the footnotes' aria-label and aria-describedby kept, rel noopener noreferrer only on links
//    that leave the site.
// 4: every id unique: footnotes take GitHub's ids ("fnref-", "footnote-label"), and an id met again
//    (a heading "Fn 1" beside note 1, a raw id beside a heading's) gets a "-1" suffix.
export const RENDERER_VERSION = 4;
