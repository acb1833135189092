// "Prompt this article answers": a choice among the brand's tracked prompts (read with list_prompts,
// every page), saved as the article's prompt_id; Article impact measures the article against it.
import { allPrompts } from "../../components/prompts";
import { Field, useLoad } from "../../components/ui";

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
