import { SERVED_DOCUMENT_FILE } from '#openapi/served-document';
import { defineFunction } from '#spec/function-spec';

export const spec = defineFunction({
  name: 'get-openapi',
  purpose: 'serves the OpenAPI document',
  area: 'reference',
  trigger: { kind: 'http', method: 'GET', path: '/openapi.json' },
  access: { callers: ['public'], checks: 'nothing' },
  needs: {},
  // The generated document (npm run openapi), served as it is: no route table in the bundle.
  bundle: { files: [{ source: 'docs/openapi.json', name: SERVED_DOCUMENT_FILE }] },
});
