// The changes one feature announces and others react to, without the announcer importing them:
// brands and competitors announce roster changes (tracking re-analyses), content announces article
// changes (the public content cache drops the brand). Built once per AppContext; delivery is
// synchronous, after the change has committed.
import { log } from "./log";

export interface AppEvents {
  /** The brand's name, domain or aliases, or its competitors, changed: the names the analysis matches. */
  rosterChanged: { brandId: string };
  /** One of the brand's articles was published, unpublished, or changed while published. */
  articlesChanged: { brandId: string };
}

export type AppEventListener<K extends keyof AppEvents> = (event: AppEvents[K]) => void;

export class EventHub {
  private readonly listeners: { [K in keyof AppEvents]: Set<AppEventListener<K>> } = {
    rosterChanged: new Set(),
    articlesChanged: new Set(),
  };

  /** Calls `listener` on every `type` event from now on. */
  on<K extends keyof AppEvents>(type: K, listener: AppEventListener<K>): void {
    (this.listeners[type] as Set<AppEventListener<K>>).add(listener);
  }

  /** A listener that throws is logged: the change it reacts to has committed and stands. */
  emit<K extends keyof AppEvents>(type: K, event: AppEvents[K]): void {
    for (const listener of this.listeners[type] as Set<AppEventListener<K>>) {
      try {
        listener(event);
      } catch (error) {
        log.error("event listener failed", { event: type, message: (error as Error)?.message });
      }
    }
  }
}
