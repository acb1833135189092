// The dashboard's small set of controls. Each has an accessible name; untrusted text is only ever
// passed as children (text nodes), never as markup.
import { type ButtonHTMLAttributes, type ComponentChildren } from "preact";
import { useCallback, useContext, useEffect, useId, useRef, useState } from "preact/hooks";
import { ApiError, errorMessage, isSignedOut } from "../api";
import { BrandName } from "./brand-name";
import { ScrollFrame } from "./scroll-table";

// The dates as people read them, shared with the MCP Apps views (dates.ts).
export { formatDate, formatDay, formatDays } from "./dates";

type ButtonProps = Omit<ButtonHTMLAttributes<HTMLButtonElement>, "type"> & {
  variant?: "primary" | "secondary" | "danger" | "link";
  type?: "button" | "submit";
  disabled?: boolean;
  /** The button element, for a page that moves the focus to it. */
  buttonRef?: { current: HTMLButtonElement | null };
};

/**
 * A button. One that is disabled while it has the focus (a submit button while its form is being
 * sent) would drop the focus to the page, and a keyboard or screen-reader user would start again
 * from the top: it takes the focus back when it is enabled again, unless the focus went elsewhere.
 */
export function Button({ variant = "secondary", type = "button", class: className, buttonRef, ...rest }: ButtonProps) {
  const own = useRef<HTMLButtonElement>(null);
  const ref = buttonRef ?? own;
  const refocus = useRef(false);
  // Read before this render disables it, while it still has the focus.
  if (rest.disabled && ref.current !== null && document.activeElement === ref.current) refocus.current = true;
  useEffect(() => {
    if (rest.disabled || !refocus.current) return;
    refocus.current = false;
    const active = document.activeElement;
    if (ref.current?.isConnected && (active === null || active === document.body)) ref.current.focus();
  }, [rest.disabled]);
  return <button ref={ref} type={type} class={`btn btn-${variant}${className ? ` ${className}` : ""}`} {...rest} />;
}

interface FieldProps {
  label: string;
  hint?: string;
  error?: string | null;
  children: (props: { id: string; "aria-describedby"?: string; "aria-invalid"?: boolean }) => ComponentChildren;
}

/** A label, the control it names, and its hint and error, linked for screen readers. */
export function Field({ label, hint, error, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children({ id, "aria-describedby": describedBy, "aria-invalid": error ? true : undefined })}
      {hint && (
        <p class="hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p class="field-error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

/**
 * A message the screen reader announces: errors interrupt, confirmations wait their turn. A
 * confirmation's live region is put in the page empty and its words a frame later: a status region
 * added with its text already in it is not announced by every screen reader (VoiceOver on iOS skips
 * some), a change to one already there is. An alert is announced as it appears, words and all.
 */
export function Notice({ kind, children }: { kind: "error" | "success" | "info" | "warning"; children: ComponentChildren }) {
  const [filled, setFilled] = useState(kind === "error");
  useEffect(() => {
    const frame = requestAnimationFrame(() => setFilled(true));
    return () => cancelAnimationFrame(frame);
  }, []);
  return (
    <div class={`notice notice-${kind}`} role={kind === "error" ? "alert" : "status"}>
      {filled && children}
    </div>
  );
}

/** Whether asking again may go otherwise: the server was not reached, or failed on its side (not a refusal such as "not found"). */
function worthRetrying(failure: unknown): boolean {
  return !(failure instanceof ApiError) || failure.status >= 500 || failure.status === 429;
}

/** Where the keyboard goes when Try again takes its alert away: the heading of the alert's section, or of the page, or the page's content. */
function headingNear(element: HTMLElement): HTMLElement | null {
  const heading = element.closest("section")?.querySelector<HTMLElement>("h1, h2, h3") ?? document.querySelector<HTMLElement>("#main h1");
  if (heading && !heading.hasAttribute("tabindex")) heading.setAttribute("tabindex", "-1");
  return heading ?? document.getElementById("main");
}

/**
 * A load that failed: what went wrong and, when asking again may help, a way to do so without
 * reloading the page. The alert goes while the load runs again: the keyboard moves to the nearest
 * heading first, and a new failure is a new alert.
 */
export function LoadFailed({ error, failure, retry }: { error: string; failure: unknown; retry: () => void }) {
  // Signed out meanwhile (another tab, or the session expired): a load sent nothing of the person's,
  // so errorMessage's sentence about typed text does not apply; signing in again brings them back here.
  if (isSignedOut(failure)) {
    return (
      <div class="notice notice-error load-failed" role="alert">
        <p>
          You are signed out (the session ended), so this could not be shown.{" "}
          {/* A whole page load (target _top: the app's router leaves it to the browser): the session
              this page holds still names the account, and the sign-in page would send it straight back. */}
          <a href={`/sign-in?next=${encodeURIComponent(location.pathname + location.search)}`} target="_top">
            Sign in again
          </a>{" "}
          to see it.
        </p>
      </div>
    );
  }
  return (
    <div class="notice notice-error load-failed" role="alert">
      <p>{error}</p>
      {worthRetrying(failure) && (
        <Button
          onClick={(event) => {
            headingNear(event.currentTarget)?.focus();
            retry();
          }}
        >
          Try again
        </Button>
      )}
    </div>
  );
}

/** `level`: the heading's, 3 where the empty state sits inside a section whose own heading is an h2. */
export function EmptyState({ title, level = 2, children }: { title: string; level?: 2 | 3; children?: ComponentChildren }) {
  const Heading = level === 3 ? "h3" : "h2";
  return (
    <section class="empty" aria-label={title}>
      <Heading>{title}</Heading>
      {children}
    </section>
  );
}

/**
 * A modal dialog on the native <dialog>: the browser traps focus inside, closes on Escape and
 * returns focus to the control that opened it.
 */
export function Dialog({
  open,
  title,
  onClose,
  children,
  keepOnEscape,
  onEscapeHeld,
  locked,
}: {
  open: boolean;
  title: string;
  onClose: () => void;
  children: ComponentChildren;
  /**
   * Until something in it was copied, Escape does not close it (a secret shown once would be lost to
   * a stray key): the focus goes to the dialog's primary button, which closes it, instead.
   */
  keepOnEscape?: boolean;
  /** Called when keepOnEscape held an Escape back (to say why the dialog stayed). */
  onEscapeHeld?: () => void;
  /** While true (a step under way), Escape does not close it: closed, it looked cancelled while the step went on. */
  locked?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  // The dialog's close event comes a task after close(): when this component closed it (open turned
  // false) and was asked to open again before that event (a second Back right after Cancel, say),
  // the event is about the earlier closing, and passing it on would cancel the new question.
  const closedHere = useRef(false);
  const openNow = useRef(open);
  openNow.current = open;
  const closeEvent = () => {
    const stale = closedHere.current && openNow.current;
    closedHere.current = false;
    if (!stale) onClose();
  };
  const onCancel = (event: Event) => {
    if (locked) {
      event.preventDefault();
      return;
    }
    if (!keepOnEscape || ref.current?.querySelector('[data-copied="true"]')) return;
    event.preventDefault();
    ref.current?.querySelector<HTMLButtonElement>(".dialog-actions .btn-primary")?.focus();
    onEscapeHeld?.();
  };
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) {
      closedHere.current = true;
      dialog.close();
    }
  }, [open]);
  return (
    <dialog ref={ref} class="dialog" aria-labelledby={titleId} onClose={closeEvent} onCancel={onCancel}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

/** Copies `text`; says so in a live region. Falls back to selecting the text where the clipboard API is not available (plain http). */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  // Whether anything was ever copied here (the new-key dialog's Escape waits for it); "Copied" itself
  // goes after a few seconds, so that it is news each time (it stayed beside the button for good).
  const [copiedOnce, setCopiedOnce] = useState(false);
  // Each copy, a second one within the four seconds too, says so anew and starts the four seconds again.
  const [copies, setCopies] = useState(0);
  useEffect(() => {
    if (copies === 0) return;
    const timer = setTimeout(() => setState("idle"), 4000);
    return () => clearTimeout(timer);
  }, [copies]);
  const copy = async () => {
    try {
      if (navigator.clipboard && window.isSecureContext) await navigator.clipboard.writeText(text);
      else {
        const area = document.createElement("textarea");
        area.value = text;
        area.setAttribute("readonly", "");
        area.className = "offscreen";
        document.body.append(area);
        area.select();
        const ok = document.execCommand("copy");
        area.remove();
        if (!ok) throw new Error("copy refused");
      }
      setState("copied");
      setCopiedOnce(true);
      setCopies((n) => n + 1);
    } catch {
      setState("failed");
    }
  };
  return (
    <span class="copy" data-copied={copiedOnce ? "true" : undefined}>
      <Button onClick={copy} aria-label={label}>
        Copy
      </Button>
      <span role="status" class="copy-status">
        {state === "copied" ? "Copied" : state === "failed" ? "Select the text and copy it" : ""}
      </span>
    </span>
  );
}

/** A block of text to paste elsewhere (a key, a configuration), with its copy button. */
export function CopyBlock({ label, text }: { label: string; text: string }) {
  return (
    <figure class="copy-block">
      <figcaption class="copy-block-head">
        <span class="copy-block-label">{label}</span>
        <CopyButton text={text} label={`Copy ${label}`} />
      </figcaption>
      {/* Code of several lines keeps its lines and scrolls sideways (wrapped, a snippet's indentation
          no longer reads); a key or an address of one line wraps. */}
      {text.includes("\n") ? (
        <ScrollFrame label={`${label}, scrollable`} class="copy-code-frame">
          <pre class="copy-code-lines">
            <code>{text}</code>
          </pre>
        </ScrollFrame>
      ) : (
        // A token (a key: no word to keep whole) is cut into even lines; at 390 px the site key ended
        // with one character alone on its second line.
        <pre class={/^[\w-]+$/.test(text) ? "copy-token" : undefined}>
          <code>{text}</code>
        </pre>
      )}
    </figure>
  );
}

export interface Loaded<T> {
  data: T | null;
  /** The sentence to show for a failed load, and what failed (to tell a plan error from others). */
  error: string | null;
  failure: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads data for a page, again whenever `deps` change; stale answers of an earlier load are dropped. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<Omit<Loaded<T>, "reload">>({ data: null, error: null, failure: null, loading: true });
  const generation = useRef(0);
  // The load (one per deps) whose result `data` is: a failed reload of the same deps keeps it, a failed
  // load of new deps (another filter) drops it, so that no figure of another query stays under the error.
  const producedBy = useRef<unknown>(null);
  const run = useCallback(function run() {
    const mine = ++generation.current;
    setState((s) => ({ ...s, loading: true, error: null, failure: null }));
    load().then(
      (data) => {
        if (mine !== generation.current) return;
        producedBy.current = run;
        setState({ data, error: null, failure: null, loading: false });
      },
      (failure: unknown) =>
        mine === generation.current &&
        setState((s) => ({ data: producedBy.current === run ? s.data : null, error: errorMessage(failure), failure, loading: false })),
    );
  }, deps);
  useEffect(run, [run]);
  return { ...state, reload: run };
}

/**
 * For work that ends after an await (a save, a draft) and then moves the page: call it when the work
 * begins; the function it returns says whether the page that began it is still the one shown (still
 * mounted, at the same address). A person who went elsewhere meanwhile is not pulled back.
 */
export function useStillHere(): () => () => boolean {
  const mounted = useRef(true);
  useEffect(
    () => () => {
      mounted.current = false;
    },
    [],
  );
  // The page, not its filters: a filter changed meanwhile (the address's query) is still this page.
  return () => {
    const at = location.pathname;
    return () => mounted.current && location.pathname === at;
  };
}

// The first page of a visit keeps the browser's own focus (the skip link is the first Tab stop);
// after a navigation inside the app, focus moves to the new page's heading.
let firstPageShown = false;

/** Sets the document title and, after an in-app navigation, gives the page heading focus so a screen reader announces the new page. */
/**
 * The page's h1, focused when the page is shown. `kind`: what the page is of, shown small above a
 * heading that is the thing itself (a prompt's page is headed by the prompt's text).
 */
export function PageHeading({ title, kind, children }: { title: string; kind?: string; children?: ComponentChildren }) {
  const ref = useRef<HTMLHeadingElement>(null);
  const brand = useContext(BrandName);
  useEffect(() => {
    document.title = brand && brand !== title ? `${title} · ${brand} · Spyglass` : `${title} · Spyglass`;
    // A new page, or the same page of another brand (the switcher): the keyboard starts at its heading.
    if (firstPageShown) ref.current?.focus({ preventScroll: true });
    firstPageShown = true;
  }, [title, brand]);
  return (
    <div class="page-head">
      {kind ? (
        <div class="page-title">
          <p class="page-kind">{kind}</p>
          <h1 ref={ref} tabIndex={-1}>
            {title}
          </h1>
        </div>
      ) : (
        <h1 ref={ref} tabIndex={-1}>
          {title}
        </h1>
      )}
      {children}
    </div>
  );
}

/**
 * `text` with places to break a line after its separators, as text nodes and <wbr>: a long address
 * wraps after a slash or an underscore, not in the middle of a word ("crm_recommendatio/ns").
 */
export function Breakable({ text }: { text: string }) {
  const parts = text.split(/(?<=[/?&=_.-])/);
  return <>{parts.flatMap((part, i) => (i === 0 ? [part] : [<wbr key={i} />, part]))}</>;
}
