// The public suffix list (tldts), for brands' and competitors' domains and for cited URLs' sites.
import type * as Tldts from "tldts";

let tldts: typeof Tldts | null = null;

/**
 * tldts, loaded on first use, not at start: evaluating it (it builds its suffix trie) was ~6 ms of
 * every start-up (a CPU profile of spawn → first /healthz), as jsdom is loaded where it is first
 * needed (content/sanitize.ts).
 */
export function publicSuffixes(): typeof Tldts {
  tldts ??= require("tldts") as typeof Tldts;
  return tldts;
}
