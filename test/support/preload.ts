// Loaded before every test file (bunfig.toml [test] preload): hooks that apply to the whole suite.
import { afterAll } from "bun:test";
import { verifyConformance } from "../../src/catalogue/conformance";
import { stopTestPostgres } from "./postgres";
import { removeScratchDirs } from "./scratch";

// Every tool result the catalogue passes on unparsed is parsed too, and must be the same (conformance.ts).
verifyConformance(true);
afterAll(removeScratchDirs);
// The temporary PostgreSQL cluster, if a test started one: before bun kills it as a stray process.
afterAll(stopTestPostgres);
