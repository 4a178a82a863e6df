import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { CopyQueue, CopyRequest } from '#domain/tasks/ports';
import { logger } from '#observability/logger';
import { boundedClientConfig, CONTROL_PLANE_BOUNDS } from './aws-client-options';

/** The Lambda client the copy queue invokes the worker with, its waits bounded. */
export const createLambdaClient = (region: string): LambdaClient =>
  new LambdaClient({ region, ...boundedClientConfig(CONTROL_PLANE_BOUNDS) });

/**
 * On AWS: an asynchronous invocation of the copy-output Lambda. Lambda retries a failed
 * asynchronous invocation twice; the sweeper picks up anything still waiting after that.
 */
export class LambdaCopyQueue implements CopyQueue {
  constructor(
    private readonly lambda: LambdaClient,
    private readonly functionName: string,
  ) {}

  async enqueue(request: CopyRequest): Promise<void> {
    await this.lambda.send(
      new InvokeCommand({
        FunctionName: this.functionName,
        InvocationType: 'Event',
        Payload: Buffer.from(JSON.stringify(request)),
      }),
    );
  }
}

/**
 * On the local stack: the copy runs in this process after the current request. Never used on
 * Lambda, where work after the response may be frozen (the CDK stack always sets a worker).
 */
export class InProcessCopyQueue implements CopyQueue {
  private readonly running = new Set<Promise<void>>();

  constructor(private readonly work: (request: CopyRequest) => Promise<void>) {}

  async enqueue(request: CopyRequest): Promise<void> {
    const job = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.work(request))
      .catch((error: unknown) =>
        logger.error('in-process copy failed', {
          task_id: request.taskId,
          account_id: request.accountId,
          error: error as Error,
        }),
      )
      .finally(() => this.running.delete(job));
    this.running.add(job);
  }

  /** Waits for copies under way (clean shutdown, tests). */
  async drain(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running]);
  }
}
