// A markdown article's leading "# …" heading, read without the renderer (no DOM): the service drops
// one that would show a second title on the site (a writer's under a title chosen for it, one that
// repeated the title the article had before it was renamed).
import { inlineMarkdownText } from "./inline-text";

// An ATX H1 on the markdown's first line that is not blank: "# Title", "  # Title #".
const LEADING_H1 = /^\n*( {0,3}#[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*)(?:\n+|$)/;

const NAMED: Readonly<Record<string, string>> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: "\u00a0" };

/** The character references a heading or title is likely to hold (&amp;, &#39;, &#x2019;…), decoded. */
function decodeReferences(text: string): string {
  return text.replace(/&(?:#(\d{1,7})|#x([0-9a-f]{1,6})|([a-z]{2,6}));/gi, (whole, decimal, hex, name) => {
    const code = decimal !== undefined ? Number(decimal) : hex !== undefined ? Number.parseInt(hex, 16) : null;
    if (code !== null) return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    return NAMED[(name as string).toLowerCase()] ?? whole;
  });
}

/** As the renderer compares a heading with the title: case-, width- and whitespace-insensitive. */
function comparable(text: string): string {
  return decodeReferences(text).normalize("NFKC").replace(/\s+/g, " ").trim().toLocaleLowerCase("en");
}

function leadingHeading(markdown: string): { line: string; text: string; rest: string } | null {
  const source = markdown.replace(/\r\n?/g, "\n");
  const heading = LEADING_H1.exec(source);
  return heading ? { line: heading[1] ?? "", text: heading[2] ?? "", rest: source.slice(heading[0].length) } : null;
}

/**
 * The markdown without its leading "# …" heading when that heading repeats `title` (written plainly
 * or in markdown, "# My *Great* Title"); the markdown as it was otherwise.
 */
export function withoutTitleHeading(markdown: string, title: string): string {
  const heading = leadingHeading(markdown);
  const wanted = comparable(title);
  if (!heading || wanted === "") return markdown;
  const repeats = comparable(heading.text) === wanted || comparable(inlineMarkdownText(heading.text)) === wanted;
  return repeats ? bodyOr(heading.rest, markdown) : markdown;
}

/** The markdown without its leading "# …" heading, whatever it says. */
export function withoutLeadingHeading(markdown: string): string {
  const heading = leadingHeading(markdown);
  return heading ? bodyOr(heading.rest, markdown) : markdown;
}

/** The body after the heading, or the markdown as it was when the heading was all of it (a body is never empty). */
function bodyOr(rest: string, markdown: string): string {
  return rest.trim() === "" ? markdown : rest;
}

/** Whether the markdown is a "# …" heading and nothing else. */
export function onlyHeading(markdown: string): boolean {
  const heading = leadingHeading(markdown);
  return heading !== null && heading.rest.trim() === "";
}
