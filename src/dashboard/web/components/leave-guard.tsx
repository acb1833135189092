// While a form holds changes that are not saved, leaving the page asks first: the browser's own
// question when the tab is closed or reloaded or another site is opened, and the app's dialog when a
// link to another dashboard page is clicked. Nothing is asked once the changes are saved.
import { type ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { ConfirmDialog } from "./confirm";

/** Where a click on a link would take the app, decided as preact-iso's router decides it; null when the router would let it be. */
function inAppDestination(event: MouseEvent): string | null {
  if (event.button !== 0 || event.ctrlKey || event.metaKey || event.altKey || event.shiftKey) return null;
  const link = event.composedPath().find((node): node is HTMLAnchorElement => node instanceof HTMLAnchorElement && node.href !== "");
  if (!link || link.origin !== location.origin || link.download || !/^(_?self)?$/i.test(link.target)) return null;
  if (link.getAttribute("href")?.startsWith("#")) return null;
  return link.href.slice(location.origin.length);
}

export function LeaveGuard({ when, children }: { when: boolean; children: ComponentChildren }) {
  const { route } = useLocation();
  const [destination, setDestination] = useState<string | null>(null);
  useEffect(() => {
    if (!when) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // What browsers before 2023 (Chrome before 119, Safari) ask for instead.
      event.returnValue = true;
    };
    const onClick = (event: MouseEvent) => {
      const to = inAppDestination(event);
      if (to === null || to === location.pathname + location.search) return;
      // Captured on the window, before the router's own listener (bubbling, also on the window) navigates.
      event.preventDefault();
      event.stopPropagation();
      setDestination(to);
    };
    addEventListener("beforeunload", onBeforeUnload);
    addEventListener("click", onClick, true);
    return () => {
      removeEventListener("beforeunload", onBeforeUnload);
      removeEventListener("click", onClick, true);
    };
  }, [when]);
  return (
    <ConfirmDialog
      open={destination !== null}
      title="Leave without saving?"
      confirmLabel="Leave without saving"
      onConfirm={async () => {
        if (destination !== null) route(destination);
      }}
      onClose={() => setDestination(null)}
    >
      {children}
    </ConfirmDialog>
  );
}
