// Compiles src/entry.ts (the CLI, src/main.ts, or a server's reader process) into the single
// executable dist/spyglass. Each worker (the article renderer's, the WAL checkpointer's, the bulk
// jobs': re-analysis and the prompt windows' rebuild) is an entry point of its own (Bun bundles each
// entry separately; src/worker-url.ts finds them). The long reads' reader is a process, the
// executable itself (src/db/reader.ts). `compileExecutable` is the one build configuration: the
// compiled-sanitizer test builds its check binary with it too. Beside the binary goes its build
// stamp (build/stamp.ts), which the tests that drive it check.
//
// It is compiled twice: once, then run through a day's use (build/bytecode-profile.ts) to record
// which functions a server loads, then again with its bytecode laid out by that record.
import { rmSync, writeFileSync } from "node:fs";
import { type BuildOutput } from "bun";
import { START_JIT_POLICY } from "../src/jit-policy";
import { recordBytecodeOrder } from "./bytecode-profile";
import { jsdomPlugin } from "./jsdom-plugin";
import { buildId, sourceStamp, stampFileOf } from "./stamp";

/** `bytecodeOrder`: a record of build/bytecode-profile.ts's run, or none. */
export function compileExecutable(entrypoints: string[], outfile: string, bytecodeOrder: string | null = null): Promise<BuildOutput> {
  return Bun.build({
    entrypoints,
    // The executable reads no file of the directory it is started in but those its configuration
    // names: Bun's standalone executables load a .env and a bunfig.toml from there by default, so a
    // `spyglass serve` started in another project's directory took that project's PORT or
    // SPYGLASS_DATA from its .env, and ran the scripts its bunfig.toml preloads (checked with the
    // compiled binary: a preload wrote a file before the server listened). The environment is the
    // service manager's or the container's, as README's configuration says.
    compile: {
      outfile,
      autoloadDotenv: false,
      autoloadBunfig: false,
      autoloadTsconfig: false,
      autoloadPackageJson: false,
      // The start's run-once code stays in the interpreter; each process puts the usual thresholds
      // back once it is doing its work (src/jit-policy.ts).
      jitPolicy: START_JIT_POLICY,
      // The bytecode that a server's run used comes first in the executable, together: fewer of its
      // pages are read and kept (build/bytecode-profile.ts).
      bytecodeOrder,
    },
    minify: true,
    // JavaScriptCore bytecode compiled at build time, embedded beside the source: the 2 MB bundle is
    // not parsed and compiled at every start. Measured (spawn → first /healthz 200, 5 interleaved
    // rounds on the shared 2-core machine): 248 ms (229–334) without, 150 ms (117–157) with; start-up
    // CPU 210 → 140 ms. The binary grows by ~17 MB (116 → 134 MB).
    bytecode: true,
    sourcemap: "none",
    target: "bun",
    plugins: [jsdomPlugin],
    // The build's name (src/version.ts): the commit it is built from.
    define: { SPYGLASS_BUILD_ID: JSON.stringify(buildId()) },
    throw: false,
  });
}

/** The record of the profiling run, beside the executable (dist/ is not in git). */
const ORDER_FILE = "dist/bytecode-order.txt";

if (import.meta.main) {
  // Hashed before compiling: a source edited during the build leaves the binary stale, not stamped fresh.
  const stamp = sourceStamp();
  rmSync(stampFileOf("dist/spyglass"), { force: true });
  const entries = ["src/entry.ts", "src/content/render-worker.ts", "src/db/checkpoint-worker.ts", "src/tracking/bulk-worker.ts"];
  const compile = async (order: string | null) => {
    const result = await compileExecutable(entries, "dist/spyglass", order);
    if (result.success) return;
    for (const message of result.logs) console.error(message);
    // No executable without its layout is left behind (nor after a failed profiling run, below).
    rmSync("dist/spyglass", { force: true });
    process.exit(1);
  };
  await compile(null);
  try {
    await recordBytecodeOrder("dist/spyglass", ORDER_FILE);
  } catch (error) {
    // The executable just built could not serve a day's use: it is not one to ship either.
    rmSync("dist/spyglass", { force: true });
    console.error(`[build] the executable's profiling run failed: ${(error as Error).message}`);
    process.exit(1);
  }
  await compile(ORDER_FILE);
  writeFileSync(stampFileOf("dist/spyglass"), `${stamp}\n`);
}
