import { NotFoundError } from '#domain/shared/errors';
import { publicHandler } from '#http/public-handler';
import { pathParameter } from '#http/request';
import { RENDERER_ASSET, rendererScript } from '#openapi/renderer';
import { spec } from './get-docs-asset.spec';

/**
 * GET /api/v1/docs/assets/{file} (public): the script the docs page loads. Its name carries the
 * renderer's version, so it may be cached for a year. Any other name: 404 in the envelope.
 */
export const handler = publicHandler(spec, async (event) => {
  const file = pathParameter(event, 'file');
  if (file !== RENDERER_ASSET) throw new NotFoundError(`No docs asset "${file.slice(0, 64)}".`);
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'application/javascript; charset=utf-8',
      'Cache-Control': 'public, max-age=31536000, immutable',
      'X-Content-Type-Options': 'nosniff',
    },
    body: rendererScript(),
  };
});
