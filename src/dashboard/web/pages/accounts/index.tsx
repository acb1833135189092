// The owner's page: every account of the instance with its plan, and a form to create one.
import { type Ref } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, errorMessage, MIN_PASSWORD, type Plan } from "../../api";
import { ConfirmDialog } from "../../components/confirm";
import { useFieldErrors } from "../../components/field-error";
import { Button, Field, formatDate, LoadFailed, Notice, PageHeading, useLoad } from "../../components/ui";
import { useSession } from "../../session";

export const PLAN_LABELS: Record<Plan, string> = { none: "No plan", visibility: "Visibility", autopilot: "Autopilot" };
const PLANS = Object.keys(PLAN_LABELS) as Plan[];

function PlanSelect({
  id,
  value,
  onChange,
  label,
  selectRef,
}: {
  id?: string;
  value: Plan;
  onChange: (plan: Plan) => void;
  label?: string;
  /** (Not `ref`: a function component is not given its ref.) */
  selectRef?: Ref<HTMLSelectElement>;
}) {
  return (
    <select ref={selectRef} id={id} aria-label={label} value={value} onChange={(e) => onChange(e.currentTarget.value as Plan)}>
      {PLANS.map((p) => (
        <option key={p} value={p}>
          {PLAN_LABELS[p]}
        </option>
      ))}
    </select>
  );
}

/** What the owner's own account can no longer do on a lower plan (nothing stored is deleted). */
function ownDowngrade(to: Plan): string {
  return to === "none"
    ? "Your brands' analytics, prompts, tags, competitors, API keys and articles close to you and to your AI clients, and their scheduled tracking stops, until a plan is set again. Nothing stored is deleted, and published articles stay served."
    : "Articles can no longer be written, edited or published until Autopilot is set again. Nothing stored is deleted, and published articles stay served.";
}

/**
 * An account's plan: chosen, then set with the button. Setting it on the select's change alone set
 * every plan on the way when the keyboard's arrows went through the list (Chromium changes a closed
 * select at each arrow). The owner's own plan set lower asks first: it closes pages to themselves.
 */
function PlanChange({
  email,
  plan,
  own,
  onSet,
  onFailed,
}: {
  email: string;
  plan: Plan;
  own: boolean;
  /** Sets the plan; a refusal is thrown (said in the dialog when it asked, else by onFailed). */
  onSet: (plan: Plan) => Promise<void>;
  onFailed: (failure: unknown) => void;
}) {
  const [chosen, setChosen] = useState<Plan>(plan);
  const [busy, setBusy] = useState(false);
  const [asking, setAsking] = useState(false);
  const select = useRef<HTMLSelectElement>(null);
  // The plan as stored now (set here, or elsewhere and read again): the choice starts from it. The
  // row is not drawn anew for it, so the keyboard stays where it was. Only a change of it resets the
  // choice: run after the row's first frame too, the effect undid a choice made within that frame
  // (fresh-clone CI chose Autopilot on a row just drawn, and Set plan stayed disabled).
  const stored = useRef(plan);
  useEffect(() => {
    if (stored.current === plan) return;
    stored.current = plan;
    setChosen(plan);
  }, [plan]);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (own && PLANS.indexOf(chosen) < PLANS.indexOf(plan)) {
      setAsking(true);
      return;
    }
    setBusy(true);
    try {
      await onSet(chosen);
      // Its button is disabled now (the plan chosen is the plan): the keyboard stays in the row.
      select.current?.focus();
    } catch (failure) {
      onFailed(failure);
    } finally {
      setBusy(false);
    }
  };
  // The dialog beside the form, not in it (its own form would be nested in this one).
  return (
    <>
      <form class="plan-change" onSubmit={submit}>
        <PlanSelect selectRef={select} label={`Plan of ${email}`} value={chosen} onChange={setChosen} />
        <Button type="submit" disabled={chosen === plan || busy} aria-label={`Set plan of ${email}`}>
          Set plan
        </Button>
      </form>
      <ConfirmDialog
        open={asking}
        title={`Set your own plan to ${PLAN_LABELS[chosen]}?`}
        confirmLabel={`Set ${PLAN_LABELS[chosen]}`}
        onConfirm={() => onSet(chosen)}
        onClose={() => setAsking(false)}
        // Set, the button is disabled (the plan chosen is the plan): the keyboard goes to the plan's select.
        focusAfter={() => select.current}
      >
        <p>{ownDowngrade(chosen)}</p>
        <p>You stay the owner, and can set it back on this page.</p>
      </ConfirmDialog>
    </>
  );
}

function CreateAccount({
  created,
  setCreated,
  onCreated,
}: {
  /** The email of the account just created, said until the next step on the page. */
  created: string | null;
  setCreated: (email: string | null) => void;
  onCreated: () => void;
}) {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [plan, setPlan] = useState<Plan>("visibility");
  // A refusal of the email (taken, malformed) or the password is said under its field, with the keyboard there.
  const { form, failure, setFailure, errorFor } = useFieldErrors(["email", "password"], { email_taken: "email" });
  // One account per press: a double click sent two, and showed "already exists" beside "Created".
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setFailure(null);
    setCreated(null);
    try {
      const { account } = await api.createAccount({ email, password, plan });
      setCreated(account.email);
      setEmail("");
      setPassword("");
      onCreated();
    } catch (e) {
      setFailure(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form ref={form} onSubmit={submit} class="stack card" aria-label="Create an account">
      <h2>Create an account</h2>
      <Field label="Email" error={errorFor("email")}>
        {(p) => (
          <input
            {...p}
            type="email"
            required
            autoComplete="off"
            value={email}
            onInput={(e) => {
              setEmail(e.currentTarget.value);
              setCreated(null);
            }}
          />
        )}
      </Field>
      <Field
        label="Password"
        hint={`At least ${MIN_PASSWORD} characters; give it to the person, who signs in with it.`}
        error={errorFor("password")}
      >
        {(p) => (
          <input
            {...p}
            type="password"
            required
            minLength={MIN_PASSWORD}
            autoComplete="new-password"
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label="Plan">{(p) => <PlanSelect id={p.id} value={plan} onChange={setPlan} />}</Field>
      {failure !== null && <Notice kind="error">{errorMessage(failure)}</Notice>}
      {created && <Notice kind="success">Created the account {created}.</Notice>}
      <Button type="submit" variant="primary" disabled={busy}>
        {busy ? "Creating…" : "Create the account"}
      </Button>
    </form>
  );
}

export function Accounts() {
  const { me, refresh } = useSession();
  const loaded = useLoad(() => api.accounts(), []);
  const [message, setMessage] = useState<{ kind: "error" | "success"; text: string } | null>(null);
  // One message at a time: "Created the account …" stayed under the form after a plan was set above.
  const [created, setCreated] = useState<string | null>(null);
  if (!me?.owner) {
    return (
      <>
        <PageHeading title="Accounts" />
        <Notice kind="info">Only the instance's owner manages accounts and plans. Ask them to change your plan.</Notice>
      </>
    );
  }
  const setPlan = async (accountId: string, email: string, plan: Plan) => {
    setMessage(null);
    setCreated(null);
    await api.setPlan(accountId, plan);
    loaded.reload();
    // The owner's own plan changes what every page offers: the message waits for the session.
    if (accountId === me.account.id) await refresh();
    setMessage({ kind: "success", text: `${email} is now on ${PLAN_LABELS[plan]}.` });
  };
  return (
    <>
      <PageHeading title="Accounts" />
      <p class="page-intro">
        Plans decide what an account can do: Visibility for analytics, prompts, tags, competitors and API keys; Autopilot adds articles.
      </p>
      {loaded.error && <LoadFailed error={loaded.error} failure={loaded.failure} retry={loaded.reload} />}
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      {loaded.data && (
        <div class="table-wrap">
          <table class="accounts-table cards-narrow">
            <caption class="offscreen">Accounts of this instance</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Created</th>
                <th scope="col">Plan</th>
              </tr>
            </thead>
            <tbody>
              {loaded.data.accounts.map((a) => (
                <tr key={a.id}>
                  <th scope="row">
                    {a.email}
                    {a.owner && <span class="badge">Owner</span>}
                  </th>
                  <td data-label="Created">{formatDate(a.created_at)}</td>
                  <td data-label="Plan">
                    <PlanChange
                      email={a.email}
                      plan={a.plan}
                      own={a.id === me.account.id}
                      onSet={(plan) => setPlan(a.id, a.email, plan)}
                      onFailed={(failure) => setMessage({ kind: "error", text: errorMessage(failure) })}
                    />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {/* Not on this page: the server's command line does them (CONTRACT's CLI). Each flag with its value unbroken. */}
      <p class="muted">
        A forgotten password, or an account to delete, is for the server's command line:{" "}
        <code>
          spyglass account password <span class="nowrap">--email E</span> <span class="nowrap">--password -</span>
        </code>{" "}
        sets a new password and signs the account out everywhere;{" "}
        <code>
          spyglass account delete <span class="nowrap">--email E</span>
        </code>{" "}
        deletes it with its brands.
      </p>
      <CreateAccount
        created={created}
        setCreated={setCreated}
        onCreated={() => {
          setMessage(null);
          loaded.reload();
        }}
      />
    </>
  );
}
