// A renderer worker with the real sanitizer that takes 4 s to start (as a fresh worker can on a
// loaded machine: jsdom and the self-test), then renders normally.
import { renderArticle } from "../../../src/content/render";
import { answerRenderJobs } from "../../../src/content/render-jobs";
import { sanitizeArticleHtml } from "../../../src/content/sanitize";

// Blocks the worker's thread without spinning, as a slow start would.
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 4_000);

answerRenderJobs({ sanitize: sanitizeArticleHtml, render: renderArticle });
