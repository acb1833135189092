// Loaded before every test file (bunfig.toml [test] preload): hooks that apply to the whole suite.
import { afterAll } from "bun:test";
import { stopTestPostgres } from "./postgres";
import { removeScratchDirs } from "./scratch";

afterAll(removeScratchDirs);
// The temporary PostgreSQL cluster, if a test started one: before bun kills it as a stray process.
afterAll(stopTestPostgres);
