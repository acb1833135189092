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

export function usePaged<T>(
  load: (cursor: string | undefined) => Promise<{ items: T[]; next: string | null }>,
  deps: readonly unknown[],
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
