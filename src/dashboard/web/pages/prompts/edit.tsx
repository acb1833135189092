// One prompt edited in place through update_prompt: text, tags, country and language.
import { useRef, useState } from "preact/hooks";
import { ApiError, api } from "../../api";
import { useFieldErrors } from "../../components/field-error";
import { changedFields, useEditForm } from "../../components/in-place";
import { Button, Field, Notice } from "../../components/ui";
import { Failure, type Prompt, parseTags, short, TAGS_HINT, tagsProblem } from "./shared";

/**
 * A prompt whose text another has, said as a person reads it: the tool's sentence names the other by
 * its id, for an AI client; here the list beside the form shows it, and the way back from the archive
 * is the form above.
 */
function inWords(failure: unknown): unknown {
  if (!(failure instanceof ApiError) || failure.code !== "prompt_exists") return failure;
  const archived = failure.message.startsWith("An archived prompt");
  return new ApiError(
    failure.status,
    archived
      ? "An archived prompt of this brand has this text (compared ignoring case and spaces): choose another text, or archive this prompt and add that text with “Add prompts”, which restores the archived one with its history."
      : "Another prompt of this brand already has this text (compared ignoring case and spaces).",
    failure.code,
    failure.requiredPlan,
  );
}

export function EditPrompt({
  brandId,
  prompt,
  onSaved,
  onCancel,
}: {
  brandId: string;
  prompt: Prompt;
  onSaved: (p: Prompt) => void;
  onCancel: () => void;
}) {
  // The prompt as the form opened with it: the list may be read again under the form since.
  const from = useRef(prompt).current;
  const [text, setText] = useState(prompt.text);
  const [tags, setTags] = useState(prompt.tags.join(", "));
  const [country, setCountry] = useState(prompt.country ?? "");
  const [language, setLanguage] = useState(prompt.language ?? "");
  const [busy, setBusy] = useState(false);
  // A refusal of the text (too short, another prompt's) is said under it, with the keyboard there.
  const {
    form: formRef,
    failure,
    setFailure,
    errorFor,
  } = useFieldErrors(["text", "tags", "country", "language"], { prompt_exists: "text" });
  // What was typed that the tool would refuse, found before anything is sent.
  const [problem, setProblem] = useState<string | null>(null);
  const form = useEditForm(onCancel);
  const save = async (event: Event) => {
    event.preventDefault();
    const trouble = tagsProblem(parseTags(tags));
    setProblem(trouble);
    if (trouble) return;
    setBusy(true);
    setFailure(null);
    try {
      const out = await api.tool(brandId, "update_prompt", {
        prompt_id: prompt.id,
        ...changedFields(
          { text: from.text, tags: from.tags, country: from.country ?? null, language: from.language ?? null },
          { text, tags: parseTags(tags), country: country.trim() || null, language: language.trim() || null },
        ),
      });
      onSaved(out.prompt);
    } catch (e) {
      setFailure(inWords(e));
      setBusy(false);
    }
  };
  return (
    <form ref={formRef} onSubmit={save} onKeyDown={form.onKeyDown} class="stack edit-form" aria-label={`Edit prompt ${short(prompt.text)}`}>
      <Field label="Prompt text" error={errorFor("text")}>
        {(p) => <textarea {...p} ref={form.first} rows={2} required value={text} onInput={(e) => setText(e.currentTarget.value)} />}
      </Field>
      <Field label="Tags" hint={`${TAGS_HINT}; replaces the prompt's tags.`} error={errorFor("tags")}>
        {(p) => <input {...p} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />}
      </Field>
      <div class="field-row">
        <Field label="Country" hint="Two letters, such as US; empty for none." error={errorFor("country")}>
          {(p) => <input {...p} size={4} maxLength={2} value={country} onInput={(e) => setCountry(e.currentTarget.value)} />}
        </Field>
        <Field label="Language" hint="Such as en or pt-BR; empty for none." error={errorFor("language")}>
          {(p) => <input {...p} size={8} value={language} onInput={(e) => setLanguage(e.currentTarget.value)} />}
        </Field>
      </div>
      {problem !== null && <Notice kind="error">{problem}</Notice>}
      {failure !== null && <Failure failure={failure} />}
      <div class="actions">
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Saving…" : "Save"}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  );
}
