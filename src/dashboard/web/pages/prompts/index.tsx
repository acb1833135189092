// The brand's tracked prompts, through list_prompts / create_prompts / update_prompt /
// delete_prompt: search, tag filter and "show archived" live in the URL; a bulk add of one prompt
// per line (sent 100 at a time); each row edited in place; archiving behind a confirmation;
// restoring an archived prompt with create_prompts, as the tool's description says.
import { useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { type ToolOutput } from "../../../../catalogue/types";
import { api, errorMessage } from "../../api";
import { ConfirmDialog } from "../../components/confirm";
import { useEditForm, useInPlaceEdit } from "../../components/in-place";
import { brandPath } from "../../components/layout";
import { usePaged } from "../../components/paged";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { TagChip } from "../../components/tag-chip";
import { Button, EmptyState, Field, Notice, PageHeading, useLoad } from "../../components/ui";

type Prompt = ToolOutput<"list_prompts">["prompts"][number];
type Tag = ToolOutput<"list_tags">["tags"][number];

const PER_CALL = 100;
const PLAN_WHAT = "Tracking prompts";

/** Tag names typed separated by commas. */
export function parseTags(text: string): string[] {
  return text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/** A short form of a prompt's text for buttons' names and confirmations. */
function short(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

function Failure({ failure }: { failure: unknown }) {
  return isPlanRequired(failure) ? (
    <PlanNeeded required="visibility" what={PLAN_WHAT} />
  ) : (
    <Notice kind="error">{errorMessage(failure)}</Notice>
  );
}

interface Filters {
  query: string;
  tag: string;
  archived: boolean;
}

function useFilters(): [Filters, (next: Partial<Filters>) => void] {
  const { query, path, route } = useLocation();
  const filters = { query: query.query ?? "", tag: query.tag ?? "", archived: query.archived === "1" };
  const set = (next: Partial<Filters>) => {
    const merged = { ...filters, ...next };
    const params = new URLSearchParams();
    if (merged.query.trim()) params.set("query", merged.query.trim());
    if (merged.tag) params.set("tag", merged.tag);
    if (merged.archived) params.set("archived", "1");
    const search = params.toString();
    route(search ? `${path}?${search}` : path);
  };
  return [filters, set];
}

function BulkAdd({ brandId, onAdded }: { brandId: string; onAdded: () => void }) {
  const [text, setText] = useState("");
  const [tags, setTags] = useState("");
  const [country, setCountry] = useState("");
  const [language, setLanguage] = useState("");
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<{ created: number; duplicates: string[] } | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    const lines = text
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    if (lines.length === 0) return;
    const tagNames = parseTags(tags);
    setBusy(true);
    setFailure(null);
    setResult(null);
    let created = 0;
    const duplicates: string[] = [];
    const left: string[] = [];
    try {
      for (let i = 0; i < lines.length; i += PER_CALL) {
        const batch = lines.slice(i, i + PER_CALL);
        try {
          const out = await api.tool(brandId, "create_prompts", {
            prompts: batch.map((t) => ({
              text: t,
              ...(tagNames.length ? { tags: tagNames } : {}),
              ...(country.trim() ? { country: country.trim() } : {}),
              ...(language.trim() ? { language: language.trim() } : {}),
            })),
          });
          created += out.created.length;
          duplicates.push(...out.duplicates);
        } catch (e) {
          // Later calls are not sent; what was not added stays in the box to fix and send again.
          left.push(...lines.slice(i));
          setFailure(e);
          break;
        }
      }
    } finally {
      setText(left.join("\n"));
      if (left.length === 0) setTags("");
      setResult(created > 0 || duplicates.length > 0 ? { created, duplicates } : null);
      setBusy(false);
      if (created > 0) onAdded();
    }
  };
  return (
    <form onSubmit={submit} class="stack card" aria-label="Add prompts">
      <h2>Add prompts</h2>
      <Field label="Prompts" hint="One prompt per line, 3 to 500 characters each, as a person would ask an AI assistant.">
        {(p) => (
          <textarea
            {...p}
            rows={4}
            required
            value={text}
            placeholder="best CRM for small agencies"
            onInput={(e) => setText(e.currentTarget.value)}
          />
        )}
      </Field>
      <Field label="Tags for all of them (optional)" hint="Separated by commas; tags that do not exist yet are created.">
        {(p) => <input {...p} value={tags} placeholder="pricing, comparison" onInput={(e) => setTags(e.currentTarget.value)} />}
      </Field>
      <div class="field-row">
        <Field label="Country (optional)" hint="Two letters, such as US.">
          {(p) => <input {...p} size={4} maxLength={2} value={country} onInput={(e) => setCountry(e.currentTarget.value)} />}
        </Field>
        <Field label="Language (optional)" hint="Such as en or pt-BR.">
          {(p) => <input {...p} size={8} value={language} onInput={(e) => setLanguage(e.currentTarget.value)} />}
        </Field>
      </div>
      {failure !== null && <Failure failure={failure} />}
      {result && (
        <Notice kind="success">
          {result.created === 1 ? "Added 1 prompt." : `Added ${result.created} prompts.`}
          {result.duplicates.length > 0 && ` Already tracked or repeated: ${result.duplicates.join("; ")}.`}
        </Notice>
      )}
      <Button type="submit" variant="primary" disabled={busy}>
        {busy ? "Adding…" : "Add the prompts"}
      </Button>
    </form>
  );
}

function EditPrompt({
  brandId,
  prompt,
  onSaved,
  onCancel,
}: {
  brandId: string;
  prompt: Prompt;
  onSaved: (p: Prompt) => void;
  onCancel: () => void;
}) {
  const [text, setText] = useState(prompt.text);
  const [tags, setTags] = useState(prompt.tags.join(", "));
  const [country, setCountry] = useState(prompt.country ?? "");
  const [language, setLanguage] = useState(prompt.language ?? "");
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const form = useEditForm(onCancel);
  const save = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      const out = await api.tool(brandId, "update_prompt", {
        prompt_id: prompt.id,
        ...(text !== prompt.text ? { text } : {}),
        tags: parseTags(tags),
        country: country.trim() ? country.trim() : null,
        language: language.trim() ? language.trim() : null,
      });
      onSaved(out.prompt);
    } catch (e) {
      setFailure(e);
      setBusy(false);
    }
  };
  return (
    <form onSubmit={save} onKeyDown={form.onKeyDown} class="stack edit-form" aria-label={`Edit prompt ${short(prompt.text)}`}>
      <Field label="Prompt text">
        {(p) => <textarea {...p} ref={form.first} rows={2} required value={text} onInput={(e) => setText(e.currentTarget.value)} />}
      </Field>
      <Field label="Tags" hint="Separated by commas; replaces the prompt's tags.">
        {(p) => <input {...p} value={tags} onInput={(e) => setTags(e.currentTarget.value)} />}
      </Field>
      <div class="field-row">
        <Field label="Country" hint="Two letters, such as US; empty for none.">
          {(p) => <input {...p} size={4} maxLength={2} value={country} onInput={(e) => setCountry(e.currentTarget.value)} />}
        </Field>
        <Field label="Language" hint="Such as en or pt-BR; empty for none.">
          {(p) => <input {...p} size={8} value={language} onInput={(e) => setLanguage(e.currentTarget.value)} />}
        </Field>
      </div>
      {failure !== null && <Failure failure={failure} />}
      <div class="actions">
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? "Saving…" : "Save"}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  );
}

function Filter({ filters, setFilters, tags }: { filters: Filters; setFilters: (f: Partial<Filters>) => void; tags: Tag[] }) {
  const [query, setQuery] = useState(filters.query);
  const search = (event: Event) => {
    event.preventDefault();
    setFilters({ query });
  };
  return (
    <form onSubmit={search} class="filters" aria-label="Filter prompts">
      <div class="field">
        <label for="prompt-search">Search</label>
        <input id="prompt-search" type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
      </div>
      <Button type="submit">Search</Button>
      <div class="field">
        <label for="prompt-tag">Tag</label>
        <select id="prompt-tag" value={filters.tag} onChange={(e) => setFilters({ tag: e.currentTarget.value })}>
          <option value="">All tags</option>
          {filters.tag && !tags.some((t) => t.name === filters.tag) && <option value={filters.tag}>{filters.tag}</option>}
          {tags.map((t) => (
            <option key={t.id} value={t.name}>
              {t.name}
            </option>
          ))}
        </select>
      </div>
      <label class="check">
        <input type="checkbox" checked={filters.archived} onChange={(e) => setFilters({ archived: e.currentTarget.checked })} />
        Show archived
      </label>
    </form>
  );
}

export function Prompts({ brandId }: { brandId: string }) {
  const [filters, setFilters] = useFilters();
  const tags = useLoad(() => api.tool(brandId, "list_tags", { limit: 200 }), [brandId]);
  const colors = new Map((tags.data?.tags ?? []).map((t) => [t.name, t.color]));
  const list = usePaged<Prompt>(
    async (cursor) => {
      const out = await api.tool(brandId, "list_prompts", {
        ...(filters.query ? { query: filters.query } : {}),
        ...(filters.tag ? { tag: filters.tag } : {}),
        include_archived: filters.archived,
        ...(cursor ? { cursor } : {}),
      });
      return { items: out.prompts, next: out.next_cursor };
    },
    [brandId, filters.query, filters.tag, filters.archived],
  );
  const edit = useInPlaceEdit();
  const [archiving, setArchiving] = useState<Prompt | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const listHeading = useRef<HTMLHeadingElement>(null);
  const filtered = Boolean(filters.query || filters.tag);

  const afterAdd = () => {
    list.reload();
    tags.reload();
  };
  const archive = async (prompt: Prompt) => {
    const out = await api.tool(brandId, "delete_prompt", { prompt_id: prompt.id });
    list.update((items) =>
      filters.archived ? items.map((p) => (p.id === out.prompt.id ? out.prompt : p)) : items.filter((p) => p.id !== prompt.id),
    );
    setMessage(`Archived “${short(prompt.text)}”. Its answers stay in the analytics.`);
  };
  const restore = async (prompt: Prompt) => {
    setFailure(null);
    setMessage(null);
    try {
      const out = await api.tool(brandId, "create_prompts", { prompts: [{ text: prompt.text }] });
      const restored = out.created[0];
      if (restored) {
        edit.focusEditButton(restored.id);
        list.update((items) => items.map((p) => (p.id === restored.id ? restored : p)));
      }
      setMessage(`Restored “${short(prompt.text)}”; it is asked again at the next tracking run.`);
    } catch (e) {
      setFailure(e);
    }
  };

  if (isPlanRequired(list.failure)) {
    return (
      <>
        <PageHeading title="Prompts" />
        <PlanNeeded required="visibility" what={PLAN_WHAT} />
      </>
    );
  }
  const none = list.loaded && list.items.length === 0;
  return (
    <>
      <PageHeading title="Prompts" />
      <p>The questions Spyglass asks AI engines for this brand; each answer is checked for the brand and its competitors.</p>
      {none && !filtered && !filters.archived ? (
        <EmptyState title="No prompts yet">
          <p>
            A prompt is a question people ask an AI assistant when they look for what the brand offers, such as “best CRM for small
            agencies” or “which CRM integrates with Gmail?”. Add a few below, one per line; they are asked at the next tracking run.
          </p>
          <p>
            Prompts you archived are kept: <a href={`${brandPath(brandId, "/prompts")}?archived=1`}>show the archived prompts</a>.
          </p>
        </EmptyState>
      ) : (
        <section class="stack" aria-labelledby="prompt-list-heading">
          <h2 id="prompt-list-heading" ref={listHeading} tabIndex={-1}>
            Tracked prompts
          </h2>
          <Filter key={filters.query} filters={filters} setFilters={setFilters} tags={tags.data?.tags ?? []} />
          {message && <Notice kind="success">{message}</Notice>}
          {failure !== null && <Failure failure={failure} />}
          {list.error && <Notice kind="error">{list.error}</Notice>}
          {none ? (
            <p class="muted">
              No prompt matches. <a href={brandPath(brandId, "/prompts")}>Clear the filters</a>
            </p>
          ) : (
            <div class="table-wrap">
              <table class="roster-table">
                <caption class="offscreen">Prompts of the brand</caption>
                <thead>
                  <tr>
                    <th scope="col">Prompt</th>
                    <th scope="col">Tags</th>
                    <th scope="col">Country</th>
                    <th scope="col">Language</th>
                    <th scope="col">Status</th>
                    <th scope="col">
                      <span class="offscreen">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {list.items.map((p) =>
                    edit.editing === p.id ? (
                      <tr key={p.id}>
                        <td colSpan={6}>
                          <EditPrompt
                            brandId={brandId}
                            prompt={p}
                            onCancel={edit.stop}
                            onSaved={(saved) => {
                              list.update((items) => items.map((x) => (x.id === saved.id ? saved : x)));
                              edit.stop();
                              setMessage("Saved the prompt.");
                              tags.reload();
                            }}
                          />
                        </td>
                      </tr>
                    ) : (
                      <tr key={p.id}>
                        <th scope="row" class="prompt-text">
                          {p.text}
                        </th>
                        <td>
                          <span class="chips">
                            {p.tags.map((t) => (
                              <TagChip key={t} name={t} color={colors.get(t) ?? null} />
                            ))}
                          </span>
                        </td>
                        <td>{p.country ?? "—"}</td>
                        <td>{p.language ?? "—"}</td>
                        <td>{p.archived ? "Archived" : "Tracked"}</td>
                        <td>
                          <div class="row-actions">
                            {p.archived ? (
                              <Button aria-label={`Restore prompt ${short(p.text)}`} onClick={() => restore(p)}>
                                Restore
                              </Button>
                            ) : (
                              <>
                                <button
                                  type="button"
                                  class="btn btn-secondary"
                                  ref={edit.editButton(p.id)}
                                  aria-label={`Edit prompt ${short(p.text)}`}
                                  onClick={() => {
                                    setMessage(null);
                                    edit.start(p.id);
                                  }}
                                >
                                  Edit
                                </button>
                                <Button variant="danger" aria-label={`Archive prompt ${short(p.text)}`} onClick={() => setArchiving(p)}>
                                  Archive
                                </Button>
                              </>
                            )}
                          </div>
                        </td>
                      </tr>
                    ),
                  )}
                </tbody>
              </table>
            </div>
          )}
          {list.hasMore && (
            <Button onClick={list.more} disabled={list.loading}>
              {list.loading ? "Loading…" : "More"}
            </Button>
          )}
        </section>
      )}
      <BulkAdd brandId={brandId} onAdded={afterAdd} />
      <ConfirmDialog
        open={archiving !== null}
        title="Archive this prompt?"
        confirmLabel="Archive"
        onClose={() => setArchiving(null)}
        focusAfter={() => listHeading.current}
        onConfirm={() => (archiving ? archive(archiving) : Promise.resolve())}
      >
        <p>
          “<span class="quoted">{archiving?.text}</span>” stops being asked. Its stored answers stay in the analytics, and you can restore
          it from the archived prompts.
        </p>
      </ConfirmDialog>
    </>
  );
}
