import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import { lambdaContext } from '#bin/lambda-context.cjs';
import { InProcessQueue } from '#adapters/queues/in-process-queue';
import { queueHandler } from '#queue/queue-handler';
import { takeLogs } from '#test-support/log-capture';
import { pollUntil } from '#test-support/wait';

const bodies = (event: SQSEvent) => event.Records.map((record) => JSON.parse(record.body) as { n: number });

/** The Lambda handler as the queue calls it (the local stack passes a Lambda-like context). */
const asConsumer = (handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>) => (event: SQSEvent) =>
  handler(event, lambdaContext('test'));

/** The queue's clock, moved by the tests: delays and visibility timeouts pass without waiting. */
let clock = 0;
beforeEach(() => {
  clock = Date.parse('2026-03-01T12:00:00.000Z');
});

function queue(overrides: Partial<ConstructorParameters<typeof InProcessQueue>[0]> = {}) {
  return new InProcessQueue<{ n: number }>({ name: 'test', visibilityTimeoutMs: 200, maxReceiveCount: 3, now: () => clock, ...overrides });
}

describe('the in-process queue (SQS semantics on the local stack)', () => {
  it('delivers each message, deletes it on success, and keeps it hidden until its delay has passed', async () => {
    const q = queue();
    await q.send({ n: 1 });
    await q.send({ n: 2 }, { delaySeconds: 1 });
    const seen: number[] = [];
    const consumer = async (event: SQSEvent) => void seen.push(...bodies(event).map((b) => b.n));
    await q.pollOnce(consumer);
    expect(seen).toEqual([1]);
    await q.pollOnce(consumer);
    expect(seen).toEqual([1]);
    clock += 999;
    await q.pollOnce(consumer);
    expect(seen).toEqual([1]);
    clock += 1;
    await q.pollOnce(consumer);
    expect(seen).toEqual([1, 2]);
    expect(q.depth).toBe(0);
  });

  it('delivers a failed record again (partial batch failure) and not the ones that succeeded', async () => {
    const q = queue({ visibilityTimeoutMs: 50 });
    for (const n of [1, 2, 3]) await q.send({ n });
    const attempts: number[] = [];
    const handler = asConsumer(queueHandler('test', z.object({ n: z.number() }), async ({ n }, receiveCount) => {
      attempts.push(n);
      if (n === 2 && receiveCount < 2) throw new Error('first try fails');
    }));
    await q.pollOnce(handler);
    clock += 50;
    await q.pollOnce(handler);
    expect(attempts.sort()).toEqual([1, 2, 2, 3]);
    expect(q.depth).toBe(0);
    expect(takeLogs()).toEqual([
      expect.objectContaining({ level: 'WARN', message: 'test: message failed, will be retried', attributes: expect.objectContaining({ error: 'Error: first try fails' }) }),
    ]);
  });

  it('redelivers a message whose consumer outlives the visibility timeout: a duplicate while the first still runs', async () => {
    const q = queue({ visibilityTimeoutMs: 50 });
    await q.send({ n: 7 });
    let running = 0;
    let overlapped = false;
    let deliveries = 0;
    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    // Runs until the test lets it finish: past the visibility timeout, however long that takes.
    const slow = async () => {
      deliveries += 1;
      running += 1;
      if (running > 1) overlapped = true;
      await finished;
      running -= 1;
    };
    const first = q.pollOnce(slow);
    clock += 50;
    const second = q.pollOnce(slow);
    expect(deliveries).toBe(2);
    expect(overlapped).toBe(true);
    finish();
    await Promise.all([first, second]);
    // The second delivery holds the message now: the first one's success did not delete it...
    // ...and the second's did.
    expect(q.depth).toBe(0);
  });

  it('moves a message that keeps failing to the dead-letter list after maxReceiveCount deliveries', async () => {
    const q = queue({ visibilityTimeoutMs: 10, maxReceiveCount: 3 });
    await q.send({ n: 9 });
    let deliveries = 0;
    const failing = async () => {
      deliveries += 1;
      throw new Error('always');
    };
    for (let i = 0; i < 6; i += 1) {
      await q.pollOnce(failing);
      clock += 10;
    }
    expect(deliveries).toBe(3);
    expect(q.deadLetters()).toEqual([{ n: 9 }]);
    expect(q.depth).toBe(0);
    expect(takeLogs().map(({ level, message }) => `${level} ${message}`)).toEqual([
      'WARN queue consumer failed',
      'WARN queue consumer failed',
      'WARN queue consumer failed',
      'WARN message moved to the dead-letter list',
    ]);
  });

  it('drops an unreadable message instead of retrying it forever', async () => {
    const q = new InProcessQueue<unknown>({ name: 'test', visibilityTimeoutMs: 10, maxReceiveCount: 5, now: Date.now });
    await q.send({ wrong: true });
    const handled: unknown[] = [];
    const handler = asConsumer(queueHandler('test', z.object({ n: z.number() }), async (message) => void handled.push(message)));
    await q.pollOnce(handler);
    expect(handled).toEqual([]);
    expect(q.depth).toBe(0);
    expect(takeLogs()).toEqual([expect.objectContaining({ level: 'ERROR', message: 'test: unreadable message dropped', attributes: expect.objectContaining({ error: expect.stringContaining('expected number') }) })]);
  });

  it('refuses delays SQS would refuse', async () => {
    await expect(queue().send({ n: 1 }, { delaySeconds: 901 })).rejects.toThrow(/delaySeconds/);
  });

  it('runs on its own until stopped, with every message handled at least once', async () => {
    const q = queue({ pollIntervalMs: 5, batchSize: 4 });
    const seen = new Set<number>();
    q.start(async (event) => void bodies(event).forEach((b) => seen.add(b.n)));
    await Promise.all(Array.from({ length: 25 }, (_, n) => q.send({ n })));
    await pollUntil(() => seen.size >= 25, { timeoutMs: 5_000, everyMs: 10, what: 'all 25 messages handled' });
    await q.stop();
    expect(seen.size).toBe(25);
  });
});
