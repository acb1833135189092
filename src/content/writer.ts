// The writer model (`[writer]` in the config): drafts an article from a brief built out of the
// brand's own data — the prompt where the brand is missing, the competitors the engines name for it
// and the domains they cite, the brand's profile — and saves it through the same path as
// create_article (rendered and sanitized on save, as a draft).

import { domainToUnicode } from "node:url";
import { promptEvidence } from "../analytics/evidence";
import { getBrand } from "../brands/service";
import { type WriterSettings } from "../config";
import { type AppContext } from "../context";
import { AppError, Invalid } from "../errors";
import { complete, STOPPED } from "../llm/client";
import { type ChatMessage, type ClientOptions } from "../llm/types";
import { getPrompt } from "../prompts/service";
import { loadRoster } from "../tracking/roster";
import { inlineMarkdownText } from "./inline-text";
import { type Article, createArticle, MAX_DESCRIPTION, MAX_TITLE } from "./service";
import { onlyHeading, withoutLeadingHeading } from "./title-heading";

export const ARTICLE_LENGTHS = ["short", "medium", "long"] as const;
export type ArticleLength = (typeof ARTICLE_LENGTHS)[number];

const WORDS: Record<ArticleLength, string> = { short: "about 600", medium: "about 1,200", long: "about 2,000" };
/** Output room per length when the config sets no max_tokens (Anthropic requires one). */
const MAX_TOKENS: Record<ArticleLength, number> = { short: 2_000, medium: 4_000, long: 8_000 };
/** How far back the engines' answers are read for the brief. */
const BRIEF_DAYS = 90;

export class WriterNotConfigured extends AppError {
  constructor() {
    super(
      409,
      "writer_not_configured",
      "No writer model is configured on this server (the [writer] section of its config file), so generate_article cannot draft. Write the article yourself and save it with create_article; it will be sanitized and stored as a draft the same way.",
    );
  }
}

export class WriterFailed extends AppError {
  constructor(reason: string) {
    super(
      502,
      "writer_failed",
      `The writer model did not produce an article (${reason}); try again, or write the article yourself (New article in the dashboard, create_article from an AI client).`,
    );
  }
}

export interface GenerateInput {
  promptId?: string;
  topic?: string;
  title?: string;
  tone?: string;
  length?: ArticleLength;
  language?: string;
}

export interface WriterBrief {
  system: string;
  user: string;
}

/** Drafts an article with the configured writer model and saves it as a draft of the brand. */
export async function generateArticle(
  app: AppContext,
  brandId: string,
  input: GenerateInput,
  options: ClientOptions & { signal?: AbortSignal } = {},
): Promise<Article> {
  // The input is checked first: another brand's prompt is "not found" whatever the configuration.
  const brief = await buildBrief(app, brandId, input);
  const writer = app.config.writer;
  if (!writer) throw new WriterNotConfigured();
  const length = input.length ?? "medium";
  const messages: ChatMessage[] = [
    { role: "system", content: brief.system },
    { role: "user", content: brief.user },
  ];
  const reply = await complete(writerModel(writer, length), messages, options);
  // A draft cut at the output limit is no article (its end is missing); said in the writer's words.
  if (reply.status === "error" && reply.error === STOPPED.max_tokens) {
    throw new WriterFailed(
      `its draft was cut off at the output limit (max_tokens ${writerModel(writer, length).max_tokens}): ask for a shorter length, or raise max_tokens in spyglass.toml's [writer]`,
    );
  }
  if (reply.status === "error") throw new WriterFailed(reply.error ?? "the request failed");
  if (reply.status === "empty") throw new WriterFailed("its reply was empty");
  if (reply.status === "refusal") throw new WriterFailed("it declined to write it");
  const draft = parseWriterOutput(reply.text);
  // Under a title chosen for it, the writer's own heading would be a second title on the site.
  const markdown = input.title ? withoutLeadingHeading(draft.markdown) : draft.markdown;
  if (markdown.trim() === "" || onlyHeading(markdown)) throw new WriterFailed("its reply had no article body");
  return createArticle(app.db, brandId, {
    title: input.title ?? draft.title,
    markdown,
    description: draft.description,
    promptId: input.promptId ?? null,
  });
}

function writerModel(writer: WriterSettings, length: ArticleLength) {
  return { ...writer, max_tokens: writer.max_tokens ?? MAX_TOKENS[length] };
}

/** The messages sent to the writer: every fact in them comes from the brand's data. */
export async function buildBrief(app: AppContext, brandId: string, input: GenerateInput): Promise<WriterBrief> {
  const topic = input.topic?.trim();
  if (!input.promptId && !topic) {
    throw new Invalid("Give prompt_id (a tracked prompt, see get_content_gaps or list_prompts) or topic.", "invalid_input");
  }
  const brand = await getBrand(app.db, brandId);
  const prompt = input.promptId ? await getPrompt(app.db, brandId, input.promptId) : null;
  const evidence = prompt ? await promptEvidence(app.db, brandId, prompt.id, { days: BRIEF_DAYS }) : null;
  const roster = await loadRoster(app.db, brandId);
  const knownCompetitors = roster.members.filter((m) => !m.isBrand).map((m) => m.name);
  const length = input.length ?? "medium";

  const lines: string[] = [];
  // The domain as people write it (müller-küchen.de, not its stored xn--mller-kchen-thbg.de): the
  // writer may name the brand's site in the article.
  lines.push(
    `Write an article for the website of ${brand.name}${brand.domain ? ` (${domainToUnicode(brand.domain) || brand.domain})` : ""}.`,
  );
  if (brand.aliases.length > 0) lines.push(`The brand is also known as: ${brand.aliases.join(", ")}.`);
  lines.push("");
  if (prompt) {
    lines.push(`Target question, as people ask it to AI assistants: "${prompt.text}"`);
    if (prompt.language) lines.push(`The question is asked in: ${prompt.language}.`);
    if (prompt.country) lines.push(`Market: ${prompt.country}.`);
  }
  if (topic) lines.push(`${prompt ? "Angle" : "Topic"}: ${topic}`);
  lines.push("");
  if (evidence && evidence.answers > 0) {
    lines.push(
      `In the last ${BRIEF_DAYS} days, AI assistants answered this question ${evidence.answers} times and mentioned ${brand.name} in ${evidence.brandMentioned} of those answers.`,
    );
    if (evidence.competitors.length > 0) {
      lines.push("Competitors the assistants name instead (answers mentioning each):");
      for (const c of evidence.competitors) lines.push(`- ${c.name}: ${c.answers}`);
    }
    if (evidence.domains.length > 0) {
      lines.push("Sources the assistants cite for it (citations):");
      for (const d of evidence.domains) lines.push(`- ${domainToUnicode(d.domain) || d.domain}: ${d.citations}`);
    }
    if (evidence.excerpts.length > 0) {
      lines.push("Excerpts of their answers (for context only; do not copy them):");
      for (const e of evidence.excerpts) lines.push(`[${e.engine}] ${e.text}`);
    }
  } else if (prompt) {
    lines.push("No tracked answers to this question yet.");
  }
  if (knownCompetitors.length > 0) lines.push(`Competitors of ${brand.name}: ${knownCompetitors.join(", ")}.`);
  lines.push("");
  lines.push("The goal: a genuinely useful answer to the question that an AI assistant would want to cite, in which");
  lines.push(`${brand.name} appears where it honestly fits. Compare fairly with the competitors; cover what the cited`);
  lines.push("sources cover, better. Do not invent statistics, prices, quotes or customer names.");
  lines.push("");
  lines.push(`Length: ${WORDS[length]} words.`);
  if (input.tone) lines.push(`Tone: ${input.tone}.`);
  lines.push(`Language: ${input.language ?? prompt?.language ?? "the language of the question"}.`);
  if (input.title) lines.push(`Title, chosen for the article: "${input.title}".`);
  lines.push(
    `Format: Markdown only. Start with a front matter block of two lines between --- lines: \`title: …\`${input.title ? " (the title above)" : ""} and \`description: …\` (one sentence, under 160 characters). Then the body: an H1 with the title, short sections with H2 headings, lists and tables where they help. No raw HTML, no images, no scripts.`,
  );

  return {
    system: `You are an expert content writer for ${brand.name}. You write clear, accurate, well-structured articles in Markdown.`,
    user: lines.join("\n"),
  };
}

export interface WriterDraft {
  title: string;
  description: string | null;
  markdown: string;
}

/** Characters of preface and closing remark around a fenced article, at most, that are dropped with the fence. */
const MAX_FENCE_REMARKS = 400;

/**
 * Reads the model's reply: an optional ```markdown fence around everything, an optional front
 * matter (title, description), and a leading H1 as the title when the front matter has none.
 */
export function parseWriterOutput(reply: string): WriterDraft {
  let text = reply.replace(/\r\n?/g, "\n").trim();
  // The whole article in one fence, perhaps after a line or two of preface ("Here is the article:")
  // and before a closing remark, as chat models like to reply. The whole reply in one fence: any
  // language; with a preface or a remark: only a markdown fence, and a preface without a heading
  // (an article that ends in a code sample is not a wrapper) around front matter or a heading.
  const whole = /^```[a-z]*\n([\s\S]*?)\n```$/i.exec(text);
  const wrapped = whole ?? /^((?:[^\n`]*\n){0,3}?)```(?:markdown|md)?\n([\s\S]*?)\n```((?:\n[^\n`]*){0,3})$/i.exec(text);
  const preface = whole ? "" : (wrapped?.[1] ?? "");
  const remark = whole ? "" : (wrapped?.[3] ?? "");
  const inner = whole ? whole[1] : wrapped?.[2];
  // Around a preface or a remark, the fenced text must read as an article: front matter or a heading first.
  const article = whole !== null || (inner !== undefined && /^\s*(?:---\n|#)/.test(inner));
  if (inner !== undefined && article && !/^\s*#/m.test(preface) && preface.length + remark.length <= MAX_FENCE_REMARKS) text = inner.trim();
  let title = "";
  let description: string | null = null;
  const front = /^---\n([\s\S]*?)\n---(?:\n|$)/.exec(text);
  if (front?.[1] !== undefined) {
    for (const line of front[1].split("\n")) {
      const field = /^(title|description)\s*:\s*(.*)$/i.exec(line.trim());
      if (!field?.[1] || field[2] === undefined) continue;
      const value = unquote(field[2]);
      if (field[1].toLowerCase() === "title") title = value;
      else description = value || null;
    }
    text = text.slice(front[0].length).trim();
  }
  if (title === "") {
    const h1 = /^#\s+(.+?)\s*#*\s*$/m.exec(text.split("\n").find((l) => l.trim() !== "") ?? "");
    // The heading's text as a reader sees it: "# Choosing a *Modern* CRM" is titled "Choosing a Modern CRM".
    if (h1?.[1]) title = inlineMarkdownText(h1[1]);
  }
  return {
    title: clip(title, MAX_TITLE),
    description: description === null ? null : clip(description, MAX_DESCRIPTION),
    markdown: text,
  };
}

function unquote(value: string): string {
  const v = value.trim();
  return /^(["']).*\1$/.test(v) ? v.slice(1, -1).trim() : v;
}

function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
