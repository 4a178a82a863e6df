import type { ApiKeyPrincipal, SessionPrincipal } from '#domain/accounts/principal';
import { consumeRequest, principalRateLimiter, retryAfterSeconds, windowAt } from '#domain/accounts/rate-limit';
import { MemoryRateCounter } from '#test-support/memory-stores';

const MINUTE = 60_000;
const at = (iso: string) => Date.parse(iso);

describe('rate-limit windows', () => {
  it('are aligned to the minute and reset at its end', () => {
    const window = windowAt(at('2026-11-21T17:00:42.500Z'));
    expect(window.resetAt).toBe(at('2026-11-21T17:01:00.000Z') / 1000);
    expect(windowAt(at('2026-11-21T17:00:00.000Z')).id).toBe(window.id);
    expect(windowAt(at('2026-11-21T17:00:59.999Z')).id).toBe(window.id);
    expect(windowAt(at('2026-11-21T17:01:00.000Z')).id).toBe(window.id + 1);
  });

  it('tell clients to wait until the window ends, and at least one second', () => {
    const now = at('2026-11-21T17:00:42.500Z');
    expect(retryAfterSeconds(windowAt(now), now)).toBe(18);
    const late = at('2026-11-21T17:00:59.900Z');
    expect(retryAfterSeconds(windowAt(late), late)).toBe(1);
  });
});

describe('consumeRequest', () => {
  it('allows exactly `limit` requests per window, then refuses with Retry-After', async () => {
    const counter = new MemoryRateCounter();
    const now = at('2026-11-21T17:00:30.000Z');
    const decisions = [];
    for (let i = 0; i < 4; i += 1) decisions.push(await consumeRequest(counter, 'key_a', 3, now));
    expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
    expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
    expect(decisions[3]).toMatchObject({ limit: 3, retryAfter: 30, resetAt: windowAt(now).resetAt });
  });

  it('starts again in the next window and counts keys apart', async () => {
    const counter = new MemoryRateCounter();
    const now = at('2026-11-21T17:00:30.000Z');
    await consumeRequest(counter, 'key_a', 1, now);
    expect((await consumeRequest(counter, 'key_a', 1, now)).allowed).toBe(false);
    expect((await consumeRequest(counter, 'key_b', 1, now)).allowed).toBe(true);
    expect((await consumeRequest(counter, 'key_a', 1, now + MINUTE)).allowed).toBe(true);
  });
});

describe('principalRateLimiter', () => {
  const now = at('2026-11-21T17:00:30.000Z');
  const key = (keyId: string, rateLimit: number): ApiKeyPrincipal => ({ kind: 'apiKey', partitionId: 'acc_1', mode: 'live', keyId, rateLimit, scopes: ['read'] });
  const allowed = async (consume: () => Promise<{ allowed: boolean }>, times: number) => {
    const answers = [];
    for (let i = 0; i < times; i += 1) answers.push((await consume()).allowed);
    return answers;
  };

  it("counts each API key in its own window with the key's own limit, even two keys of one account", async () => {
    const limiter = principalRateLimiter(new MemoryRateCounter(), () => now);
    expect(await allowed(() => limiter.consume(key('key_a', 2)), 3)).toEqual([true, true, false]);
    expect(await allowed(() => limiter.consume(key('key_b', 1)), 2)).toEqual([true, false]);
    expect(await limiter.consume(key('key_b', 1))).toMatchObject({ limit: 1, remaining: 0, retryAfter: 30 });
  });

  it("counts a session by its holder, apart from the account's keys, in both modes", async () => {
    const limiter = principalRateLimiter(new MemoryRateCounter(), () => now);
    const session: SessionPrincipal = { kind: 'session', partitionId: 'acc_1', mode: 'live', holderId: 'key_a', email: 'a@example.com', rateLimit: 2, accountId: 'acc_1', role: 'owner', memberships: [{ accountId: 'acc_1', role: 'owner' }] };
    const testMode: SessionPrincipal = { ...session, partitionId: 'acc_1_test', mode: 'test' };
    expect(await allowed(() => limiter.consume(key('key_a', 1)), 2)).toEqual([true, false]);
    // The same id as the key, yet its own window: holders and keys never share a counter;
    // a holder's two modes do (one person, one limit).
    expect(await allowed(() => limiter.consume(session), 1)).toEqual([true]);
    expect(await allowed(() => limiter.consume(testMode), 2)).toEqual([true, false]);
  });

  it("notes an API key's use once per window (last_used_at at most a minute stale), never a session's", async () => {
    const uses: [string, string][] = [];
    let clock = now;
    const limiter = principalRateLimiter(new MemoryRateCounter(), () => clock, { recordUse: async (keyId, at) => void uses.push([keyId, at]) });
    for (let i = 0; i < 5; i += 1) await limiter.consume(key('key_a', 60));
    await limiter.consume({ kind: 'session', partitionId: 'acc_1', mode: 'live', holderId: 'u1', email: 'u1@example.com', rateLimit: 60, accountId: 'acc_1', role: 'owner', memberships: [{ accountId: 'acc_1', role: 'owner' }] });
    clock = now + MINUTE;
    await limiter.consume(key('key_a', 60));
    expect(uses).toEqual([
      ['key_a', new Date(now).toISOString()],
      ['key_a', new Date(now + MINUTE).toISOString()],
    ]);
  });

  it('answers the request even when noting the use fails', async () => {
    const limiter = principalRateLimiter(new MemoryRateCounter(), () => now, {
      recordUse: async () => {
        throw new Error('table unavailable');
      },
    });
    await expect(limiter.consume(key('key_a', 60))).resolves.toMatchObject({ allowed: true, remaining: 59 });
  });
});
