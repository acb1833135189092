// Bulk jobs on the serving thread (a brand's deletion, the prompt windows' rebuild) work in slices,
// each one transaction, yielding between them, so that no slice holds the event loop long. A slice's
// cost per item varies with the database's size and what is in its page cache, so each job sizes its
// next slice from the last one's.

export interface SliceSizing {
  /** The slice just done's size (the most items it could take). */
  size: number;
  /** The time a slice should take, aimed a little under. */
  targetMs: number;
  min: number;
  max: number;
}

/**
 * The next slice's size: this one's cost per item (`done` items in `ms`) times 0.8 × targetMs, at
 * most twice this one's size, within [min, max].
 */
export function nextSliceSize(done: number, ms: number, sizing: SliceSizing): number {
  const fitted = Math.floor((0.8 * sizing.targetMs * done) / Math.max(ms, 0.1));
  return Math.max(sizing.min, Math.min(sizing.max, sizing.size * 2, fitted));
}
