import { lazyMessageQueue, localQueue } from '#app-context/queues';

/**
 * The queues of the wiring are resolved on their first send: a function that only builds the
 * lifecycle or the webhook parts needs no queue URL, and one that sends without a URL on Lambda
 * still fails (test/cdk/lambda-wiring.test.ts checks each function's template environment).
 */
describe('lazyMessageQueue', () => {
  const saved = process.env.AWS_LAMBDA_FUNCTION_NAME;
  afterEach(() => {
    if (saved === undefined) delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    else process.env.AWS_LAMBDA_FUNCTION_NAME = saved;
  });

  it('on Lambda without a URL: builds, and refuses the first send with the variable it needs', async () => {
    process.env.AWS_LAMBDA_FUNCTION_NAME = 'vidgen-dev-get-video';
    const submissions = lazyMessageQueue('submissions', undefined, 'eu-west-1');
    const deliveries = lazyMessageQueue('webhook-deliveries', undefined, 'eu-west-1');
    await expect(submissions.send({ accountId: 'a', taskId: 't' })).rejects.toThrow('SUBMISSION_QUEUE_URL is required on Lambda.');
    await expect(deliveries.send({ accountId: 'a' })).rejects.toThrow('WEBHOOK_QUEUE_URL is required on Lambda.');
    // Nothing went to the in-process stand-in, where it would be lost when the function freezes.
    expect([localQueue('submissions').depth, localQueue('webhook-deliveries').depth]).toEqual([0, 0]);
  });

  it('off Lambda without a URL: sends to the in-process queue the local stack consumes', async () => {
    delete process.env.AWS_LAMBDA_FUNCTION_NAME;
    const submissions = lazyMessageQueue<{ taskId: string }>('submissions', undefined, 'local');
    await submissions.send({ taskId: 't1' });
    await submissions.send({ taskId: 't2' }, { delaySeconds: 0 });
    const received: string[] = [];
    await localQueue('submissions').pollOnce(async (event) => void received.push(...event.Records.map((record) => record.body)));
    expect(received).toEqual(['{"taskId":"t1"}', '{"taskId":"t2"}']);
  });
});
