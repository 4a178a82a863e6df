import { OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { IMAGE_MODELS, MAX_REFERENCE_IMAGES, NEGATIVE_PROMPT_MAX_LENGTH, PROMPT_MAX_LENGTH, SEED_RANGE, VIDEO_DURATION, VIDEO_MODELS } from '#domain/catalogue/catalogue';
import { MAX_UPLOAD_BYTES } from '#domain/catalogue/image-type';
import { errorEnvelopeWith } from '#contract/envelope';
import { PAGINATION_PARAMETERS } from '#contract/pagination';
import { EVENTS_PARAMETERS } from '#contract/events';
import { AUDIT_EVENTS_PARAMETERS } from '#contract/audit';
import { USAGE_PARAMETERS } from '#contract/usage';
import { ERROR_STATUSES, ERROR_SUMMARIES, GATEWAY_MESSAGES, type ErrorStatus } from '#contract/errors';
import { gatewayAccess, type ApiRoute, type Route } from '#http/route';
import { API_PREFIX, ROUTES } from '#http/routes/index';
import { BASE_PLACEHOLDER, withBase, type OpenApiDocument } from './servers';

/**
 * The OpenAPI 3.1 document of the API, generated from the route table (each route's `doc`) and
 * the contract's zod schemas (functions/contract/), plus the prose a reader needs.
 * Served by GET /api/v1/openapi.json, rendered by GET /api/v1/docs, written to
 * docs/openapi.json by `npm run openapi`.
 */

export type { OpenApiDocument } from './servers';
export { DEPLOYED_SERVER, LOCAL_SERVER_URL } from './servers';

const SECURITY_SCHEME = 'bearerAuth';

export interface BuildOptions {
  /**
   * The base URL (ending in /api/v1) to put first in `servers` and in the curl examples; by
   * default the local stack's, followed by the deployed-URL template.
   */
  serverUrl?: string;
}

let base: OpenApiDocument | undefined;

export function buildOpenApiDocument(options: BuildOptions = {}): OpenApiDocument {
  base ??= generate();
  return withBase(structuredClone(base), options.serverUrl);
}

function generate(): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', SECURITY_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'vg_live_<32+ base62 characters>',
    description: 'Your API key: `Authorization: Bearer <API_KEY>`. Missing, invalid or revoked: 401 `unauthorized`.',
  });
  for (const [name, header] of Object.entries(HEADERS)) registry.registerComponent('headers', name, header);
  for (const route of ROUTES) {
    registerOperation(registry, route);
    for (const method of route.refusedMethods ?? []) registerRefusedMethod(registry, route, method);
  }

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Video & Image Generation API',
      version: '1.0.0',
      description: INTRODUCTION,
    },
    servers: [],
    security: [{ [SECURITY_SCHEME]: [] }],
    tags: TAGS,
  });
  describeRequests(document);
  return document;
}

const HEADERS = {
  XRequestId: {
    description: 'Identifies this request; quote it when you contact support. On every response.',
    required: true,
    schema: { type: 'string' as const, examples: ['5832c74a-4c1e-4b7e-9f36-0d6a1f7f2b10'] },
  },
  XRateLimitLimit: {
    description: "Requests allowed per minute for this key (60 unless the key has its own limit).",
    required: true,
    schema: { type: 'integer' as const, examples: [60] },
  },
  XRateLimitRemaining: {
    description: 'Requests left in the current one-minute window.',
    required: true,
    schema: { type: 'integer' as const, minimum: 0, examples: [59] },
  },
  XRateLimitReset: {
    description: 'When the current window ends, in Unix seconds (windows are aligned to the minute).',
    required: true,
    schema: { type: 'integer' as const, examples: [1795284300] },
  },
  RetryAfter: {
    description: 'Seconds until the window ends and requests are accepted again (at least 1).',
    required: true,
    schema: { type: 'integer' as const, minimum: 1, examples: [12] },
  },
};
const ref = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });
const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': ref('XRateLimitLimit'),
  'X-RateLimit-Remaining': ref('XRateLimitRemaining'),
  'X-RateLimit-Reset': ref('XRateLimitReset'),
};

/** Statuses that may be answered before the key is counted carry no X-RateLimit-* headers (the count itself may meet a busy table). */
const BEFORE_RATE_LIMIT: ReadonlySet<ErrorStatus> = new Set([401, 413, 500, 503]);

function responseHeaders(route: ApiRoute, status: 200 | ErrorStatus) {
  const counted = gatewayAccess(route) !== 'public' && !(status !== 200 && BEFORE_RATE_LIMIT.has(status));
  return {
    'X-Request-Id': ref('XRequestId'),
    ...(counted && RATE_LIMIT_HEADERS),
    ...((status === 429 || status === 503) && { 'Retry-After': ref('RetryAfter') }),
  };
}

/** The document's path for a route-table path: relative to the server URL, which ends in /api/v1. */
export const documentPath = (routePath: string): string =>
  routePath.startsWith(API_PREFIX) ? routePath.slice(API_PREFIX.length) : routePath;

/** One schema per error status (`Error400`, ...), the envelope narrowed to that status's codes. */
const ERROR_SCHEMAS = Object.fromEntries(
  Object.entries(ERROR_STATUSES).map(([status, { codes }]) => [status, errorEnvelopeWith(`Error${status}`, codes)]),
) as Record<ErrorStatus, ReturnType<typeof errorEnvelopeWith>>;

function registerOperation(registry: OpenAPIRegistry, route: ApiRoute): void {
  const { doc: operation } = route;
  const responses: Record<string, ResponseConfig> = {
    200: { ...operation.success, headers: responseHeaders(route, 200) },
  };
  // Every route a key may call answers 403 `forbidden` to a key without its scope.
  // And every route that can fail on our side can find the database busy (503, Retry-After).
  const errors = [
    ...operation.errors,
    ...(route.scope && !operation.errors.includes(403) ? [403 as const] : []),
    ...(operation.errors.includes(500) ? [503 as const] : []),
  ].sort((a, b) => a - b);
  for (const status of errors) {
    const { codes } = ERROR_STATUSES[status];
    const description = operation.errorNotes?.[status]?.description ?? ERROR_STATUSES[status].description;
    const example = operation.errorNotes?.[status]?.example ?? ERROR_STATUSES[status].example;
    responses[status] = {
      description,
      headers: responseHeaders(route, status),
      content: {
        'application/json': {
          schema: ERROR_SCHEMAS[status],
          example: { data: null, error: { message: example, code: codes[0] } },
        },
      },
    };
  }
  registry.registerPath({
    method: route.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete',
    path: documentPath(route.path),
    operationId: operation.operationId,
    summary: operation.summary,
    description: operation.description,
    tags: [operation.tag],
    // API-key routes keep the document's default security; public ones need none.
    ...(gatewayAccess(route) === 'public' && { security: [] }),
    ...(operation.request && { request: operation.request }),
    responses,
    'x-codeSamples': [{ lang: 'Shell', label: 'curl', source: operation.curl.split('{BASE}').join(BASE_PLACEHOLDER) }],
  });
}

/**
 * A method the route refuses (GET and DELETE /mcp): an operation of its own, so a reader (or a
 * tool reading this document) sees its only answer, the gateway's 405. No key is checked or counted.
 */
function registerRefusedMethod(registry: OpenAPIRegistry, route: ApiRoute, method: Route['method']): void {
  const { codes, description } = ERROR_STATUSES[405];
  registry.registerPath({
    method: method.toLowerCase() as 'get' | 'delete',
    path: documentPath(route.path),
    operationId: `${route.doc.operationId}${method.charAt(0)}${method.slice(1).toLowerCase()}`,
    summary: `${method}: not allowed (405)`,
    description: `${GATEWAY_MESSAGES.methodNotAllowed} Answered before any key is checked: none needed, nothing counted.`,
    tags: [route.doc.tag],
    security: [],
    responses: {
      405: {
        description,
        headers: {
          'X-Request-Id': ref('XRequestId'),
          Allow: { description: 'The method this path takes.', required: true, schema: { type: 'string', enum: [route.method] } },
        },
        content: {
          'application/json': {
            schema: ERROR_SCHEMAS[405],
            example: { data: null, error: { message: GATEWAY_MESSAGES.methodNotAllowed, code: codes[0] } },
          },
        },
      },
    },
    'x-codeSamples': [{ lang: 'Shell', label: 'curl', source: `curl -s -X ${method} "${BASE_PLACEHOLDER}${documentPath(route.path)}"` }],
  });
}

const TAGS = [
  { name: 'Videos', description: 'Start video tasks, poll them, list your history.' },
  { name: 'Images', description: 'Start image tasks (paid access), poll them, list your history.' },
  { name: 'Models', description: 'The models with their prices, defaults, allowed values and capabilities; the price of a start before making it.' },
  { name: 'Uploads', description: 'Reference images: upload a file, get a public URL to pass to the generate endpoints.' },
  { name: 'Account', description: 'Your credits and access.' },
  { name: 'Webhooks', description: 'Endpoints that receive signed events (Standard Webhooks) when your tasks end, and their deliveries.' },
  {
    name: 'API keys',
    description:
      'Your API keys, managed from a signed-in session (the console): an API key calling these gets 403 `forbidden`. Each key has scopes (`generate`, `read`, `webhooks`), an optional expiry and an optional monthly spend limit.',
  },
  { name: 'Teams', description: 'Your account as a team: its audit log (who changed what, when, from where). Session only.' },
  { name: 'Agents', description: 'The Model Context Protocol: the API as tools for AI agents.' },
  { name: 'Reference', description: 'This document and its page. No key needed.' },
];

const modelRows = [
  ...Object.entries(VIDEO_MODELS).map(
    ([id, model]) =>
      `| \`${id}\` | ${model.name} | ${model.creditsPerSecond} per second, rounded up per video | ${model.subscriptionRequired ? 'required' : 'not required'} |`,
  ),
  ...Object.entries(IMAGE_MODELS).map(
    ([id, model]) =>
      `| \`${id}\` | ${model.name} | ${model.creditsPerImage} per image | ${model.subscriptionRequired ? 'required' : 'not required'} |`,
  ),
].join('\n');

const errorRows = Object.entries(ERROR_STATUSES)
  .flatMap(([status, { codes }]) => codes.map((code) => `| ${status} | \`${code}\` | ${ERROR_SUMMARIES[code]} |`))
  .join('\n');

const INTRODUCTION = `Asynchronous text-to-video, image-to-video and image generation over HTTPS/JSON: start a task, poll it until it is final, fetch the result from its public URL.

## Quick start

\`\`\`bash
KEY=vg_live_...                       # your API key
BASE=${BASE_PLACEHOLDER}     # this server (the local stack: see npm start's banner)

curl -s -H "Authorization: Bearer $KEY" $BASE/credits
curl -s -X POST $BASE/generate -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \\
  -d '{"prompt":"a red fox running through snow","duration":5}'
curl -s -H "Authorization: Bearer $KEY" $BASE/videos/<video_id>     # every ~5 s until completed or failed
\`\`\`

Every operation below has a curl example that runs as it is once \`KEY\` (and the id it names, such as \`VIDEO_ID\`) is set.

## Authentication

Send \`Authorization: Bearer <API_KEY>\` with every request except the reference (\`/openapi.json\`, \`/docs\`). A missing, invalid or revoked key is 401 \`unauthorized\`.

## Envelope and errors

Every response body, success or error, is \`{ "data": ..., "error": ... }\`: on success \`data\` is the result and \`error\` is null (status 200); on error \`data\` is null and \`error\` is \`{ "message", "code" }\`. Every response carries \`X-Request-Id\`.

| status | error.code | when |
|---|---|---|
${errorRows}

Unknown JSON fields are ignored. Timestamps are ISO 8601 UTC. Clients should ignore response fields they do not know: fields may be added within v1.

## Rate limit

Per API key, fixed one-minute windows aligned to the minute, 60 requests by default. Authenticated responses carry \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\` and \`X-RateLimit-Reset\` (Unix seconds); a 429 also carries \`Retry-After\` (seconds) and does nothing else.

## Tasks

A task is \`processing\` until it ends \`completed\` (results in \`video_url\` / \`image_urls\`, public, no key needed) or \`failed\` (with \`error\`; its credits are refunded in full, once). A final task never changes again. Poll about every 5 seconds.

## Models and prices

| model | name | credits | subscription |
|---|---|---|---|
${modelRows}

"Subscription required" means paid access and an active subscription (see \`GET /credits\`); \`POST /generate-image\` needs them for any model. \`GET /models\` gives the same as data, with each model's defaults, allowed values and capabilities; \`POST /quote\` prices a start before you make it.

## Idempotency

\`POST /generate\` and \`POST /generate-image\` accept an \`Idempotency-Key\` header (1 to 255 characters): the same key with the same body within 24 hours returns the first answer and charges nothing more.
`;

/* ------------------------------------------------------------------------------------------ */
/* Prose and the few rules zod cannot show, added to the generated request schemas.            */
/* Each helper throws if the generated document lacks what it describes, so they cannot drift. */

type JsonObject = { [key: string]: unknown };

function objectAt(root: unknown, ...path: string[]): JsonObject {
  let node = root;
  for (const key of path) {
    if (typeof node !== 'object' || node === null || !(key in node)) {
      throw new Error(`OpenAPI document: nothing at ${path.join('.')} (stopped at ${key}).`);
    }
    node = (node as JsonObject)[key];
  }
  if (typeof node !== 'object' || node === null) throw new Error(`OpenAPI document: ${path.join('.')} is not an object.`);
  return node as JsonObject;
}

function describeProperties(document: OpenApiDocument, schema: string, additions: Record<string, JsonObject>): JsonObject {
  const component = objectAt(document, 'components', 'schemas', schema);
  for (const [property, extra] of Object.entries(additions)) {
    Object.assign(objectAt(component, 'properties', property), extra);
  }
  return component;
}

function parameter(document: OpenApiDocument, path: string, name: string): JsonObject {
  const parameters = objectAt(document, 'paths', path, 'get').parameters as JsonObject[] | undefined;
  const found = parameters?.find((candidate) => candidate.name === name);
  if (!found) throw new Error(`OpenAPI document: GET ${path} has no parameter ${name}.`);
  return found;
}

const promptDoc = (what: string) => ({
  description: `What the ${what} should show. Leading and trailing spaces are trimmed; then 1 to ${PROMPT_MAX_LENGTH} characters.`,
  pattern: '\\S',
});
const HTTP_URL = { format: 'uri', pattern: '^https?://' };
/** seed and negative_prompt, the same on both starts. */
const EXTRAS_DOC = {
  seed: {
    description: `A whole number ${SEED_RANGE.min} to ${SEED_RANGE.max} (a JSON number): the same seed and parameters give the same output where the model honours it (\`capabilities.seed\`).`,
  },
  negative_prompt: {
    description: `What the output should not show. Trimmed; then 1 to ${NEGATIVE_PROMPT_MAX_LENGTH} characters.`,
    pattern: '\\S',
  },
};

function describeRequests(document: OpenApiDocument): void {
  const video = describeProperties(document, 'GenerateVideoRequest', {
    prompt: promptDoc('video'),
    model: { description: 'Video model (see "Models and prices"). `vid-2-0` and `vid-2-0-fast` need paid access and an active subscription.' },
    generation_type: { description: '`image_to_video` animates `image_url`; `text_to_video` uses the prompt only.' },
    image_url: {
      ...HTTP_URL,
      description:
        'Absolute http(s) URL of the reference image, at most 2048 characters (for example the `url` answered by `POST /upload`). Required with `image_to_video`, refused with `text_to_video`.',
    },
    end_image_url: {
      ...HTTP_URL,
      description:
        'Absolute http(s) URL of the image the video ends on (image_to_video only, on models whose `capabilities.end_image` is true: see `GET /models`). Checked like `image_url`.',
    },
    ...EXTRAS_DOC,
    aspect_ratio: { description: 'Aspect ratio of the video.' },
    duration: { description: `Length in whole seconds, ${VIDEO_DURATION.min} to ${VIDEO_DURATION.max} (\`5.0\` is 5, \`5.5\` is refused).` },
    resolution: { description: 'Output resolution.' },
  });
  video.description = 'Starts a video task. `image_url` (and `end_image_url`) go with `generation_type: image_to_video`, and only with it.';
  // As JSON Schema: with text_to_video (or no generation_type) no image_url, else image_url
  // required. The titles name the cases for renderers that show if/then/else as "one of".
  video.allOf = [
    {
      if: { title: 'text_to_video (default)', properties: { generation_type: { const: 'text_to_video' } } },
      then: { not: { anyOf: [{ required: ['image_url'] }, { required: ['end_image_url'] }] } },
      else: { title: 'image_to_video', required: ['image_url'] },
    },
  ];

  const image = describeProperties(document, 'GenerateImageRequest', {
    prompt: promptDoc('image'),
    model: { description: 'Image model (see "Models and prices").' },
    resolution: { description: 'Output resolution.' },
    aspect_ratio: { description: 'Aspect ratio of the image.' },
    output_format: { description: 'File format of the result.' },
    ...EXTRAS_DOC,
    images: {
      description: `Edit mode: 1 to ${MAX_REFERENCE_IMAGES} absolute http(s) URLs of the images to edit (for example from \`POST /upload\`).`,
    },
  });
  image.description = 'Starts an image task. Paid access and an active subscription are required.';
  Object.assign(objectAt(image, 'properties', 'images', 'items'), HTTP_URL);

  for (const path of ['/videos', '/images']) {
    for (const [name, doc] of Object.entries(PAGINATION_PARAMETERS)) Object.assign(parameter(document, path, name), structuredClone(doc));
  }
  for (const [name, doc] of Object.entries(EVENTS_PARAMETERS)) Object.assign(parameter(document, '/events', name), structuredClone(doc));
  for (const [name, doc] of Object.entries(AUDIT_EVENTS_PARAMETERS)) Object.assign(parameter(document, '/audit-events', name), structuredClone(doc));
  for (const [name, doc] of Object.entries(USAGE_PARAMETERS)) Object.assign(parameter(document, '/usage', name), structuredClone(doc));

  objectAt(document, 'paths', '/upload', 'post', 'requestBody').description =
    `multipart/form-data with one file part named \`image\`: JPEG, PNG or WebP, at most ${MAX_UPLOAD_BYTES} bytes (10 MiB).`;
}
