// One prompt edited in place through update_prompt: text, tags, country and language.
import { useRef, useState } from "preact/hooks";
import { api } from "../../api";
import { changedFields, useEditForm } from "../../components/in-place";
import { Button, Field, Notice } from "../../components/ui";
import { Failure, type Prompt, parseTags, short, TAGS_HINT, tagsProblem } from "./shared";

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
  const [failure, setFailure] = useState<unknown>(null);
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
      setFailure(e);
      setBusy(false);
    }
  };
  return (
    <form onSubmit={save} onKeyDown={form.onKeyDown} class="stack edit-form" aria-label={`Edit prompt ${short(prompt.text)}`}>
      <Field label="Prompt text">
        {(p) => <textarea {...p} ref={form.first} rows={2} required value={text} onInput={(e) => setText(e.currentTarget.value)} />}
      </Field>
      <Field label="Tags" hint={`${TAGS_HINT}; replaces the prompt's tags.`}>
        {(p) => <input {...p} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />}
      </Field>
      <div class="field-row">
        <Field label="Country" hint="Two letters, such as US; empty for none.">
          {(p) => <input {...p} size={4} maxLength={2} value={country} onInput={(e) => setCountry(e.currentTarget.value)} />}
        </Field>
        <Field label="Language" hint="Such as en or pt-BR; empty for none.">
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
