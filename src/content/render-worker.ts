// Worker entry of the article renderer (see renderer.ts): markdown → sanitized HTML, on jsdom, in a
// heap of its own. Compiled into the binary as an entry point of its own (build/compile.ts).
import { renderArticle } from "./render";
import { answerRenderJobs } from "./render-jobs";
import { sanitizeArticleHtml } from "./sanitize";

answerRenderJobs({ sanitize: sanitizeArticleHtml, render: renderArticle });
