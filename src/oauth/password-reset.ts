// A password reset, the operator's answer to a forgotten or leaked password (`spyglass account
// password`): the account's password set and its sessions ended (accounts/), its connected apps
// disconnected (this folder: whoever knew the old password may have connected one), and its API
// keys counted, not revoked (keys/: revoking one stops a client someone configured on purpose).
import { type AccountView, setAccountPassword } from "../accounts/service";
import { type Queries } from "../db/queries";
import { countActiveApiKeys } from "../keys/service";
import { revokeAccountGrants } from "./service";

export interface PasswordReset extends AccountView {
  sessions_ended: number;
  connected_apps_disconnected: number;
  api_keys_active: number;
}

export async function resetAccountPassword(db: Queries, email: string, password: unknown, now = Date.now()): Promise<PasswordReset> {
  const set = await setAccountPassword(db, email, password);
  const apps = await revokeAccountGrants(db, set.id, now);
  return { ...set, connected_apps_disconnected: apps, api_keys_active: await countActiveApiKeys(db, set.id) };
}
