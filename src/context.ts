// AppContext: what every feature is handed at start (configuration, database, the services built
// once). createAppContext is the one place where they are built and wired to each other.
import { type Config } from "./config";
import { type Db } from "./db/client";
import { EventHub } from "./events";
import { KeyUsage } from "./keys/service";
import { type ClientOptions } from "./llm/types";
import { OAuthService } from "./oauth/service";
import { PublicContent } from "./public/routes";
import { logRunEndOf, TrackingService } from "./tracking/service";

export interface AppContext {
  config: Config;
  db: Db;
  /** Changes one feature announces and others react to (see the wiring below). */
  events: EventHub;
  /** The keys' last-use bookkeeping. */
  keys: KeyUsage;
  /** The OAuth authorization server and its grants (on only with a suitable public_url). */
  oauth: OAuthService;
  /** Runs, the answer writer and re-analysis. */
  tracking: TrackingService;
  /** The public content API's cache and request handler. */
  publicContent: PublicContent;
}

export interface AppContextOptions {
  /** How tracking's model clients reach the providers (tests point them at stand-ins). */
  llm?: ClientOptions;
}

export function createAppContext(config: Config, db: Db, options: AppContextOptions = {}): AppContext {
  const events = new EventHub();
  const tracking = new TrackingService(config, db, options.llm);
  const publicContent = new PublicContent(db);
  events.on("rosterChanged", ({ brandId }) => tracking.reanalysis.reanalyzeInBackground(brandId));
  events.on("articlesChanged", ({ brandId }) => publicContent.cache.invalidateBrand(brandId));
  const app: AppContext = { config, db, events, keys: new KeyUsage(db), oauth: new OAuthService(config, db), tracking, publicContent };
  tracking.runner.onAdoptedRunEnd = (brandId, runId) => void logRunEndOf(app, { brandId, runId });
  return app;
}
