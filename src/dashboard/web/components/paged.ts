// A list read page by page through a catalogue tool's cursor: the first page loads whenever `deps`
// change, "More" appends the next one; answers of an earlier load are dropped. A next page that fails
// leaves the rows read so far (MoreButton offers to ask again).
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { errorMessage } from "../api";

export interface Paged<T> {
  items: T[];
  /** Whether the first page has arrived. */
  loaded: boolean;
  loading: boolean;
  hasMore: boolean;
  /** The first page's failure (nothing to show). */
  error: string | null;
  failure: unknown;
  /** A next page's failure: the items read so far stay; `more` asks for that page again. */
  moreError: string | null;
  moreFailure: unknown;
  more: () => void;
  reload: () => void;
  /** Changes the items shown (after an edit) without reading the list again. */
  update: (change: (items: T[]) => T[]) => void;
}

/** A list's place as its history entry keeps it: how many rows were read and how far the window was scrolled. */
interface Place {
  count: number;
  scrollY: number;
}

function placeIn(state: unknown, key: string): Place | null {
  const kept = (state as { lists?: Record<string, Place> } | null)?.lists?.[key];
  return kept && Number.isSafeInteger(kept.count) && Number.isFinite(kept.scrollY) ? kept : null;
}

function keepPlace(key: string, place: Place): void {
  const state = (history.state ?? {}) as { lists?: Record<string, Place> };
  history.replaceState({ ...state, lists: { ...state.lists, [key]: place } }, "");
}

/**
 * `remember`: a name under which the list's place is kept in its history entry, so that coming back
 * to it (the browser's Back from an answer opened in it) reads as many rows again and scrolls to where
 * it was; a new visit by a link starts at the first page, its entry being new.
 */
export function usePaged<T>(
  load: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null }>,
  deps: readonly unknown[],
  remember?: string,
): Paged<T> {
  const [state, setState] = useState({
    items: [] as T[],
    next: null as string | null,
    loaded: false,
    loading: true,
    failure: null as unknown,
    moreFailure: null as unknown,
  });
  const generation = useRef(0);
  const fetchPage = useCallback((cursor: string | undefined, append: boolean) => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true, failure: null, moreFailure: null }));
    load(cursor).then(
      (page) =>
        mine === generation.current &&
        setState((s) => ({
          items: append ? [...s.items, ...page.items] : page.items,
          next: page.next,
          loaded: true,
          loading: false,
          failure: null,
          moreFailure: null,
        })),
      (failure: unknown) =>
        mine === generation.current &&
        setState((s) => (append ? { ...s, loading: false, moreFailure: failure } : { ...s, loading: false, failure })),
    );
  }, deps);
  const reload = useCallback(() => fetchPage(undefined, false), [fetchPage]);
  useEffect(reload, [reload]);

  // Coming back: the rows read before, page by page, then the scroll.
  const [returning, setReturning] = useState(() => (remember ? placeIn(history.state, remember) : null));
  // Another list (a filter changed): the place was the first list's.
  const firstLoad = useRef(fetchPage);
  useEffect(() => {
    if (firstLoad.current !== fetchPage) setReturning(null);
  }, [fetchPage]);
  useEffect(() => {
    const place = returning;
    if (!place || !state.loaded || state.loading) return;
    if (state.items.length < place.count && state.next !== null && state.moreFailure === null) {
      fetchPage(state.next, true);
      return;
    }
    setReturning(null);
    requestAnimationFrame(() => window.scrollTo(0, place.scrollY));
  }, [state, returning]);
  // Kept as it changes, in this page's own entry (a write due after leaving is dropped).
  useEffect(() => {
    if (!remember || returning) return;
    const path = location.pathname;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const keep = () => {
      if (location.pathname === path) keepPlace(remember, { count: state.items.length, scrollY: window.scrollY });
    };
    keep();
    const onScroll = () => {
      timer ??= setTimeout(() => {
        timer = null;
        keep();
      }, 250);
    };
    window.addEventListener("scroll", onScroll, { passive: true });
    // A click (on an answer's link) is before the router's navigation: the place as it is then, with a
    // scroll of the last 250 ms (a flick on a phone) that the timer would have written too late.
    document.addEventListener("click", keep, true);
    return () => {
      window.removeEventListener("scroll", onScroll);
      document.removeEventListener("click", keep, true);
      if (timer) clearTimeout(timer);
    };
  }, [remember, state.items.length, returning]);
  return {
    items: state.items,
    loaded: state.loaded,
    loading: state.loading,
    hasMore: state.next !== null,
    error: state.failure === null ? null : errorMessage(state.failure),
    failure: state.failure,
    moreError: state.moreFailure === null ? null : errorMessage(state.moreFailure),
    moreFailure: state.moreFailure,
    more: () => state.next && fetchPage(state.next, true),
    reload,
    update: (change) => setState((s) => ({ ...s, items: change(s.items) })),
  };
}
