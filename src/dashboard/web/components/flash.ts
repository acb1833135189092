// A sentence one page leaves for the page it sends the user to (a deletion's, said on the list it
// lands on), read once there.
import { useState } from "preact/hooks";

const left = new Map<string, string>();

/** Leaves `sentence` for the next `page` ("brands", "articles") shown. */
export function leaveFlash(page: string, sentence: string): void {
  left.set(page, sentence);
}

/**
 * The sentence left for this page, once (a later render or visit has none). `shown` false leaves it
 * for the page's next showing (the sign-in page, rendered for a moment while the session it is
 * about to send elsewhere is still known).
 */
export function useFlash(page: string, shown = true): string | null {
  const [sentence] = useState(() => {
    if (!shown) return null;
    const found = left.get(page) ?? null;
    left.delete(page);
    return found;
  });
  return sentence;
}
