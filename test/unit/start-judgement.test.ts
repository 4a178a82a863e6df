import { EndUserSpendLimitExceededError, InsufficientCreditsError, PaidAccessRequiredError, SpendLimitExceededError, UnauthorizedError } from '#domain/shared/errors';
import { judgeStart, type StartRequest } from '#domain/tasks/start-rules';
import type { IdempotencyRecord } from '#domain/tasks/ports';

/**
 * judgeStart (issue 32): a start its one transaction refused is answered from every rule that
 * refused it, in the API's documented order, with the errors and messages the account read gave.
 */
const IMAGE: StartRequest = { kind: 'image', params: { model: 'image-2', prompt: 'p', resolution: '1k', aspectRatio: '1:1', outputFormat: 'png' } };
const KEY = { keyId: 'key_1', monthlySpendLimit: 100 };
const RECORD: IdempotencyRecord = { accountId: 'acc_1', key: 'k', requestHash: 'h', taskId: 'img_1', createdAt: '2026-11-27T00:00:00.000Z', expiresAt: 1 };
const live = { key: KEY, testPartition: false };

it('answers a used Idempotency-Key before anything else', () => {
  expect(judgeStart({ claim: RECORD, paidAccess: true, spend: { spent: 100 }, credits: { available: 0 } }, IMAGE, 25, live)).toEqual({ type: 'replay', record: RECORD });
});

it('then paid access, with the message by kind, before the spend limit and the balance', () => {
  const judged = judgeStart({ paidAccess: true, spend: { spent: 100 }, credits: { available: 0 } }, IMAGE, 25, live);
  expect(judged).toEqual({ type: 'refuse', error: expect.any(PaidAccessRequiredError) });
  expect(judged.type === 'refuse' && judged.error.message).toBe('Image generation needs paid access and an active subscription.');
});

it("then the key's month, with what is left of it; a price above the limit itself says only the limit", () => {
  const judged = judgeStart({ spend: { spent: 90 }, credits: { available: 0 } }, IMAGE, 25, live);
  expect(judged.type === 'refuse' && judged.error).toEqual(new SpendLimitExceededError(100, 25, 90));
  const outright = judgeStart({ spend: { spent: 0 } }, IMAGE, 150, live);
  expect(outright.type === 'refuse' && outright.error).toEqual(new SpendLimitExceededError(100, 150));
  expect(outright.type === 'refuse' && outright.error.message).not.toContain('left this month');
});

it("then the end user's month through the key, saying it is the end user's limit; the key's own limit is named first when both refused", () => {
  const both = { key: { ...KEY, endUserMonthlySpendLimit: 50 }, testPartition: false };
  const alice: StartRequest = { ...IMAGE, endUser: 'alice' };
  const judged = judgeStart({ endUserSpend: { spent: 50 }, credits: { available: 0 } }, alice, 25, both);
  expect(judged.type === 'refuse' && judged.error).toEqual(new EndUserSpendLimitExceededError(50, 25, 'alice', 50));
  expect(judged.type === 'refuse' && judged.error).toBeInstanceOf(SpendLimitExceededError);
  expect(judged.type === 'refuse' && judged.error.message).toBe(
    'This request costs 25 credits; this API key allows each end user 50 credits a month (end_user_monthly_spend_limit) and end user "alice" has 0 left this month (the month is UTC). Other end users of this key are not affected.',
  );
  const keyFirst = judgeStart({ spend: { spent: 90 }, endUserSpend: { spent: 50 } }, alice, 25, both);
  expect(keyFirst.type === 'refuse' && keyFirst.error).toEqual(new SpendLimitExceededError(100, 25, 90));
  expect(keyFirst.type === 'refuse' && keyFirst.error).not.toBeInstanceOf(EndUserSpendLimitExceededError);
  const outright = judgeStart({ endUserSpend: { spent: 0 } }, alice, 60, both);
  expect(outright.type === 'refuse' && outright.error.message).toMatch(/allows each end user 50 credits a month \(end_user_monthly_spend_limit\), less than this request costs/);
});

it('then the balance; an account that does not exist is unauthorized, a test balance not opened yet is opened', () => {
  const judged = judgeStart({ credits: { available: 7 } }, IMAGE, 25, live);
  expect(judged.type === 'refuse' && judged.error).toEqual(new InsufficientCreditsError(25, 7));
  expect(judgeStart({ noAccount: true }, IMAGE, 25, live)).toEqual({ type: 'refuse', error: expect.any(UnauthorizedError) });
  expect(judgeStart({ noAccount: true }, IMAGE, 25, { testPartition: true })).toEqual({ type: 'open' });
});
