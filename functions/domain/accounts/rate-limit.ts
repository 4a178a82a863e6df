import type { RateWindow, RateCounter } from '../shared/counter';
import type { Principal } from './principal';

/**
 * Fixed one-minute windows aligned to the minute. A window is identified by the
 * unix minute it starts at; its counter expires (DynamoDB TTL) shortly after it ends.
 */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60;
const WINDOW_SECONDS = 60;

export function windowAt(nowMs: number): RateWindow {
  const id = Math.floor(nowMs / 1000 / WINDOW_SECONDS);
  return { id, resetAt: (id + 1) * WINDOW_SECONDS };
}

/** Seconds a client should wait before retrying; never 0, so clients do not spin. */
export function retryAfterSeconds(window: RateWindow, nowMs: number): number {
  return Math.max(1, Math.ceil(window.resetAt - nowMs / 1000));
}

export interface RateDecision {
  allowed: boolean;
  /** The first request counted in this window. */
  first?: true;
  limit: number;
  remaining: number;
  resetAt: number;
  retryAfter?: number;
}

export async function consumeRequest(
  counter: RateCounter,
  keyId: string,
  limit: number,
  nowMs: number,
): Promise<RateDecision> {
  const window = windowAt(nowMs);
  const count = await counter.increment(keyId, window, limit);
  if (count === undefined) {
    return {
      allowed: false,
      limit,
      remaining: 0,
      resetAt: window.resetAt,
      retryAfter: retryAfterSeconds(window, nowMs),
    };
  }
  return { allowed: true, limit, remaining: Math.max(0, limit - count), resetAt: window.resetAt, ...(count === 1 && { first: true as const }) };
}

/** Counts a request against its principal's window; what every API handler does first. */
export interface RateLimiter {
  consume(principal: Principal): Promise<RateDecision>;
}

/**
 * Whose window a principal's requests count in, and its size: an API key has its own (two keys
 * of one account do not share), a signed-in holder too, apart from any key's.
 */
export function rateSubjectOf(principal: Principal): { id: string; limit: number } {
  switch (principal.kind) {
    case 'apiKey':
      return { id: principal.keyId, limit: principal.rateLimit };
    case 'session':
      return { id: `holder:${principal.holderId}`, limit: principal.rateLimit };
  }
}

/** Where a key's last use is noted (the key store). */
export interface KeyUsage {
  recordUse(keyId: string, at: string): Promise<void>;
}

/**
 * With `usage`, the first request of an API key's window notes when the key was used: its
 * `last_used_at` is at most a minute stale at the cost of one write per key and minute, not
 * one per request. A failed note never fails the request.
 */
export function principalRateLimiter(counter: RateCounter, now: () => number = Date.now, usage?: KeyUsage): RateLimiter {
  return {
    consume: async (principal) => {
      const { id, limit } = rateSubjectOf(principal);
      const at = now();
      const decision = await consumeRequest(counter, id, limit, at);
      if (usage && decision.first && principal.kind === 'apiKey') {
        await usage.recordUse(principal.keyId, new Date(at).toISOString()).catch(() => undefined);
      }
      return decision;
    },
  };
}
