import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiRequestListener } from '#bin/local-stack/api-server';
import { createRouter } from '#bin/local-stack/router';
import { API_REFERENCE_PATH, DIRECT_UPLOAD_PATH, GATEWAY_MESSAGES } from '#contract/errors';
import { ROUTES } from '#http/routes/index';

/** What the gateway says before a handler runs (issue 17, items 7 and 11). */
describe('gateway messages point to real routes', () => {
  it('the 404 gives the API reference path, which is served', () => {
    expect(GATEWAY_MESSAGES.notFound).toBe('No such route. The API reference at /api/v1/docs lists every endpoint.');
    expect(ROUTES).toContainEqual(expect.objectContaining({ method: 'GET', path: API_REFERENCE_PATH, callers: 'public' }));
  });

  it('the 413 says the 10 MiB limit and points to the direct upload, which is served', () => {
    expect(GATEWAY_MESSAGES.payloadTooLarge).toMatch(/larger than the 10 MiB the API accepts/);
    expect(GATEWAY_MESSAGES.payloadTooLarge).toContain('POST /api/v1/uploads');
    expect(ROUTES).toContainEqual(expect.objectContaining({ method: 'POST', path: DIRECT_UPLOAD_PATH }));
  });
});

describe('a trailing slash', () => {
  it('reaches the same route, as on API Gateway REST APIs', () => {
    const match = createRouter(ROUTES);
    expect(match('GET', '/api/v1/docs/')?.route.path).toBe(API_REFERENCE_PATH);
    expect(match('GET', '/api/v1/videos/vid_1/')?.pathParameters).toEqual({ video_id: 'vid_1' });
    expect(match('GET', '/api/v1/docs//')).toBeUndefined();
  });

  it('serves the API reference page at /api/v1/docs/ on the local gateway', async () => {
    const server = http.createServer(apiRequestListener({ authCacheTtlSeconds: 0 }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const page = await fetch(`http://127.0.0.1:${port}/api/v1/docs/`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const unknown = await fetch(`http://127.0.0.1:${port}/api/v1/nowhere`);
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ data: null, error: { code: 'not_found', message: GATEWAY_MESSAGES.notFound } });
    } finally {
      server.close();
    }
  });
});
