// Login throttling: failed attempts counted per account (email) and per client address in a
// sliding window, in memory (one process serves the instance). An attempt counts as a failure from
// the moment it starts, so parallel attempts cannot all slip under the limit; a success takes its
// own count back and clears the account's, but not the address's earlier failures, so one good
// login cannot launder a credential-stuffing run.

export interface ThrottleRule {
  maxFailures: number;
  windowMs: number;
}

export const LOGIN_RULES = {
  perEmail: { maxFailures: 5, windowMs: 15 * 60 * 1000 },
  perAddress: { maxFailures: 30, windowMs: 15 * 60 * 1000 },
} satisfies Record<string, ThrottleRule>;

// Bounds memory under a flood of distinct emails or addresses.
const MAX_TRACKED = 50_000;

export class FailureWindow {
  private readonly failures = new Map<string, number[]>();

  constructor(private readonly rule: ThrottleRule) {}

  /** Seconds until another attempt is allowed, or 0 when it is allowed now. */
  retryAfter(key: string, now = Date.now()): number {
    const times = this.recent(key, now);
    if (times.length < this.rule.maxFailures) return 0;
    const oldest = times[times.length - this.rule.maxFailures]!;
    return Math.max(1, Math.ceil((oldest + this.rule.windowMs - now) / 1000));
  }

  fail(key: string, now = Date.now()): void {
    const times = this.recent(key, now);
    times.push(now);
    if (times.length > this.rule.maxFailures) times.splice(0, times.length - this.rule.maxFailures);
    this.failures.delete(key);
    this.failures.set(key, times);
    if (this.failures.size > MAX_TRACKED) {
      const first = this.failures.keys().next();
      if (!first.done) this.failures.delete(first.value);
    }
  }

  /** Takes back one failure recorded at `at` (an attempt counted up front that then succeeded). */
  forgive(key: string, at: number): void {
    const times = this.failures.get(key);
    const index = times?.lastIndexOf(at) ?? -1;
    if (times && index >= 0) times.splice(index, 1);
  }

  clear(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string, now: number): number[] {
    const times = this.failures.get(key);
    if (!times) return [];
    const fresh = times.filter((t) => now - t < this.rule.windowMs);
    if (fresh.length === 0) this.failures.delete(key);
    return fresh;
  }
}

export function loginThrottle(rules: { perEmail: ThrottleRule; perAddress: ThrottleRule } = LOGIN_RULES) {
  return { email: new FailureWindow(rules.perEmail), address: new FailureWindow(rules.perAddress) };
}

export type LoginThrottle = ReturnType<typeof loginThrottle>;
