// The dashboard: one URL per page and selection, so reload and the back button work.
import { type ComponentType } from "preact";
import { useEffect } from "preact/hooks";
import { LocationProvider, Route, Router, useLocation } from "preact-iso";
import { brandPath, Shell } from "./components/layout";
import { EmptyState, PageHeading } from "./components/ui";
import { OwnAccount } from "./pages/account";
import { Accounts } from "./pages/accounts";
import { AnswerPage, Answers } from "./pages/answers";
import { ArticleEditor } from "./pages/article";
import { Articles } from "./pages/articles";
import { BrandSettings } from "./pages/brand";
import { Brands } from "./pages/brands";
import { Competitors } from "./pages/competitors";
import { Consent } from "./pages/consent";
import { Gaps } from "./pages/gaps";
import { ArticleImpact } from "./pages/impact";
import { ApiKeys } from "./pages/keys";
import { Overview } from "./pages/overview";
import { PromptPage, PromptPerformance } from "./pages/performance";
import { Prompts } from "./pages/prompts";
import { SearchQueries } from "./pages/searches";
import { SignIn } from "./pages/sign-in";
import { Sources } from "./pages/sources";
import { Tags } from "./pages/tags";
import { Tracking } from "./pages/tracking";
import { Welcome } from "./pages/welcome";
import { SessionProvider, useSession } from "./session";

function Redirect({ to }: { to: string }) {
  const { route } = useLocation();
  useEffect(() => route(to, true), [to, route]);
  return null;
}

function Loading() {
  return (
    <p class="loading" role="status">
      Loading…
    </p>
  );
}

/**
 * Where a signed-out visitor of a page goes: sign-in, which brings them back to that page (its
 * filters included) once signed in; or, on a new instance, the owner's creation.
 */
function SignInFirst({ setup }: { setup: boolean | undefined }) {
  const here = `${location.pathname}${location.search}`;
  return <Redirect to={setup ? "/welcome" : `/sign-in?next=${encodeURIComponent(here)}`} />;
}

/** Where a visitor belongs when they open the root URL. */
function Home() {
  const { ready, me, status, brands } = useSession();
  if (!ready) return <Loading />;
  if (!me) return <Redirect to={status?.setup ? "/welcome" : "/sign-in"} />;
  return <Redirect to={brands[0] ? brandPath(brands[0].id, "/overview") : "/brands"} />;
}

/** A page for a signed-in account; visitors are sent to sign in (or, on a new instance, to create the owner). */
function signedIn<P extends object>(Page: ComponentType<P>) {
  return function SignedIn(props: P) {
    const { ready, me, status } = useSession();
    if (!ready) return <Loading />;
    if (!me) return <SignInFirst setup={status?.setup} />;
    return (
      <Shell brandId={null}>
        <Page {...props} />
      </Shell>
    );
  };
}

/** A page of one of the account's brands; another account's brand (or none) is not found. */
function brandPage(
  Page: ComponentType<{ brandId: string; params: Record<string, string> }>,
  /**
   * Kept mounted when the brand changes under it: the API keys page, whose new key's dialog holds a
   * plaintext shown once, and must survive a Back to another brand's page (it names its own brand).
   */
  options: { keptAcrossBrands?: boolean } = {},
) {
  return function BrandPage({ params }: { params: Record<string, string> }) {
    const { ready, me, status, brands } = useSession();
    if (!ready) return <Loading />;
    if (!me) return <SignInFirst setup={status?.setup} />;
    const brandId = params.brandId ?? "";
    const known = brands.some((b) => b.id === brandId);
    return (
      <Shell brandId={known ? brandId : null}>
        {known ? (
          // Keyed by the brand: the same page of another brand (the switcher, Back) starts afresh, with
          // no message, typed text, open dialog or save under way of the brand before.
          <Page key={options.keptAcrossBrands ? undefined : brandId} brandId={brandId} params={params} />
        ) : (
          <>
            <PageHeading title="Brand not found" />
            <EmptyState title="This brand does not exist or is not yours">
              <p>
                <a href="/brands">See your brands</a>
              </p>
            </EmptyState>
          </>
        )}
      </Shell>
    );
  };
}

function NotFound() {
  return (
    <main id="main" class="standalone narrow">
      <p class="logo">Spyglass</p>
      <PageHeading title="Page not found" />
      <p>There is no page at this address: the link may be mistyped, or the page it led to has moved.</p>
      <p>
        <a href="/">Go to the dashboard</a>
      </p>
    </main>
  );
}

export function App() {
  return (
    <LocationProvider>
      <SessionProvider>
        <Router>
          <Route path="/" component={Home} />
          <Route path="/sign-in" component={SignIn} />
          <Route path="/welcome" component={Welcome} />
          <Route path="/oauth/consent" component={Consent} />
          <Route path="/brands" component={signedIn(Brands)} />
          <Route path="/accounts" component={signedIn(Accounts)} />
          <Route path="/account" component={signedIn(OwnAccount)} />
          <Route path="/brands/:brandId" component={brandPage(BrandSettings)} />
          <Route path="/brands/:brandId/overview" component={brandPage(Overview)} />
          <Route path="/brands/:brandId/keys" component={brandPage(ApiKeys, { keptAcrossBrands: true })} />
          <Route path="/brands/:brandId/articles" component={brandPage(Articles)} />
          <Route path="/brands/:brandId/articles/:articleId" component={brandPage(ArticleEditor)} />
          <Route path="/brands/:brandId/prompts" component={brandPage(Prompts)} />
          <Route path="/brands/:brandId/performance" component={brandPage(PromptPerformance)} />
          <Route path="/brands/:brandId/performance/:promptId" component={brandPage(PromptPage)} />
          <Route path="/brands/:brandId/answers" component={brandPage(Answers)} />
          <Route path="/brands/:brandId/answers/:answerId" component={brandPage(AnswerPage)} />
          <Route path="/brands/:brandId/tags" component={brandPage(Tags)} />
          <Route path="/brands/:brandId/competitors" component={brandPage(Competitors)} />
          <Route path="/brands/:brandId/sources" component={brandPage(Sources)} />
          <Route path="/brands/:brandId/searches" component={brandPage(SearchQueries)} />
          <Route path="/brands/:brandId/gaps" component={brandPage(Gaps)} />
          <Route path="/brands/:brandId/tracking" component={brandPage(Tracking)} />
          <Route path="/brands/:brandId/impact" component={brandPage(ArticleImpact)} />
          <Route default component={NotFound} />
        </Router>
      </SessionProvider>
    </LocationProvider>
  );
}
