// Adding prompts one per line, sent to create_prompts in calls of 100; what was created and the
// duplicates the tool returns are reported, and lines not sent after a failure stay in the box.
import { useState } from "preact/hooks";
import { labelKey } from "../../../../labels";
import { PROMPT_TEXT_MAX, PROMPT_TEXT_MIN } from "../../../../prompts/limits";
import { api } from "../../api";
import { useFieldErrors } from "../../components/field-error";
import { Button, Field, Notice } from "../../components/ui";
import { Failure, PER_CALL, parseTags, TAGS_HINT, tagsProblem } from "./shared";

function lengthSentence(wrong: Array<{ line: number; text: string }>): string {
  const named = wrong
    .slice(0, 5)
    .map((l) => `line ${l.line} (${l.text.length < PROMPT_TEXT_MIN ? "too short" : `${l.text.length} characters`})`)
    .join(", ");
  const more = wrong.length > 5 ? ` and ${wrong.length - 5} more` : "";
  return `Nothing was added: a prompt has ${PROMPT_TEXT_MIN} to ${PROMPT_TEXT_MAX} characters; fix ${named}${more}.`;
}

/** Which of the prompts added were archived ones, tracked again: not new. */
function restoredSentence(restored: number, created: number): string {
  const which =
    restored === created ? (restored === 1 ? "It was" : "All were") : restored === 1 ? "1 of them was" : `${restored} of them were`;
  return `${which} archived, and ${restored === 1 ? "is" : "are"} tracked again with ${restored === 1 ? "its" : "their"} earlier answers.`;
}

/** Prompts named in a sentence: "a; b; c." (a question's own mark ends it: "…Gmail?", not "…Gmail?."). */
const listed = (texts: string[]) => `${texts.join("; ")}${/[.?!]$/.test(texts.at(-1) ?? "") ? "" : "."}`;

export function BulkAdd({ brandId, onAdded }: { brandId: string; onAdded: () => void }) {
  const [text, setText] = useState("");
  const [tags, setTags] = useState("");
  const [country, setCountry] = useState("");
  const [language, setLanguage] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ created: number; restored: number; duplicates: string[]; repeated: string[] } | null>(null);
  // A refused country or language (the same for every line) is said under its field.
  const { form, failure, setFailure, errorFor } = useFieldErrors(["country", "language"]);
  // Lines the tool would refuse, found before anything is sent.
  const [problem, setProblem] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const numbered = text
      .split("\n")
      .map((l, i) => ({ line: i + 1, text: l.trim().replace(/\s+/g, " ") }))
      .filter((l) => l.text !== "");
    if (numbered.length === 0) return;
    // Checked here, by the lines' numbers in the box: the tool would name the first one by its index in the call.
    const wrong = numbered.filter((l) => l.text.length < PROMPT_TEXT_MIN || l.text.length > PROMPT_TEXT_MAX);
    setProblem(wrong.length > 0 ? lengthSentence(wrong) : null);
    if (wrong.length > 0) {
      setResult(null);
      setFailure(null);
      return;
    }
    // A line given twice is sent once, and said so once it is added: "Already tracked or repeated"
    // beside "Added 1 prompt" read as if nothing of it were added (the dashboard walk).
    const copies = new Map<string, number>();
    const lines: string[] = [];
    for (const { text: line } of numbered) {
      const key = labelKey(line);
      if (!copies.has(key)) lines.push(line);
      copies.set(key, (copies.get(key) ?? 0) + 1);
    }
    const sent = new Set<string>();
    const tagNames = parseTags(tags);
    const tagTrouble = tagsProblem(tagNames);
    if (tagTrouble) {
      setProblem(`Nothing was added: ${tagTrouble.charAt(0).toLowerCase()}${tagTrouble.slice(1)}`);
      setResult(null);
      setFailure(null);
      return;
    }
    setBusy(true);
    setFailure(null);
    setResult(null);
    let created = 0;
    let restored = 0;
    const duplicates: string[] = [];
    const left: string[] = [];
    try {
      for (let i = 0; i < lines.length; i += PER_CALL) {
        const batch = lines.slice(i, i + PER_CALL);
        try {
          const out = await api.tool(brandId, "create_prompts", {
            prompts: batch.map((t) => ({
              text: t,
              ...(tagNames.length ? { tags: tagNames } : {}),
              ...(country.trim() ? { country: country.trim() } : {}),
              ...(language.trim() ? { language: language.trim() } : {}),
            })),
          });
          created += out.created.length;
          restored += out.restored_ids.length;
          duplicates.push(...out.duplicates);
          for (const line of batch) sent.add(labelKey(line));
        } catch (e) {
          // Later calls are not sent; what was not added stays in the box (every copy of it) to fix and send again.
          left.push(...numbered.map((l) => l.text).filter((line) => !sent.has(labelKey(line))));
          setFailure(e);
          break;
        }
      }
    } finally {
      setText(left.join("\n"));
      if (left.length === 0) setTags("");
      // Given more than once and added (sent, and not a text the brand already tracks), by its first spelling.
      const tracked = new Set(duplicates.map(labelKey));
      const repeated = lines.filter(
        (line) => (copies.get(labelKey(line)) ?? 0) > 1 && sent.has(labelKey(line)) && !tracked.has(labelKey(line)),
      );
      setResult(created > 0 || duplicates.length > 0 ? { created, restored, duplicates, repeated } : null);
      setBusy(false);
      if (created > 0) onAdded();
    }
  };
  return (
    <form ref={form} id="add-prompts" onSubmit={submit} class="stack card" aria-label="Add prompts">
      <h2>Add prompts</h2>
      <Field label="Prompts" hint="One prompt per line, 3 to 500 characters each, as a person would ask an AI assistant.">
        {(p) => (
          <textarea
            {...p}
            rows={4}
            required
            value={text}
            placeholder="best CRM for small agencies"
            onInput={(e) => setText(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label="Tags for all of them (optional)" hint={`${TAGS_HINT}; tags that do not exist yet are created.`}>
        {(p) => <input {...p} value={tags} placeholder="pricing, comparison" onInput={(e) => setTags(e.currentTarget.value)} />}
      </Field>
      <div class="field-row">
        <Field label="Country (optional)" hint="Two letters, such as US." error={errorFor("country")}>
          {(p) => <input {...p} size={4} maxLength={2} value={country} onInput={(e) => setCountry(e.currentTarget.value)} />}
        </Field>
        <Field label="Language (optional)" hint="Such as en or pt-BR." error={errorFor("language")}>
          {(p) => <input {...p} size={8} value={language} onInput={(e) => setLanguage(e.currentTarget.value)} />}
        </Field>
      </div>
      {problem !== null && <Notice kind="error">{problem}</Notice>}
      {failure !== null && <Failure failure={failure} />}
      {result && (
        <Notice kind="success">
          {result.created === 0 ? "Nothing new was added." : result.created === 1 ? "Added 1 prompt." : `Added ${result.created} prompts.`}
          {/* An archived prompt's text tracks it again, with its answers: not a new one. */}
          {result.restored > 0 && ` ${restoredSentence(result.restored, result.created)}`}
          {result.repeated.length > 0 && ` Listed more than once, added once: ${listed(result.repeated)}`}
          {result.duplicates.length > 0 && ` Already tracked: ${listed(result.duplicates)}`}
        </Notice>
      )}
      <Button type="submit" variant="primary" disabled={busy}>
        {busy ? "Adding…" : "Add the prompts"}
      </Button>
    </form>
  );
}
