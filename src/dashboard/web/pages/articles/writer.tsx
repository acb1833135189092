// "Draft with the writer": the server's writer model drafts an article for a tracked prompt or a topic
// (generate_article), which then opens in the editor. Without a [writer] in the server's config
// (get_brand's writer), the section says at once, in plain words, what whoever runs the server can do
// (the tool's own sentence speaks to AI clients, in tool names), instead of offering the form. A
// draft that fails keeps what was typed.
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { ApiError, api, errorMessage } from "../../api";
import { useFieldErrors } from "../../components/field-error";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { Button, Field, Notice, useLoad, useStillHere } from "../../components/ui";
import { articlePath } from "./paths";

type Length = "short" | "medium" | "long";

// Remembered for the visit once a draft was refused for want of a writer (a server restarted
// without one since the page was loaded).
let writerMissing = false;

/** What to do without a writer: an error just after a draft was asked for (read out at once), otherwise information. */
function NoWriter({ brandId, kind }: { brandId: string; kind: "error" | "info" }) {
  return (
    <Notice kind={kind}>
      This server has no writer model set up, so it cannot draft articles. Whoever runs Spyglass can set one up: add a [writer] section to
      the server's configuration file (which AI model to use, and the environment variable that holds its API key), as the README's
      “Configuration file” shows, then restart the server. Until then, write the article yourself:{" "}
      <a href={articlePath(brandId, "new")}>New article</a>.
    </Notice>
  );
}

function PromptChoice({ brandId, value, onChange }: { brandId: string; value: string; onChange: (id: string) => void }) {
  const loaded = useLoad(() => api.tool(brandId, "list_prompts", { limit: 100 }), [brandId]);
  const prompts = loaded.data?.prompts ?? [];
  if (prompts.length === 0) return null;
  return (
    <Field
      label="Tracked prompt (optional)"
      hint="The question the article should answer; the brief adds who the AI engines name and cite for it."
    >
      {(p) => (
        <select {...p} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
          <option value="">None: use the topic</option>
          {prompts.map((prompt) => (
            <option key={prompt.id} value={prompt.id}>
              {prompt.text}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function WriterForm({ brandId }: { brandId: string }) {
  const { route } = useLocation();
  const [open, setOpen] = useState(false);
  const [topic, setTopic] = useState("");
  const [promptId, setPromptId] = useState("");
  const [length, setLength] = useState<Length>("medium");
  // A topic refused (too short once trimmed) is said under it, with the keyboard there.
  const { form, failure, setFailure, errorFor } = useFieldErrors(["topic"]);
  const [refused, setRefused] = useState(writerMissing);
  const brand = useLoad(() => api.tool(brandId, "get_brand", {}), [brandId]);
  const missing = refused || brand.data?.writer.configured === false;
  const [busy, setBusy] = useState(false);
  const stillHere = useStillHere();
  const topicRef = useRef<HTMLInputElement>(null);
  const openerRef = useRef<HTMLButtonElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const wasOpen = useRef(false);
  // The button that opens the form goes away with it: focus moves into the form, and back after Cancel
  // (to the section's heading when the server turned out to have no writer and the button is gone).
  useEffect(() => {
    if (open) topicRef.current?.focus();
    else if (wasOpen.current) (openerRef.current ?? headingRef.current)?.focus();
    wasOpen.current = open;
  }, [open]);

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setFailure(null);
    const here = stillHere();
    try {
      const { article } = await api.tool(brandId, "generate_article", {
        ...(topic.trim() ? { topic: topic.trim() } : {}),
        ...(promptId ? { prompt_id: promptId } : {}),
        length,
      });
      // The draft is saved either way; a person who went elsewhere meanwhile stays there.
      if (here()) route(articlePath(brandId, article.id));
    } catch (e) {
      if (e instanceof ApiError && e.code === "writer_not_configured") {
        writerMissing = true;
        setRefused(true);
      } else setFailure(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card stack" aria-labelledby="writer-heading">
      <h2 id="writer-heading" ref={headingRef} tabIndex={-1}>
        Draft with the writer
      </h2>
      <p class="muted">The server's writer model drafts an article from a topic or a tracked prompt; you review it before publishing.</p>
      {missing && !open ? (
        <NoWriter brandId={brandId} kind="info" />
      ) : !open ? (
        // Offered once get_brand has said whether there is a writer (or could not say: the draft will).
        (brand.data !== null || brand.error !== null) && (
          <button type="button" class="btn btn-secondary" ref={openerRef} onClick={() => setOpen(true)}>
            Draft with the writer
          </button>
        )
      ) : (
        <form ref={form} class="stack" onSubmit={submit} aria-label="Draft with the writer">
          <Field
            label="Topic"
            hint="What the article is about, such as “choosing a CRM for a startup”. Optional when a prompt is chosen."
            error={errorFor("topic")}
          >
            {(p) => (
              <input
                {...p}
                ref={topicRef}
                value={topic}
                minLength={3}
                maxLength={300}
                required={!promptId}
                onInput={(e) => setTopic(e.currentTarget.value)}
              />
            )}
          </Field>
          <PromptChoice brandId={brandId} value={promptId} onChange={setPromptId} />
          <Field label="Length">
            {(p) => (
              <select {...p} value={length} onChange={(e) => setLength(e.currentTarget.value as Length)}>
                <option value="short">Short (about 600 words)</option>
                <option value="medium">Medium (about 1,200 words)</option>
                <option value="long">Long (about 2,000 words)</option>
              </select>
            )}
          </Field>
          {missing && <NoWriter brandId={brandId} kind="error" />}
          {failure !== null &&
            (isPlanRequired(failure) ? (
              <PlanNeeded required="autopilot" what="Drafting with the writer" />
            ) : (
              <Notice kind="error">{errorMessage(failure)}</Notice>
            ))}
          <div class="actions">
            {/* aria-disabled while drafting: a disabled button would lose the keyboard's focus. */}
            <Button type="submit" variant="primary" aria-disabled={busy}>
              {busy ? "Drafting… (this can take a minute)" : "Draft the article"}
            </Button>
            <Button onClick={() => setOpen(false)} disabled={busy}>
              Cancel
            </Button>
          </div>
        </form>
      )}
    </section>
  );
}
