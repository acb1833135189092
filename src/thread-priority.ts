// Background threads (the bulk jobs' worker, the article renderer's) run at a lower priority than
// the serving thread: when the machine's cores are all busy, the serving thread, at 0, is scheduled
// first and the background work takes what is left.
import { setPriority } from "node:os";

/** The calling thread's nice value (Linux applies setpriority to the calling thread only). */
const BACKGROUND_NICE = 10;

/** Lowers the calling thread's priority; where that is not allowed (some containers), it stays. */
export function runInBackground(): void {
  try {
    setPriority(BACKGROUND_NICE);
  } catch {
    // Not allowed here: the thread runs at the serving thread's priority.
  }
}
