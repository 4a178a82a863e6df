import type { LocalStack } from '#bin/local-stack/stack';
import { newAccount } from '#test-support/accounts';
import { recordTimedCalls, summarize, type TimedCall } from '#test-support/dynamo-calls';
import { call, get, post, startTestApi } from '#test-support/local-api';

/**
 * Issue 32's round-trip targets for the requests whose calls follow one from another (no budget
 * turn or provider call in between, so the count does not depend on timing): a cancel in 4
 * DynamoDB rounds, GET /videos/{id} of a final task and GET /credits in 2. The figures for
 * every request are `npm run bench:roundtrips`; the authorizer's reads are its own (cached).
 */
jest.setTimeout(90_000);

let stack: LocalStack;

beforeAll(async () => {
  // Jobs that never finish on their own: a task stays processing until it is canceled.
  stack = await startTestApi({ PROVIDER: 'simulated', SIM_DELAY_SECONDS: '3600' });
});
afterAll(async () => {
  await stack.stop();
});

const AUTHORIZER = new Set(['APIKEY', 'HOLDER']);

/** The rounds and calls of one request, the authorizer's apart; and what it answered. */
async function measured<T>(send: () => Promise<T>): Promise<{ rounds: number; calls: number; trace: string; answer: T }> {
  let answer: T | undefined;
  const { calls, respondedAt } = await recordTimedCalls(stack.context.db, async () => (answer = await send()), { settleMs: 0 });
  const handler = calls.filter((recorded: TimedCall) => !AUTHORIZER.has(recorded.keyPrefix ?? ''));
  const summary = summarize(handler, respondedAt);
  return { rounds: summary.rounds, calls: summary.calls, trace: JSON.stringify(summary.trace), answer: answer as T };
}

describe('DynamoDB round trips per request (issue 32)', () => {
  it('cancels in 4 rounds, its ending in the feed and out of the outbox when no endpoint listens', async () => {
    const { key, accountId } = await newAccount(stack, { credits: 1000 });
    const started = await post(stack, key, '/generate', { prompt: 'a heron over the marsh', duration: 5 });
    expect(started.status).toBe(200);
    const videoId = started.body.data!.video_id as string;

    const cancel = await measured(() => post(stack, key, `/videos/${videoId}/cancel`));
    expect(cancel.answer.status).toBe(200);
    const view = cancel.answer.body.data!;
    expect(view).toMatchObject({ status: 'failed', error: { code: 'canceled' } });
    expect(view.credits_refunded).toBe(view.credits_used);
    // The trace names every call, round by round, when it does not hold.
    expect(cancel.rounds <= 4 ? 'at most 4 rounds' : cancel.trace).toBe('at most 4 rounds');

    // The answer is the task as stored, and the event is in the feed the moment the cancel answers.
    const read = await get(stack, key, `/videos/${videoId}`);
    expect(read.body.data).toEqual(cancel.answer.body.data);
    const events = await get<{ events: { type: string; data: { video_id: string } }[] }>(stack, key, '/events');
    expect(events.body.data!.events.filter((event) => event.data.video_id === videoId).map((event) => event.type)).toEqual(['video.failed']);
    expect((await stack.context.lifecycle.tasks.get(accountId, videoId))?.unannounced).toBeUndefined();

    const final = await measured(() => get(stack, key, `/videos/${videoId}`));
    expect(final.answer.status).toBe(200);
    expect(final.rounds <= 2 ? 'at most 2 rounds' : final.trace).toBe('at most 2 rounds');
  });

  it('refuses the cancel of an id we never issue with the same 404, reading nothing but the rate window', async () => {
    const { key } = await newAccount(stack, { credits: 1000 });
    const cancel = await measured(() => post(stack, key, '/videos/nonsense/cancel'));
    expect(cancel.answer.status).toBe(404);
    expect(cancel.answer.body.error).toMatchObject({ code: 'not_found' });
    expect(cancel.calls === 1 ? 'the rate window only' : cancel.trace).toBe('the rate window only');
  });

  it('answers GET /credits in 2 rounds', async () => {
    const { key } = await newAccount(stack, { credits: 1000 });
    const credits = await measured(() => call(stack.baseUrl, '/credits', { key }));
    expect(credits.answer.status).toBe(200);
    expect(credits.rounds <= 2 ? 'at most 2 rounds' : credits.trace).toBe('at most 2 rounds');
  });
});
