import { RENDERER_BUNDLED_FILE, RENDERER_SOURCE } from '#openapi/renderer';
import { defineFunction } from '#spec/function-spec';

export const spec = defineFunction({
  name: 'get-docs-asset',
  purpose: 'serves the reference page script (copied next to its bundle)',
  area: 'reference',
  trigger: { kind: 'http', method: 'GET', path: '/docs/assets/{file}' },
  access: { callers: ['public'], checks: 'nothing' },
  needs: {},
  // Redoc's standalone browser bundle, served by GET /api/v1/docs/assets/{file} (functions/openapi/renderer.ts).
  bundle: { files: [{ source: RENDERER_SOURCE, name: RENDERER_BUNDLED_FILE }] },
});
