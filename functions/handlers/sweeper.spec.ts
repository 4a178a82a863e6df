import { defineFunction } from '#spec/function-spec';
import { endsTasks, startsTasks } from '#spec/needs';

export const spec = defineFunction({
  name: 'sweeper',
  purpose: 'times out, refreshes and finishes tasks still processing, and deletions of outputs cut short',
  area: 'pipeline',
  trigger: { kind: 'schedule', everyMinutes: 1, undelivered: 'sweep-schedule' },
  access: { callers: ['aws'] },
  needs: startsTasks(
    endsTasks({
      table: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'Query'], query: ['gsi2'] },
      copiesResults: true,
      // Finishes deletions of outputs cut short (tasks left `deleting`).
      media: { delete: ['videos/', 'images/'] },
      invokes: ['copy-output'],
    }),
  ),
  // Runs every minute; a failed run is simply the next run's work, so Lambda need not retry it.
  sizing: { memoryMb: 1024, timeoutSeconds: 120, retryAttempts: 0, maxEventAgeSeconds: 60, reservedConcurrency: 'sweeperConcurrency' },
  onFailure: 'sweeper',
});
