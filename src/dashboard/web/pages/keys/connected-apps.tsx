// "Connected apps" beside the API keys: the AI clients that signed in with OAuth (Claude.ai, Claude
// Desktop, ChatGPT…) and were granted this brand. Each is revoked behind a confirmation; the client is
// refused from its next request, and its refresh token stops working too.
import { useRef, useState } from "preact/hooks";
import { api, type Grant } from "../../api";
import { ConfirmDialog } from "../../components/confirm";
import { Breakable, Button, formatDate, LoadFailed, Notice, useLoad } from "../../components/ui";
import { useSession } from "../../session";
import { mcpUrl } from "./clients";

/** Whether an origin is this machine's own (a loopback host), which no outside service reaches. */
function onThisMachine(origin: string): boolean {
  const host = new URL(origin).hostname;
  return host === "localhost" || host === "[::1]" || host.startsWith("127.");
}

export function ConnectedApps({ brandId, brandName }: { brandId: string; brandName: string }) {
  const { status } = useSession();
  const loaded = useLoad(() => api.grants(), [brandId]);
  const [revoking, setRevoking] = useState<Grant | null>(null);
  const [revoked, setRevoked] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const mine = loaded.data?.grants.filter((g) => g.brand_id === brandId) ?? null;
  const origin = status?.public_url ? new URL(status.public_url).origin : location.origin;

  const revoke = async () => {
    if (!revoking) return;
    await api.revokeGrant(revoking.id);
    setRevoked(revoking.client_name);
    loaded.reload();
  };

  return (
    <section class="stack" aria-labelledby="apps-heading">
      <h2 id="apps-heading" ref={heading} tabIndex={-1}>
        Connected apps
      </h2>
      {revoked !== null && <Notice kind="success">Disconnected “{revoked}”: it is refused from its next request.</Notice>}
      {loaded.error && <LoadFailed error={loaded.error} failure={loaded.failure} retry={loaded.reload} />}
      {!loaded.data || !mine ? (
        !loaded.error && <p class="muted">Loading…</p>
      ) : mine.length === 0 ? (
        <p class="muted">
          {loaded.data.enabled && onThisMachine(origin) ? (
            // Claude.ai's and ChatGPT's connectors run on their makers' servers, which cannot reach a loopback address.
            <>
              No app is connected to this brand. This server's address, <code class="break">{mcpUrl(origin)}</code>, is reached from this
              machine only: an app running here (Claude Desktop through mcp-remote, the MCP Inspector) signs in with it. Claude.ai and
              ChatGPT connect from their own servers: they need the https address public_url gives this server.
            </>
          ) : loaded.data.enabled ? (
            <>
              No app is connected to this brand. In Claude.ai, Claude Desktop or ChatGPT, add a custom connector with the URL{" "}
              <code class="break">{mcpUrl(origin)}</code>; it sends you here to sign in and choose this brand.
            </>
          ) : (
            "Apps such as Claude.ai, Claude Desktop and ChatGPT connect by signing in, which is off on this server: the administrator turns it on by setting public_url in the configuration (the https address clients reach the server at, or http on localhost)."
          )}
        </p>
      ) : (
        <div class="table-wrap">
          <table class="key-table cards-narrow cards-facts">
            <caption class="offscreen">Apps connected to the brand {brandName}</caption>
            <thead>
              <tr>
                <th scope="col">App</th>
                <th scope="col">Brand</th>
                <th scope="col">Connected</th>
                <th scope="col" class="nowrap">
                  Last used
                </th>
                <th scope="col">
                  <span class="offscreen">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {mine.map((g) => (
                <tr key={g.id}>
                  <th scope="row">
                    <bdi>{g.client_name}</bdi> <span class="muted">(unverified)</span>
                    {/* Its id, as the consent page showed it: two apps may give themselves the same name. */}
                    <span class="app-id">
                      <span class="offscreen">App id: </span>
                      <code class="break">
                        <Breakable text={g.client_id} />
                      </code>
                    </span>
                  </th>
                  <td data-label="Brand">{brandName}</td>
                  <td data-label="Connected">{formatDate(g.created_at)}</td>
                  <td data-label="Last used">{formatDate(g.last_used_at)}</td>
                  <td class="row-action">
                    <Button variant="danger" aria-label={`Disconnect ${g.client_name}`} onClick={() => setRevoking(g)}>
                      Disconnect
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title={revoking ? `Disconnect “${revoking.client_name}”?` : "Disconnect the app"}
        confirmLabel="Disconnect the app"
        onConfirm={revoke}
        onClose={() => setRevoking(null)}
        focusAfter={() => heading.current}
      >
        {revoking && (
          <p>
            “{revoking.client_name}” is refused from its next request and cannot refresh its access. To use it again, connect it again from
            the app.
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}
