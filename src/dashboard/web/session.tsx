// Who is signed in, the instance's first-run state, and the account's brands, for every page.
import { type ComponentChildren, createContext } from "preact";
import { useCallback, useContext, useEffect, useState } from "preact/hooks";
import { ApiError, api, type Brand, type InstanceStatus, type Me } from "./api";

export interface Session {
  status: InstanceStatus | null;
  me: Me | null;
  brands: Brand[];
  /** Loading the first time; pages wait for it before deciding where a visitor belongs. */
  ready: boolean;
  refresh: () => Promise<void>;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({ children }: { children: ComponentChildren }) {
  const [state, setState] = useState<Omit<Session, "refresh">>({ status: null, me: null, brands: [], ready: false });
  const refresh = useCallback(async () => {
    const status = await api.status();
    let me: Me | null = null;
    let brands: Brand[] = [];
    try {
      me = await api.me();
      brands = (await api.brands()).brands;
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 401)) throw error;
    }
    setState({ status, me, brands, ready: true });
  }, []);
  useEffect(() => {
    refresh().catch(() => setState((s) => ({ ...s, ready: true })));
  }, [refresh]);
  return <SessionContext.Provider value={{ ...state, refresh }}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession outside SessionProvider");
  return session;
}
