// "Prompt this article answers": a choice among the brand's tracked prompts, saved as the article's
// prompt_id; Article impact measures the article against it. Up to PAGE prompts, the select offers
// them all; a brand with more gets a search field over list_prompts' `query` above it (reading and
// listing thousands of prompts took a request per PAGE of them and made the select unusable).
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../../api";
import { type BrandPrompt } from "../../components/prompts";
import { Field, useLoad } from "../../components/ui";

const PAGE = 200;
const FOUND = 50;
/** How long typing pauses before the search is sent. */
const SEARCH_AFTER_MS = 250;

export function PromptField({
  brandId,
  value,
  saved,
  savedText,
  onChange,
}: {
  brandId: string;
  value: string;
  /** The prompt the saved article answers: offered even when it is archived. */
  saved: string | null;
  /** Its text (get_article's prompt_text). */
  savedText: string | null;
  onChange: (promptId: string) => void;
}) {
  const first = useLoad(() => api.tool(brandId, "list_prompts", { include_archived: true, limit: PAGE }), [brandId]);
  const many = Boolean(first.data?.next_cursor);
  const [typed, setTyped] = useState("");
  const [query, setQuery] = useState("");
  useEffect(() => {
    const timer = setTimeout(() => setQuery(typed.trim()), SEARCH_AFTER_MS);
    return () => clearTimeout(timer);
  }, [typed]);
  const found = useLoad(
    async () => (many && query ? await api.tool(brandId, "list_prompts", { include_archived: true, query, limit: FOUND }) : null),
    [brandId, many, query],
  );
  // Texts of prompts seen here, so that a choice keeps its name when another search replaces the list.
  const known = useRef(new Map<string, string>());
  if (saved && savedText !== null) known.current.set(saved, savedText);
  const listed: BrandPrompt[] = (many && query ? found.data?.prompts : first.data?.prompts) ?? [];
  for (const prompt of listed) known.current.set(prompt.id, prompt.text);
  const choices = listed.filter((p) => !p.archived || p.id === saved);
  const loading = first.loading || (many && query !== "" && found.loading);
  const error = first.error ?? found.error;

  const hint = error
    ? `The brand's prompts could not be read: ${error}`
    : first.data && !many && choices.length === 0
      ? "The brand tracks no prompt yet: add prompts on the Prompts page to link the article to one."
      : "The tracked question the article is written to answer. Article impact compares that prompt's figures before and after publication.";
  const currentText = value === "" ? null : (known.current.get(value) ?? null);
  return (
    <>
      {many && (
        <Field label="Find a prompt" hint={searchSentence(query, loading, found.data?.prompts.length, found.data?.next_cursor)}>
          {(p) => (
            <input
              {...p}
              type="search"
              value={typed}
              maxLength={500}
              autocomplete="off"
              onInput={(e) => setTyped(e.currentTarget.value)}
              onKeyDown={(e) => {
                // Enter searches at once: inside the article's form it would otherwise save the article.
                if (e.key === "Enter") {
                  e.preventDefault();
                  setQuery(typed.trim());
                }
              }}
            />
          )}
        </Field>
      )}
      <Field label="Prompt this article answers" hint={hint}>
        {(p) => (
          <select {...p} value={value} disabled={first.loading} onChange={(e) => onChange(e.currentTarget.value)}>
            <option value="">None</option>
            {/* The chosen prompt keeps its place whatever the list shows (a search, or nothing yet): the select would show None. */}
            {value !== "" && !choices.some((prompt) => prompt.id === value) && (
              <option value={value}>{currentText ?? (loading ? "Loading…" : "The linked prompt (its text could not be read)")}</option>
            )}
            {choices.map((prompt) => (
              <option key={prompt.id} value={prompt.id}>
                {prompt.archived ? `${prompt.text} (no longer tracked)` : prompt.text}
              </option>
            ))}
          </select>
        )}
      </Field>
    </>
  );
}

function searchSentence(query: string, loading: boolean, count: number | undefined, more: string | null | undefined): string {
  if (!query)
    return `The brand tracks more than ${PAGE} prompts: the list below shows the first ${PAGE}. Type part of a prompt to find others.`;
  if (loading || count === undefined) return `Looking for prompts containing “${query}”…`;
  if (count === 0) return `No prompt contains “${query}”.`;
  if (more) return `The first ${count} prompts containing “${query}” are in the list below: type more of it to narrow them.`;
  return `${count === 1 ? "One prompt contains" : `${count} prompts contain`} “${query}”: the list below shows ${count === 1 ? "it" : "them"}.`;
}
