// An engine that answered nothing in a run: every one of its answers an error (a revoked provider key,
// a model that no longer exists). In a module without imports, so that the dashboard's Tracking page
// names the same engines the server's log and spyglass track's exit code do.

export interface EngineTally {
  engine: string;
  ok: number;
  empty: number;
  refusal: number;
  error: number;
}

/** The engines of a run's by_engine whose every answer was an error. */
export function enginesAnsweringNothing<T extends EngineTally>(byEngine: readonly T[]): T[] {
  return byEngine.filter((e) => e.error > 0 && e.ok + e.empty + e.refusal === 0);
}
