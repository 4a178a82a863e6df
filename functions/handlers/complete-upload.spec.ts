import { defineFunction } from '#spec/function-spec';
import { RATE_LIMITED } from '#spec/needs';

export const spec = defineFunction({
  name: 'complete-upload',
  purpose: 'checks an uploaded file and moves it from incoming/ to uploads/',
  area: 'tasks',
  trigger: { kind: 'http', method: 'POST', path: '/uploads/{upload_id}/complete' },
  access: { callers: ['apiKey', 'session'], capability: 'generate' },
  needs: {
    // The upload's publication (UPLOAD#): get, claim (Put), answer (Update, as RATE_LIMITED), release.
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem', 'DeleteItem'] },
    media: { read: ['incoming/'], delete: ['incoming/'], write: ['uploads/'], listBucket: true },
  },
});
