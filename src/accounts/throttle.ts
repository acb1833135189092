// Login throttling, in memory (one process serves the instance). Failures are counted in sliding
// windows under three keys:
//
//   - the (address, account) pair, 5 per 15 minutes: what stops one client guessing one password.
//     An attacker's failures lock that pair only, never the owner signing in from elsewhere.
//   - the address, 30 per 15 minutes: one client trying many accounts (credential stuffing).
//   - the account, 100 per 15 minutes from all addresses together: a global backstop that bounds
//     guessing spread over many addresses. It does not apply to an address that has signed in to
//     that account before (within 30 days), so even a distributed attacker cannot lock the owner
//     out of the places the owner uses.
//
// A lock per pair rather than per account was chosen over a proof-of-work (clients would need a
// solver; scripts and the CLI-minded self-hoster would pay it too) and over a growing delay (it
// holds a request open per attempt, which is itself a resource an attacker can spend).
//
// An attempt counts as a failure from the moment it starts, so parallel attempts cannot all slip
// under a limit; a success takes its counts back and clears the pair's, but not the address's
// earlier failures, so one good login cannot launder a credential-stuffing run.
//
// Memory is bounded whatever is sent: keys are built from a validated email (at most 254
// characters) and an address cut to its network (IPv6 /64) and to 64 characters; entries idle
// for a whole window are dropped as new ones arrive; each map holds at most MAX_TRACKED keys
// (the least recently failed go first).

export interface ThrottleRule {
  maxFailures: number;
  windowMs: number;
}

const WINDOW_MS = 15 * 60 * 1000;

export const LOGIN_RULES = {
  perPair: { maxFailures: 5, windowMs: WINDOW_MS },
  perAddress: { maxFailures: 30, windowMs: WINDOW_MS },
  perAccount: { maxFailures: 100, windowMs: WINDOW_MS },
} satisfies Record<string, ThrottleRule>;

/** How long a successful sign-in makes its address "known" to the account (exempt from the backstop). */
const KNOWN_ADDRESS_MS = 30 * 24 * 60 * 60 * 1000;

const MAX_TRACKED = 20_000;
const MAX_ADDRESS_LENGTH = 64;

export class FailureWindow {
  // Insertion order is the order of each key's latest failure: the first entries are the stalest.
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly rule: ThrottleRule,
    private readonly maxTracked = MAX_TRACKED,
  ) {}

  get size(): number {
    return this.failures.size;
  }

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
    this.sweep(now);
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

  /** Drops the stalest entries: those idle for a whole window, and any beyond the cap. */
  private sweep(now: number): void {
    for (const [key, times] of this.failures) {
      const latest = times[times.length - 1];
      const idle = latest === undefined || now - latest >= this.rule.windowMs;
      if (!idle && this.failures.size <= this.maxTracked) break;
      this.failures.delete(key);
    }
  }

  private recent(key: string, now: number): number[] {
    const times = this.failures.get(key);
    if (!times) return [];
    const fresh = times.filter((t) => now - t < this.rule.windowMs);
    if (fresh.length === 0) this.failures.delete(key);
    return fresh;
  }
}

/**
 * The part of an address that identifies a client: an IPv4 address (also when IPv4-mapped), an
 * IPv6 address's /64 (one subscriber's network, which an attacker can cycle through freely), and
 * never more than 64 characters of whatever a proxy sent.
 */
export function throttleAddress(address: string): string {
  const value = address.trim().toLowerCase().slice(0, MAX_ADDRESS_LENGTH);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(value);
  if (mapped) return mapped[1]!;
  if (!value.includes(":") || value.includes(".")) return value;
  const halves = value.split("::");
  if (halves.length > 2) return value;
  const head = halves[0] ? halves[0].split(":") : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(":") : [];
  const groups = halves.length === 2 ? [...head, ...Array(Math.max(0, 8 - head.length - tail.length)).fill("0"), ...tail] : head;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

export interface LoginAttempt {
  email: string;
  address: string;
  at: number;
}

export class LoginThrottle {
  private readonly pair: FailureWindow;
  private readonly address: FailureWindow;
  private readonly account: FailureWindow;
  private readonly known = new Map<string, number>();

  constructor(rules: typeof LOGIN_RULES = LOGIN_RULES) {
    this.pair = new FailureWindow(rules.perPair);
    this.address = new FailureWindow(rules.perAddress);
    this.account = new FailureWindow(rules.perAccount);
  }

  /** Entries held, all maps together (for tests of the memory bound). */
  get size(): number {
    return this.pair.size + this.address.size + this.account.size + this.known.size;
  }

  /**
   * Seconds the client must wait, or 0; when 0 the attempt is recorded as a failure until
   * `succeeded` takes it back. `email` must already be validated (bounded).
   */
  begin(email: string, rawAddress: string, now = Date.now()): { wait: number; attempt: LoginAttempt } {
    const address = throttleAddress(rawAddress);
    const pairKey = `${address} ${email}`;
    const backstop = this.isKnown(pairKey, now) ? 0 : this.account.retryAfter(email, now);
    const wait = Math.max(this.pair.retryAfter(pairKey, now), this.address.retryAfter(address, now), backstop);
    const attempt = { email, address, at: now };
    if (wait === 0) {
      this.pair.fail(pairKey, now);
      this.address.fail(address, now);
      this.account.fail(email, now);
    }
    return { wait, attempt };
  }

  /** Seconds the next attempt of this email from this address would wait, as begin would say. */
  waitAfter({ email, address, at }: LoginAttempt): number {
    const pairKey = `${address} ${email}`;
    const backstop = this.isKnown(pairKey, at) ? 0 : this.account.retryAfter(email, at);
    return Math.max(this.pair.retryAfter(pairKey, at), this.address.retryAfter(address, at), backstop);
  }

  succeeded({ email, address, at }: LoginAttempt): void {
    const pairKey = `${address} ${email}`;
    this.pair.clear(pairKey);
    this.address.forgive(address, at);
    this.account.forgive(email, at);
    this.known.delete(pairKey);
    this.known.set(pairKey, at);
    for (const [key, last] of this.known) {
      if (this.known.size <= MAX_TRACKED && at - last < KNOWN_ADDRESS_MS) break;
      this.known.delete(key);
    }
  }

  private isKnown(pairKey: string, now: number): boolean {
    const last = this.known.get(pairKey);
    return last !== undefined && now - last < KNOWN_ADDRESS_MS;
  }
}

export function loginThrottle(rules: typeof LOGIN_RULES = LOGIN_RULES): LoginThrottle {
  return new LoginThrottle(rules);
}
