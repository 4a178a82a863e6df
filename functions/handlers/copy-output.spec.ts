import { defineFunction } from '#spec/function-spec';
import { endsTasks } from '#spec/needs';

export const spec = defineFunction({
  name: 'copy-output',
  purpose: 'copies provider outputs into the bucket, makes video thumbnails and completes the task',
  area: 'pipeline',
  trigger: { kind: 'async' },
  access: { callers: ['aws'] },
  needs: endsTasks({
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem'] },
    // A copy whose task ended meanwhile (canceled, timed out) or whose output is refused is removed again.
    media: { delete: ['videos/', 'images/'] },
    copiesResults: true,
    thumbnails: true,
    // A task with a destination is handed to the delivery worker once completed.
    queues: ['output-deliveries'],
  }),
  // Streams provider outputs (up to 2 GB) into S3; network throughput grows with memory.
  sizing: { memoryMb: 1024, timeoutSeconds: 300, retryAttempts: 2, reservedConcurrency: 'copyWorkerConcurrency' },
  onFailure: 'copy-worker',
});
