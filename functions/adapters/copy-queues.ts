import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import type { CopyQueue, CopyRequest } from '#domain/tasks/ports';
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

// The in-process queue has its own module, free of the Lambda client: the wiring builds it eagerly.
export { InProcessCopyQueue } from './in-process-copy-queue';
