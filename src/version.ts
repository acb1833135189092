// The version this build reports (`spyglass --version`, GET /healthz): package.json's, bundled into
// the binary at compile time.
import pkg from "../package.json";

export const VERSION: string = pkg.version;
