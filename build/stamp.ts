// The build stamp: a hash of everything the executable is built from, written beside it by
// build/compile.ts (dist/spyglass.stamp). Tests that drive the binary compare it with the sources
// they run against, so a binary compiled before the latest edit is never the one tested.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dir, "..");

/** What the binary is built from: the sources, migrations, build scripts, and the pinned dependencies. */
export const STAMPED_PATHS = ["src", "drizzle", "build", "package.json", "bun.lock", "tsconfig.json", "bunfig.toml"] as const;

export function stampFileOf(binary: string): string {
  return `${binary}.stamp`;
}

function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { recursive: true, encoding: "utf8" })
    .map((entry) => join(path, entry))
    .filter((file) => statSync(file).isFile());
}

/** A hash of the stamped files' paths and contents under `root`, and of the Bun that compiles them. */
export function sourceStamp(root = REPO_ROOT): string {
  const hash = createHash("sha256");
  hash.update(`bun ${Bun.version}\n`);
  const files = STAMPED_PATHS.flatMap((path) => filesUnder(join(root, path)))
    .map((file) => relative(root, file))
    .sort();
  for (const file of files) {
    const content = readFileSync(join(root, file));
    hash.update(`${file}\u0000${content.length}\u0000`);
    hash.update(content);
  }
  return hash.digest("hex");
}

/**
 * What `spyglass --version` and /healthz name the build by: the git commit it was built from (10
 * hex digits), followed by "+" and the source stamp's first 8 when a stamped file differs from that
 * commit; the source stamp alone ("src.<12>") outside a git checkout. Two binaries with the same
 * version (package.json's) but different code are told apart.
 */
export function buildId(root = REPO_ROOT): string {
  const stamp = sourceStamp(root);
  const git = (args: string[]) => {
    try {
      const done = Bun.spawnSync(["git", "-C", root, ...args], { stdout: "pipe", stderr: "ignore" });
      return done.exitCode === 0 ? done.stdout.toString().trim() : null;
    } catch {
      return null; // no git on this machine
    }
  };
  // The checkout's own commit only: sources unpacked inside another repository (a home directory
  // under git) are not that repository's commit.
  const top = git(["rev-parse", "--show-toplevel"]);
  const commit = top !== null && resolve(top) === resolve(root) ? git(["rev-parse", "--short=10", "HEAD"]) : null;
  if (!commit) return `src.${stamp.slice(0, 12)}`;
  const changed = git(["status", "--porcelain", "--", ...STAMPED_PATHS]);
  return changed === "" ? commit : `${commit}+${stamp.slice(0, 8)}`;
}
