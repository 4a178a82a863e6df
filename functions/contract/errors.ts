import { KEY_EXPIRED_MESSAGE } from '#domain/shared/errors';

/**
 * The API's error codes and the one HTTP status each is answered with. The error mapping, the
 * gateway responses and the OpenAPI document all read this table; nothing else pairs a code
 * with a status.
 */

export const ERROR_CODES = [
  'validation_error',
  'unauthorized',
  'insufficient_credits',
  'paid_access_required',
  'not_found',
  'idempotency_conflict',
  'payload_too_large',
  'rate_limit_exceeded',
  'internal_error',
  'upstream_error',
  'task_not_cancelable',
  'task_not_final',
  'forbidden',
  'spend_limit_exceeded',
  'method_not_allowed',
  'last_owner',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** When each code is answered, in a few words (the API reference's error table). */
export const ERROR_SUMMARIES: Readonly<Record<ErrorCode, string>> = {
  validation_error: 'a parameter is missing or invalid; malformed JSON, a non-object body or a wrong Content-Type',
  unauthorized: 'missing, invalid or revoked key',
  insufficient_credits: 'too few credits for the price',
  paid_access_required: 'the model or endpoint needs paid access and an active subscription',
  not_found: 'unknown route, or an id that does not exist for your account',
  idempotency_conflict: 'an Idempotency-Key reused with a different body',
  payload_too_large: 'a body larger than the platform accepts',
  rate_limit_exceeded: 'over the per-key rate limit',
  internal_error: 'a failure on our side',
  upstream_error: 'the generation provider refused or failed the submission (credits refunded)',
  task_not_cancelable: 'a cancel of a task that has already completed or failed',
  task_not_final: "a deletion of a task's outputs while it is still processing, or still being delivered to its output_destination",
  forbidden: "outside the API key's scopes, or an endpoint only a signed-in account holder may call",
  spend_limit_exceeded: "the start would pass the API key's monthly spend limit, or the limit of the end user it names",
  method_not_allowed: '`GET` or `DELETE` on `/mcp`, which takes `POST` only (the `Allow` header says so)',
  last_owner: 'a role change or removal that would leave the account without an owner',
};

export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 429 | 500 | 502 | 503;

export interface ErrorStatusDoc {
  /** The codes answered with this status; the first is the one its examples show. */
  codes: readonly [ErrorCode, ...ErrorCode[]];
  /** What the status means for every operation (an operation may word it its own way). */
  description: string;
  example: string;
}


/**
 * Paths the gateway's messages point to (routes.ts serves them; a test keeps the two in step).
 * Paths, not URLs: a gateway response is the same text on every host and stage.
 */
export const API_REFERENCE_PATH = '/api/v1/docs';
export const DIRECT_UPLOAD_PATH = '/api/v1/uploads';
/**
 * API Gateway's payload limit (its "10 MB" is 10 MiB). The local gateway takes a little more, so
 * that there the upload handler, not the gateway, refuses a file over 10 MiB.
 */
export const MAX_REQUEST_BODY_MIB = 10;

/** Messages the platform answers with before any handler runs (gateway responses). */
export const GATEWAY_MESSAGES = {
  unauthorized: 'Missing or invalid API key. Send Authorization: Bearer <API_KEY>.',
  /** The authorizer's Deny (API Gateway's ACCESS_DENIED): only ever for an expired key. */
  expired: KEY_EXPIRED_MESSAGE,
  notFound: `No such route. The API reference at ${API_REFERENCE_PATH} lists every endpoint.`,
  payloadTooLarge:
    `The request body is larger than the ${MAX_REQUEST_BODY_MIB} MiB the API accepts. ` +
    `Upload an image with POST ${DIRECT_UPLOAD_PATH}: it answers a form that sends the file straight to storage (up to 10 MiB).`,
  badRequest: 'The request could not be processed. Check the method, headers and body.',
  /**
   * GET and DELETE on the MCP endpoint (CONTRACT.md, "MCP transport"): what its transport,
   * Streamable HTTP, has a stateless server answer when it offers no event stream and no session.
   */
  methodNotAllowed: 'The MCP endpoint takes POST only (see the Allow header): it is stateless, with no event stream to GET and no session to DELETE.',
  throttled: 'Too many requests.',
  internal: 'Something went wrong on our side.',
} as const;

/** The message of an unexpected failure: never the error itself. */
export const INTERNAL_ERROR_MESSAGE = 'Something went wrong on our side. Quote the X-Request-Id header if you contact support.';

export const ERROR_STATUSES: Readonly<Record<ErrorStatus, ErrorStatusDoc>> = {
  400: {
    codes: ['validation_error'],
    description: 'A parameter is missing or invalid; the message names each field and the allowed values.',
    example: 'duration: must be at most 12 seconds',
  },
  401: {
    codes: ['unauthorized'],
    description:
      'The API key is missing, invalid, revoked or expired (the message says so for an expired key). Answered before the rate limit: no X-RateLimit-* headers.',
    example: GATEWAY_MESSAGES.unauthorized,
  },
  403: {
    codes: ['insufficient_credits', 'paid_access_required', 'spend_limit_exceeded', 'forbidden'],
    description:
      "`paid_access_required`: the model or endpoint needs paid access and an active subscription (checked first). `spend_limit_exceeded`: the start would pass the API key's monthly spend limit, or its limit for the `end_user` named (checked next; the message says which). `insufficient_credits`: the balance is below the price. Nothing was charged. `forbidden`: the API key's scopes do not include this endpoint (the message names the scope it needs), or the endpoint is for a signed-in account holder only.",
    example: 'This request costs 38 credits; the account has 10.',
  },
  404: {
    codes: ['not_found'],
    description: 'No such id for this account (ids of other accounts are answered the same way).',
    example: 'No video with id "vid_01M7ZNHRE3YZJA4Y3XQS4DQDGQ".',
  },
  405: {
    codes: ['method_not_allowed'],
    description: '`GET` or `DELETE` on `/mcp`: the MCP endpoint takes `POST` only (`Allow: POST`). Answered before the key is checked or counted.',
    example: GATEWAY_MESSAGES.methodNotAllowed,
  },
  409: {
    codes: ['idempotency_conflict', 'task_not_cancelable', 'task_not_final', 'last_owner'],
    description:
      '`idempotency_conflict`: this Idempotency-Key was used with a different request body within 24 hours. `task_not_cancelable`: the task has already completed or failed. `task_not_final`: the task is still processing, or its output is still being delivered to your storage (`delivery.status` `pending`), so its outputs cannot be deleted yet. `last_owner`: the role change or removal would leave the account without an owner.',
    example: 'This Idempotency-Key was already used with a different request. Use a new key for a new request.',
  },
  413: {
    codes: ['payload_too_large'],
    description: 'The request body is larger than the platform accepts; refused before the handler (no X-RateLimit-* headers).',
    example: GATEWAY_MESSAGES.payloadTooLarge,
  },
  429: {
    codes: ['rate_limit_exceeded'],
    description: 'Over the per-key limit for this one-minute window. Nothing was done or charged; retry after `Retry-After` seconds.',
    example: 'Rate limit exceeded. Retry after 12 seconds.',
  },
  500: {
    codes: ['internal_error'],
    description: 'A failure on our side. Quote the X-Request-Id header if you contact support.',
    example: INTERNAL_ERROR_MESSAGE,
  },
  502: {
    codes: ['upstream_error'],
    description: 'The generation provider refused or failed the submission. The task ended `failed` and its credits were refunded.',
    example: 'The generation provider did not accept the request. Your credits were refunded; please retry.',
  },
  // internal_error's second status (docs/decisions.md, "A busy dependency"): a failure on our side that a retry may get past.
  503: {
    codes: ['internal_error'],
    description:
      'Our database was too slow or too busy to answer. Retry after `Retry-After` seconds; retry a start with the same `Idempotency-Key`, since what the request did may stand (a charge, a task).',
    example: 'The service is busy and could not finish this request. Retry in a second, with the same Idempotency-Key for a start.',
  },
};

/** Each code's first status (`internal_error` is 500; its 503 is answered only for a busy dependency). */
const STATUS_OF = new Map<ErrorCode, ErrorStatus>(
  Object.entries(ERROR_STATUSES)
    .flatMap(([status, { codes }]) => codes.map((code) => [code, Number(status) as ErrorStatus] as const))
    .reverse(),
);

/** The HTTP status an error code is always answered with. */
export function statusOf(code: ErrorCode): ErrorStatus {
  const status = STATUS_OF.get(code);
  if (status === undefined) throw new Error(`No HTTP status for error code ${code}.`);
  return status;
}
