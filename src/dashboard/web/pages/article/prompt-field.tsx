// "Prompt this article answers": a choice among the brand's tracked prompts (read with list_prompts,
// every page), saved as the article's prompt_id; Article impact measures the article against it.
import { type ToolOutput } from "../../../../catalogue/types";
import { api } from "../../api";
import { Field, useLoad } from "../../components/ui";

type Prompt = ToolOutput<"list_prompts">["prompts"][number];

/** Every prompt of the brand, archived ones too (an article may answer a prompt no longer tracked). */
async function allPrompts(brandId: string): Promise<Prompt[]> {
  const prompts: Prompt[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.tool(brandId, "list_prompts", { include_archived: true, limit: 200, cursor });
    prompts.push(...page.prompts);
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return prompts;
}

export function PromptField({
  brandId,
  value,
  saved,
  onChange,
}: {
  brandId: string;
  value: string;
  /** The prompt the saved article answers: offered even when it is archived. */
  saved: string | null;
  onChange: (promptId: string) => void;
}) {
  const loaded = useLoad(() => allPrompts(brandId), [brandId]);
  const choices = (loaded.data ?? []).filter((p) => !p.archived || p.id === saved);
  const hint = loaded.error
    ? `The brand's prompts could not be read: ${loaded.error}`
    : loaded.data && choices.length === 0
      ? "The brand tracks no prompt yet: add prompts on the Prompts page to link the article to one."
      : "The tracked question the article is written to answer. Article impact compares that prompt's figures before and after publication.";
  return (
    <Field label="Prompt this article answers" hint={hint}>
      {(p) => (
        <select {...p} value={value} disabled={loaded.loading} onChange={(e) => onChange(e.currentTarget.value)}>
          <option value="">None</option>
          {choices.map((prompt) => (
            <option key={prompt.id} value={prompt.id}>
              {prompt.archived ? `${prompt.text} (no longer tracked)` : prompt.text}
            </option>
          ))}
          {/* Until the list arrives (or when it cannot be read), the linked prompt keeps its place: the select would show None. */}
          {value !== "" && !choices.some((prompt) => prompt.id === value) && (
            <option value={value}>{loaded.loading ? "Loading…" : "The linked prompt (its text could not be read)"}</option>
          )}
        </select>
      )}
    </Field>
  );
}
