// The cost of rendering a 200 KB article (create_article's limit) through marked with its bounded
// setext-heading rule, against marked's own rules on the same text in the same run, then through
// the whole renderer (marked, the sanitizer on jsdom, the title check). Medians of 3, in process.
import { Marked } from "marked";
import { articleMarkdown, renderArticle } from "../src/content/render";
import { sanitizeArticleHtml } from "../src/content/sanitize";
import { median, report, target } from "./lib";

const SIZE = 200 * 1024;
const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length)).slice(0, SIZE);
const INPUTS: Record<string, string> = {
  "one line": "a".repeat(SIZE),
  "one paragraph of words": fill("word "),
  "lines, no blank line": fill("word word word\n"),
  "a quote of many lines": fill("> quoted words\n"),
  "an article (sections, lists, tables)": fill(
    `## Section\n\n${"Some **bold** text with a [link](https://e.com) and `code`, then words. ".repeat(6)}\n\n- one item\n- two items\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> a quote of a few words\n\n`,
  ),
};

function timed(work: () => void, rounds = 3): number {
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  return median(times);
}

export async function run(): Promise<void> {
  const plain = new Marked({ gfm: true, breaks: false, async: false });
  sanitizeArticleHtml(""); // jsdom's load, out of the timings
  for (const [name, source] of Object.entries(INPUTS)) {
    const ours = timed(() => articleMarkdown.parse(source, { async: false }));
    const theirs = timed(() => plain.parse(source, { async: false }));
    const whole = timed(() => renderArticle({ title: "", markdown: source }));
    report("render", `${name}: marked, bounded`, ours, "ms");
    report("render", `${name}: marked's own rules`, theirs, "ms");
    report("render", `${name}: the whole render`, whole, "ms");
    target({
      what: `render 200 KB, ${name}`,
      value: `${ours.toFixed(0)} ms`,
      baseline: `${theirs.toFixed(0)} ms`,
      ratio: (ours / theirs).toFixed(2),
      target: "",
      met: "",
      rounds: "3, median",
    });
  }
}

if (import.meta.main) await run();
