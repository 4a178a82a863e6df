/**
 * Cognito's lockout after failed attempts, as documented ("Lockout behavior for failed sign-in
 * attempts", https://docs.aws.amazon.com/cognito/latest/developerguide/authentication.html#authentication-flow-lockout-behavior):
 * five failures are free; after n cumulative failures the next attempt waits 2^(n-5) seconds, at
 * most about 15 minutes; attempts during a lockout are refused and not counted; a success after
 * the lockout, or 15 minutes without an attempt, starts the count over.
 *
 * Kept per name as the caller gave it (a user's sub when the user exists), known or not, so the
 * lockout itself does not tell which emails have an account. In memory: a restart forgets it.
 */
const FREE_FAILURES = 5;
const MAX_LOCKOUT_MS = 15 * 60_000;
const FORGET_AFTER_MS = 15 * 60_000;
/** Names idle longer than FORGET_AFTER_MS are dropped once this many are kept. */
const PRUNE_ABOVE = 1_000;

interface Attempts {
  failures: number;
  lockedUntil: number;
  lastAttempt: number;
}

export class Lockout {
  private readonly attempts = new Map<string, Attempts>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Whether `name` is locked out now; every call is an attempt (it keeps the lockout from being forgotten). */
  isLocked(name: string): boolean {
    const entry = this.current(name);
    if (!entry) return false;
    entry.lastAttempt = this.now();
    return entry.lockedUntil > entry.lastAttempt;
  }

  failed(name: string): void {
    const now = this.now();
    const entry = this.current(name) ?? { failures: 0, lockedUntil: 0, lastAttempt: now };
    entry.failures += 1;
    entry.lastAttempt = now;
    if (entry.failures >= FREE_FAILURES) entry.lockedUntil = now + Math.min(2 ** (entry.failures - FREE_FAILURES) * 1000, MAX_LOCKOUT_MS);
    this.attempts.set(name, entry);
    if (this.attempts.size > PRUNE_ABOVE) this.prune(now);
  }

  succeeded(name: string): void {
    this.attempts.delete(name);
  }

  private current(name: string): Attempts | undefined {
    const entry = this.attempts.get(name);
    if (entry && this.now() - entry.lastAttempt >= FORGET_AFTER_MS) {
      this.attempts.delete(name);
      return undefined;
    }
    return entry;
  }

  private prune(now: number): void {
    for (const [name, entry] of this.attempts) if (now - entry.lastAttempt >= FORGET_AFTER_MS) this.attempts.delete(name);
  }
}
