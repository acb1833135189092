// Sign in with email and password; the first visitor of a new instance is sent to create the owner.

import { useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, errorMessage } from "../../api";
import { useFlash } from "../../components/flash";
import { Button, Field, Notice, PageHeading } from "../../components/ui";
import { useSession } from "../../session";

/** Where to go after signing in: a path of this dashboard passed as ?next= (never another site), else home. */
export function nextPath(next: string | undefined): string {
  // Browsers drop tabs and newlines from URLs and read a backslash as "/": "/<tab>/evil" would become "//evil".
  if (!next?.startsWith("/") || next.startsWith("//") || /[\u0000-\u001f\u007f\\]/.test(next)) return "/";
  return next;
}

export function SignIn() {
  const { refresh, status, me } = useSession();
  const { route, query } = useLocation();
  const next = nextPath(query.next);
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const passwordInput = useRef<HTMLInputElement>(null);
  // An account's deletion, said here, where it sends the person.
  const deleted = useFlash("sign-in", me === null);
  if (me) {
    route(next, true);
    return null;
  }
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.login(email, password);
      await refresh();
      route(next);
    } catch (e) {
      setError((e as { status?: number }).status === 401 ? "The email or the password is not right." : errorMessage(e));
      // The keyboard was on the button, disabled while signing in (so on the page's body by now):
      // it goes back to the password, selected, to be typed again.
      requestAnimationFrame(() => passwordInput.current?.select());
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="standalone narrow">
      <p class="logo">Spyglass</p>
      <PageHeading title="Sign in" />
      {deleted !== null && <Notice kind="success">{deleted}</Notice>}
      {next.startsWith("/oauth/consent") && <p>Sign in to connect an AI app to one of your brands.</p>}
      {status?.setup && (
        <Notice kind="info">
          This instance has no account yet. <a href="/welcome">Create the owner account</a>.
        </Notice>
      )}
      <form onSubmit={submit} class="stack">
        <Field label="Email">
          {(p) => (
            <input {...p} type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          )}
        </Field>
        <Field label="Password">
          {(p) => (
            <input
              {...p}
              ref={passwordInput}
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
        {error && <Notice kind="error">{error}</Notice>}
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </Button>
      </form>
      {status?.signup === "open" && !status.setup && (
        <p class="hint">
          New here? <a href="/welcome">Create an account</a>.
        </p>
      )}
      {status && !status.setup && (
        <details class="hint forgot">
          <summary>Forgot your password?</summary>
          <p>
            Spyglass sends no email, so it cannot mail you a link. Whoever runs this server can set a new password for your account with{" "}
            {/* Broken between its words only: a line ended at "--" inside "--password" (1280 px). */}
            <code>
              spyglass account password <span class="nowrap">--email</span> {email.trim() || "you@example.com"}{" "}
              <span class="nowrap">--password -</span>
            </code>{" "}
            (it asks for the new one); your sessions and connected apps are signed out, and your API keys keep working.
          </p>
        </details>
      )}
    </main>
  );
}
