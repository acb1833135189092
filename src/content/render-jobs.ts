// The worker side of the article renderer (see renderer.ts). Before anything else it runs the
// sanitizer self-test on the exact sanitizer it will use, reports the result, and renders nothing if
// it failed: every job then gets an error. The worker entry (render-worker.ts) passes the real
// sanitizer and renderer; tests pass broken ones.

import { runInBackground } from "../thread-priority";
import { type ArticleSource, ArticleTooComplexError } from "./render";
import { type RenderJob, type RenderReply } from "./renderer";
import { type Sanitizer } from "./sanitize";
import { selfTestSanitizer } from "./sanitizer-self-test";
import { UnsafeHtmlError } from "./unsafe-html";

declare const self: Worker;

export function answerRenderJobs({ sanitize, render }: { sanitize: Sanitizer; render: (source: ArticleSource) => string }): void {
  // jsdom's load and the self-test take ~1 s of CPU, from 100 ms after `serve` listens: on a machine
  // with one core they shared it with the serving thread's start (its warm-up's longest task measured 55–140
  // instead of 33–41 ms: scratch, the binary pinned to one CPU). A render gives way to requests too.
  runInBackground();
  const selfTest = selfTestSanitizer(sanitize);
  const reply = (message: RenderReply) => self.postMessage(message);
  reply({ type: "ready", selfTest });
  // The self-test ran most of jsdom once; renders are rare. Dropping that compiled code (once the
  // worker is idle) takes the server's memory from 147 to 118 MiB; the first render after it
  // recompiles what it needs (measured: +100 to 200 ms, once).
  Bun.shrink();

  self.onmessage = ({ data: job }: MessageEvent<RenderJob>) => {
    if (!selfTest.ok) return reply({ type: "error", id: job.id, error: "self_test_failed" });
    try {
      reply({ type: "html", id: job.id, html: render(job) });
    } catch (error) {
      if (error instanceof UnsafeHtmlError) reply({ type: "error", id: job.id, error: "unsafe_html" });
      else if (error instanceof ArticleTooComplexError) reply({ type: "error", id: job.id, error: "too_complex", message: error.message });
      else reply({ type: "error", id: job.id, error: "failed", message: (error as Error)?.message ?? String(error) });
    }
  };
}
