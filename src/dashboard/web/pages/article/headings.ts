// What the editor tells a writer about the body's first heading.

/** Heading text as a reader compares it: no Markdown marks, spaces collapsed, any case. */
function plainHeading(text: string): string {
  return text
    .replace(/[*_`~[\]]|\]\([^)]*\)/g, "")
    .replace(/\s+/g, " ")
    .trim()
    .toLowerCase();
}

/**
 * The body's leading "# Heading" when it is not the title: the renderer drops a leading H1 only when
 * it repeats the title, so the site would show both (a retitled article kept its old H1).
 */
export function otherLeadingHeading(title: string, markdown: string): string | null {
  const first = markdown.split("\n").find((line) => line.trim() !== "");
  const heading = first && /^ {0,3}#[ \t]+(.*?)[ \t#]*$/.exec(first)?.[1];
  if (!heading || title.trim() === "") return null;
  return plainHeading(heading) === plainHeading(title) ? null : heading;
}
