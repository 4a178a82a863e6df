import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'quote',
  purpose: 'prices a start and says whether it would go ahead (a test key opens its test balance on first use)',
  area: 'tasks',
  trigger: { kind: 'http', method: 'POST', path: '/quote', jsonBody: true },
  access: { callers: ['apiKey', 'session'], capability: 'read' },
  needs: {
    // The account (GetItem; PutItem opens a test balance) and the first bytes of our own reference files.
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
    media: { read: ['uploads/', 'videos/', 'images/'], listBucket: true },
  },
});
