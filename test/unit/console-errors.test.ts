import { ApiError } from '#client';
import { describeError, ERROR_ADVICE } from '#console/errors';
import { ERROR_CODES } from '#contract/errors';
import { TASK_ERROR_CODES } from '#domain/tasks/task';

/** Every error the API can answer, and every reason a task can fail, has words and a next step in the console. */
describe('the console\'s error advice', () => {
  it.each([...new Set([...ERROR_CODES, ...TASK_ERROR_CODES, 'network_error'])])('covers %s', (code) => {
    const advice = ERROR_ADVICE[code];
    expect(advice?.title.length).toBeGreaterThan(5);
    expect(advice?.action.length).toBeGreaterThan(15);
  });

  it('tells a holder how to get paid access, keeping the code and request id for support', () => {
    const described = describeError(
      new ApiError('vid-2-0 needs paid access.', { code: 'paid_access_required', status: 403, requestId: 'req-1' }),
    );
    expect(described).toMatchObject({ code: 'paid_access_required', requestId: 'req-1', message: 'vid-2-0 needs paid access.' });
    expect(described.action).toContain('Billing');
  });

  it.each(['paid_access_required', 'insufficient_credits'])('links %s to the Billing page, and other codes nowhere', (code) => {
    expect(describeError(new ApiError('no', { code, status: 403 })).link).toEqual({ to: '/billing', label: 'Go to Billing' });
    expect(describeError(new ApiError('no', { code: 'not_found', status: 404 })).link).toBeUndefined();
  });

  it('says how long to wait after a 429, from its Retry-After', () => {
    const limited = new ApiError('Rate limit exceeded.', { code: 'rate_limit_exceeded', status: 429, retryAfter: 30 });
    expect(describeError(limited)).toMatchObject({ title: 'Too many requests', action: 'Wait 30 seconds and try again.' });
    expect(describeError(new ApiError('Rate limit exceeded.', { code: 'rate_limit_exceeded', status: 429 })).action).toBe(ERROR_ADVICE.rate_limit_exceeded!.action);
  });
});
