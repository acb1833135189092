// A question before a destructive step, in the Dialog: the thing it names, what happens, the
// server's sentence if the step fails. Cancel comes first, so Enter on opening does nothing harmful.
import { type ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { errorMessage } from "../api";
import { isPlanRequired, PlanNeeded } from "./plan";
import { Button, Dialog, Notice } from "./ui";

export function ConfirmDialog({
  open,
  title,
  confirmLabel,
  onConfirm,
  onClose,
  children,
}: {
  open: boolean;
  title: string;
  confirmLabel: string;
  /** Runs the step; a thrown error is shown in the dialog, which then stays open. */
  onConfirm: () => Promise<void>;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const close = () => {
    setFailure(null);
    onClose();
  };
  const confirm = async () => {
    setBusy(true);
    setFailure(null);
    try {
      await onConfirm();
      close();
      // The control that opened the dialog may be gone with what it named: keep the keyboard on the page.
      requestAnimationFrame(() => {
        if (!document.activeElement || document.activeElement === document.body) document.getElementById("main")?.focus();
      });
    } catch (e) {
      setFailure(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog open={open} title={title} onClose={close}>
      <div class="stack">
        {children}
        {failure !== null &&
          (isPlanRequired(failure) ? (
            <PlanNeeded required="visibility" what="Changing the brand's prompts, tags and competitors" />
          ) : (
            <Notice kind="error">{errorMessage(failure)}</Notice>
          ))}
        <div class="actions">
          <Button onClick={close}>Cancel</Button>
          <Button variant="danger" onClick={confirm} disabled={busy}>
            {busy ? "Working…" : confirmLabel}
          </Button>
        </div>
      </div>
    </Dialog>
  );
}
