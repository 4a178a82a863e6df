import http from 'node:http';
import type { LocalStack } from '#bin/local-stack/stack';
import { startTestApi } from '#test-support/local-api';

/**
 * How the local stack serves the console at /console/, as CloudFront does on AWS: the built
 * files with the security headers, index.html for the app's own paths, 404 for a missing asset,
 * and config.json from the stack's own addresses.
 */
jest.setTimeout(120_000);

let stack: LocalStack;
let origin: string;

beforeAll(async () => {
  stack = await startTestApi({}, { console: true });
  origin = `http://127.0.0.1:${stack.apiPort}`;
});

afterAll(async () => {
  await stack?.stop();
});

describe('GET /console/', () => {
  it('serves the app with CSP, no framing, nosniff and a referrer policy', async () => {
    const response = await fetch(`${origin}/console/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    const html = await response.text();
    const script = /<script type="module" crossorigin src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${origin}${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(asset.headers.get('cache-control')).toContain('immutable');
  });

  it('answers the app\'s pages with index.html, a missing asset with 404, and /console with a redirect', async () => {
    const page = await fetch(`${origin}/console/generations?id=vid_1`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root"></div>');
    expect((await fetch(`${origin}/console/assets/nothing-here.js`)).status).toBe(404);
    // An escaped climb out of the build folder is one more app path, never a file outside it.
    const climb = await rawGet(`/console/..%2f..%2f..%2fpackage.json`);
    expect(climb.body).toContain('<div id="root"></div>');
    expect(climb.body).not.toContain('"name": "vidgen-api"');
    const redirect = await fetch(`${origin}/console`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([308, '/console/']);
  });

  it('answers a path whose percent-encoding does not decode with 400 naming the path, not 500', async () => {
    for (const bad of ['/console/%E0%A4%A', '/console/assets/%ZZ.js', '/console/%']) {
      const reply = await rawGet(bad);
      expect({ bad, status: reply.status }).toEqual({ bad, status: 400 });
      expect(JSON.parse(reply.body)).toEqual({ data: null, error: { code: 'validation_error', message: expect.stringMatching(/^path: /) } });
    }
  });

  it('writes config.json from the stack: the API on its own origin, the public URL for examples', async () => {
    const response = await fetch(`${origin}/console/config.json`);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const config = (await response.json()) as Record<string, string>;
    expect(config).toMatchObject({ apiBaseUrl: '/api/v1', publicApiUrl: stack.baseUrl, region: 'local' });
  });

  it('leaves the API and media routes as they were', async () => {
    expect((await fetch(`${stack.baseUrl}/credits`)).status).toBe(401);
    expect((await fetch(`${origin}/media/videos/none.mp4`)).status).toBe(404);
  });
});

/** A GET with the path exactly as written (fetch would normalise it). */
function rawGet(rawPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port: stack.apiPort, path: rawPath }, (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}
