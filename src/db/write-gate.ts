// Who writes next, between the serving thread and the worker threads that write to the same SQLite
// file (re-analysis, see tracking/reanalysis.ts). SQLite lets one connection write at a time, and
// bun:sqlite waits for its lock synchronously (busy_timeout): a serving thread whose write met a
// worker's transaction would stop the event loop until it ended, or, against a worker that takes the
// lock again at once, time out. So the threads agree first, through shared memory: a worker takes
// the gate for each of its short transactions and gives way between two whenever the serving
// thread is waiting; the serving thread waits for the gate without blocking (Atomics.waitAsync), at
// most one of the worker's transactions.
//
// Two counters in a SharedArrayBuffer: WANT, the serving thread's writes waiting or under way, and
// BUSY, the workers' transactions under way. Each side raises its own counter before it reads the
// other's (sequentially consistent), so both can never go ahead at once; when both see each other,
// the worker steps back.

const WANT = 0;
const BUSY = 1;

export class WriteGate {
  readonly buffer: SharedArrayBuffer;
  private readonly counts: Int32Array;

  constructor(buffer: SharedArrayBuffer = new SharedArrayBuffer(8)) {
    this.buffer = buffer;
    this.counts = new Int32Array(buffer);
  }

  /**
   * The serving thread, before a write: null when no worker is inside a transaction (the usual
   * case, with no promise to wait for), or a promise that settles when the last one has left. Every
   * enter() is followed by one leave(), when the write has ended.
   */
  enter(): Promise<void> | null {
    Atomics.add(this.counts, WANT, 1);
    return Atomics.load(this.counts, BUSY) === 0 ? null : this.idle();
  }

  leave(): void {
    if (Atomics.sub(this.counts, WANT, 1) === 1) Atomics.notify(this.counts, WANT);
  }

  private async idle(): Promise<void> {
    for (let busy = Atomics.load(this.counts, BUSY); busy !== 0; busy = Atomics.load(this.counts, BUSY)) {
      const wait = Atomics.waitAsync(this.counts, BUSY, busy);
      if (wait.async) await wait.value;
    }
  }

  /**
   * A worker, before a transaction: blocks its thread while the serving thread writes or waits to.
   * Every take() is followed by one give().
   */
  take(): void {
    for (;;) {
      Atomics.add(this.counts, BUSY, 1);
      if (Atomics.load(this.counts, WANT) === 0) return;
      this.give();
      const wanted = Atomics.load(this.counts, WANT);
      if (wanted !== 0) Atomics.wait(this.counts, WANT, wanted, 50);
    }
  }

  give(): void {
    Atomics.sub(this.counts, BUSY, 1);
    Atomics.notify(this.counts, BUSY);
  }
}
