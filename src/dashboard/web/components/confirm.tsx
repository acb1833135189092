// A question before a destructive step, in the Dialog: the thing it names, what happens, the
// server's sentence if the step fails. Cancel comes first, so Enter on opening does nothing harmful.
import { type ComponentChildren } from "preact";
import { useRef, useState } from "preact/hooks";
import { errorMessage } from "../api";
import { isPlanRequired, PlanNeeded } from "./plan";
import { Button, Dialog, Notice } from "./ui";

export function ConfirmDialog({
  open,
  title,
  confirmLabel,
  onConfirm,
  onClose,
  focusAfter,
  ready = true,
  children,
}: {
  open: boolean;
  title: string;
  confirmLabel: string;
  /** Runs the step; a thrown error is shown in the dialog, which then stays open. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
  /** Where the keyboard goes after the step when the control that opened the dialog is gone (the page's content by default). */
  focusAfter?: () => HTMLElement | null;
  /** False keeps the step's button disabled (until the brand's name is typed, say). */
  ready?: boolean;
  children: ComponentChildren;
}) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const confirmed = useRef(false);
  // The browser closed the dialog while the step was under way (it may close one on a second Escape,
  // whatever the page asks): the step ends without closing it again or moving focus later.
  const closedWhileBusy = useRef(false);
  const close = () => {
    setFailure(null);
    onClose();
  };
  const confirm = async () => {
    closedWhileBusy.current = false;
    setBusy(true);
    setFailure(null);
    try {
      await onConfirm();
      if (closedWhileBusy.current) return;
      confirmed.current = true;
      close();
    } catch (e) {
      setFailure(e);
    } finally {
      setBusy(false);
    }
  };
  // The browser has closed the dialog and returned focus to the control that opened it. After a
  // confirmed action that removes what it named (focusAfter given), that control is about to go
  // with it (the list re-renders a moment later), so the keyboard moves to focusAfter's element at
  // once; otherwise only when the control is already gone.
  const closed = () => {
    if (busy) closedWhileBusy.current = true;
    close();
    if (!confirmed.current) return;
    confirmed.current = false;
    const after = focusAfter?.();
    if (after) after.focus();
    else if (!document.activeElement || document.activeElement === document.body) document.getElementById("main")?.focus();
  };
  return (
    <Dialog open={open} title={title} onClose={closed} locked={busy}>
      {/* A form, so that Enter in the dialog's field (a name or a password to confirm) takes the
          step once it is ready, as the button would; a disabled button submits nothing. */}
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          if (ready && !busy) void confirm();
        }}
      >
        {children}
        {failure !== null &&
          (isPlanRequired(failure) ? (
            <PlanNeeded required="visibility" what="Changing the brand's prompts, tags and competitors" />
          ) : (
            <Notice kind="error">{errorMessage(failure)}</Notice>
          ))}
        <div class="actions">
          {/* Not while the step is under way: it would go on behind a dialog that looked cancelled. */}
          <Button onClick={close} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="danger" disabled={busy || !ready}>
            {busy ? "Working…" : confirmLabel}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
