// The account's brands: each one's pages, and a form to create one.

import { useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, errorMessage } from "../../api";
import { readableDomain } from "../../components/domains";
import { useFieldErrors } from "../../components/field-error";
import { useFlash } from "../../components/flash";
import { brandPath } from "../../components/layout";
import { Button, EmptyState, Field, Notice, PageHeading, useStillHere } from "../../components/ui";
import { useSession } from "../../session";

/** Aliases typed one per line or separated by commas. */
export function parseList(text: string): string[] {
  return text
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A connection request waiting for a brand (the consent page's "Create a brand"): the page to return to, or null. */
function consentToReturnTo(next: string | undefined): string | null {
  return next?.startsWith("/oauth/consent?") ? next : null;
}

function CreateBrand({ returnTo }: { returnTo: string | null }) {
  const { refresh } = useSession();
  const { route } = useLocation();
  const [name, setName] = useState("");
  const [domain, setDomain] = useState("");
  const [aliases, setAliases] = useState("");
  const { form, failure, setFailure, errorFor } = useFieldErrors(["name", "domain", "aliases"], { brand_exists: "name" });
  const [busy, setBusy] = useState(false);
  const stillHere = useStillHere();
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    const here = stillHere();
    try {
      const { brand } = await api.createBrand({ name, ...(domain.trim() ? { domain } : {}), aliases: parseList(aliases) });
      await refresh();
      if (here()) route(returnTo ?? brandPath(brand.id));
    } catch (e) {
      setFailure(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form ref={form} onSubmit={submit} class="stack card" aria-label="Create a brand">
      <h2>Create a brand</h2>
      <Field label="Name" hint="As AI answers write it, such as Acme." error={errorFor("name")}>
        {(p) => <input {...p} required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field
        label="Domain (optional)"
        hint="The brand's own site, such as acme.com: citations of it count as owned."
        error={errorFor("domain")}
      >
        {(p) => <input {...p} value={domain} placeholder="acme.com" onInput={(e) => setDomain(e.currentTarget.value)} />}
      </Field>
      <Field
        label="Aliases (optional)"
        hint="Other names that count as the brand, one per line or separated by commas."
        error={errorFor("aliases")}
      >
        {(p) => <textarea {...p} rows={2} value={aliases} onInput={(e) => setAliases(e.currentTarget.value)} />}
      </Field>
      {failure !== null && <Notice kind="error">{errorMessage(failure)}</Notice>}
      <Button type="submit" variant="primary" disabled={busy}>
        {busy ? "Creating…" : "Create the brand"}
      </Button>
    </form>
  );
}

export function Brands() {
  const { brands } = useSession();
  const { query } = useLocation();
  const returnTo = consentToReturnTo(query.next);
  // The Brand page's deletion, said here, where it sends the user.
  const deleted = useFlash("brands");
  return (
    <>
      <PageHeading title="Brands" />
      {deleted !== null && <Notice kind="success">{deleted}</Notice>}
      {returnTo && (
        <Notice kind="info">
          An app is waiting to connect to one of your brands: create it below, and you go back to its request. Or{" "}
          <a href={returnTo}>go back to the request</a>.
        </Notice>
      )}
      {brands.length === 0 ? (
        <EmptyState title="No brand yet">
          <p>
            Create the brand whose visibility in AI answers you want to track. Prompts, competitors, keys and articles belong to a brand.
          </p>
        </EmptyState>
      ) : (
        <ul class="brand-list">
          {brands.map((b) => (
            <li key={b.id} class="card">
              <a href={brandPath(b.id, "/overview")}>{b.name}</a>
              <span class="muted">{b.domain ? readableDomain(b.domain) : "no domain"}</span>
            </li>
          ))}
        </ul>
      )}
      <CreateBrand returnTo={returnTo} />
    </>
  );
}
