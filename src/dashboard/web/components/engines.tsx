// What a brand without engines is shown: how to add one to spyglass.toml (shared by the brand's
// settings and the Tracking page); and how an answer's engine and status are named.
import { api } from "../api";
import { useSession } from "../session";
import { CopyBlock, EmptyState, useLoad } from "./ui";

// OpenAI's Responses API with its web search, as people use ChatGPT (README: engines and web search).
export const ENGINE_SNIPPET = `[[engines]]
id = "chatgpt"
label = "ChatGPT"
api = "openai-responses"
base_url = "https://api.openai.com/v1"
model = "gpt-4.1-mini"
api_key_env = "OPENAI_API_KEY"`;

/** `level` 3 inside a section headed by an h2 (the brand page's Tracking). */
export function NoEngines({ level = 2 }: { level?: 2 | 3 }) {
  // The instance's owner is, as a rule, who runs it (and the demo's account, before there is one); anyone else asks them.
  const { me } = useSession();
  return (
    <EmptyState title="No engines configured" level={level}>
      {me?.owner || me?.demo_kept ? (
        <p>
          Spyglass asks AI engines the brand's prompts on a schedule. Add one to <code>spyglass.toml</code> in the data directory, set its
          key in the environment, and restart:
        </p>
      ) : (
        <p>
          Spyglass asks AI engines the brand's prompts on a schedule, and this server has none set up yet. Whoever runs Spyglass can add one
          to its <code>spyglass.toml</code>, with the engine's API key in the server's environment, and restart it; this is what they would
          add:
        </p>
      )}
      <CopyBlock label="spyglass.toml engine" text={ENGINE_SNIPPET} />
    </EmptyState>
  );
}

/** An answer's status (METRICS.md: only `ok` answers count) as the pages show it. */
export const ANSWER_STATUS_LABELS: Record<string, string> = {
  ok: "Answered",
  empty: "Empty answer",
  refusal: "Refused",
  error: "Error",
};

export function answerStatusLabel(status: string): string {
  return ANSWER_STATUS_LABELS[status] ?? status;
}

/**
 * An answer's status in a list: "Answered" as plain text (most rows), anything else as a badge
 * that stands out from them, an error in the error colour.
 */
export function AnswerStatus({ status }: { status: string }) {
  if (status === "ok") return <>{answerStatusLabel(status)}</>;
  return <span class={`badge answer-status tone-${status === "error" ? "bad" : "warn"}`}>{answerStatusLabel(status)}</span>;
}

/**
 * The brand's engines' labels by id ("ChatGPT (gpt-4o-mini)" for "chatgpt"), to name the engine of an
 * answer; an id no longer configured (an engine removed from spyglass.toml) is shown as itself.
 */
export function useEngineLabels(brandId: string): (engine: string) => string {
  const engines = useLoad(() => api.tool(brandId, "get_brand", {}).then((b) => new Map(b.engines.map((e) => [e.id, e.label]))), [brandId]);
  return (engine) => engines.data?.get(engine) ?? engine;
}
