// Background threads (the bulk jobs' worker, the article renderer's) run at a lower priority than
// the serving thread: when the machine's cores are all busy, the serving thread is scheduled first
// and the background work takes what is left.
import { getPriority, setPriority } from "node:os";

/** How much nicer than the thread that started it a background thread makes itself. */
const BACKGROUND_NICE = 10;

/**
 * Lowers the calling thread's priority below the one it inherited: relative, so that a server started
 * at nice 15 (a service manager's Nice=) does not get a background thread that outranks it. Linux
 * applies setpriority to the calling thread only (elsewhere it would renice the process: left alone).
 * Where lowering is not allowed (some containers), the thread stays as it is.
 */
export function runInBackground(): void {
  if (process.platform !== "linux") return;
  try {
    setPriority(Math.min(19, getPriority() + BACKGROUND_NICE));
  } catch {
    // Not allowed here: the thread runs at the serving thread's priority.
  }
}
