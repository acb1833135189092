// The brand's tags, through list_tags / create_tag / update_tag / delete_tag: each with its colour,
// name and prompt count (linking to its prompts), renamed and recoloured in place, deleted behind a
// confirmation (its prompts stay tracked).
import { useRef, useState } from "preact/hooks";
import { type ToolOutput } from "../../../../catalogue/types";
import { api, errorMessage } from "../../api";
import { ConfirmDialog } from "../../components/confirm";
import { DownloadCsv } from "../../components/download-csv";
import { useFieldErrors } from "../../components/field-error";
import { changedFields, useEditForm, useInPlaceEdit } from "../../components/in-place";
import { brandPath } from "../../components/layout";
import { usePaged } from "../../components/paged";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { MoreButton, RowActions } from "../../components/rows";
import { TagChip } from "../../components/tag-chip";
import { Button, EmptyState, Field, LoadFailed, Notice, PageHeading } from "../../components/ui";

type Tag = ToolOutput<"list_tags">["tags"][number];

const DEFAULT_COLOR = "#3b82f6";
const PLAN_WHAT = "Grouping prompts with tags";

function Failure({ failure }: { failure: unknown }) {
  return isPlanRequired(failure) ? (
    <PlanNeeded required="visibility" what={PLAN_WHAT} />
  ) : (
    <Notice kind="error">{errorMessage(failure)}</Notice>
  );
}

/** Name and colour of a tag, for both the create form and the in-place edit. */
function TagForm({
  label,
  initial,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  label: string;
  initial: { name: string; color: string | null };
  submitLabel: string;
  /** `from`: the values the form opened with (the list may have been read again under it since). */
  onSubmit: (value: { name: string; color: string | null }, from: { name: string; color: string | null }) => Promise<void>;
  onCancel?: () => void;
}) {
  const from = useRef(initial).current;
  const [name, setName] = useState(initial.name);
  const [color, setColor] = useState(initial.color ?? DEFAULT_COLOR);
  const [noColor, setNoColor] = useState(initial.color === null && initial.name !== "");
  const [busy, setBusy] = useState(false);
  const { form: formRef, failure, setFailure, errorFor } = useFieldErrors(["name", "color"], { tag_exists: "name" });
  const form = useEditForm(onCancel);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      await onSubmit({ name, color: noColor ? null : color }, from);
      if (!onCancel) {
        setName("");
        setColor(DEFAULT_COLOR);
      }
    } catch (e) {
      setFailure(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form ref={formRef} onSubmit={submit} onKeyDown={form.onKeyDown} class={onCancel ? "stack edit-form" : "stack"} aria-label={label}>
      <div class="field-row">
        <Field label="Tag name" hint="Up to 50 characters, unique for the brand ignoring case." error={errorFor("name")}>
          {(p) => <input {...p} ref={form.first} required maxLength={50} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <Field label="Colour" error={errorFor("color")}>
          {(p) => (
            <input
              {...p}
              type="color"
              class="color-input"
              value={color}
              disabled={noColor}
              onInput={(e) => setColor(e.currentTarget.value)}
            />
          )}
        </Field>
      </div>
      <label class="check">
        <input type="checkbox" checked={noColor} onChange={(e) => setNoColor(e.currentTarget.checked)} />
        No colour
      </label>
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

export function Tags({ brandId }: { brandId: string }) {
  const list = usePaged<Tag>(
    async (cursor) => {
      const out = await api.tool(brandId, "list_tags", { limit: 200, ...(cursor ? { cursor } : {}) });
      return { items: out.tags, next: out.next_cursor };
    },
    [brandId],
  );
  const edit = useInPlaceEdit();
  const [deleting, setDeleting] = useState<Tag | null>(null);
  const [message, setMessage] = useState<string | null>(null);

  if (isPlanRequired(list.failure)) {
    return (
      <>
        <PageHeading title="Tags" />
        <PlanNeeded required="visibility" what={PLAN_WHAT} />
      </>
    );
  }
  const create = async (value: { name: string; color: string | null }) => {
    setMessage(null);
    const out = await api.tool(brandId, "create_tag", value);
    setMessage(`Created the tag “${out.tag.name}”.`);
    list.reload();
  };
  return (
    <>
      <PageHeading title="Tags">{list.items.length > 0 && <DownloadCsv brandId={brandId} tool="list_tags" label="tags" />}</PageHeading>
      <p class="page-intro">
        Tags group the brand's prompts (by product, topic, funnel stage or market) to filter the prompts and the analytics.
      </p>
      {message && <Notice kind="success">{message}</Notice>}
      {list.error && <LoadFailed error={list.error} failure={list.failure} retry={list.reload} />}
      {list.loaded && list.items.length === 0 ? (
        <EmptyState title="No tags yet">
          <p>Create one below, or name tags when you add prompts: tags that do not exist yet are created.</p>
        </EmptyState>
      ) : (
        <div class="table-wrap">
          <table class="roster-table compact cards-narrow">
            <caption class="offscreen">Tags of the brand</caption>
            <thead>
              <tr>
                <th scope="col">Tag</th>
                <th scope="col">Colour</th>
                <th scope="col">Prompts</th>
                <th scope="col">
                  <span class="offscreen">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.items.map((t) =>
                edit.editing === t.id ? (
                  <tr key={t.id}>
                    <td colSpan={4}>
                      <TagForm
                        label={`Edit tag ${t.name}`}
                        initial={t}
                        submitLabel="Save"
                        onCancel={edit.stop}
                        onSubmit={async (value, from) => {
                          // Colours compared in lower case, as the colour picker writes them.
                          const out = await api.tool(brandId, "update_tag", {
                            tag_id: t.id,
                            ...changedFields(
                              { name: from.name, color: from.color?.toLowerCase() ?? null },
                              { name: value.name, color: value.color?.toLowerCase() ?? null },
                            ),
                          });
                          list.update((items) => items.map((x) => (x.id === t.id ? out.tag : x)));
                          edit.stop();
                          setMessage(`Saved the tag “${out.tag.name}”.`);
                        }}
                      />
                    </td>
                  </tr>
                ) : (
                  <tr key={t.id}>
                    <th scope="row">
                      <TagChip name={t.name} color={t.color} />
                    </th>
                    <td data-label="Colour">{t.color ? <code>{t.color}</code> : <span class="muted">none</span>}</td>
                    <td data-label="Prompts">
                      <a
                        class="count-link"
                        href={`${brandPath(brandId, "/prompts")}?tag=${encodeURIComponent(t.name)}`}
                        aria-label={`${t.prompt_count} prompt${t.prompt_count === 1 ? "" : "s"} tagged ${t.name}`}
                      >
                        {t.prompt_count}
                      </a>
                    </td>
                    <td class="row-action">
                      <RowActions
                        what="tag"
                        name={t.name}
                        remove="Delete"
                        buttonRef={edit.editButton(t.id)}
                        onEdit={() => {
                          setMessage(null);
                          edit.start(t.id);
                        }}
                        onRemove={() => setDeleting(t)}
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
      <section class="card stack" aria-labelledby="new-tag-heading">
        <h2 id="new-tag-heading">Create a tag</h2>
        <TagForm label="Create a tag" initial={{ name: "", color: DEFAULT_COLOR }} submitLabel="Create the tag" onSubmit={create} />
      </section>
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this tag?"
        // The row's Delete button goes with the row: the keyboard goes to the page's heading.
        focusAfter={() => document.querySelector<HTMLElement>("main h1")}
        confirmLabel="Delete"
        onClose={() => setDeleting(null)}
        onConfirm={async () => {
          if (!deleting) return;
          const out = await api.tool(brandId, "delete_tag", { tag_id: deleting.id });
          list.update((items) => items.filter((x) => x.id !== out.tag.id));
          setMessage(`Deleted the tag “${out.tag.name}”; its prompts are still tracked.`);
        }}
      >
        <p>
          The tag “<span class="quoted">{deleting?.name}</span>” is taken off its {deleting?.prompt_count ?? 0} prompt
          {deleting?.prompt_count === 1 ? "" : "s"}, which stay tracked.
        </p>
      </ConfirmDialog>
    </>
  );
}
