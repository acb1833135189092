// The shell around every signed-in page: the brand switcher, the brand's navigation (showing where
// you are), the account menu, and a skip link to the content.
import { type ComponentChildren } from "preact";
import { useEffect, useId, useRef } from "preact/hooks";
import { useLocation } from "preact-iso";
import { api } from "../api";
import { useSession } from "../session";
import { BrandName } from "./brand-name";
import { beforeLeaving } from "./leave-guard";

/**
 * The pages of a brand, in three groups: what the answers say, what is tracked and how, and what the brand
 * publishes and connects. The groups wrap as a whole on a narrow window instead of scrolling pages
 * out of sight.
 */
export const BRAND_NAV = [
  {
    label: "Analytics",
    pages: [
      { path: "/overview", label: "Overview" },
      { path: "/performance", label: "Prompt performance" },
      { path: "/answers", label: "Answers" },
      { path: "/sources", label: "Sources" },
      { path: "/searches", label: "Search queries" },
      { path: "/gaps", label: "Content gaps" },
      { path: "/impact", label: "Article impact" },
    ],
  },
  {
    label: "Set-up",
    pages: [
      { path: "/prompts", label: "Prompts" },
      { path: "/tags", label: "Tags" },
      { path: "/competitors", label: "Competitors" },
      { path: "/tracking", label: "Tracking" },
    ],
  },
  {
    label: "Publish and connect",
    pages: [
      { path: "/articles", label: "Articles" },
      { path: "/keys", label: "API keys" },
      { path: "", label: "Brand" },
    ],
  },
] as const;

export function brandPath(brandId: string, page = ""): string {
  return `/brands/${encodeURIComponent(brandId)}${page}`;
}

// Keys that move a closed select's choice at once (and fire its change) without opening it.
const MOVES_CHOICE = /^(Arrow(Up|Down|Left|Right)|Home|End|Page(Up|Down)|.)$/;

/**
 * The brand switcher. A click in its list, or Enter, goes to the chosen brand; the arrow keys and
 * typing on the closed select only choose (they change its value at each key: going at once would
 * leave the page at the first key, WCAG 3.2.2), and leaving it without Enter keeps the current brand.
 */
function BrandSwitcher({ brandId }: { brandId: string | null }) {
  const { brands } = useSession();
  const { route, path } = useLocation();
  const keyed = useRef(false);
  const hintId = useId();
  if (brands.length === 0) return null;
  const current = brandId ?? "";
  const go = (select: HTMLSelectElement) => {
    const next = select.value;
    if (!next || next === current) return;
    // The current brand until the page is left (unsaved changes may keep it here).
    select.value = current;
    // Stay on the same kind of page for the other brand.
    const rest = brandId ? path.slice(brandPath(brandId).length).split("/").slice(0, 2).join("/") : "";
    beforeLeaving(() => route(brandPath(next, rest)));
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Enter") {
      event.preventDefault();
      go(event.currentTarget as HTMLSelectElement);
      return;
    }
    keyed.current = !event.altKey && !event.ctrlKey && !event.metaKey && event.key !== " " && MOVES_CHOICE.test(event.key);
  };
  const onChange = (event: Event) => {
    if (keyed.current) {
      keyed.current = false;
      return;
    }
    go(event.currentTarget as HTMLSelectElement);
  };
  return (
    <div class="brand-switcher">
      <label for="brand-switcher">Brand</label>
      <select
        id="brand-switcher"
        value={current}
        aria-describedby={hintId}
        onKeyDown={onKeyDown}
        onPointerDown={() => {
          keyed.current = false;
        }}
        onChange={onChange}
        onBlur={(event) => {
          keyed.current = false;
          (event.currentTarget as HTMLSelectElement).value = current;
        }}
      >
        {/* Off a brand's pages (Account, Accounts, All brands) no brand is the page's: the menu offers one to go to. */}
        {!brandId && <option value="">Go to a brand…</option>}
        {brands.map((b) => (
          <option key={b.id} value={b.id}>
            {b.name}
          </option>
        ))}
      </select>
      <span id={hintId} class="offscreen">
        Choose a brand, then press Enter to go to it.
      </span>
    </div>
  );
}

function AccountMenu() {
  const { me, refresh } = useSession();
  const { route } = useLocation();
  if (!me) return null;
  const signOut = () =>
    beforeLeaving(async () => {
      await api.logout();
      await refresh();
      route("/sign-in");
    });
  return (
    <div class="account-menu">
      <a class="account-email" href="/account">
        {me.account.email}
        <span class="offscreen">: your account</span>
      </a>
      {me.owner && <a href="/accounts">Accounts</a>}
      <a href="/brands">All brands</a>
      <button type="button" class="btn btn-link" onClick={signOut}>
        Sign out
      </button>
    </div>
  );
}

/** The fade at the strip's edges (styles.css, .brand-nav), which a link must clear to be seen. */
const NAV_FADE_PX = 40;

/**
 * Marks which of the strip's edges hide more pages (`data-more-before`, `data-more-after`), which
 * styles.css fades: a strip scrolled to its end fades its left edge, not its right.
 */
function markStripEdges(nav: HTMLElement): void {
  const hidden = nav.scrollWidth - nav.clientWidth;
  nav.toggleAttribute("data-more-before", hidden > 0 && nav.scrollLeft > 1);
  nav.toggleAttribute("data-more-after", hidden > 0 && nav.scrollLeft < hidden - 1);
}

/**
 * On a narrow window the brand's pages are one strip that scrolls sideways: brings `link` into its
 * visible part, clear of the faded edge (the current page on arrival, the focused link while
 * tabbing). Nothing moves when the strip does not scroll or the link is already in sight.
 */
function revealInStrip(nav: HTMLElement, link: Element): void {
  if (nav.scrollWidth <= nav.clientWidth) return;
  const strip = nav.getBoundingClientRect();
  const box = link.getBoundingClientRect();
  const before = nav.scrollLeft > 0 ? NAV_FADE_PX : 0;
  if (box.left >= strip.left + before && box.right <= strip.right - NAV_FADE_PX) return;
  nav.scrollLeft += box.left - strip.left - Math.max(0, (strip.width - box.width) / 2);
}

export function Shell({ brandId, children }: { brandId: string | null; children: ComponentChildren }) {
  const { path } = useLocation();
  const { brands } = useSession();
  const brandName = brandId ? (brands.find((b) => b.id === brandId)?.name ?? null) : null;
  const nav = useRef<HTMLElement>(null);
  useEffect(() => {
    const strip = nav.current;
    if (!strip) return;
    const reveal = () => {
      const current = strip.querySelector('a[aria-current="page"]');
      if (current) revealInStrip(strip, current);
    };
    const edges = () => markStripEdges(strip);
    reveal();
    edges();
    // Also when the window narrows to a strip (a phone turned, a window resized).
    const observer = new ResizeObserver(() => {
      reveal();
      edges();
    });
    observer.observe(strip);
    strip.addEventListener("scroll", edges, { passive: true });
    return () => {
      observer.disconnect();
      strip.removeEventListener("scroll", edges);
    };
  }, [path, brandId]);
  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="logo" href="/">
          Spyglass
        </a>
        <BrandSwitcher brandId={brandId} />
        <AccountMenu />
      </header>
      {brandId && (
        <nav
          class="brand-nav"
          aria-label="Brand pages"
          ref={nav}
          onFocusIn={(event) => nav.current && event.target instanceof Element && revealInStrip(nav.current, event.target)}
        >
          {BRAND_NAV.map((group, index) => (
            <div class="nav-group" key={group.label}>
              <span class="nav-group-label" id={`nav-group-${index}`}>
                {group.label}
              </span>
              <ul aria-labelledby={`nav-group-${index}`}>
                {group.pages.map((page) => {
                  const href = brandPath(brandId, page.path);
                  const current = page.path === "" ? path === href : path === href || path.startsWith(`${href}/`);
                  return (
                    <li key={page.path}>
                      <a href={href} aria-current={current ? "page" : undefined}>
                        {page.label}
                      </a>
                    </li>
                  );
                })}
              </ul>
            </div>
          ))}
        </nav>
      )}
      <main id="main" tabIndex={-1}>
        <BrandName.Provider value={brandName}>{children}</BrandName.Provider>
      </main>
    </div>
  );
}
