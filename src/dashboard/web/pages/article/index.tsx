// One article: its title, description, slug, Markdown and the prompt it answers, saved through
// create_article or update_article; the preview of the HTML the server rendered; Publish
// (publish_to_site) and, behind a confirmation, Unpublish (unpublish_article); once published, the
// article's public API URL; and, once linked to a prompt, the way to its impact. Leaving with
// unsaved changes asks first (LeaveGuard). After Save the keyboard stays on Save; after Publish
// and Unpublish, whose button is replaced, it moves to the status sentence, which is read out.
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { type ToolOutput } from "../../../../catalogue/types";
import { ApiError, api, errorMessage } from "../../api";
import { ConfirmDialog } from "../../components/confirm";
import { useFieldErrors } from "../../components/field-error";
import { leaveFlash } from "../../components/flash";
import { brandPath } from "../../components/layout";
import { LeaveGuard } from "../../components/leave-guard";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { Button, CopyButton, Dialog, Field, formatDate, LoadFailed, Notice, PageHeading, useStillHere } from "../../components/ui";
import { useSession } from "../../session";
import { useNeedsAutopilot } from "../articles";
import { articlePath, articlesPath } from "../articles/paths";
import { otherLeadingHeading } from "./headings";
import { ArticlePreview } from "./preview";
import { PromptField } from "./prompt-field";

type Article = ToolOutput<"get_article">["article"];

interface Fields {
  title: string;
  description: string;
  slug: string;
  markdown: string;
  /** The prompt the article answers, or "" for none. */
  promptId: string;
}

const EMPTY: Fields = { title: "", description: "", slug: "", markdown: "", promptId: "" };

function fieldsOf(article: Article | null): Fields {
  if (!article) return EMPTY;
  return {
    title: article.title,
    description: article.description ?? "",
    slug: article.slug,
    markdown: article.markdown,
    promptId: article.prompt_id ?? "",
  };
}

/** The sentence after a save, and that what was typed while it was on its way is not part of it. */
function savedSentence(sentence: string, typedSince: boolean): string {
  return typedSince ? `${sentence} What you typed since is not saved yet.` : sentence;
}

function sameFields(a: Fields, b: Fields): boolean {
  return (
    a.title === b.title && a.description === b.description && a.slug === b.slug && a.markdown === b.markdown && a.promptId === b.promptId
  );
}

// A just-created article, handed to the page its URL now shows, so it need not be read again; with
// the form as typed when that differs (typed while the article was being created).
let handoff: { article: Article; notice: string; fields?: Fields } | null = null;

/**
 * Opens `article`, just created elsewhere (Content gaps' outline), with `notice` said in its status
 * line as the editor's own "Saved as a draft." is: call it before routing to the article.
 */
export function handArticleOver(article: Article, notice: string): void {
  handoff = { article, notice };
}

function PublishedAt({ url, article }: { url: string; article: Article }) {
  return (
    <div class="stack public-link">
      <p>
        Published on {formatDate(article.published_at)}. The brand's site reads it at{" "}
        {/* A new tab: the app's router would take a same-origin link for one of its pages. */}
        <a href={url} class="url" target="_blank" rel="noopener">
          {url}
        </a>{" "}
        (edge caches may take up to a minute to show a change).
      </p>
      <CopyButton text={url} label="Copy the public API URL" />
    </div>
  );
}

/** The way from a linked article to Article impact, which measures it once it is published. */
function ImpactLink({ brandId, articleId, published }: { brandId: string; articleId: string; published: boolean }) {
  return (
    <p class="impact-link">
      <a href={`${brandPath(brandId, "/impact")}?article=${encodeURIComponent(articleId)}`}>See this article's impact</a>
      <span class="muted">
        {published ? " · the prompt's figures before and after publication" : " · measured once the article is published"}
      </span>
    </p>
  );
}

function UnpublishDialog({
  open,
  busy,
  title,
  onConfirm,
  onClose,
}: {
  open: boolean;
  busy: boolean;
  title: string;
  onConfirm: () => void;
  onClose: () => void;
}) {
  return (
    <Dialog open={open} title="Unpublish this article?" onClose={onClose} locked={busy}>
      <div class="stack">
        <p>
          “{title || "Untitled"}” will be gone from the brand's site at once and become a draft again. Its slug and first publication date
          are kept, so publishing it again restores the same link.
        </p>
        {/* Cancel first, as in ConfirmDialog: the dialog opens on it, so Enter does not take the article off the site. */}
        <div class="actions">
          <Button onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button variant="danger" onClick={onConfirm} disabled={busy}>
            {busy ? "Unpublishing…" : "Unpublish"}
          </Button>
        </div>
      </div>
    </Dialog>
  );
}

function Editor({ brandId, articleId }: { brandId: string; articleId: string }) {
  const { route } = useLocation();
  const { brands, status: instance } = useSession();
  const isNew = articleId === "new";
  const initial = handoff && handoff.article.id === articleId ? handoff : null;
  const [article, setArticle] = useState<Article | null>(initial?.article ?? null);
  const [fields, setFields] = useState<Fields>(initial?.fields ?? fieldsOf(initial?.article ?? null));
  // The form as last rendered, and as sent by the save under way: what is typed while a save is on
  // its way stays in the form when the save's answer comes (it is not saved, which the page says).
  const latest = useRef(fields);
  latest.current = fields;
  const sent = useRef<Fields | null>(null);
  const stillHere = useStillHere();
  const [loadFailure, setLoadFailure] = useState<unknown>(null);
  // A refusal of the title, description, slug or body is said under its field, with the keyboard there
  // (a title over 200 characters was said at the foot of the form, a screen away from it).
  const {
    form: formRef,
    failure,
    setFailure,
    errorFor,
  } = useFieldErrors(["title", "description", "slug", "markdown"], { slug_taken: "slug", invalid_title: "title" });
  // Someone saved the article since this page read it (another tab, an AI client): nothing was saved.
  const [conflict, setConflict] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [markdownError, setMarkdownError] = useState<string | null>(null);
  const [busy, setBusy] = useState<"save" | "publish" | "unpublish" | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [deleting, setDeleting] = useState(false);
  // Deleted: the page leaves for the list, without the leave guard's question about unsaved changes.
  const [gone, setGone] = useState(false);
  const saveButton = useRef<HTMLButtonElement>(null);
  const status = useRef<HTMLParagraphElement>(null);
  // Where the keyboard goes once the render that follows an action is on screen (and a closing
  // dialog has given focus back to the button it replaced).
  const focusNext = useRef<"save" | "status" | null>(null);
  if (initial) handoff = null;

  useEffect(() => {
    const target = focusNext.current === "save" ? saveButton.current : focusNext.current === "status" ? status.current : null;
    focusNext.current = null;
    target?.focus();
  });

  // A just-created article arrives here with its sentence and the keyboard on Save, where the new
  // article's form was left; the sentence is set after the first render, so its live region reads it.
  useEffect(() => {
    if (!initial) return;
    setNotice(initial.notice);
    focusNext.current = "save";
  }, []);

  // Moved by Try again after a failed load.
  const [loadAttempt, setLoadAttempt] = useState(0);
  useEffect(() => {
    // A new article's form starts empty (the Editor is keyed by its article): nothing to load, and
    // nothing to empty (emptying it here, a frame after it was shown, wiped what was typed by then).
    if (isNew) return;
    if (article?.id === articleId) return;
    let live = true;
    setLoadFailure(null);
    api.tool(brandId, "get_article", { article_id: articleId }).then(
      (r) => {
        if (!live) return;
        setArticle(r.article);
        setFields(fieldsOf(r.article));
      },
      (e: unknown) => live && setLoadFailure(e),
    );
    return () => {
      live = false;
    };
  }, [brandId, articleId, loadAttempt]);

  // The page's heading: an address of no article is not an article to edit.
  const notFound = loadFailure instanceof ApiError && loadFailure.code === "article_not_found";
  const heading = <PageHeading title={isNew ? "New article" : notFound ? "Article not found" : "Edit article"} />;
  if (loadFailure) {
    return isPlanRequired(loadFailure) ? (
      <>
        {heading}
        <PlanNeeded required="autopilot" what="Writing and publishing articles" />
      </>
    ) : (
      <>
        {heading}
        <LoadFailed
          error={
            loadFailure instanceof ApiError && loadFailure.code === "article_not_found"
              ? "There is no such article: it may have been deleted, or the link is mistyped."
              : errorMessage(loadFailure)
          }
          failure={loadFailure}
          retry={() => {
            setLoadFailure(null);
            setLoadAttempt((n) => n + 1);
          }}
        />
      </>
    );
  }
  if (!isNew && !article) {
    return (
      <>
        {heading}
        <p class="muted">Loading…</p>
      </>
    );
  }

  const saved = fieldsOf(article);
  const dirty = !sameFields(fields, saved);
  const twoTitles = otherLeadingHeading(fields.title, fields.markdown);
  const slugFixed = article !== null && article.published_at !== null;
  // An edit makes the last "Saved." untrue: the sentence goes, "Unsaved changes" says where things are.
  const change = (patch: Partial<Fields>) => {
    setFields((f) => ({ ...f, ...patch }));
    setNotice(null);
  };
  const set = (key: keyof Fields) => (e: { currentTarget: HTMLInputElement | HTMLTextAreaElement }) =>
    change({ [key]: e.currentTarget.value });
  const waiting = busy !== null;

  const brand = brands.find((b) => b.id === brandId);
  const origin = instance?.public_url ? new URL(instance.public_url).origin : location.origin;
  const publicUrl =
    article && brand ? `${origin}/api/public/articles/${encodeURIComponent(article.slug)}?key=${encodeURIComponent(brand.site_key)}` : null;

  /**
   * Saves the form; returns the article as saved, or null when it could not be. Only over the
   * version this page read, unless `replace` (the writer chose to, after a conflict).
   */
  const save = async (replace = false): Promise<Article | null> => {
    // An earlier refusal goes either way: it was about what was sent then.
    setFailure(null);
    if (!fields.markdown.trim()) {
      setMarkdownError("Write the article's body before saving.");
      return null;
    }
    setMarkdownError(null);
    setConflict(false);
    setNotice(null);
    sent.current = fields;
    const here = stillHere();
    try {
      if (!article) {
        const { article: created } = await api.tool(brandId, "create_article", {
          title: fields.title,
          markdown: fields.markdown,
          ...(fields.description.trim() ? { description: fields.description } : {}),
          ...(fields.slug.trim() ? { slug: fields.slug.trim() } : {}),
          ...(fields.promptId ? { prompt_id: fields.promptId } : {}),
        });
        // Left meanwhile (another page, another brand): the draft is saved, and the page stays where the person went.
        if (!here()) return created;
        const typed = typedSince();
        handoff = { article: created, notice: savedSentence("Saved as a draft.", typed), ...(typed ? { fields: latest.current } : {}) };
        route(articlePath(brandId, created.id), true);
        return created;
      }
      const { article: updated } = await api.tool(brandId, "update_article", {
        article_id: article.id,
        title: fields.title,
        markdown: fields.markdown,
        description: fields.description.trim() ? fields.description : null,
        prompt_id: fields.promptId || null,
        ...(!slugFixed && fields.slug.trim() && fields.slug.trim() !== article.slug ? { slug: fields.slug.trim() } : {}),
        ...(replace ? {} : { expected_updated_at: article.updated_at }),
      });
      setArticle(updated);
      const typed = keepTyped(updated);
      setNotice(savedSentence(updated.status === "published" ? "Saved; the brand's site shows the change." : "Saved.", typed));
      return updated;
    } catch (e) {
      if (e instanceof ApiError && e.code === "article_changed") setConflict(true);
      else setFailure(e);
      return null;
    } finally {
      sent.current = null;
    }
  };

  /** Whether the form changed since the save under way was sent. */
  const typedSince = () => sent.current !== null && !sameFields(latest.current, sent.current);

  /** The saved article's fields in the form, unless more was typed since the save was sent; whether it was. */
  const keepTyped = (stored: Article): boolean => {
    const typed = typedSince();
    if (!typed) setFields(fieldsOf(stored));
    return typed;
  };

  const remove = async () => {
    if (!article) return;
    const { deleted } = await api.deleteArticle(brandId, article.id);
    const name = deleted.title || "Untitled";
    leaveFlash(
      "articles",
      deleted.was_published ? `Deleted “${name}”; the brand's site no longer shows it.` : `Deleted the draft “${name}”.`,
    );
    setGone(true);
  };
  useEffect(() => {
    if (gone) route(articlesPath(brandId));
  }, [gone]);

  const replaceTheirs = async () => {
    if (waiting) return;
    setBusy("save");
    if (await save(true)) focusNext.current = "status";
    setBusy(null);
  };

  /** Their version in the form, this page's changes dropped (the writer chose to). */
  const loadTheirs = async () => {
    if (!article || waiting) return;
    setBusy("save");
    try {
      const { article: theirs } = await api.tool(brandId, "get_article", { article_id: article.id });
      setArticle(theirs);
      setFields(fieldsOf(theirs));
      setConflict(false);
      setNotice(`Loaded the version saved at ${formatDate(theirs.updated_at)}.`);
      focusNext.current = "status";
    } catch (e) {
      setFailure(e);
    }
    setBusy(null);
  };

  const onSave = async (event: Event) => {
    event.preventDefault();
    if (waiting) return;
    setBusy("save");
    await save();
    setBusy(null);
  };

  const publish = async () => {
    if (waiting) return;
    setBusy("publish");
    const current = dirty ? await save() : article;
    if (current) {
      // What is published is the article as saved: anything else in the form was typed since.
      sent.current = fieldsOf(current);
      try {
        const { article: published } = await api.tool(brandId, "publish_to_site", { article_id: current.id });
        setArticle(published);
        setNotice(savedSentence("Published: the brand's site can read it now.", keepTyped(published)));
        focusNext.current = "status";
      } catch (e) {
        setFailure(e);
      } finally {
        sent.current = null;
      }
    }
    setBusy(null);
  };

  const unpublish = async () => {
    if (!article || waiting) return;
    setBusy("unpublish");
    setFailure(null);
    setNotice(null);
    try {
      const { article: draft } = await api.tool(brandId, "unpublish_article", { article_id: article.id });
      setArticle(draft);
      setFields((f) => ({ ...f, slug: draft.slug }));
      setConfirming(false);
      setNotice("Unpublished: the article is a draft again and gone from the brand's site.");
      focusNext.current = "status";
    } catch (e) {
      setConfirming(false);
      setFailure(e);
    }
    setBusy(null);
  };

  return (
    <>
      {heading}
      <form
        ref={formRef}
        class="stack card editor"
        onSubmit={onSave}
        aria-label="The article"
        onKeyDown={(event) => {
          // Ctrl+S (⌘S) saves, as in any editor, instead of the browser saving the page.
          if (event.key.toLowerCase() === "s" && (event.ctrlKey || event.metaKey) && !event.altKey) void onSave(event);
        }}
      >
        <p class="muted">
          {article
            ? `${article.status === "published" ? "Published" : "Draft"} · last saved ${formatDate(article.updated_at)}`
            : "A new draft: nothing is saved yet."}
        </p>
        <Field
          label="Title"
          hint="Shown by the site above the article, at most 200 characters. Leave empty for none (the public API shows “Untitled”)."
          error={errorFor("title")}
        >
          {/* maxLength counts UTF-16 units, two for an emoji: the server counts characters and says so past 200. */}
          {(p) => <input {...p} maxLength={400} value={fields.title} onInput={set("title")} />}
        </Field>
        <Field label="Description (optional)" hint="For search engines and link previews." error={errorFor("description")}>
          {(p) => <textarea {...p} rows={3} maxLength={1000} value={fields.description} onInput={set("description")} />}
        </Field>
        <Field
          label="Slug"
          error={errorFor("slug")}
          hint={
            slugFixed
              ? "Fixed: the article has been published under this slug, and links to it must keep working."
              : "The article's address on the site: lowercase letters, digits and hyphens. Leave empty to derive it from the title."
          }
        >
          {(p) => (
            <input
              {...p}
              class="mono"
              value={fields.slug}
              readOnly={slugFixed}
              maxLength={100}
              spellcheck={false}
              autocapitalize="off"
              onInput={set("slug")}
            />
          )}
        </Field>
        <PromptField
          brandId={brandId}
          value={fields.promptId}
          saved={article?.prompt_id ?? null}
          savedText={article?.prompt_text ?? null}
          onChange={(promptId) => change({ promptId })}
        />
        {article?.prompt_id && <ImpactLink brandId={brandId} articleId={article.id} published={article.status === "published"} />}
        <Field
          label="Markdown"
          hint="GitHub-flavoured Markdown. A leading “# Title” equal to the title is dropped, since the site shows the title. Raw HTML is sanitized on save."
          error={markdownError ?? errorFor("markdown")}
        >
          {(p) => <textarea {...p} class="markdown" rows={18} value={fields.markdown} spellcheck={false} onInput={set("markdown")} />}
        </Field>
        {twoTitles !== null && (
          <p class="notice notice-info">
            The body starts with the heading “{twoTitles}”, which is not the title: the site shows the title above the article, so readers
            would see both. Remove the heading, or make it the title.
          </p>
        )}
        {failure !== null &&
          (isPlanRequired(failure) ? (
            <PlanNeeded required="autopilot" what="Writing and publishing articles" />
          ) : (
            <Notice kind="error">{errorMessage(failure)}</Notice>
          ))}
        {conflict && (
          <div class="stack">
            <Notice kind="error">
              Someone saved this article after you opened it (in another tab, or an AI client revising it), so nothing was saved: your text
              is still here. Replace their version with yours, or load theirs instead of yours (copy anything of yours you want to keep
              first).
            </Notice>
            <div class="actions">
              <Button onClick={replaceTheirs} aria-disabled={waiting}>
                Replace theirs with mine
              </Button>
              <Button onClick={loadTheirs} aria-disabled={waiting}>
                Load theirs
              </Button>
            </div>
          </div>
        )}
        {/* Always in the page, so that a sentence put in it is read out; focusable, for the keyboard after Publish and Unpublish. */}
        <p ref={status} role="status" tabIndex={-1} class={notice ? "notice notice-success" : "offscreen"}>
          {notice}
        </p>
        {/* aria-disabled rather than disabled while busy: a disabled button loses the keyboard's focus. */}
        <div class="actions">
          <Button buttonRef={saveButton} type="submit" variant="primary" aria-disabled={waiting}>
            {busy === "save" ? "Saving…" : "Save"}
          </Button>
          {article?.status === "published" ? (
            <Button key="unpublish" variant="danger" onClick={() => !waiting && setConfirming(true)} aria-disabled={waiting}>
              Unpublish
            </Button>
          ) : (
            article && (
              <Button key="publish" onClick={publish} aria-disabled={waiting}>
                {busy === "publish" ? "Publishing…" : dirty ? "Save and publish" : "Publish"}
              </Button>
            )
          )}
          {dirty && <span class="muted">Unsaved changes</span>}
          {article && (
            <Button key="delete" variant="danger" class="push-end" onClick={() => !waiting && setDeleting(true)} aria-disabled={waiting}>
              Delete…
            </Button>
          )}
        </div>
        {article?.status === "published" && publicUrl && <PublishedAt url={publicUrl} article={article} />}
      </form>
      <ArticlePreview html={article?.html ?? null} stale={dirty} />
      <UnpublishDialog
        open={confirming}
        busy={busy === "unpublish"}
        title={article?.title ?? ""}
        onConfirm={unpublish}
        onClose={() => setConfirming(false)}
      />
      {/* In the page only while asked: closed, its name ("Delete “Untitled”?") would be one more label holding "Title". */}
      {deleting && (
        <ConfirmDialog
          open
          title={`Delete “${article?.title || "Untitled"}”?`}
          confirmLabel="Delete the article"
          onConfirm={remove}
          onClose={() => setDeleting(false)}
        >
          <p>
            {article?.status === "published"
              ? "It is on the brand's site: its page there will no longer be found, and links to it will lead nowhere. "
              : ""}
            The article and its text are deleted for good; its slug is free again.
          </p>
        </ConfirmDialog>
      )}
      <LeaveGuard when={dirty && !gone}>
        <p>
          {sent.current === null
            ? `Your changes to “${fields.title || article?.title || "Untitled"}” are not saved. If you leave this page, they are lost; Cancel keeps you here with them.`
            : typedSince()
              ? "A save is under way, and what you typed since it began is not part of it. If you leave this page, that is lost, and so is the rest should the save fail; Cancel keeps you here."
              : "A save of your changes is under way. If you leave this page and it fails, they are lost; Cancel keeps you here until it is done."}
        </p>
      </LeaveGuard>
    </>
  );
}

export function ArticleEditor({ brandId, params }: { brandId: string; params: Record<string, string> }) {
  const articleId = params.articleId ?? "new";
  const needsAutopilot = useNeedsAutopilot();
  return (
    <>
      <p class="breadcrumb">
        <a href={articlesPath(brandId)}>All articles</a>
      </p>
      {needsAutopilot ? (
        <>
          <PageHeading title={articleId === "new" ? "New article" : "Edit article"} />
          <PlanNeeded required="autopilot" what="Writing and publishing articles" />
        </>
      ) : (
        <Editor key={articleId} brandId={brandId} articleId={articleId} />
      )}
    </>
  );
}
