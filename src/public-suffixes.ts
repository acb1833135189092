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

/** `blog.acme.co.uk` → `acme.co.uk`. Private suffixes count (`acme.github.io` stays itself), as for brand domains. */
export function registrableDomain(hostname: string): string {
  const host = stripWww(hostname.toLowerCase().replace(/\.+$/, ""));
  return publicSuffixes().getDomain(host, { allowPrivateDomains: true }) ?? host;
}

/** A host without its leading `www.` (all of them), never down to a bare suffix. */
export function stripWww(host: string): string {
  let out = host;
  // Loop so the result is stable under a second pass ("www.www.a.com"), but never strip down to a bare suffix.
  while (out.startsWith("www.") && out.slice(4).includes(".")) out = out.slice(4);
  return out;
}
