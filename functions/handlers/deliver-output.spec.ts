import { defineFunction } from '#spec/function-spec';
import { endsTasks } from '#spec/needs';

export const spec = defineFunction({
  name: 'deliver-output',
  purpose: "streams a completed task's output and thumbnail to the customer's presigned URL, with retries",
  area: 'pipeline',
  // One attempt per invocation: each may stream for minutes.
  trigger: { kind: 'queue', queue: 'output-deliveries', batchSize: 1, maxConcurrency: 20 },
  access: { callers: ['aws'] },
  // Reads our copy to stream it; with keep_output false deletes it once delivered; a give-up
  // publishes `*.delivery_failed` like an ending (endsTasks), and a retry goes back on its queue.
  needs: endsTasks({
    table: { actions: ['GetItem', 'UpdateItem'] },
    media: { read: ['videos/', 'images/'], delete: ['videos/', 'images/'] },
    queues: ['output-deliveries'],
  }),
  // 13 minutes at most per attempt (output-sender.ts), inside the function's 15.
  sizing: { memoryMb: 512, timeoutSeconds: 900 },
});
