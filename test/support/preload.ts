// Loaded before every test file (bunfig.toml [test] preload): hooks that apply to the whole suite.
import { afterAll } from "bun:test";
import { removeScratchDirs } from "./scratch";

afterAll(removeScratchDirs);
