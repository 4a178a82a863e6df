import type { ProviderBudget } from './ports';
import type { RateCounter } from '../shared/counter';

/**
 * The provider's budget on the atomic counters the rate limit uses: one counter per provider
 * and second, whose n-th ticket is the turn `(n - 1) / perSecond` seconds into that second.
 * Turns are therefore evenly spaced across seconds too (any second-long span holds at most
 * `perSecond` of them), and taking one is a single conditional ADD that never conflicts.
 *
 * A ticket whose turn has already passed is skipped (used, by nobody): turns are never moved
 * earlier than they were given, which is what keeps the spacing. The first reserver that finds
 * the passed turns untaken skips them all in one conditional write (`claimAt`); a busy second
 * costs one more write, an ADD past the turns others took.
 */
export class CounterBudget implements ProviderBudget {
  constructor(private readonly counter: RateCounter) {}

  async reserve(provider: string, perSecond: number, now: number, maxWaitMs: number): Promise<number | undefined> {
    const spacing = 1000 / perSecond;
    const key = `provider-${provider}`;
    let second = Math.floor(now / 1000);
    while (second * 1000 <= now + maxWaitMs) {
      const window = { id: second, resetAt: second + 1 };
      // The first ticket whose turn has not passed: earlier ones are skipped in one write if nobody took them.
      const first = second * 1000 >= now ? 1 : Math.ceil((now - second * 1000) / spacing) + 1;
      if (first > perSecond) {
        second += 1;
        continue;
      }
      if (first > 1 && (await this.counter.claimAt(key, window, first))) {
        const turn = second * 1000 + (first - 1) * spacing;
        return turn <= now + maxWaitMs ? turn : undefined;
      }
      const ticket = await this.counter.increment(key, window, perSecond);
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
