// The brand's competitors, through list_competitors / create_competitor / update_competitor /
// delete_competitor: name, aliases and domains (one per line), edited in place, removed behind a
// confirmation. Every change re-analyses the stored answers, as the tools say.
import { useRef, useState } from "preact/hooks";
import { type ToolOutput } from "../../../../catalogue/types";
import { api, errorMessage } from "../../api";
import { ConfirmDialog } from "../../components/confirm";
import { readableDomain } from "../../components/domains";
import { DownloadCsv } from "../../components/download-csv";
import { useFieldErrors } from "../../components/field-error";
import { changedFields, useEditForm, useInPlaceEdit } from "../../components/in-place";
import { usePaged } from "../../components/paged";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { MoreButton, RowActions } from "../../components/rows";
import { Button, EmptyState, Field, LoadFailed, Notice, PageHeading } from "../../components/ui";

type Competitor = ToolOutput<"list_competitors">["competitors"][number];
interface Roster {
  name: string;
  aliases: string[];
  domains: string[];
}

const PLAN_WHAT = "Tracking competitors";
const REANALYSIS = "Stored answers are re-analysed with the change in the background; the figures update when that is done.";

/** One entry per line. */
function lines(text: string): string[] {
  return text
    .split("\n")
    .map((s) => s.trim())
    .filter(Boolean);
}

function Failure({ failure }: { failure: unknown }) {
  return isPlanRequired(failure) ? (
    <PlanNeeded required="visibility" what={PLAN_WHAT} />
  ) : (
    <Notice kind="error">{errorMessage(failure)}</Notice>
  );
}

function CompetitorForm({
  label,
  initial,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  label: string;
  initial: Roster;
  submitLabel: string;
  /** `from`: the values the form opened with (the list may have been read again under it since). */
  onSubmit: (value: Roster, from: Roster) => Promise<void>;
  onCancel?: () => void;
}) {
  const from = useRef(initial).current;
  const [name, setName] = useState(initial.name);
  const [aliases, setAliases] = useState(initial.aliases.join("\n"));
  const [domains, setDomains] = useState(initial.domains.join("\n"));
  const [busy, setBusy] = useState(false);
  const { form: formRef, failure, setFailure, errorFor } = useFieldErrors(["name", "aliases", "domains"], { competitor_exists: "name" });
  const form = useEditForm(onCancel);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      await onSubmit({ name, aliases: lines(aliases), domains: lines(domains) }, from);
      if (!onCancel) {
        setName("");
        setAliases("");
        setDomains("");
      }
    } catch (e) {
      setFailure(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form ref={formRef} onSubmit={submit} onKeyDown={form.onKeyDown} class={onCancel ? "stack edit-form" : "stack"} aria-label={label}>
      <Field label="Competitor name" hint="As AI answers write it, 3 to 100 characters." error={errorFor("name")}>
        {(p) => <input {...p} ref={form.first} required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field
        label="Aliases"
        hint="Other names or spellings counted as the competitor, one per line (up to 20)."
        error={errorFor("aliases")}
      >
        {(p) => <textarea {...p} rows={2} value={aliases} onInput={(e) => setAliases(e.currentTarget.value)} />}
      </Field>
      <Field
        label="Domains"
        hint="Its sites, such as example.com, one per line (up to 20): citations of them count as the competitor's."
        error={errorFor("domains")}
      >
        {(p) => <textarea {...p} rows={2} value={domains} onInput={(e) => setDomains(e.currentTarget.value)} />}
      </Field>
      {failure !== null && <Failure failure={failure} />}
      <div class="actions">
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </Button>
        {onCancel && <Button onClick={onCancel}>Cancel</Button>}
      </div>
    </form>
  );
}

function List({ items }: { items: string[] }) {
  if (items.length === 0) return <span class="muted">—</span>;
  return (
    <ul class="plain-list">
      {items.map((item) => (
        <li key={item}>{item}</li>
      ))}
    </ul>
  );
}

export function Competitors({ brandId }: { brandId: string }) {
  const list = usePaged<Competitor>(
    async (cursor) => {
      const out = await api.tool(brandId, "list_competitors", { limit: 200, ...(cursor ? { cursor } : {}) });
      return { items: out.competitors, next: out.next_cursor };
    },
    [brandId],
  );
  const edit = useInPlaceEdit();
  const [deleting, setDeleting] = useState<Competitor | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  if (isPlanRequired(list.failure)) {
    return (
      <>
        <PageHeading title="Competitors" />
        <PlanNeeded required="visibility" what={PLAN_WHAT} />
      </>
    );
  }
  const create = async (value: Roster) => {
    setMessage(null);
    const out = await api.tool(brandId, "create_competitor", value);
    setMessage(`Added the competitor “${out.competitor.name}”. ${REANALYSIS}`);
    list.reload();
  };
  return (
    <>
      <PageHeading title="Competitors">
        {list.items.length > 0 && <DownloadCsv brandId={brandId} tool="list_competitors" label="competitors" />}
      </PageHeading>
      <p class="page-intro">
        The other brands counted in the same AI answers, for share of voice, ranking and content gaps. Their aliases and domains tell
        Spyglass which mentions and citations are theirs. {REANALYSIS}
      </p>
      {message && <Notice kind="success">{message}</Notice>}
      {list.error && <LoadFailed error={list.error} failure={list.failure} retry={list.reload} />}
      {list.loaded && list.items.length === 0 ? (
        <EmptyState title="No competitors yet">
          <p>Add the brands people compare this one with, such as the ones AI assistants name next to it.</p>
        </EmptyState>
      ) : (
        <div class="table-wrap">
          <table class="roster-table cards-narrow cards-facts">
            <caption class="offscreen">Competitors of the brand</caption>
            <thead>
              <tr>
                <th scope="col">Competitor</th>
                <th scope="col">Aliases</th>
                <th scope="col">Domains</th>
                <th scope="col">
                  <span class="offscreen">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((c) =>
                edit.editing === c.id ? (
                  <tr key={c.id}>
                    <td colSpan={4}>
                      <CompetitorForm
                        label={`Edit competitor ${c.name}`}
                        initial={c}
                        submitLabel="Save"
                        onCancel={edit.stop}
                        onSubmit={async (value, from) => {
                          const out = await api.tool(brandId, "update_competitor", {
                            competitor_id: c.id,
                            ...changedFields(
                              { name: from.name, aliases: from.aliases, domains: from.domains },
                              { name: value.name, aliases: value.aliases, domains: value.domains },
                            ),
                          });
                          list.update((items) => items.map((x) => (x.id === c.id ? out.competitor : x)));
                          edit.stop();
                          setMessage(`Saved the competitor “${out.competitor.name}”. ${REANALYSIS}`);
                        }}
                      />
                    </td>
                  </tr>
                ) : (
                  <tr key={c.id}>
                    <th scope="row">{c.name}</th>
                    <td data-label="Aliases">
                      <List items={c.aliases} />
                    </td>
                    <td data-label="Domains">
                      <List items={c.domains.map(readableDomain)} />
                    </td>
                    <td class="row-action">
                      <RowActions
                        what="competitor"
                        name={c.name}
                        remove="Delete"
                        buttonRef={edit.editButton(c.id)}
                        onEdit={() => {
                          setMessage(null);
                          edit.start(c.id);
                        }}
                        onRemove={() => setDeleting(c)}
                      />
                    </td>
                  </tr>
                ),
              )}
            </tbody>
          </table>
        </div>
      )}
      <MoreButton list={list} />
      <section class="card stack" aria-labelledby="new-competitor-heading">
        <h2 id="new-competitor-heading">Add a competitor</h2>
        <CompetitorForm
          label="Add a competitor"
          initial={{ name: "", aliases: [], domains: [] }}
          submitLabel="Add the competitor"
          onSubmit={create}
        />
      </section>
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this competitor?"
        // The row's Delete button goes with the row: the keyboard goes to the page's heading.
        focusAfter={() => document.querySelector<HTMLElement>("main h1")}
        // The row's button says Delete: the dialog says the same (a review found Delete, then Remove).
        confirmLabel="Delete"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          const out = await api.tool(brandId, "delete_competitor", { competitor_id: deleting.id });
          list.update((items) => items.filter((x) => x.id !== out.competitor.id));
          setMessage(`Deleted the competitor “${out.competitor.name}”. ${REANALYSIS}`);
        }}
      >
        <p>
          “<span class="quoted">{deleting?.name}</span>” stops being tracked and its mentions leave the figures. Stored answers are
          re-analysed without it.
        </p>
      </ConfirmDialog>
    </>
  );
}
