#!/usr/bin/env bun
// The executable's entry. Run by a person or a service manager, it is the CLI (main.ts, CONTRACT §2).
// Started by a serving Spyglass with READER_ENV set, it is that server's reader process
// (db/reader.ts), and loads none of the CLI's modules.
import { READER_ENV, runReaderProcess } from "./db/reader-process";
import { jitAtUsualThresholds } from "./jit-policy";

if (process.env[READER_ENV] === "1") {
  // Its work is the long reads, from the first (src/jit-policy.ts).
  jitAtUsualThresholds();
  runReaderProcess();
} else void import("./main").then(({ runCli }) => runCli(process.argv.slice(2)));
