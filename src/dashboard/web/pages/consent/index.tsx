// The OAuth consent page (/oauth/consent, reached from /oauth/authorize with the request's query): a
// signed-out visitor signs in first and comes back; then the page names the client (unverified),
// shows where the browser will be sent, and lets the account choose ONE of its brands. Approve and
// Deny are a same-origin JSON POST, like every dashboard state change; the server checks the whole
// request again and answers the client redirect to follow.
import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { redirectDestination } from "../../../../oauth/destination";
import { api, errorMessage } from "../../api";
import { readableDomain } from "../../components/domains";
import { isPlanRequired, PlanNeeded } from "../../components/plan";
import { Breakable, Button, Notice, PageHeading, useLoad } from "../../components/ui";
import { useSession } from "../../session";

function Loading() {
  return (
    <p class="loading" role="status">
      Loading…
    </p>
  );
}

/** The browser leaves for the client's redirect URI (the server built it from the registered one). */
function leaveFor(url: string): void {
  location.assign(url);
}

/** What the app may do with the brand, by the account's plan: the tools it gets are the plan's. */
function allowedUse(plan: string): string {
  const visibility =
    "read its visibility data, change its prompts, tags and competitors, and start tracking runs (which the server's AI providers bill)";
  return plan === "autopilot"
    ? `${visibility}, and draft, publish and take down its articles on the brand's site (drafts by the writer model are billed too)`
    : visibility;
}

export function Consent() {
  const { ready, me, status, brands, refresh } = useSession();
  const { url, route } = useLocation();
  const query = url.includes("?") ? url.slice(url.indexOf("?") + 1) : "";
  const signedIn = ready && me !== null;
  const loaded = useLoad(() => (signedIn ? api.authorization(query) : Promise.resolve(null)), [signedIn, query]);
  const [brandId, setBrandId] = useState<string | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const [leaving, setLeaving] = useState(false);
  const busy = useRef(false);

  useEffect(() => {
    if (ready && !me) route(status?.setup ? "/welcome" : `/sign-in?next=${encodeURIComponent(`/oauth/consent?${query}`)}`, true);
  }, [ready, me, status, query, route]);
  useEffect(() => {
    if (brandId === null && brands.length === 1) setBrandId(brands[0]!.id);
  }, [brands, brandId]);
  const request = loaded.data;
  // An app on this device (a loopback listener) is told of a refused request at
  // once: it is waiting for the answer, and the redirect leads to no web site.
  const returnNow = request !== null && request !== undefined && "error_redirect" in request && request.return_now;
  useEffect(() => {
    if (returnNow) leaveFor(request.error_redirect);
  }, [returnNow]);
  const firstBrand = useRef<HTMLInputElement>(null);
  const here = `/oauth/consent?${query}`;

  if (!ready || !me) return <Loading />;

  const decide = async (decision: "approve" | "deny") => {
    if (busy.current) return;
    if (decision === "approve" && !brandId) {
      setFailure(new Error("choose"));
      firstBrand.current?.focus();
      return;
    }
    busy.current = true;
    setFailure(null);
    try {
      const { redirect } = await api.decide(query, decision, decision === "approve" ? brandId : null);
      setLeaving(true);
      leaveFor(redirect);
    } catch (e) {
      setFailure(e);
      busy.current = false;
    }
  };

  // Another account's turn: signed out, the visitor signs in again and comes back to this request.
  const switchAccount = async () => {
    await api.logout();
    await refresh();
  };
  const noPlan = me.account.plan === "none";

  return (
    <main id="main" class="standalone narrow consent">
      <p class="logo">Spyglass</p>
      {loaded.error ? (
        <>
          <PageHeading title="This connection request cannot be completed" />
          <Notice kind="error">{loaded.error}</Notice>
          <p>
            <a href="/">Go to the dashboard</a>
          </p>
        </>
      ) : !request ? (
        <Loading />
      ) : "error_redirect" in request && request.return_now ? (
        <>
          <PageHeading title="This connection request cannot be completed" />
          <p role="status">Nothing was connected. Sending you back to the app that asked, with the reason…</p>
          <Notice kind="error">
            <strong>Reason, for the app's makers:</strong> {request.error}
          </Notice>
        </>
      ) : "error_redirect" in request ? (
        // Not sent back at once: anyone may register a client, and its redirect URI may be any site.
        <>
          <PageHeading title="This connection request cannot be completed" />
          <p>
            The app that sent you here asked to connect in a way Spyglass does not accept. Nothing was connected. The app's makers can tell
            from the reason below what to change.
          </p>
          <Notice kind="error">
            <strong>Reason, for the app's makers:</strong> {request.error}
          </Notice>
          <p>
            <a href={request.error_redirect}>Return to {redirectDestination(request.error_redirect)}</a>, the app that sent you here, and
            tell it why.
          </p>
          <p>
            <a href="/">Go to the dashboard</a>
          </p>
        </>
      ) : leaving ? (
        <>
          <PageHeading title="Returning to the app" />
          <p role="status">Sending you back to the app that asked…</p>
        </>
      ) : (
        <>
          <PageHeading title={`Connect “${request.client.name}” to Spyglass?`} />
          <Notice kind="warning">
            <strong>Unverified app.</strong> Spyglass cannot confirm who made “<bdi>{request.client.name}</bdi>”: the name comes from the
            app itself. Approve only if you started this connection yourself.
          </Notice>
          <dl class="consent-facts">
            <dt>App</dt>
            <dd>
              <bdi>{request.client.name}</bdi> <span class="muted">(unverified)</span>
            </dd>
            <dt>App id</dt>
            <dd>
              <code class="break">
                <Breakable text={request.client.id} />
              </code>
            </dd>
            <dt>After you decide, you go to</dt>
            <dd>
              <strong>{redirectDestination(request.redirect_uri)}</strong>
              <br />
              <code class="break">
                <Breakable text={request.redirect_uri} />
              </code>
            </dd>
            <dt>Signed in as</dt>
            <dd>
              {me.account.email}{" "}
              <button type="button" class="btn btn-link" onClick={switchAccount}>
                Use another account
              </button>
            </dd>
          </dl>
          {/* Enter in the form approves, as its main button does; Deny is a button of its own. */}
          <form
            class="stack"
            aria-label="Connect the app"
            onSubmit={(event) => {
              event.preventDefault();
              if (!noPlan && brands.length > 0) void decide("approve");
            }}
          >
            {noPlan ? (
              <PlanNeeded required="visibility" what="Connecting an AI app" />
            ) : brands.length === 0 ? (
              <Notice kind="info">
                Your account has no brand yet. <a href={`/brands?next=${encodeURIComponent(here)}`}>Create a brand</a>, and you come back to
                this request.
              </Notice>
            ) : (
              <fieldset class="stack brand-choice">
                <legend>Brand the app may use</legend>
                <p class="hint">
                  It can use this one brand's tools, as an API key would: {allowedUse(me.account.plan)}. You can disconnect it at any time
                  under the brand's API keys.
                </p>
                {brands.map((b, i) => (
                  <label key={b.id} class="radio">
                    <input
                      ref={i === 0 ? firstBrand : undefined}
                      type="radio"
                      name="brand"
                      value={b.id}
                      checked={brandId === b.id}
                      onChange={() => setBrandId(b.id)}
                    />
                    {b.name}
                    {b.domain && <span class="muted"> ({readableDomain(b.domain)})</span>}
                  </label>
                ))}
              </fieldset>
            )}
            {failure !== null &&
              (isPlanRequired(failure) ? (
                <PlanNeeded required="visibility" what="Connecting an AI app" />
              ) : (
                <Notice kind="error">
                  {failure instanceof Error && failure.message === "choose" ? "Choose a brand first." : errorMessage(failure)}
                </Notice>
              ))}
            <div class="consent-actions">
              <Button onClick={() => decide("deny")}>{noPlan ? "Tell the app, and return to it" : "Deny"}</Button>
              {!noPlan && (
                <Button type="submit" variant="primary" disabled={brands.length === 0}>
                  Approve
                </Button>
              )}
            </div>
          </form>
        </>
      )}
    </main>
  );
}
