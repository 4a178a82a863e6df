import { ledgerMoved, LedgerMoved } from '#adapters/dynamodb/ledger-positions';
import { AGAIN, isConflict, RETRY_LIMITS, RetriesExhaustedError, retryOnConflict, withRetries } from '#adapters/dynamodb/retry';
import { TransactionRefused } from '#adapters/dynamodb/transaction';
import { ServiceBusyError } from '#domain/shared/errors';

/** The one retry policy of the DynamoDB adapters, and cancellation reasons read by name (issue 32). */
describe('withRetries', () => {
  const noSleep = async () => undefined;

  it('tries again while the attempt answers AGAIN, and returns the first other answer', async () => {
    const rounds: number[] = [];
    const result = await withRetries('test', async (round) => (rounds.push(round), round < 3 ? AGAIN : 'done'), noSleep);
    expect(result).toBe('done');
    expect(rounds).toEqual([0, 1, 2, 3]);
  });

  it('gives up after maxAttempts with RetriesExhaustedError naming what it tried, a busy service to the API (503, never 500)', async () => {
    let attempts = 0;
    const error = await withRetries('ledger append of acc_1', async () => (attempts++, AGAIN), noSleep).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RetriesExhaustedError);
    expect(error).toBeInstanceOf(ServiceBusyError);
    expect(error).toMatchObject({ retryAfterSeconds: 1, detail: `ledger append of acc_1: still contended after ${RETRY_LIMITS.maxAttempts} attempts.` });
    expect(attempts).toBe(RETRY_LIMITS.maxAttempts);
  });

  it('sleeps a jittered wait within min(cap, base x 2^round)', async () => {
    const waits: number[] = [];
    await withRetries('test', async (round) => (round < 20 ? AGAIN : 'done'), async (ms) => void waits.push(ms));
    expect(waits).toHaveLength(20);
    waits.forEach((ms, round) => {
      expect(ms).toBeGreaterThanOrEqual(0);
      expect(ms).toBeLessThanOrEqual(Math.min(RETRY_LIMITS.capMs, RETRY_LIMITS.baseMs * 2 ** round));
    });
  });

  it('lets an error thrown by the attempt through at once', async () => {
    let attempts = 0;
    await expect(
      withRetries(
        'test',
        async () => {
          attempts += 1;
          throw new Error('boom');
        },
        noSleep,
      ),
    ).rejects.toThrow('boom');
    expect(attempts).toBe(1);
  });
});

describe('conflicts', () => {
  const named = (name: string, extra: object = {}) => Object.assign(new Error(name), { name, ...extra });

  it('are a single write refused during a transaction, or a transaction cancelled by another', () => {
    expect(isConflict(named('TransactionConflictException'))).toBe(true);
    expect(isConflict(named('TransactionCanceledException', { CancellationReasons: [{ Code: 'None' }, { Code: 'TransactionConflict' }] }))).toBe(true);
    expect(isConflict(new TransactionRefused(['a', 'b'], [{ Code: 'None' }, { Code: 'TransactionConflict' }]))).toBe(true);
    expect(isConflict(named('TransactionCanceledException', { CancellationReasons: [{ Code: 'ConditionalCheckFailed' }] }))).toBe(false);
    expect(isConflict(named('ConditionalCheckFailedException'))).toBe(false);
  });

  it('retryOnConflict repeats the write until it passes, and hands any other error back', async () => {
    let calls = 0;
    const passed = await retryOnConflict('test', async () => {
      calls += 1;
      if (calls < 3) throw named('TransactionConflictException');
      return 'written';
    });
    expect(passed).toBe('written');
    expect(calls).toBe(3);
    await expect(retryOnConflict('test', async () => Promise.reject(named('ConditionalCheckFailedException')))).rejects.toThrow('ConditionalCheckFailedException');
  });
});

describe('ledgerMoved', () => {
  it('reads the count another ledger write left from the refused account part, or says AGAIN without one', () => {
    const moved = new TransactionRefused(['account', 'entry'], [{ Code: 'ConditionalCheckFailed', Item: { ledger_count: { N: '7' } } }, { Code: 'None' }]);
    expect(ledgerMoved(moved, 'account')).toEqual(new LedgerMoved(7));
    // The account went (no item back), or another transaction held it: nothing to append after.
    expect(ledgerMoved(new TransactionRefused(['account'], [{ Code: 'ConditionalCheckFailed' }]), 'account')).toBe(AGAIN);
    expect(ledgerMoved(new TransactionRefused(['account'], [{ Code: 'TransactionConflict' }]), 'account')).toBe(AGAIN);
  });
});

describe('TransactionRefused', () => {
  it('reads each part by name, with the item as it stood when its condition failed', () => {
    const refused = new TransactionRefused(
      ['claim', 'account', 'task'],
      [{ Code: 'None' }, { Code: 'ConditionalCheckFailed', Item: { credits: { N: '3' }, pk: { S: 'ACCOUNT#acc_1' } } }, { Code: 'None' }],
    );
    expect(refused.failed('account')).toBe(true);
    expect(refused.failed('claim')).toBe(false);
    expect(refused.old('account')).toEqual({ credits: 3, pk: 'ACCOUNT#acc_1' });
    expect(refused.old('claim')).toBeUndefined();
    expect(refused.conflict).toBe(false);
    expect(refused.anyFailed).toBe(true);
  });
});
