import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { renderOpenApiFile, OPENAPI_FILE } from '#bin/openapi';
import type { Account } from '#domain/accounts/account';
import { toCreditsView } from '#contract/credits';
import { ERROR_CODES, ERROR_STATUSES } from '#contract/errors';
import { paginationQuery } from '#contract/pagination';
import { imagePageView, imageView, videoPageView, videoView } from '#contract/tasks';
import { directUploadView, uploadedImageView } from '#contract/uploads';
import { GENERATION_TYPES, IMAGE_MODEL_IDS, VIDEO_MODEL_IDS, VIDEO_RESOLUTIONS } from '#domain/catalogue/catalogue';
import { listTasks } from '#domain/tasks/list-tasks';
import type { TaskStore } from '#domain/tasks/ports';
import type { UploadStorage } from '#domain/uploads/ports';
import type { ImageTask, VideoTask } from '#domain/tasks/task';
import { createDirectUpload, storeUpload } from '#domain/uploads/uploads';
import { generateImageBody } from '#contract/generate-image';
import { generateVideoBody } from '#contract/generate-video';
import { ROUTES } from '#http/routes/index';
import { DEPLOYED_SERVER, LOCAL_SERVER_URL, buildOpenApiDocument, documentPath } from '#openapi/document';
import { withServer } from '#openapi/servers';
import { DOCS_PAGE_CSP, docsPageHtml } from '#openapi/docs-page';
import { RENDERER_ASSET, RENDERER_VERSION, rendererScript } from '#openapi/renderer';
import { serverUrlOf } from '#openapi/server-url';
import { configuredApiBaseUrl } from '#config';
import { contractProblems } from '#test-support/contract';

const doc = buildOpenApiDocument() as any;
const schemas = doc.components.schemas;

/** Validators for request schemas as published (open objects: unknown fields are ignored). */
const requestAjv = new Ajv2020({ strict: false, allErrors: true });
addFormats(requestAjv);
requestAjv.addSchema({ $id: 'https://doc.invalid/schemas', $defs: JSON.parse(JSON.stringify(schemas).replace(/#\/components\/schemas\//g, 'https://doc.invalid/schemas#/$defs/')) });
const requestValidator = (name: string) => requestAjv.compile({ $ref: `https://doc.invalid/schemas#/$defs/${name}` });

const operations = () =>
  Object.entries(doc.paths).flatMap(([template, item]) =>
    Object.entries(item as Record<string, any>).map(([method, operation]) => ({ template, method, operation })),
  );

describe('OpenAPI document: structure', () => {
  it('is OpenAPI 3.1 with the bearer scheme applied globally, and public routes opt out', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    for (const { template, method, operation } of operations()) {
      // A refused method (GET /mcp) is the gateway's 405: no key either.
      const isPublic = ROUTES.some(
        (route) => documentPath(route.path) === template && (route.callers === 'public' || route.refusedMethods?.includes(method.toUpperCase() as never)),
      );
      expect([template, method, operation.security]).toEqual([template, method, isPublic ? [] : undefined]);
    }
  });

  it('has one operation per route-table entry and per method a route refuses, with unique operation ids', () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const routed = ROUTES.flatMap((route) => [route.method, ...(route.refusedMethods ?? [])].map((method) => `${method} ${route.path}`)).sort();
    expect(operations().map(({ method, template }) => `${method.toUpperCase()} /api/v1${template}`).sort()).toEqual(routed);
  });

  it('documents X-Request-Id on every response, X-RateLimit-* where the key was counted, Retry-After on 429 and 503', () => {
    for (const { template, method, operation } of operations()) {
      const isPublic = operation.security?.length === 0;
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        const names = Object.keys(response.headers ?? {});
        const where = `${method} ${template} ${status}`;
        expect([where, names.includes('X-Request-Id')]).toEqual([where, true]);
        const counted = !isPublic && !['401', '413', '500', '503'].includes(status);
        expect([where, names.includes('X-RateLimit-Remaining')]).toEqual([where, counted]);
        expect([where, names.includes('Retry-After')]).toEqual([where, status === '429' || status === '503']);
      }
    }
    expect(doc.components.headers.XRateLimitReset.required).toBe(true);
  });

  it('gives every authenticated operation 401, 429, 500 and 503, and each error status its codes', () => {
    const codes: Record<string, string[]> = {
      400: ['validation_error'],
      401: ['unauthorized'],
      403: ['insufficient_credits', 'paid_access_required', 'spend_limit_exceeded', 'forbidden'],
      404: ['not_found'],
      405: ['method_not_allowed'],
      409: ['idempotency_conflict', 'task_not_cancelable', 'task_not_final', 'last_owner'],
      413: ['payload_too_large'],
      429: ['rate_limit_exceeded'],
      500: ['internal_error'],
      502: ['upstream_error'],
      503: ['internal_error'],
    };
    for (const { template, operation } of operations()) {
      const statuses = Object.keys(operation.responses);
      if (operation.security?.length !== 0) expect([template, statuses]).toEqual([template, expect.arrayContaining(['200', '401', '429', '500', '503'])]);
      for (const status of statuses.filter((s) => s !== '200')) {
        const ref = operation.responses[status].content['application/json'].schema.$ref as string;
        const schema = schemas[ref.split('/').pop()!];
        expect([template, status, schema.properties.error.properties.code.enum]).toEqual([template, status, codes[status]]);
      }
    }
    const documentedCodes = Object.values(ERROR_STATUSES).flatMap((status) => status.codes);
    // internal_error has two statuses: 500, and 503 for a busy dependency.
    expect([...new Set(documentedCodes)].sort()).toEqual([...ERROR_CODES].sort());
    expect(Object.keys(doc.paths['/generate'].post.responses)).toEqual(['200', '400', '401', '403', '409', '413', '429', '500', '502', '503']);
    expect(Object.keys(doc.paths['/generate-image'].post.responses)).toEqual(['200', '400', '401', '403', '409', '413', '429', '500', '502', '503']);
    // Every route a key may call answers 403 `forbidden` to a key without its scope.
    expect(Object.keys(doc.paths['/videos/{video_id}'].get.responses)).toEqual(['200', '401', '403', '404', '429', '500', '503']);
    // The MCP endpoint's refused methods answer the gateway's 405 only, saying what it takes.
    for (const method of ['get', 'delete']) {
      const refused = doc.paths['/mcp'][method].responses;
      expect([method, Object.keys(refused), refused['405'].headers.Allow.schema.enum]).toEqual([method, ['405'], ['POST']]);
    }
  });

  it('takes the Idempotency-Key header on the two generate endpoints only', () => {
    for (const { template, method, operation } of operations()) {
      const header = (operation.parameters ?? []).find((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
      const expected = method === 'post' && (template === '/generate' || template === '/generate-image');
      expect([template, Boolean(header)]).toEqual([template, expected]);
      if (header) expect(header.schema).toMatchObject({ type: 'string', minLength: 1, maxLength: 255 });
    }
  });

  it('documents the upload as multipart/form-data with a binary image part', () => {
    const body = doc.paths['/upload'].post.requestBody;
    expect(body.required).toBe(true);
    const form = schemas.UploadImageForm;
    expect(body.content['multipart/form-data'].schema.$ref).toBe('#/components/schemas/UploadImageForm');
    expect(form.required).toEqual(['image']);
    expect(form.properties.image).toMatchObject({ type: 'string', format: 'binary' });
  });

  it('has a runnable curl example for every operation, pointing at the server', () => {
    const served = buildOpenApiDocument({ serverUrl: 'https://api.test/prod/api/v1' }) as any;
    for (const [template, item] of Object.entries(served.paths as Record<string, any>)) {
      for (const operation of Object.values(item as Record<string, any>)) {
        const [sample] = operation['x-codeSamples'];
        expect(sample.lang).toBe('Shell');
        expect(sample.source).toMatch(/^curl /);
        expect(sample.source).toContain(`https://api.test/prod/api/v1${template.replace(/\{(\w+)\}.*$/, '')}`);
        expect(sample.source).not.toContain('{BASE}');
      }
    }
  });

  it('lists the local server and the deployed template by default, or the server it was asked for', () => {
    expect(doc.servers).toEqual([{ url: LOCAL_SERVER_URL, description: expect.any(String) }, DEPLOYED_SERVER]);
    expect(LOCAL_SERVER_URL).toBe('http://127.0.0.1:3000/api/v1');
    const served = buildOpenApiDocument({ serverUrl: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/api/v1' });
    expect(served.servers).toEqual([{ url: 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/api/v1', description: expect.any(String) }]);
    // Building for one server does not change the next document.
    expect(buildOpenApiDocument().servers).toHaveLength(2);
  });

  it('is what docs/openapi.json holds (run `npm run openapi` after changing the API)', () => {
    expect(path.relative(process.cwd(), OPENAPI_FILE)).toBe(path.join('docs', 'openapi.json'));
    expect(readFileSync(OPENAPI_FILE, 'utf8')).toBe(renderOpenApiFile());
  });

  it('served from docs/openapi.json (the deployed reference functions), is the document built for the server asked', () => {
    const committed = () => JSON.parse(readFileSync(OPENAPI_FILE, 'utf8'));
    for (const serverUrl of [undefined, LOCAL_SERVER_URL, 'https://abc.execute-api.eu-west-1.amazonaws.com/prod/api/v1', 'https://api.example.com/api/v1']) {
      expect([serverUrl, withServer(committed(), serverUrl)]).toEqual([serverUrl, buildOpenApiDocument(serverUrl === undefined ? {} : { serverUrl })]);
    }
  });
});

describe('OpenAPI document: request schemas are the handlers\' schemas', () => {
  it('shows the input types, allowed values and defaults of POST /generate', () => {
    const body = schemas.GenerateVideoRequest;
    expect(body.required).toEqual(['prompt']);
    expect(body.properties.prompt).toMatchObject({ type: 'string', minLength: 1, maxLength: 5000 });
    expect(body.properties.model).toMatchObject({ enum: VIDEO_MODEL_IDS, default: 'vid-1-5-pro' });
    expect(body.properties.generation_type).toMatchObject({ enum: [...GENERATION_TYPES], default: 'text_to_video' });
    expect(body.properties.aspect_ratio).toMatchObject({ enum: ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'], default: '16:9' });
    expect(body.properties.duration).toMatchObject({ type: 'integer', minimum: 3, maximum: 12, default: 5 });
    expect(body.properties.resolution).toMatchObject({ enum: [...VIDEO_RESOLUTIONS], default: '720p' });
    expect(body.properties.image_url).toMatchObject({ type: 'string', format: 'uri', maxLength: 2048 });
  });

  it('shows the allowed values and defaults of POST /generate-image', () => {
    const body = schemas.GenerateImageRequest;
    expect(body.required).toEqual(['prompt']);
    expect(body.properties.model).toMatchObject({ enum: IMAGE_MODEL_IDS, default: 'image-2' });
    expect(body.properties.resolution).toMatchObject({ enum: ['1k', '2k', '4k'], default: '1k' });
    expect(body.properties.aspect_ratio.default).toBe('1:1');
    expect(body.properties.output_format).toMatchObject({ enum: ['png', 'jpg', 'webp'], default: 'png' });
    expect(body.properties.images).toMatchObject({ type: 'array', minItems: 1, maxItems: 10 });
  });

  const videoBodies: unknown[] = [
    { prompt: 'a cat' },
    { prompt: 'a cat', colour: 'blue' },
    { prompt: '   ' },
    { prompt: '' },
    {},
    { prompt: 42 },
    [],
    'prompt',
    { prompt: 'x'.repeat(5000) },
    { prompt: 'x'.repeat(5001) },
    { prompt: 'x', model: 'vid-2-0' },
    { prompt: 'x', model: 'image-2' },
    { prompt: 'x', generation_type: 'image_to_video' },
    { prompt: 'x', generation_type: 'image_to_video', image_url: 'https://example.com/a.png' },
    { prompt: 'x', generation_type: 'text_to_video', image_url: 'https://example.com/a.png' },
    { prompt: 'x', image_url: 'https://example.com/a.png' },
    { prompt: 'x', generation_type: 'image_to_video', image_url: 'ftp://example.com/a.png' },
    { prompt: 'x', generation_type: 'image_to_video', image_url: '/relative.png' },
    { prompt: 'x', generation_type: 'image_to_video', image_url: `https://example.com/${'a'.repeat(2048)}` },
    { prompt: 'x', duration: 3 },
    { prompt: 'x', duration: 12 },
    { prompt: 'x', duration: 2 },
    { prompt: 'x', duration: 13 },
    { prompt: 'x', duration: 5.5 },
    { prompt: 'x', duration: 5.0 },
    { prompt: 'x', duration: '5' },
    { prompt: 'x', aspect_ratio: '21:9' },
    { prompt: 'x', aspect_ratio: '2:1' },
    { prompt: 'x', resolution: '1080p' },
    { prompt: 'x', resolution: '4k' },
  ];

  it.each(videoBodies.map((body) => [JSON.stringify(body).slice(0, 80), body]))(
    'POST /generate: the document and the handler agree on %s',
    (_label, body) => {
      const validate = requestValidator('GenerateVideoRequest');
      expect(validate(body)).toBe(generateVideoBody.safeParse(body).success);
    },
  );

  const imageBodies: unknown[] = [
    { prompt: 'a lighthouse' },
    { prompt: 'a lighthouse', model: 'image-2', resolution: '4k', aspect_ratio: '4:5', output_format: 'webp' },
    { prompt: 'x', model: 'vid-1-5-pro' },
    { prompt: 'x', resolution: '8k' },
    { prompt: 'x', aspect_ratio: '1:2' },
    { prompt: 'x', output_format: 'gif' },
    { prompt: 'x', images: [] },
    { prompt: 'x', images: ['https://example.com/a.png'] },
    { prompt: 'x', images: Array.from({ length: 10 }, (_, i) => `https://example.com/${i}.png`) },
    { prompt: 'x', images: Array.from({ length: 11 }, (_, i) => `https://example.com/${i}.png`) },
    { prompt: 'x', images: ['not a url'] },
    { prompt: 'x', images: 'https://example.com/a.png' },
  ];

  it.each(imageBodies.map((body) => [JSON.stringify(body).slice(0, 80), body]))(
    'POST /generate-image: the document and the handler agree on %s',
    (_label, body) => {
      const validate = requestValidator('GenerateImageRequest');
      expect(validate(body)).toBe(generateImageBody.safeParse(body).success);
    },
  );

  it('documents page and limit with the bounds and defaults the pagination schema enforces', () => {
    for (const template of ['/videos', '/images']) {
      const params = Object.fromEntries(doc.paths[template].get.parameters.map((p: any) => [p.name, p]));
      expect(params.page).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, default: 1 } });
      expect(params.limit).toMatchObject({ in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 50, default: 20 } });
    }
    const accepts = (query: Record<string, string>) => paginationQuery.safeParse(query).success;
    expect(paginationQuery.parse({})).toEqual({ page: 1, limit: 20 });
    expect([accepts({ page: '1' }), accepts({ page: '0' }), accepts({ page: '1.5' }), accepts({ page: '999999' })]).toEqual([true, false, false, true]);
    expect([accepts({ limit: '1' }), accepts({ limit: '50' }), accepts({ limit: '0' }), accepts({ limit: '51' })]).toEqual([true, true, false, false]);
  });
});

describe('OpenAPI document: response schemas match what the code answers', () => {
  const envelope = (data: unknown) => ({ data, error: null });
  const headers = { 'X-Request-Id': 'r', 'X-RateLimit-Limit': '60', 'X-RateLimit-Remaining': '59', 'X-RateLimit-Reset': '1795284300', 'Content-Type': 'application/json' };
  const problems = (method: string, path: string, body: unknown, status = 200) => contractProblems(method, path, status, headers, body);

  const base = {
    taskId: 'vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ',
    partitionId: 'acc_1',
    seq: 1,
    phase: 'running' as const,
    creditsUsed: 25,
    progress: 0,
    copyAttempts: 0,
    createdAt: '2026-11-21T17:00:00.000Z',
    updatedAt: '2026-11-21T17:00:00.000Z',
  };
  const video = (overrides: Partial<VideoTask>): VideoTask => ({
    ...base,
    kind: 'video',
    status: 'processing',
    params: { model: 'vid-1-5-pro', generationType: 'text_to_video', prompt: 'a fox', aspectRatio: '16:9', duration: 5, resolution: '720p' },
    ...overrides,
  });
  const image = (overrides: Partial<ImageTask>): ImageTask => ({
    ...base,
    taskId: 'img_01M7ZP0E1WQ4R5N8B2C6D7F9GH',
    kind: 'image',
    status: 'processing',
    creditsUsed: 5,
    params: { model: 'image-2', prompt: 'a lighthouse', resolution: '1k', aspectRatio: '1:1', outputFormat: 'png' },
    ...overrides,
  });
  const done = { status: 'completed' as const, outputUrls: ['https://media.test/videos/v.mp4'], completedAt: '2026-11-21T17:01:00.000Z' };
  const failed = {
    status: 'failed' as const,
    error: { code: 'content_rejected' as const, message: 'refused' },
    completedAt: '2026-11-21T17:01:00.000Z',
  };

  it.each([
    ['processing', video({})],
    ['completed', video(done)],
    ['failed', video(failed)],
    [
      'image_to_video',
      video({ params: { model: 'vid-2-0', generationType: 'image_to_video', imageUrl: 'https://media.test/uploads/a.png', prompt: 'x', aspectRatio: '1:1', duration: 3, resolution: '1080p' } }),
    ],
  ])('a %s video task is a documented VideoTask', (_label, task) => {
    expect(problems('GET', '/api/v1/videos/vid_1', envelope(videoView(task)))).toEqual([]);
    expect(problems('POST', '/api/v1/generate', envelope(videoView(task)))).toEqual([]);
  });

  it.each([
    ['processing', image({})],
    ['completed', image({ ...done, outputUrls: ['https://media.test/images/i-1.png', 'https://media.test/images/i-2.png'] })],
    ['failed', image(failed)],
    ['edit mode', image({ params: { model: 'image-2', prompt: 'x', resolution: '4k', aspectRatio: '21:9', outputFormat: 'webp', images: ['https://media.test/uploads/a.png'] } })],
  ])('a %s image task is a documented ImageTask', (_label, task) => {
    expect(problems('GET', '/api/v1/images/img_1', envelope(imageView(task)))).toEqual([]);
    expect(problems('POST', '/api/v1/generate-image', envelope(imageView(task)))).toEqual([]);
  });

  it('refuses task shapes the document rules out (the status rules and closed objects bite)', () => {
    const processing = videoView(video({}));
    expect(problems('GET', '/api/v1/videos/v', envelope({ ...processing, video_url: 'https://media.test/v.mp4' }))).not.toEqual([]);
    expect(problems('GET', '/api/v1/videos/v', envelope({ ...videoView(video(done)), video_url: undefined }))).not.toEqual([]);
    expect(problems('GET', '/api/v1/videos/v', envelope({ ...videoView(video(failed)), error: undefined }))).not.toEqual([]);
    expect(problems('GET', '/api/v1/videos/v', envelope({ ...processing, surprise: 1 }))).not.toEqual([]);
    expect(problems('GET', '/api/v1/videos/v', envelope({ ...processing, duration: '5' }))).not.toEqual([]);
    expect(problems('GET', '/api/v1/images/i', envelope(imageView(image({}))))).toEqual([]);
    expect(problems('GET', '/api/v1/images/i', envelope({ ...imageView(image({})), status: 'queued' }))).not.toEqual([]);
  });

  it('history pages, uploads, direct uploads and credits are documented shapes', async () => {
    const store = {
      listPage: async () => ({ tasks: [video(done), video({})], total: 21 }),
    } as unknown as TaskStore;
    const page = await listTasks({ tasks: store }, 'acc_1', 'video', 2, 20, new Date());
    expect(problems('GET', '/api/v1/videos?page=2', envelope(videoPageView(page)))).toEqual([]);
    const imagePage = await listTasks({ tasks: { listPage: async () => ({ tasks: [], total: 0 }) } as unknown as TaskStore }, 'acc_1', 'image', 3, 50, new Date());
    expect(problems('GET', '/api/v1/images', envelope(imagePageView(imagePage)))).toEqual([]);

    const storage = {
      putPublic: async (key: string) => `https://media.test/${key}`,
      presignUpload: async (key: string) => ({ url: 'https://bucket.test/', fields: { key, Policy: 'p', 'X-Amz-Signature': 's' } }),
    } as unknown as UploadStorage;
    // A PNG header is all the type check reads.
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]), Buffer.from('IHDR'), Buffer.alloc(64)]);
    expect(problems('POST', '/api/v1/upload', envelope(uploadedImageView(await storeUpload(storage, 'acc_1', png))))).toEqual([]);
    expect(problems('POST', '/api/v1/uploads/upl_x/complete', envelope(uploadedImageView(await storeUpload(storage, 'acc_1', png))))).toEqual([]);
    expect(problems('POST', '/api/v1/uploads', envelope(directUploadView(await createDirectUpload(storage, 'acc_1', new Date()))))).toEqual([]);

    const account: Account = {
      accountId: 'acc_1',
      credits: 10,
      paidAccess: false,
      subscriptionStatus: 'past_due',
      taskCounts: { video: 0, image: 0 },
      createdAt: base.createdAt,
      updatedAt: base.updatedAt,
    };
    expect(problems('GET', '/api/v1/credits', envelope(toCreditsView(account)))).toEqual([]);
  });

  it('checks errors by status: the code must be one the status carries', () => {
    const error = (code: string) => ({ data: null, error: { message: 'm', code } });
    expect(problems('POST', '/api/v1/generate', error('paid_access_required'), 403)).toEqual([]);
    expect(problems('POST', '/api/v1/generate', error('not_found'), 403)).not.toEqual([]);
    expect(problems('GET', '/api/v1/credits', error('not_found'), 404)).toEqual([expect.stringContaining('does not document status 404')]);
    // Not an operation: only the gateway's 404 (or 413) envelope.
    expect(problems('DELETE', '/api/v1/videos', error('not_found'), 404)).toEqual([]);
    expect(problems('GET', '/api/v1/nothing', error('not_found'), 200)).not.toEqual([]);
  });

  it('requires X-Request-Id always, X-RateLimit-* on counted answers and Retry-After on 429', () => {
    const error = { data: null, error: { message: 'm', code: 'rate_limit_exceeded' } };
    const withoutRetry = contractProblems('GET', '/api/v1/credits', 429, headers, error);
    expect(withoutRetry).toEqual([expect.stringContaining('Retry-After')]);
    expect(contractProblems('GET', '/api/v1/credits', 429, { ...headers, 'Retry-After': '12' }, error)).toEqual([]);
    const { 'X-RateLimit-Reset': _reset, ...noReset } = headers;
    expect(contractProblems('GET', '/api/v1/credits', 200, noReset, envelope({ credits: 1, paid_access: true, subscription_status: 'active' }))).toEqual([
      expect.stringContaining('X-RateLimit-Reset'),
    ]);
    const { 'X-Request-Id': _id, ...noId } = headers;
    expect(contractProblems('GET', '/api/v1/nothing', 404, noId, { data: null, error: { message: 'm', code: 'not_found' } })).toEqual([
      expect.stringContaining('X-Request-Id'),
    ]);
  });
});

describe('serverUrlOf', () => {
  it('uses API Gateway\'s domain name and the stage in front of the path', () => {
    expect(
      serverUrlOf({
        headers: { Host: 'ignored.test' },
        path: '/api/v1/openapi.json',
        requestContext: { domainName: 'abc123.execute-api.eu-west-1.amazonaws.com', path: '/prod/api/v1/openapi.json' },
      }),
    ).toBe('https://abc123.execute-api.eu-west-1.amazonaws.com/prod/api/v1');
    expect(
      serverUrlOf({ headers: {}, path: '/api/v1/docs', requestContext: { domainName: 'api.example.org', path: '/api/v1/docs' } }),
    ).toBe('https://api.example.org/api/v1');
  });

  it('uses the configured base URL first (API_BASE_URL; the local stack sets its own)', () => {
    const event = { headers: { Host: 'evil.test' }, path: '/api/v1/docs', requestContext: { domainName: 'api.example.org', path: '/api/v1/docs' } };
    expect(serverUrlOf(event, 'http://127.0.0.1:3000/api/v1')).toBe('http://127.0.0.1:3000/api/v1');
    expect(configuredApiBaseUrl({ API_BASE_URL: 'http://127.0.0.1:4321/api/v1/' })).toBe('http://127.0.0.1:4321/api/v1');
    expect(configuredApiBaseUrl({})).toBeUndefined();
    expect(() => configuredApiBaseUrl({ API_BASE_URL: 'javascript:alert(1)' })).toThrow(/API_BASE_URL/);
  });

  it("puts the server's base URL in the quick start, not a fixed port", () => {
    expect(buildOpenApiDocument({ serverUrl: 'http://127.0.0.1:4321/api/v1' }).info.description).toContain('BASE=http://127.0.0.1:4321/api/v1 ');
    expect(buildOpenApiDocument().info.description).toContain(`BASE=${LOCAL_SERVER_URL} `);
  });

  it('never reflects the Host header (the document is publicly cacheable): the default servers are used', () => {
    expect(serverUrlOf({ headers: { host: 'evil.test' }, path: '/api/v1/docs', requestContext: { path: '/local/api/v1/docs' } }, undefined)).toBeUndefined();
    expect(serverUrlOf({ headers: { Host: 'docs.test', 'X-Forwarded-Proto': 'https' }, path: '/api/v1/docs' }, undefined)).toBeUndefined();
    expect(serverUrlOf({ headers: {}, path: '/api/v1/docs' }, undefined)).toBeUndefined();
    expect(serverUrlOf({ headers: { Host: 'evil.test/"><script>' }, path: '/api/v1/docs' }, undefined)).toBeUndefined();
  });
});

describe('docs page and renderer', () => {
  it('embeds the document safely and allows only its own boot script', () => {
    const hostile = buildOpenApiDocument() as any;
    hostile.info.title = '</script><script>alert(1)</script>';
    const html = docsPageHtml(hostile);
    expect(html).not.toContain('</script><script>alert(1)');
    const embedded = /<script id="openapi-document" type="application\/json">([\s\S]*?)<\/script>/.exec(html)![1]!;
    expect(JSON.parse(embedded).info.title).toBe(hostile.info.title);

    const boot = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
    const hash = createHash('sha256').update(boot).digest('base64');
    expect(DOCS_PAGE_CSP).toContain(`'sha256-${hash}'`);
    expect(DOCS_PAGE_CSP).toContain("default-src 'none'");
    expect(boot).toContain(`/assets/${RENDERER_ASSET}`);
  });

  it('serves Redoc under a versioned name, without its CDN logo', () => {
    expect(RENDERER_ASSET).toBe(`redoc-${RENDERER_VERSION}.standalone.js`);
    const script = rendererScript();
    expect(script.length).toBeGreaterThan(500_000);
    expect(script).toContain('Redoc');
    expect(script).not.toContain('cdn.redoc.ly');
  });
});
