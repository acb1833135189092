// The signed-in person's own account: its email and plan, a new password (the current one confirms
// it; other sessions are signed out), and the account's deletion with everything of it, behind its
// password. The instance's owner is told why theirs cannot be deleted here.
import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, errorMessage, MIN_PASSWORD } from "../../api";
import { ConfirmDialog } from "../../components/confirm";
import { useFieldErrors, withoutFieldName } from "../../components/field-error";
import { leaveFlash } from "../../components/flash";
import { Button, Field, Notice, PageHeading } from "../../components/ui";
import { useSession } from "../../session";
import { PLAN_LABELS } from "../accounts";

function ChangePassword() {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [busy, setBusy] = useState(false);
  // A refusal of either password is said under its field ("current_password: …" named the API's field).
  const { form, failure, setFailure, errorFor } = useFieldErrors(["current_password", "new_password"]);
  const [done, setDone] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    setDone(null);
    try {
      const { other_sessions_ended: ended } = await api.changePassword(current, next);
      setCurrent("");
      setNext("");
      setDone(
        ended === 0
          ? "Your password is changed."
          : `Your password is changed; ${ended === 1 ? "your other session is" : `your ${ended} other sessions are`} signed out.`,
      );
    } catch (e) {
      setFailure(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card stack" aria-labelledby="password-heading">
      <h2 id="password-heading">Change your password</h2>
      <form class="stack" onSubmit={submit} ref={form}>
        <Field label="Current password" error={errorFor("current_password")}>
          {(p) => (
            <input
              {...p}
              type="password"
              autoComplete="current-password"
              required
              value={current}
              onInput={(e) => setCurrent(e.currentTarget.value)}
            />
          )}
        </Field>
        <Field
          label="New password"
          error={errorFor("new_password")}
          hint={`At least ${MIN_PASSWORD} characters. Your other sessions are signed out; connected apps stay connected.`}
        >
          {(p) => (
            <input
              {...p}
              type="password"
              autoComplete="new-password"
              required
              minLength={MIN_PASSWORD}
              value={next}
              onInput={(e) => setNext(e.currentTarget.value)}
            />
          )}
        </Field>
        {failure !== null && <Notice kind="error">{errorMessage(failure)}</Notice>}
        {done && <Notice kind="success">{done}</Notice>}
        <div>
          <Button type="submit" variant="primary" disabled={busy}>
            {busy ? "Changing…" : "Change the password"}
          </Button>
        </div>
      </form>
    </section>
  );
}

function DeleteAccount({ email }: { email: string }) {
  const { refresh } = useSession();
  const { route } = useLocation();
  const [open, setOpen] = useState(false);
  const [password, setPassword] = useState("");
  const remove = async () => {
    const { deleted } = await api.deleteAccount(password).catch((e: unknown) => {
      throw withoutFieldName(e, "password");
    });
    leaveFlash(
      "sign-in",
      `Deleted the account ${deleted.email} and everything of it (${deleted.brands} ${deleted.brands === 1 ? "brand" : "brands"}).`,
    );
    route("/sign-in");
    await refresh();
  };
  return (
    <section class="card stack" aria-labelledby="delete-account-heading">
      <h2 id="delete-account-heading">Delete your account</h2>
      <p>
        Deletes {email} with everything of it: every brand (prompts, competitors, tags, tracked answers and their figures, articles, API
        keys and connected apps), and your sessions. It cannot be undone; a backup the instance's operator made before keeps it.
      </p>
      <div>
        <Button
          variant="danger"
          onClick={() => {
            setPassword("");
            setOpen(true);
          }}
        >
          Delete the account…
        </Button>
      </div>
      <ConfirmDialog
        open={open}
        title="Delete your account?"
        confirmLabel="Delete the account"
        ready={password !== ""}
        onConfirm={remove}
        onClose={() => setOpen(false)}
      >
        <p>
          {email} and all of its brands are deleted. Their published articles leave the public content API, and AI clients using their keys
          are refused from their next request.
        </p>
        <Field label="Your password, to confirm">
          {(p) => (
            <input
              {...p}
              type="password"
              autoComplete="current-password"
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          )}
        </Field>
      </ConfirmDialog>
    </section>
  );
}

export function OwnAccount() {
  const { me } = useSession();
  if (!me) return null;
  return (
    <>
      <PageHeading title="Your account" />
      <dl class="facts">
        <dt>Email</dt>
        <dd>{me.account.email}</dd>
        <dt>Plan</dt>
        <dd>{PLAN_LABELS[me.account.plan]}</dd>
      </dl>
      <ChangePassword />
      {me.owner ? (
        <section class="card stack" aria-labelledby="delete-account-heading">
          <h2 id="delete-account-heading">Delete your account</h2>
          <p>
            This account owns this Spyglass instance, so it cannot be deleted here: the owner keeps the instance's accounts. Delete brands
            on their Brand pages, or remove the whole instance (its data directory).
          </p>
        </section>
      ) : me.demo_kept ? (
        <section class="card stack" aria-labelledby="delete-account-heading">
          <h2 id="delete-account-heading">Delete your account</h2>
          <p>
            This is the demo's account. It keeps this instance's first sign-up closed until the owner's account exists (
            <code>spyglass account create</code>), so it cannot be deleted before. <code>spyglass demo --reset</code> seeds it again.
          </p>
        </section>
      ) : (
        <DeleteAccount email={me.account.email} />
      )}
    </>
  );
}
