import { defineFunction } from '#spec/function-spec';
import { endsTasks } from '#spec/needs';

export const spec = defineFunction({
  name: 'provider-callback',
  purpose: "applies a provider's signed callback to its task",
  area: 'pipeline',
  trigger: { kind: 'http', method: 'POST', path: '/provider-callbacks/{provider}/{account_id}/{task_id}' },
  access: { callers: ['public'], checks: 'provider-signature' },
  needs: endsTasks({
    // DeleteItem: a message's receipt is given up when it could not be handled (so its retry is taken).
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    providers: true,
    invokes: ['copy-output'],
  }),
});
