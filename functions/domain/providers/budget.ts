import type { ProviderBudget } from './ports';
import type { RateCounter } from '../shared/counter';

/**
 * The provider's budget on the atomic counters the rate limit uses: one counter per provider
 * and second, whose n-th ticket is the turn `(n - 1) / perSecond` seconds into that second.
 * Turns are therefore evenly spaced across seconds too (any second-long span holds at most
 * `perSecond` of them), and taking one is a single conditional ADD that never conflicts.
 *
 * A ticket whose turn has already passed is skipped (used, by nobody): turns are never moved
 * earlier than they were given, which is what keeps the spacing. In a quiet second that costs
 * a few extra ADDs; it can never cost more than `perSecond` of them a second.
 */
export class CounterBudget implements ProviderBudget {
  constructor(private readonly counter: RateCounter) {}

  async reserve(provider: string, perSecond: number, now: number, maxWaitMs: number): Promise<number | undefined> {
    const spacing = 1000 / perSecond;
    let second = Math.floor(now / 1000);
    while (second * 1000 <= now + maxWaitMs) {
      const ticket = await this.counter.increment(`provider-${provider}`, { id: second, resetAt: second + 1 }, perSecond);
      if (ticket === undefined) {
        second += 1;
        continue;
      }
      const turn = second * 1000 + (ticket - 1) * spacing;
      if (turn < now) continue;
      return turn <= now + maxWaitMs ? turn : undefined;
    }
    return undefined;
  }
}
