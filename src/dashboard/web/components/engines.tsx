// What a brand without engines is shown: how to add one to spyglass.toml (shared by the brand's
// settings and the Tracking page).
import { CopyBlock, EmptyState } from "./ui";

export const ENGINE_SNIPPET = `[[engines]]
id = "chatgpt"
label = "ChatGPT (gpt-4o-mini)"
api = "openai"
base_url = "https://api.openai.com/v1"
model = "gpt-4o-mini"
api_key_env = "OPENAI_API_KEY"`;

export function NoEngines() {
  return (
    <EmptyState title="No engines configured">
      <p>
        Spyglass asks AI engines the brand's prompts on a schedule. Add one to <code>spyglass.toml</code> in the data directory, set its key
        in the environment, and restart:
      </p>
      <CopyBlock label="spyglass.toml engine" text={ENGINE_SNIPPET} />
    </EmptyState>
  );
}
