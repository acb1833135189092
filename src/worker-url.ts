// Where a worker's entry point is: a file under src/ when running from source, or, in the single
// executable, the bundled entry point of that name (build/compile.ts lists each worker as an entry;
// the executable addresses them relative to the bundle's root, src/). Bun.main, not only
// import.meta.url: a binary compiled with --bytecode keeps the source's path in import.meta.url.
export function workerUrl(fromSrc: string): string {
  if (runsCompiled()) return `./${fromSrc}`;
  return new URL(`./${fromSrc}`, import.meta.url).href;
}

/** Whether this is the single executable (its bundle is under Bun's /$bunfs/), not Bun running src/. */
export function runsCompiled(): boolean {
  return Bun.main.includes("/$bunfs/") || import.meta.url.includes("/$bunfs/");
}
