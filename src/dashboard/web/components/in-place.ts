// Editing one row of a list in place: the row's form takes the keyboard when it opens, and when it
// closes (saved or cancelled) the keyboard goes back to that row's Edit button.
import { useEffect, useRef, useState } from "preact/hooks";

export function useInPlaceEdit() {
  const [editing, setEditing] = useState<string | null>(null);
  const returnTo = useRef<string | null>(null);
  return {
    editing,
    start: (id: string) => setEditing(id),
    stop: () => {
      returnTo.current = editing;
      setEditing(null);
    },
    /** Puts the keyboard on a row's Edit button when it next appears (after the control that had it went away). */
    focusEditButton: (id: string) => {
      returnTo.current = id;
    },
    /** The ref of a row's Edit button. */
    editButton: (id: string) => (el: HTMLButtonElement | null) => {
      if (el && returnTo.current === id) {
        returnTo.current = null;
        el.focus();
      }
    },
  };
}

/** Gives the first field of an edit form focus on opening; Escape cancels. */
export function useEditForm(onCancel: (() => void) | undefined) {
  const first = useRef<HTMLInputElement & HTMLTextAreaElement>(null);
  const editing = onCancel !== undefined;
  useEffect(() => {
    if (editing) first.current?.focus();
  }, [editing]);
  return {
    first,
    onKeyDown: (event: KeyboardEvent) => {
      if (onCancel && event.key === "Escape") {
        event.preventDefault();
        onCancel();
      }
    },
  };
}

/**
 * The fields of `now` that differ from `from` (the values the form opened with; lists compared item
 * by item): what an edit sends. A field sent as it was read would undo a change made to it since in
 * another tab or by an AI client.
 */
export function changedFields<T extends Record<string, unknown>>(from: T, now: T): Partial<T> {
  const same = (a: unknown, b: unknown) =>
    Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((item, i) => item === b[i]) : a === b;
  return Object.fromEntries(Object.entries(now).filter(([key, value]) => !same(from[key], value))) as Partial<T>;
}
