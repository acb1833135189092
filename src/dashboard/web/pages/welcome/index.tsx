// First run: the first visitor creates the instance's owner account (CONTRACT §3 signup). On an
// instance whose signup is open, the same form creates an ordinary account.

import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, errorMessage, MIN_PASSWORD } from "../../api";
import { useFieldErrors } from "../../components/field-error";
import { Button, Field, Notice, PageHeading } from "../../components/ui";
import { useSession } from "../../session";

export function Welcome() {
  const { refresh, status, me } = useSession();
  const { route } = useLocation();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  // A refusal of the email (malformed, taken) or the password is said under its field, with the
  // keyboard there: "email: this is not an email address." was the form's one alert.
  const { form, failure, setFailure, errorFor } = useFieldErrors(["email", "password"], { email_taken: "email" });
  const [busy, setBusy] = useState(false);
  if (me) {
    route("/", true);
    return null;
  }
  const owner = status?.setup ?? false;
  if (status && !owner && status.signup !== "open") {
    return (
      <main id="main" class="standalone narrow">
        <p class="logo">Spyglass</p>
        <PageHeading title="Signup is closed" />
        <p>Ask the owner of this instance for an account, then sign in.</p>
        <p>
          <a href="/sign-in">Sign in</a>
        </p>
      </main>
    );
  }
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      await api.signup(email, password);
      await refresh();
      route("/brands");
    } catch (e) {
      setFailure(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="standalone narrow">
      <p class="logo">Spyglass</p>
      <PageHeading title={owner ? "Welcome to Spyglass" : "Create an account"} />
      {owner && (
        <p>
          This instance is new. The account you create now is its owner, with every part of it (the Autopilot plan): it manages the other
          accounts and their plans.
        </p>
      )}
      <form ref={form} onSubmit={submit} class="stack">
        <Field label="Email" error={errorFor("email")}>
          {(p) => (
            <input {...p} type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          )}
        </Field>
        <Field label="Password" hint={`At least ${MIN_PASSWORD} characters.`} error={errorFor("password")}>
          {(p) => (
            <input
              {...p}
              type="password"
              autoComplete="new-password"
              required
              minLength={MIN_PASSWORD}
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
        {failure !== null && <Notice kind="error">{errorMessage(failure)}</Notice>}
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Creating…" : owner ? "Create the owner account" : "Create the account"}
        </Button>
      </form>
      {/* On a fresh instance no account exists yet to sign in with (a review found the line there). */}
      {!owner && (
        <p class="hint">
          Already have an account? <a href="/sign-in">Sign in</a>.
        </p>
      )}
    </main>
  );
}
