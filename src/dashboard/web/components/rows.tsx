// The controls every editable list shares: a row's Edit button (which takes the keyboard back when
// its in-place form closes) beside its removal button, and the "More" button of a paged list.
import { useEffect, useRef, useState } from "preact/hooks";
import { type Paged } from "./paged";
import { Button, LoadFailed } from "./ui";

export function EditButton({
  label,
  buttonRef,
  onClick,
}: {
  label: string;
  buttonRef: (el: HTMLButtonElement | null) => void;
  onClick: () => void;
}) {
  return (
    <button type="button" class="btn btn-secondary" ref={buttonRef} aria-label={label} onClick={onClick}>
      Edit
    </button>
  );
}

/** Edit and a removal (Delete, Archive…) for one row, each named after the row for screen readers. */
export function RowActions({
  what,
  name,
  remove,
  buttonRef,
  onEdit,
  onRemove,
}: {
  /** "tag", "competitor"… */
  what: string;
  name: string;
  /** The removal's word: "Delete", "Archive". */
  remove: string;
  buttonRef: (el: HTMLButtonElement | null) => void;
  onEdit: () => void;
  onRemove: () => void;
}) {
  return (
    <div class="row-actions">
      <EditButton label={`Edit ${what} ${name}`} buttonRef={buttonRef} onClick={onEdit} />
      <Button variant="danger" aria-label={`${remove} ${what} ${name}`} onClick={onRemove}>
        {remove}
      </Button>
    </div>
  );
}

/** The next page's button ("More answers"), and why the last one failed, with a way to ask again. */
export function MoreButton<T>({ list, label = "More" }: { list: Paged<T>; label?: string }) {
  const button = useRef<HTMLButtonElement>(null);
  const end = useRef<HTMLParagraphElement>(null);
  // Pressed with the keyboard's focus on it: when that page is the last, the button goes, and the
  // focus goes to the sentence that takes its place (it fell to the page's body, a review found).
  const keepFocus = useRef(false);
  const [ends, setEnds] = useState(0);
  useEffect(() => {
    if (list.loading || !keepFocus.current) return;
    // Settled: the press is answered either way (a later list's end, after a filter, is not its).
    keepFocus.current = false;
    if (!list.hasMore) setEnds((n) => n + 1);
  }, [list.hasMore, list.loading]);
  useEffect(() => {
    if (ends > 0) end.current?.focus();
  }, [ends]);
  if (!list.hasMore) {
    return ends > 0 ? (
      <p ref={end} tabIndex={-1} class="muted list-end">
        That is the whole list.
      </p>
    ) : null;
  }
  return (
    <>
      {list.moreError !== null && <LoadFailed error={list.moreError} failure={list.moreFailure} retry={list.more} />}
      {list.moreError === null && (
        <Button
          buttonRef={button}
          onClick={() => {
            keepFocus.current = document.activeElement === button.current;
            list.more();
          }}
          disabled={list.loading}
        >
          {list.loading ? "Loading…" : label}
        </Button>
      )}
    </>
  );
}
