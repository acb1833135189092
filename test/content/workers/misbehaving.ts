// A renderer worker with the real sanitizer whose render misbehaves on request: it exits, hangs or
// throws when the markdown says so, and renders normally otherwise.
import { renderArticle } from "../../../src/content/render";
import { answerRenderJobs } from "../../../src/content/render-jobs";
import { sanitizeArticleHtml } from "../../../src/content/sanitize";
import { UnsafeHtmlError } from "../../../src/content/unsafe-html";

answerRenderJobs({
  sanitize: sanitizeArticleHtml,
  render(source) {
    if (source.markdown === "exit") process.exit(3);
    if (source.markdown === "hang") for (;;);
    if (source.markdown === "unsafe") throw new UnsafeHtmlError();
    if (source.markdown === "throw") throw new Error("internal detail: /var/lib/secret.db is locked");
    return renderArticle(source);
  },
});
