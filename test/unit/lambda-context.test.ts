import { lambdaContext } from '#bin/lambda-context.cjs';

/** The one fake Lambda context (local stack, `npm run invoke`, tests) answers as the runtime's does. */
describe('lambdaContext', () => {
  it('names the function in its ARN and log group, and takes the request id it is given', () => {
    const context = lambdaContext('sweeper', { requestId: 'sweep-1' });
    expect(context).toMatchObject({
      functionName: 'sweeper',
      awsRequestId: 'sweep-1',
      invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:sweeper',
      logGroupName: '/aws/lambda/sweeper',
      memoryLimitInMB: '512',
    });
  });

  it('gives each invocation its own request id when none is given, as Lambda does', () => {
    const ids = new Set(Array.from({ length: 3 }, () => lambdaContext('f').awsRequestId));
    expect(ids.size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('counts the remaining time down from its timeout, never below zero', () => {
    const now = jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    try {
      const context = lambdaContext('f', { timeoutMs: 5_000 });
      now.mockReturnValue(1_002_000);
      expect(context.getRemainingTimeInMillis()).toBe(3_000);
      now.mockReturnValue(1_009_000);
      expect(context.getRemainingTimeInMillis()).toBe(0);
      expect(lambdaContext('f').getRemainingTimeInMillis()).toBe(30_000);
    } finally {
      now.mockRestore();
    }
  });
});
