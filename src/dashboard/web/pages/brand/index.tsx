// One brand: its name, domain and aliases (edited through update_brand, so stored answers are
// re-analysed as the tool server would), the engines and schedule it is tracked on, and the public
// site key with a snippet for the brand's own site.
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api, type Brand, errorMessage } from "../../api";
import { ConfirmDialog } from "../../components/confirm";
import { NoEngines } from "../../components/engines";
import { useFieldErrors } from "../../components/field-error";
import { leaveFlash } from "../../components/flash";
import { changedFields } from "../../components/in-place";
import { brandPath } from "../../components/layout";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { describeSchedule } from "../../components/schedule";
import { Button, CopyBlock, Field, LoadFailed, Notice, PageHeading, useLoad } from "../../components/ui";
import { useSession } from "../../session";
import { parseList } from "../brands";

function siteSnippet(origin: string, siteKey: string): string {
  return `<!-- Lists the brand's published articles; each links to ?article=<slug> on the same page. -->
<div id="spyglass-articles"></div>
<script type="module">
  const api = "${origin}/api/public/articles";
  const key = "${siteKey}";
  const root = document.getElementById("spyglass-articles");
  const slug = new URLSearchParams(location.search).get("article");
  if (slug) {
    const res = await fetch(\`\${api}/\${encodeURIComponent(slug)}?key=\${key}\`);
    if (res.ok) {
      const { article } = await res.json();
      const h1 = document.createElement("h1");
      h1.textContent = article.title;
      const body = document.createElement("div");
      body.innerHTML = article.html; // sanitized by Spyglass when the article was saved
      root.append(h1, body);
    } else {
      // Unpublished, renamed or never there (404).
      root.textContent = "This article is not available.";
    }
  } else {
    const { articles } = await (await fetch(\`\${api}?key=\${key}\`)).json();
    for (const a of articles) {
      const link = document.createElement("a");
      link.href = \`?article=\${encodeURIComponent(a.slug)}\`;
      link.textContent = a.title;
      const item = document.createElement("p");
      item.append(link);
      root.append(item);
    }
  }
</script>`;
}

function Tracking({ brandId }: { brandId: string }) {
  const loaded = useLoad(() => api.tool(brandId, "get_brand", {}), [brandId]);
  return (
    <section class="card stack" aria-labelledby="tracking-heading">
      <h2 id="tracking-heading">Tracking</h2>
      {loaded.failure && isPlanRequired(loaded.failure) ? (
        <PlanNeeded required="visibility" what="Tracking the brand's answers" />
      ) : loaded.error ? (
        <LoadFailed error={loaded.error} failure={loaded.failure} retry={loaded.reload} />
      ) : !loaded.data ? (
        <p class="muted">Loading…</p>
      ) : loaded.data.engines.every((e) => !e.configured) ? (
        <NoEngines level={3} />
      ) : (
        <>
          <p>
            {loaded.data.tracking.enabled ? (
              <>
                The engines below are asked <strong>{describeSchedule(loaded.data.tracking.schedule)}</strong> (UTC),{" "}
              </>
            ) : (
              "Scheduled tracking is off: runs start with Run now on the Tracking page, and each asks the engines below for "
            )}
            {loaded.data.tracking.samples} answer{loaded.data.tracking.samples === 1 ? "" : "s"} per prompt.{" "}
            <a href={brandPath(brandId, "/tracking")}>Tracking</a> shows the last run and the next.
          </p>
          <ul>
            {loaded.data.engines
              .filter((e) => e.configured)
              .map((e) => (
                <li key={e.id}>
                  {e.label} <span class="muted">({e.model})</span>
                </li>
              ))}
          </ul>
        </>
      )}
    </section>
  );
}

function EditBrand({ brand }: { brand: Brand }) {
  const { refresh } = useSession();
  const [name, setName] = useState(brand.name);
  const [domain, setDomain] = useState(brand.domain ?? "");
  const [aliases, setAliases] = useState(brand.aliases.join("\n"));
  const { form, failure, setFailure, errorFor } = useFieldErrors(["name", "domain", "aliases"], { brand_exists: "name" });
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  // The fields follow the stored brand when it changes, not each time the session is read again
  // (a refresh in flight would otherwise wipe what is being typed). After a save they show what was
  // stored (the domain as the server wrote it, the aliases without blank lines), unless something
  // was typed while the save was on its way: that stays, to be saved next.
  const stored = JSON.stringify([brand.name, brand.domain, brand.aliases]);
  const sent = useRef<string | null>(null);
  // The stored brand the fields were last set from. Not on mount: the fields start from it, and the
  // effect runs a frame after the form is shown, which wiped what was typed in that frame (a test's
  // fill on a loaded machine saved the old name).
  const shown = useRef(stored);
  useEffect(() => {
    if (shown.current === stored) return;
    shown.current = stored;
    const typedSince = sent.current !== null && sent.current !== JSON.stringify([name, domain, aliases]);
    sent.current = null;
    if (typedSince) return;
    setName(brand.name);
    setDomain(brand.domain ?? "");
    setAliases(brand.aliases.join("\n"));
  }, [stored]);

  // The fields as last rendered: what a save's answer compares with what it sent.
  const latest = useRef("");
  latest.current = JSON.stringify([name, domain, aliases]);
  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    setSaved(false);
    const sending = JSON.stringify([name, domain, aliases]);
    sent.current = sending;
    try {
      // Against the brand as stored: the fields follow it when it changes (above).
      const { brand: updated } = await api.tool(
        brand.id,
        "update_brand",
        changedFields(
          { name: brand.name, domain: brand.domain, aliases: brand.aliases },
          { name, domain: domain.trim() ? domain : null, aliases: parseList(aliases) },
        ),
      );
      // A save the server stored as it already was (a URL typed where the domain was already its
      // host) changes no stored value, so the effect above does not run: the fields show what is
      // stored all the same, unless something was typed meanwhile.
      if (latest.current === sending) {
        setName(updated.name);
        setDomain(updated.domain ?? "");
        setAliases(updated.aliases.join("\n"));
        // The fields as now shown: what is typed from here on stays when the stored brand comes back
        // from the session's refresh, and a later change of it (another tab) is followed.
        sent.current = JSON.stringify([updated.name, updated.domain ?? "", updated.aliases.join("\n")]);
      }
      await refresh();
      setSaved(true);
    } catch (e) {
      // Nothing was stored: no change of the brand is on its way to the fields.
      sent.current = null;
      setFailure(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form ref={form} onSubmit={save} class="stack card" aria-label="Edit the brand">
      <h2>Name and site</h2>
      <Field label="Name" hint="As AI answers write it." error={errorFor("name")}>
        {(p) => <input {...p} required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field label="Domain" hint="The brand's own site; citations of it count as owned. Leave empty for none." error={errorFor("domain")}>
        {(p) => <input {...p} value={domain} onInput={(e) => setDomain(e.currentTarget.value)} />}
      </Field>
      <Field
        label="Aliases"
        hint="Other names that count as the brand, one per line. Stored answers are re-analysed after a change."
        error={errorFor("aliases")}
      >
        {(p) => <textarea {...p} rows={3} value={aliases} onInput={(e) => setAliases(e.currentTarget.value)} />}
      </Field>
      {failure !== null &&
        (isPlanRequired(failure) ? (
          <PlanNeeded required="visibility" what="Editing the brand" />
        ) : (
          <Notice kind="error">{errorMessage(failure)}</Notice>
        ))}
      {saved && <Notice kind="success">Saved.</Notice>}
      <Button type="submit" variant="primary" disabled={busy}>
        {busy ? "Saving…" : "Save"}
      </Button>
    </form>
  );
}

/** The brand's end: everything of it goes, once its name is typed. */
function DeleteBrand({ brand }: { brand: Brand }) {
  const { refresh } = useSession();
  const { route } = useLocation();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const remove = async () => {
    await api.deleteBrand(brand.id);
    leaveFlash("brands", `Deleted the brand “${brand.name}” and everything of it.`);
    // To the list first: on this page, the session without the brand would say it is not yours.
    route("/brands");
    await refresh();
  };
  return (
    <section class="card stack" aria-labelledby="delete-heading">
      <h2 id="delete-heading">Delete the brand</h2>
      <p>
        Deletes {brand.name} with everything of it: prompts, competitors, tags, tracked answers and their figures, articles, API keys and
        connected apps. It cannot be undone; a backup made before (<code>spyglass backup</code>) keeps it.
      </p>
      <div>
        <Button
          variant="danger"
          onClick={() => {
            setTyped("");
            setOpen(true);
          }}
        >
          Delete the brand…
        </Button>
      </div>
      <ConfirmDialog
        open={open}
        title={`Delete the brand “${brand.name}”?`}
        confirmLabel="Delete the brand"
        ready={typed.trim() === brand.name}
        onConfirm={remove}
        onClose={() => setOpen(false)}
      >
        <p>
          Its prompts, competitors, tags, tracked answers and figures, articles, API keys and connected apps are deleted. Its published
          articles leave the public content API, so the site's pages of them are no longer found, and AI clients using its keys are refused
          from their next request.
        </p>
        <Field label="The brand's name, to confirm" hint={`Type ${brand.name}.`}>
          {(p) => <input {...p} autoComplete="off" spellcheck={false} value={typed} onInput={(e) => setTyped(e.currentTarget.value)} />}
        </Field>
      </ConfirmDialog>
    </section>
  );
}

export function BrandSettings({ brandId }: { brandId: string }) {
  const { brands, status } = useSession();
  const brand = brands.find((b) => b.id === brandId);
  if (!brand) return null;
  const origin = status?.public_url ? new URL(status.public_url).origin : location.origin;
  return (
    <>
      <PageHeading title={brand.name} />
      <EditBrand brand={brand} />
      <Tracking brandId={brandId} />
      <section class="card stack" aria-labelledby="site-heading">
        <h2 id="site-heading">The brand's site</h2>
        <p>
          Published articles are served to the brand's own site by the public content API, read with this site key (it is not a secret).
        </p>
        <CopyBlock label="Site key" text={brand.site_key} />
        <CopyBlock label="Article list URL" text={`${origin}/api/public/articles?key=${brand.site_key}`} />
        <CopyBlock label="Snippet for the site" text={siteSnippet(origin, brand.site_key)} />
      </section>
      <DeleteBrand brand={brand} />
    </>
  );
}
