/**
 * A counting semaphore: at most `max` tasks run at once, the rest wait in FIFO order.
 * Kept per engine so one slow provider cannot starve the others.
 */
export interface Limiter {
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  readonly inFlight: number;
  readonly waiting: number;
}

export class LimiterAbortedError extends Error {
  constructor() {
    super("aborted while waiting for a free slot");
    this.name = "LimiterAbortedError";
  }
}

export function createLimiter(max: number): Limiter {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`concurrency must be a positive integer, got ${max}`);
  let active = 0;
  const queue: Array<{ start: () => void }> = [];

  const release = (): void => {
    const next = queue.shift();
    if (next) next.start();
    else active--;
  };

  const acquire = (signal?: AbortSignal): Promise<void> => {
    if (signal?.aborted) return Promise.reject(new LimiterAbortedError());
    if (active < max) {
      active++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const entry = {
        // The slot passes straight from the releasing task to this one, so `active` stays unchanged.
        start: (): void => {
          signal?.removeEventListener("abort", onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        const index = queue.indexOf(entry);
        if (index >= 0) queue.splice(index, 1);
        reject(new LimiterAbortedError());
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      queue.push(entry);
    });
  };

  return {
    async run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      await acquire(signal);
      try {
        return await task();
      } finally {
        release();
      }
    },
    get inFlight() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}
