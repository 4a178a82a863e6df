import { ApiError } from '#client';
import { StartIntent } from '#console/idempotency';
import { pollDelay } from '#console/queries';

describe('the console\'s starts: one Idempotency-Key per start the person means', () => {
  const counter = () => {
    let next = 0;
    return () => `key-${(next += 1)}`;
  };

  it('sends the same request under the same key until an answer comes', () => {
    const intent = new StartIntent(counter());
    expect(intent.keyFor('a')).toBe('key-1');
    expect(intent.keyFor('a')).toBe('key-1');
  });

  it('gives a changed request a new key (the same key with another body is a 409)', () => {
    const intent = new StartIntent(counter());
    intent.keyFor('a');
    expect(intent.keyFor('b')).toBe('key-2');
  });

  it.each([
    ['a task', undefined],
    ['a refusal', new ApiError('Not enough credits.', { code: 'insufficient_credits', status: 402 })],
    ['the provider\'s refusal, refunded', new ApiError('Upstream refused.', { code: 'upstream_error', status: 502 })],
  ])('after %s, the same request again is a new start with a new key', (_answer, error) => {
    const intent = new StartIntent(counter());
    intent.keyFor('a');
    intent.settled('key-1', error);
    expect(intent.keyFor('a')).toBe('key-2');
  });

  it('leaves a changed request\'s key alone when the start before the change ends', () => {
    const intent = new StartIntent(counter());
    intent.keyFor('video');
    expect(intent.keyFor('image')).toBe('key-2');
    intent.settled('key-1', undefined);
    expect(intent.keyFor('image')).toBe('key-2');
  });

  it.each([
    ['no answer', new ApiError('fetch failed', { code: 'network_error', status: 0 })],
    ['a 500 that may have come after the task was made', new ApiError('Internal error.', { code: 'internal_error', status: 500 })],
    ['a gateway timeout', new ApiError('Gateway timeout.', { code: 'internal_error', status: 504 })],
  ])('after %s, trying again keeps the key, so it cannot charge twice', (_answer, error) => {
    const intent = new StartIntent(counter());
    intent.keyFor('a');
    intent.settled('key-1', error);
    expect(intent.keyFor('a')).toBe('key-1');
  });
});

describe('the console\'s polls back off after failures', () => {
  const now = 1_000_000;

  it('reads every interval while reads succeed', () => {
    expect(pollDelay({ dataUpdatedAt: now - 500, errorUpdatedAt: 0 }, 2_000, now)).toBe(2_000);
    expect(pollDelay({ dataUpdatedAt: now - 500, errorUpdatedAt: now - 9_000 }, 2_000, now)).toBe(2_000);
  });

  it('after a failure waits as long as reads have been failing: the waits double', () => {
    expect(pollDelay({ dataUpdatedAt: now - 1_000, errorUpdatedAt: now }, 2_000, now)).toBe(2_000);
    expect(pollDelay({ dataUpdatedAt: now - 4_000, errorUpdatedAt: now }, 2_000, now)).toBe(4_000);
    expect(pollDelay({ dataUpdatedAt: now - 8_000, errorUpdatedAt: now }, 2_000, now)).toBe(8_000);
  });

  it('reads something busy for long less often: a quarter of the time it has been busy, at most 10 s', () => {
    expect(pollDelay({ dataUpdatedAt: now, errorUpdatedAt: 0 }, 1_500, now, 2_000)).toBe(1_500);
    expect(pollDelay({ dataUpdatedAt: now, errorUpdatedAt: 0 }, 1_500, now, 20_000)).toBe(5_000);
    expect(pollDelay({ dataUpdatedAt: now, errorUpdatedAt: 0 }, 1_500, now, 600_000)).toBe(10_000);
  });

  it('never waits more than a minute, even when no read has succeeded', () => {
    expect(pollDelay({ dataUpdatedAt: now - 300_000, errorUpdatedAt: now }, 2_000, now)).toBe(60_000);
    expect(pollDelay({ dataUpdatedAt: 0, errorUpdatedAt: now }, 2_000, now)).toBe(60_000);
  });
});
