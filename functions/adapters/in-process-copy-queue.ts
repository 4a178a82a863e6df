import type { CopyQueue, CopyRequest } from '#domain/tasks/ports';
import { logger } from '#observability/logger';

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
