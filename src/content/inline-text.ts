// The text a reader sees of one line of inline markdown, for titles written in markdown: the
// writer's title taken from its reply's "# Choosing a *Modern* CRM", and the comparison of a title
// with the leading heading it renders as (render.ts). Character references are left as written.
import { Lexer, type Token } from "marked";

function textOf(tokens: readonly Token[]): string {
  return tokens
    .map((token) => {
      if ("tokens" in token && token.tokens) return textOf(token.tokens);
      if (token.type === "html") return "";
      if (token.type === "br") return " ";
      return "text" in token && typeof token.text === "string" ? token.text : token.raw;
    })
    .join("");
}

/** "Choosing a *Modern* `CRM`" → "Choosing a Modern CRM": emphasis, code spans and links keep their text; raw HTML tags are dropped. */
export function inlineMarkdownText(source: string): string {
  return textOf(Lexer.lexInline(source, { gfm: true }))
    .replace(/\s+/g, " ")
    .trim();
}
