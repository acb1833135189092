// A list read page by page through a catalogue tool's cursor: the first page loads whenever `deps`
// change, "More" appends the next one; answers of an earlier load are dropped.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { errorMessage } from "../api";

export interface Paged<T> {
  items: T[];
  /** Whether the first page has arrived. */
  loaded: boolean;
  loading: boolean;
  hasMore: boolean;
  error: string | null;
  failure: unknown;
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
  });
  const generation = useRef(0);
  const fetchPage = useCallback((cursor: string | undefined, append: boolean) => {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true, failure: null }));
    load(cursor).then(
      (page) =>
        mine === generation.current &&
        setState((s) => ({
          items: append ? [...s.items, ...page.items] : page.items,
          next: page.next,
          loaded: true,
          loading: false,
          failure: null,
        })),
      (failure: unknown) => mine === generation.current && setState((s) => ({ ...s, loading: false, failure })),
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
    more: () => state.next && fetchPage(state.next, true),
    reload,
    update: (change) => setState((s) => ({ ...s, items: change(s.items) })),
  };
}
