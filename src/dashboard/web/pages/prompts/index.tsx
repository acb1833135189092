// The brand's tracked prompts, through list_prompts / create_prompts / update_prompt /
// delete_prompt: search, tag filter and "show archived" live in the URL; a bulk add of one prompt
// per line (sent 100 at a time); each row edited in place; archiving behind a confirmation;
// restoring an archived prompt with create_prompts, as the tool's description says.
import { useRef, useState } from "preact/hooks";
import { api } from "../../api";
import { ConfirmDialog } from "../../components/confirm";
import { DownloadCsv } from "../../components/download-csv";
import { useInPlaceEdit } from "../../components/in-place";
import { brandPath } from "../../components/layout";
import { usePaged } from "../../components/paged";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { EditButton, MoreButton } from "../../components/rows";
import { TagChip } from "../../components/tag-chip";
import { Button, EmptyState, LoadFailed, Notice, PageHeading, useLoad } from "../../components/ui";
import { BulkAdd } from "./bulk-add";
import { EditPrompt } from "./edit";
import { Filter, useFilters } from "./filters";
import { Failure, PLAN_WHAT, type Prompt, short } from "./shared";

export function Prompts({ brandId }: { brandId: string }) {
  const [filters, setFilters] = useFilters();
  // The filter on screen: what the table lists and what its CSV holds.
  const shown = {
    ...(filters.query ? { query: filters.query } : {}),
    ...(filters.tag ? { tag: filters.tag } : {}),
    include_archived: filters.archived,
  };
  const tags = useLoad(() => api.tool(brandId, "list_tags", { limit: 200 }), [brandId]);
  const colors = new Map((tags.data?.tags ?? []).map((t) => [t.name, t.color]));
  const list = usePaged<Prompt>(
    async (cursor) => {
      const out = await api.tool(brandId, "list_prompts", { ...shown, ...(cursor ? { cursor } : {}) });
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

  const none = list.loaded && list.items.length === 0;
  // An empty list offers the archived prompts only when there are some.
  const fresh = none && !filtered && !filters.archived;
  const archivedKept = useLoad(
    async () => fresh && (await api.tool(brandId, "list_prompts", { include_archived: true, limit: 1 })).prompts.length > 0,
    [brandId, fresh],
  );
  if (isPlanRequired(list.failure)) {
    return (
      <>
        <PageHeading title="Prompts" />
        <PlanNeeded required="visibility" what={PLAN_WHAT} />
      </>
    );
  }
  return (
    <>
      <PageHeading title="Prompts">
        {/* The form comes after every row of the list: a way there without tabbing through them. */}
        {list.items.length > 0 && (
          <div class="actions">
            <Button onClick={() => document.querySelector<HTMLTextAreaElement>("#add-prompts textarea")?.focus()}>Add prompts</Button>
            <DownloadCsv brandId={brandId} tool="list_prompts" input={shown} label="prompts" />
          </div>
        )}
      </PageHeading>
      <p class="page-intro">
        The questions Spyglass asks AI engines for this brand; each answer is checked for the brand and its competitors.
      </p>
      {fresh ? (
        <EmptyState title="No prompts yet">
          <p>
            A prompt is a question people ask an AI assistant when they look for what the brand offers, such as “best CRM for small
            agencies” or “which CRM integrates with Gmail?”. Add a few below, one per line; every tracking run asks them (the{" "}
            <a href={brandPath(brandId, "/tracking")}>Tracking</a> page says which engines and when).
          </p>
          {archivedKept.data && (
            <p>
              Prompts you archived are kept: <a href={`${brandPath(brandId, "/prompts")}?archived=1`}>show the archived prompts</a>.
            </p>
          )}
        </EmptyState>
      ) : (
        <section class="stack" aria-labelledby="prompt-list-heading">
          <h2 id="prompt-list-heading" ref={listHeading} tabIndex={-1}>
            Tracked prompts
          </h2>
          <Filter key={filters.query} filters={filters} setFilters={setFilters} tags={tags.data?.tags ?? []} />
          {message && <Notice kind="success">{message}</Notice>}
          {failure !== null && <Failure failure={failure} />}
          {list.error && <LoadFailed error={list.error} failure={list.failure} retry={list.reload} />}
          {none ? (
            <p class="muted">
              No prompt matches. <a href={brandPath(brandId, "/prompts")}>Clear the filters</a>
            </p>
          ) : (
            <div class="table-wrap">
              <table class="roster-table cards-narrow cards-facts">
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
                          {/* To its figures and answers, as on Prompt performance. */}
                          <a href={brandPath(brandId, `/performance/${encodeURIComponent(p.id)}`)}>{p.text}</a>
                        </th>
                        <td data-label="Tags">
                          {p.tags.length === 0 ? (
                            "—"
                          ) : (
                            <span class="chips">
                              {p.tags.map((t) => (
                                <TagChip key={t} name={t} color={colors.get(t) ?? null} />
                              ))}
                            </span>
                          )}
                        </td>
                        <td data-label="Country">{p.country ?? "—"}</td>
                        <td data-label="Language">{p.language ?? "—"}</td>
                        <td data-label="Status">{p.archived ? "Archived" : "Tracked"}</td>
                        <td class="row-action">
                          <div class="row-actions">
                            {p.archived ? (
                              <Button aria-label={`Restore prompt ${short(p.text)}`} onClick={() => restore(p)}>
                                Restore
                              </Button>
                            ) : (
                              <>
                                <EditButton
                                  label={`Edit prompt ${short(p.text)}`}
                                  buttonRef={edit.editButton(p.id)}
                                  onClick={() => {
                                    setMessage(null);
                                    edit.start(p.id);
                                  }}
                                />
                                {/* Not in the danger colour: an archived prompt is kept and restored in one click. */}
                                <Button aria-label={`Archive prompt ${short(p.text)}`} onClick={() => setArchiving(p)}>
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
          <MoreButton list={list} />
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
