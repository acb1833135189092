// Argument completion (MCP completion/complete) from the brand's own data: what a user has typed is
// matched, case-insensitively, at the start of a value first and anywhere in it after. Every list is
// read for the principal's brand only, through the owning feature's service.
import { listAllCompetitors } from "../competitors/service";
import { listArticles } from "../content/service";
import { listActivePrompts } from "../prompts/service";
import { listTags } from "../prompts/tags";
import { brandEngines } from "../tracking/engines";
import { type Completer } from "./prompts/registry";

const MAX_TAGS = 500;

/** Values whose text starts with `typed`, then those that contain it; each once, in the given order. */
export function matching(values: readonly string[], typed: string, text: (value: string) => string = (v) => v): string[] {
  const needle = typed.trim().toLowerCase();
  if (needle === "") return [...new Set(values)];
  const starts = values.filter((v) => text(v).toLowerCase().startsWith(needle) || v.toLowerCase().startsWith(needle));
  const contains = values.filter((v) => text(v).toLowerCase().includes(needle));
  return [...new Set([...starts, ...contains])];
}

export const completeCompetitor: Completer = async (typed, ctx) =>
  matching(
    (await listAllCompetitors(ctx.app.db, ctx.brand.id)).map((c) => c.name),
    typed,
  );

export const completeTag: Completer = async (typed, ctx) =>
  matching(
    (await listTags(ctx.app.db, ctx.brand.id, { limit: MAX_TAGS })).tags.map((t) => t.name),
    typed,
  );

export const completeEngine: Completer = async (typed, ctx) =>
  matching(
    (await brandEngines(ctx.app, ctx.brand.id)).map((e) => e.id),
    typed,
  );

/** Prompt ids, matched by the id or by the prompt's text (what a person remembers). */
export const completePromptId: Completer = async (typed, ctx) => {
  const prompts = await listActivePrompts(ctx.app.db, ctx.brand.id);
  const texts = new Map(prompts.map((p) => [p.id, p.text]));
  return matching(
    prompts.map((p) => p.id),
    typed,
    (id) => texts.get(id) ?? id,
  );
};

/** Article slugs (drafts and published), for the article resource templates. */
export async function articleSlugs(typed: string, ctx: Parameters<Completer>[1]): Promise<string[]> {
  return matching(
    (await listArticles(ctx.app.db, ctx.brand.id, { limit: 100 })).articles.map((a) => a.slug),
    typed,
  );
}
