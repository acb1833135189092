// Which file a path names now (device and inode): a connection's file deleted or replaced while it is
// open is told apart from the one at its path by these (file-watch.ts). A new connection opened by
// path meanwhile (a thread's, the reader process's) would pair the file now there with the open
// connection's WAL and shared memory, which keep their names: client.ts's atItsPath lets it refuse.
import { statSync } from "node:fs";

export interface FileIdentity {
  dev: number;
  ino: number;
}

/** The identity of the file at `path`, or null when there is none. */
export function fileIdentity(path: string): FileIdentity | null {
  const stats = statSync(path, { throwIfNoEntry: false });
  return stats ? { dev: stats.dev, ino: stats.ino } : null;
}

export const sameFile = (a: FileIdentity | null, b: FileIdentity | null): boolean =>
  a !== null && b !== null && a.dev === b.dev && a.ino === b.ino;

/** Whether the file at `path` is still `opened` (a stat that fails says yes: nothing is known to have moved). */
export function stillAt(path: string, opened: FileIdentity | null): boolean {
  if (opened === null) return true;
  try {
    return sameFile(fileIdentity(path), opened);
  } catch {
    return true;
  }
}
