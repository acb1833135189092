// While a form holds changes that are not saved, leaving the page asks first: the browser's own
// question when the tab is closed or reloaded or another site is opened, and the app's dialog when a
// link to another dashboard page is clicked, the browser's Back or Forward is used, or the app itself
// would leave (the brand switcher, Sign out: beforeLeaving). Nothing is asked once the changes are saved.
import { type ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
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

/** A way out of the page: a navigation, or Sign out. */
type Proceed = () => void | Promise<void>;
/** The guard holding unsaved changes, if any: it asks before `proceed` runs. */
let activeGuard: ((proceed: Proceed) => void) | null = null;

/** Runs `proceed` (a navigation the app starts itself) at once, or once the user agrees to leave unsaved changes. */
export function beforeLeaving(proceed: Proceed): void {
  if (activeGuard) activeGuard(proceed);
  else void proceed();
}

/**
 * The guard's answer to Back or Forward while it holds unsaved changes (`to`: where the browser
 * went); false when the address did not change (a fragment), which is let be.
 */
let backOrForward: ((to: string) => boolean) | null = null;

// Back and Forward have moved the address by the time they are heard, and cannot be held: the
// router must not act on them (this listener, added when the app loads, runs before the router's,
// added when it mounts: the window calls its popstate listeners in the order they were added), the
// page's address is put back, and agreeing to leave goes where the browser went.
addEventListener("popstate", (event) => {
  if (backOrForward?.(location.pathname + location.search)) event.stopImmediatePropagation();
});

export function LeaveGuard({ when, children }: { when: boolean; children: ComponentChildren }) {
  const { route, url } = useLocation();
  // What leaving does, once agreed to.
  const [pending, setPending] = useState<Proceed | null>(null);
  // The page's own address, put back when Back or Forward has already left it.
  const here = useRef(url);
  here.current = url;
  useEffect(() => {
    if (!when) return;
    const guard = (proceed: Proceed) => setPending(() => proceed);
    activeGuard = guard;
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
      setPending(() => () => route(to));
    };
    const onBackOrForward = (to: string) => {
      if (to === here.current) return false;
      history.pushState(null, "", here.current);
      setPending(() => () => route(to));
      return true;
    };
    backOrForward = onBackOrForward;
    addEventListener("beforeunload", onBeforeUnload);
    addEventListener("click", onClick, true);
    return () => {
      if (activeGuard === guard) activeGuard = null;
      removeEventListener("beforeunload", onBeforeUnload);
      removeEventListener("click", onClick, true);
      if (backOrForward === onBackOrForward) backOrForward = null;
    };
  }, [when]);
  // The changes were saved while the question was open (a save was under way when the person asked
  // to leave): nothing is left to lose, so the way out they asked for is taken. (The question stayed,
  // saying the saved changes were "not saved".)
  useEffect(() => {
    if (when || pending === null) return;
    const proceed = pending;
    setPending(null);
    void proceed();
  }, [when]);
  return (
    <ConfirmDialog
      open={pending !== null}
      title="Leave without saving?"
      confirmLabel="Leave without saving"
      onConfirm={async () => {
        await pending?.();
      }}
      onClose={() => setPending(null)}
    >
      {children}
    </ConfirmDialog>
  );
}
