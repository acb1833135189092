// A brand's API keys: create one (its plaintext shown once, with each AI client's configuration),
// list them, revoke one behind a confirmation. The list comes from GET /api/mcp/keys, which holds
// the whole account's active keys; the page shows this brand's and counts them all against the 20.

import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, type ApiKey, api, errorMessage } from "../../api";
import { ConfirmDialog } from "../../components/confirm";
import { useFieldErrors } from "../../components/field-error";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { Button, CopyBlock, Dialog, EmptyState, Field, formatDate, LoadFailed, Notice, PageHeading, useLoad } from "../../components/ui";
import { useSession } from "../../session";
import { clientSetups, mcpUrl, serverNameFor } from "./clients";
import { ConnectedApps } from "./connected-apps";

/** The server's limit of active keys per account (spec "Key management"). */
const MAX_KEYS = 20;

/** What to do at the limit; each brand's keys are listed on its own API keys page. */
const AT_LIMIT = `Revoke a key you no longer use (each brand's keys are on its API keys page) before creating another.`;
// After the server's own sentence ("…; revoke one first."), which it does not repeat.
const OVER_LIMIT = "Each brand's keys are on its API keys page; create this one again once one is revoked.";

interface Created {
  key: { id: string; name: string; key_prefix: string; brand_id: string };
  plaintext: string;
}

function CreateKey({ brandId, total, onCreated }: { brandId: string; total: number | null; onCreated: (created: Created) => void }) {
  const { me } = useSession();
  const [name, setName] = useState("");
  // An empty or over-long name is said under the field, with the keyboard there.
  const { form, failure, setFailure, errorFor } = useFieldErrors(["name"], { invalid_name: "name" });
  const busy = useRef(false);
  const full = total !== null && total >= MAX_KEYS;
  const overLimit = failure instanceof ApiError && failure.code === "key_limit";

  const submit = async (event: Event) => {
    event.preventDefault();
    if (busy.current) return;
    busy.current = true;
    setFailure(null);
    try {
      const created = await api.createKey(name, brandId);
      setName("");
      onCreated(created);
    } catch (e) {
      setFailure(e);
    } finally {
      busy.current = false;
    }
  };

  if (me?.account.plan === "none") {
    return (
      <section class="card stack" aria-labelledby="create-heading">
        <h2 id="create-heading">Create a key</h2>
        <PlanNeeded required="visibility" what="Creating API keys" />
      </section>
    );
  }
  const count = total === null ? null : `${total} of ${MAX_KEYS} active keys on this account.`;
  return (
    <form ref={form} onSubmit={submit} class="card stack" aria-labelledby="create-heading">
      <h2 id="create-heading">Create a key</h2>
      <Field
        label="Key name"
        hint="Where it will be used, such as “Claude Code on my laptop”: 1 to 100 characters."
        error={errorFor("name")}
      >
        {(p) => <input {...p} required maxLength={100} autoComplete="off" value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      {full && !overLimit ? (
        <Notice kind="info">
          {count} An account can have at most {MAX_KEYS} active API keys. {AT_LIMIT}
        </Notice>
      ) : (
        count && <p class="muted">{count}</p>
      )}
      {failure !== null &&
        (isPlanRequired(failure) ? (
          <PlanNeeded required="visibility" what="Creating API keys" />
        ) : (
          <Notice kind="error">
            {errorMessage(failure)}
            {overLimit && ` ${OVER_LIMIT}`}
          </Notice>
        ))}
      <Button type="submit" variant="primary">
        Create the key
      </Button>
    </form>
  );
}

/** The new key, once: the plaintext and each AI client's configuration. Nothing of it outlives the dialog. */
function NewKey({ created, brand }: { created: Created; brand: { id: string; name: string } }) {
  const { status, brands } = useSession();
  const [clientId, setClientId] = useState("claude-code");
  const origin = status?.public_url ? new URL(status.public_url).origin : location.origin;
  const setups = clientSetups(mcpUrl(origin), created.plaintext, serverNameFor(brand, brands));
  const setup = setups.find((s) => s.id === clientId) ?? setups[0]!;
  return (
    <div class="stack dialog-body">
      <p class="notice notice-info">
        <strong>This is the only time the key is shown.</strong> Copy it now and keep it somewhere safe: Spyglass stores only a fingerprint
        of it and cannot show it again. If you lose it, revoke it and create another.
      </p>
      <p>
        The key “{created.key.name}” works for the brand {brand.name} only.
      </p>
      <CopyBlock label="API key" text={created.plaintext} />
      <h3>Connect an AI client</h3>
      <Field label="AI client" hint="Its configuration below has this server's address and the key filled in.">
        {(p) => (
          <select {...p} value={clientId} onChange={(e) => setClientId(e.currentTarget.value)}>
            {setups.map((s) => (
              <option key={s.id} value={s.id}>
                {s.label}
              </option>
            ))}
          </select>
        )}
      </Field>
      <section class="stack client-setup" aria-label={`${setup.label} set-up`}>
        <p>
          <span class="muted">Where:</span> <code>{setup.where}</code>
        </p>
        {setup.note && <p class="muted">{setup.note}</p>}
        {setup.blocks.map((b) => (
          <CopyBlock key={b.label} label={b.label} text={b.text} />
        ))}
      </section>
    </div>
  );
}

function KeyTable({ keys, brandName, onRevoke }: { keys: ApiKey[]; brandName: string; onRevoke: (key: ApiKey) => void }) {
  return (
    <div class="table-wrap">
      <table class="key-table cards-narrow cards-facts">
        <caption class="offscreen">API keys of the brand {brandName}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            {/* Only the key's start is stored: the rest was shown once, at its creation. */}
            <th scope="col">Key starts with</th>
            <th scope="col">Created</th>
            <th scope="col" class="nowrap">
              Last used
            </th>
            <th scope="col">
              <span class="offscreen">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {keys.map((k) => (
            <tr key={k.id}>
              <th scope="row">{k.name}</th>
              <td data-label="Key starts with">
                <code>{k.key_prefix}…</code>
              </td>
              <td data-label="Created">{formatDate(k.created_at)}</td>
              <td data-label="Last used">{formatDate(k.last_used_at)}</td>
              <td class="row-action">
                <Button variant="danger" aria-label={`Revoke ${k.name}`} onClick={() => onRevoke(k)}>
                  Revoke
                </Button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ApiKeys({ brandId }: { brandId: string }) {
  const { brands, me } = useSession();
  const brand = brands.find((b) => b.id === brandId);
  const loaded = useLoad(() => api.keys(), [brandId]);
  const [created, setCreated] = useState<Created | null>(null);
  const [escapeHeld, setEscapeHeld] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);
  const listHeading = useRef<HTMLHeadingElement>(null);
  // Another brand's page says nothing of this one's revocation, nor asks this one's question (the
  // page stays mounted across brands for the new key's dialog: see app.tsx).
  useEffect(() => {
    setRevoked(null);
    setRevoking(null);
  }, [brandId]);
  if (!brand) return null;

  const all = loaded.data?.keys ?? null;
  const mine = all?.filter((k) => k.brand_id === brandId) ?? null;
  const others = all && mine ? all.length - mine.length : 0;

  const onCreated = (result: Created) => {
    setRevoked(null);
    setCreated(result);
    loaded.reload();
  };
  const revoke = async () => {
    if (!revoking) return;
    await api.revokeKey(revoking.id);
    setRevoked(revoking.name);
    loaded.reload();
  };

  return (
    <>
      <PageHeading title="API keys" />
      <p class="page-intro">
        An API key lets an AI client (Claude Code, Cursor, VS Code, Windsurf, Codex, Claude Desktop) use this brand's tools over MCP. Each
        key works for one brand; create one key per client, so that you can revoke one without the others.
      </p>
      <CreateKey brandId={brandId} total={all ? all.length : null} onCreated={onCreated} />
      <section class="stack" aria-labelledby="keys-heading">
        <h2 id="keys-heading" ref={listHeading} tabIndex={-1}>
          This brand's keys
        </h2>
        {revoked !== null && <Notice kind="success">Revoked “{revoked}”: AI clients using it are refused from their next request.</Notice>}
        {loaded.error && <LoadFailed error={loaded.error} failure={loaded.failure} retry={loaded.reload} />}
        {!mine ? (
          !loaded.error && <p class="muted">Loading…</p>
        ) : mine.length === 0 ? (
          <EmptyState title="No API key for this brand">
            <p>
              {me?.account.plan === "none"
                ? "Once the account has a paid plan, create one above and paste its configuration into your AI client."
                : "Create one above, then paste its configuration into your AI client."}
            </p>
          </EmptyState>
        ) : (
          <KeyTable keys={mine} brandName={brand.name} onRevoke={setRevoking} />
        )}
        {others > 0 && (
          <p class="muted">
            The account's {others} other active key{others === 1 ? "" : "s"} belong{others === 1 ? "s" : ""} to its other brands: switch
            brand to see {others === 1 ? "it" : "them"}.
          </p>
        )}
      </section>
      <ConnectedApps brandId={brandId} brandName={brand.name} />
      <Dialog
        open={created !== null}
        title="Your new API key"
        onClose={() => {
          setCreated(null);
          setEscapeHeld(false);
        }}
        keepOnEscape
        onEscapeHeld={() => setEscapeHeld(true)}
      >
        {created && (
          <>
            {/* The key's own brand: the page's may have changed under the dialog (the browser's Back). */}
            <NewKey created={created} brand={brands.find((b) => b.id === created.key.brand_id) ?? brand} />
            <div class="dialog-actions">
              {/* Why an Escape left the dialog open (it seemed to do nothing, the dashboard walk): beside
                  Done, where the keyboard went, and heard there. */}
              <p class="hint dialog-held" role="status">
                {escapeHeld ? "The key is shown only here, so Escape does not close this before it is copied: copy it, or press Done." : ""}
              </p>
              <Button variant="primary" onClick={() => setCreated(null)}>
                Done
              </Button>
            </div>
          </>
        )}
      </Dialog>
      <ConfirmDialog
        open={revoking !== null}
        title={revoking ? `Revoke the key “${revoking.name}”?` : "Revoke the key"}
        confirmLabel="Revoke the key"
        onConfirm={revoke}
        onClose={() => setRevoking(null)}
        focusAfter={() => listHeading.current}
      >
        {revoking && (
          <p>
            AI clients using the key <code>{revoking.key_prefix}…</code> are refused from their next request. This cannot be undone: to
            connect them again, create a new key.
          </p>
        )}
      </ConfirmDialog>
    </>
  );
}
