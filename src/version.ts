// The version this build reports (`spyglass --version`, GET /healthz): package.json's, bundled into
// the binary at compile time, and the build's name (build/stamp.ts buildId: the git commit it was
// built from), which build/compile.ts defines; "source" when run from the sources.
import pkg from "../package.json";

declare const SPYGLASS_BUILD_ID: string | undefined;

export const VERSION: string = pkg.version;

export const BUILD: string = typeof SPYGLASS_BUILD_ID === "string" ? SPYGLASS_BUILD_ID : "source";
