import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import * as z from 'zod';
import { lambdaContext } from '#bin/lambda-context.cjs';
import { InProcessQueue } from '#adapters/queues/in-process-queue';
import { queueHandler } from '#queue/queue-handler';

/**
 * The SQS batch loop on Powertools' batch processor: the response names exactly the records
 * that threw, so SQS (and the local queue) deliver only those again.
 */
/** One batch of `bodies` through `handler`, as the queue delivers it; the event and the answer. */
async function deliver(bodies: unknown[], handler: (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>) {
  const q = new InProcessQueue<unknown>({ name: 'test', visibilityTimeoutMs: 60_000, maxReceiveCount: 3, batchSize: 10, now: Date.now });
  for (const body of bodies) await q.send(body);
  let delivered: { event: SQSEvent; response: SQSBatchResponse } | undefined;
  await q.pollOnce(async (event) => {
    const response = await handler(event, lambdaContext('test'));
    delivered = { event, response };
    return response;
  });
  if (!delivered) throw new Error('nothing was delivered');
  return { ...delivered, depth: q.depth };
}

/** The log lines (stdout and stderr, parsed) written while `fn` runs. */
async function logsOf<T>(fn: () => Promise<T>): Promise<{ result: T; lines: Array<Record<string, unknown>> }> {
  const lines: string[] = [];
  const capture = (chunk: unknown) => {
    lines.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  };
  const out = jest.spyOn(process.stdout, 'write').mockImplementation(capture);
  const err = jest.spyOn(process.stderr, 'write').mockImplementation(capture);
  try {
    const result = await fn();
    return { result, lines: lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
}

const messageIdOf = (event: SQSEvent, n: number) => event.Records.find((record) => JSON.parse(record.body).n === n)!.messageId;

beforeEach(() => {
  delete process.env.LOG_FORMAT;
});

describe('queueHandler (Powertools batch processing)', () => {
  it('reports the one record that failed as a batch item failure, and not the others', async () => {
    const handled: number[] = [];
    const handler = queueHandler('test', z.object({ n: z.number() }), async ({ n }) => {
      if (n === 2) throw new Error('provider busy');
      handled.push(n);
    });
    const { result, lines } = await logsOf(() => deliver([{ n: 1 }, { n: 2 }, { n: 3 }], handler));
    expect(result.response).toEqual({ batchItemFailures: [{ itemIdentifier: messageIdOf(result.event, 2) }] });
    expect(handled.sort()).toEqual([1, 3]);
    // The queue kept the failed one only.
    expect(result.depth).toBe(1);
    const warnings = lines.filter((line) => line.level === 'WARN');
    expect(warnings).toEqual([
      expect.objectContaining({ message: 'test: message failed, will be retried', message_id: messageIdOf(result.event, 2), error: 'Error: provider busy' }),
    ]);
  });

  it('answers a batch whose every record failed with each of them, rather than failing the invocation', async () => {
    const handler = queueHandler('test', z.object({ n: z.number() }), async () => {
      throw new Error('down');
    });
    const { result, lines } = await logsOf(() => deliver([{ n: 1 }, { n: 2 }], handler));
    expect(result.response.batchItemFailures.map((failure) => failure.itemIdentifier).sort()).toEqual(
      result.event.Records.map((record) => record.messageId).sort(),
    );
    expect(lines.filter((line) => line.level === 'ERROR')).toEqual([]);
  });

  it('drops an unreadable body without reporting it, and still reports a failure next to it', async () => {
    const handler = queueHandler('test', z.object({ n: z.number() }), async () => {
      throw new Error('down');
    });
    const { result, lines } = await logsOf(() => deliver([{ wrong: true }, { n: 5 }], handler));
    expect(result.response).toEqual({ batchItemFailures: [{ itemIdentifier: messageIdOf(result.event, 5) }] });
    expect(lines.filter((line) => line.level === 'ERROR').map((line) => line.message)).toEqual(['test: unreadable message dropped']);
  });
});
