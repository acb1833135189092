// Worker entry of the article renderer (see renderer.ts): markdown → sanitized HTML, on jsdom, in a
// heap of its own. Compiled into the binary as an entry point of its own (build/compile.ts).
import { renderArticle } from "./render";
import { answerRenderJobs } from "./render-jobs";
import { sanitizeArticleHtml } from "./sanitize";

// SPYGLASS_TEST_BROKEN_SANITIZER=1 swaps in a "sanitizer" that lets everything through, so that the
// tests can see the compiled server fail closed. It cannot make anything unsafe stored: the self-test
// runs on the sanitizer the worker would use, fails, and the worker then renders nothing.
const sanitize = process.env.SPYGLASS_TEST_BROKEN_SANITIZER === "1" ? (html: string) => html : sanitizeArticleHtml;

answerRenderJobs({ sanitize, render: renderArticle });
