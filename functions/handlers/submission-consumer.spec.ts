import { defineFunction } from '#spec/function-spec';
import { endsTasks, startsTasks } from '#spec/needs';

export const spec = defineFunction({
  name: 'submission-consumer',
  purpose: "submits queued creates at the provider budget's pace, backing off while the provider refuses for load",
  area: 'pipeline',
  // Few at a time: the messages mostly wait for the provider's budget (the budget, not this, sets
  // the pace); small batches so a message waits little.
  trigger: { kind: 'queue', queue: 'submissions', batchSize: 5, maxConcurrency: 2 },
  access: { callers: ['aws'] },
  needs: startsTasks(endsTasks({ table: { actions: ['GetItem', 'PutItem', 'UpdateItem'] } })),
  // A batch of creates, each waiting up to 5 s for its turn and 10 s for Replicate's answer.
  sizing: { timeoutSeconds: 60, reservedConcurrency: 'submissionConsumerConcurrency' },
});
