// AppContext: what every feature is handed at start (configuration, database, the services built once).
import { type Config } from "./config";
import { type Db } from "./db/client";

export interface AppContext {
  config: Config;
  db: Db;
}

export function createAppContext(config: Config, db: Db): AppContext {
  return { config, db };
}
