import { TABLE_DEFINITION } from '../functions/adapters/dynamodb/table-definition';
import { AUTHORIZER_HANDLER, COPY_WORKER_HANDLER, SWEEPER_HANDLER } from '../functions/http/routes';
import { MEDIA_PREFIXES as LAYOUT_PREFIXES, PUBLIC_MEDIA_PREFIXES as LAYOUT_PUBLIC_PREFIXES } from '../functions/adapters/s3/media-layout';

/**
 * What each function may do, keyed by handler name (functions/handlers/<name>.ts), read off
 * the repositories in functions/adapters/. The house construct turns an entry into IAM statements;
 * nothing else grants a function anything (see `needsOf` for a handler without an entry).
 *
 * DynamoDB transactions have no IAM action of their own: each Put/Update/ConditionCheck inside
 * a TransactWriteItems needs PutItem/UpdateItem/ConditionCheckItem on the table.
 *   rate limit (every API handler) ....... UpdateItem RATE#
 *   start a task (generate*) .............. GetItem (idempotency, account, task), PutItem (draft task),
 *                                           UpdateItem (account: price and position, note removal),
 *                                           TransactWriteItems [Update task, Put ledger, Put idempotency],
 *                                           UpdateItem (job id, idempotency outcome)
 *   fail and refund ....................... TransactWriteItems [Update task, Update account, Put ledger]
 *   poll / complete / count copy failure .. UpdateItem on the task
 *   history page .......................... GetItem account + Query lsi1
 *   sweeper work list ..................... Query gsi2 (the in-flight shards)
 */
export type TableAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem' | 'Query';
/** Where a Query runs: the base table or one of its indexes (TABLE_DEFINITION). */
export type QueryTarget =
  | 'table'
  | typeof TABLE_DEFINITION.gsi1.indexName
  | typeof TABLE_DEFINITION.gsi2.indexName
  | typeof TABLE_DEFINITION.lsi1.indexName;

/**
 * The media bucket's folders (functions/adapters/s3/media-layout.ts owns the layout). Public through
 * the CDN: exactly the layout's PUBLIC_MEDIA_PREFIXES (uploads/, videos/, images/); never
 * incoming/ (unchecked uploads) or provider-sim/ (the simulated provider's job state).
 */
export const MEDIA_PREFIXES = Object.values(LAYOUT_PREFIXES);
export type MediaPrefix = (typeof LAYOUT_PREFIXES)[keyof typeof LAYOUT_PREFIXES];
export const PUBLIC_MEDIA_PREFIXES: readonly MediaPrefix[] = LAYOUT_PUBLIC_PREFIXES;

export interface MediaAccess {
  /** s3:GetObject (also the source side of a CopyObject). */
  read?: MediaPrefix[];
  /** s3:PutObject and s3:AbortMultipartUpload (multipart uploads, CopyObject destination). */
  write?: MediaPrefix[];
  delete?: MediaPrefix[];
  /**
   * s3:ListBucket on the bucket. Without it S3 answers 403 instead of 404 for a missing key, so
   * "is it there?" checks (HeadObject, GetObject of an optional key) fail instead of answering no.
   * It is not narrowed by an s3:prefix condition: that key is absent from the implicit check S3
   * makes for a missing object, so a narrowed grant would not turn the 403 into a 404. It lists
   * key names only; reading objects still needs `read` on their prefix.
   */
  listBucket?: boolean;
}

export interface FunctionNeeds {
  /** One line for humans; also the reason given for this function's wildcard acknowledgments. */
  purpose: string;
  table: { actions: TableAction[]; query?: QueryTarget[] };
  media?: MediaAccess;
  /**
   * Calls the generation provider: Replicate needs the API token secret; the simulated provider
   * keeps its jobs and renders in provider-sim/ and reads reference images from uploads/.
   */
  provider?: boolean;
  /** Copies finished outputs into videos/ and images/; with the simulated provider the source is provider-sim/. */
  copiesResults?: boolean;
  /** Hands copies to the copy worker: COPY_WORKER_FUNCTION and lambda:InvokeFunction on it. */
  queuesCopies?: boolean;
}

/** Every API handler counts the request in its key's rate window first. */
const RATE_LIMITED: TableAction[] = ['UpdateItem'];

export const FUNCTION_NEEDS: Readonly<Record<string, FunctionNeeds>> = {
  [AUTHORIZER_HANDLER]: {
    purpose: 'looks up the presented API key',
    table: { actions: ['GetItem'] },
  },
  'get-credits': {
    purpose: 'reads the caller account',
    table: { actions: [...RATE_LIMITED, 'GetItem'] },
  },
  generate: {
    purpose: 'charges, creates and submits a video task',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
    provider: true,
  },
  'generate-image': {
    purpose: 'charges, creates and submits an image task',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
    provider: true,
  },
  'list-videos': {
    purpose: 'reads a page of the video history',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'Query'], query: ['lsi1'] },
  },
  'list-images': {
    purpose: 'reads a page of the image history',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'Query'], query: ['lsi1'] },
  },
  'get-video': {
    purpose: 'reads a video task and refreshes it from the provider',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
    provider: true,
    queuesCopies: true,
  },
  'get-image': {
    purpose: 'reads an image task and refreshes it from the provider',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
    provider: true,
    queuesCopies: true,
  },
  upload: {
    purpose: 'stores an uploaded reference image',
    table: { actions: [...RATE_LIMITED] },
    media: { write: ['uploads/'] },
  },
  'create-upload': {
    purpose: 'presigns an upload into incoming/',
    table: { actions: [...RATE_LIMITED] },
    // A presigned PUT carries the signer's permissions: the function must hold PutObject itself.
    media: { write: ['incoming/'] },
  },
  'complete-upload': {
    purpose: 'checks an uploaded file and moves it from incoming/ to uploads/',
    table: { actions: [...RATE_LIMITED] },
    media: { read: ['incoming/'], delete: ['incoming/'], write: ['uploads/'], listBucket: true },
  },
  // The API reference (public routes, no key): documents built in memory, nothing to read or write.
  'get-openapi': { purpose: 'serves the OpenAPI document', table: { actions: [] } },
  'get-docs': { purpose: 'serves the API reference page', table: { actions: [] } },
  'get-docs-asset': { purpose: 'serves the reference page script (copied next to its bundle)', table: { actions: [] } },
  [SWEEPER_HANDLER]: {
    purpose: 'times out, refreshes and finishes tasks still processing',
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'Query'], query: ['gsi2'] },
    provider: true,
    copiesResults: true,
    queuesCopies: true,
  },
  [COPY_WORKER_HANDLER]: {
    purpose: 'copies provider outputs into the bucket and completes the task',
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem'] },
    copiesResults: true,
  },
};

/** What `provider: true` adds when PROVIDER=simulated (it stores jobs and renders in the bucket). */
export const SIMULATED_PROVIDER_MEDIA: MediaAccess = {
  // Its own state and outputs, and reference images from any public prefix of ours.
  read: ['provider-sim/', 'uploads/', 'videos/', 'images/'],
  write: ['provider-sim/'],
  listBucket: true,
};

/** What `copiesResults: true` adds: the destinations, and with the simulated provider its outputs as source. */
export const RESULT_COPY_MEDIA: MediaAccess = { write: ['videos/', 'images/'] };
export const SIMULATED_RESULT_SOURCE_MEDIA: MediaAccess = { read: ['provider-sim/'] };

/**
 * The needs of a handler. A handler without an entry (a route added to ROUTES before its
 * permissions) gets the least a function of its kind can do: nothing for a public route, the
 * rate-limit counter for an authenticated one. The stack warns at synth and a CDK test fails
 * until the entry exists, so the default never ships unnoticed.
 */
export function needsOf(handler: string, options: { publicRoute?: boolean } = {}): { needs: FunctionNeeds; declared: boolean } {
  const declared = FUNCTION_NEEDS[handler];
  if (declared) return { needs: declared, declared: true };
  return {
    needs: { purpose: `${handler} (no declared permissions)`, table: { actions: options.publicRoute ? [] : [...RATE_LIMITED] } },
    declared: false,
  };
}

/** Merges media grants, keeping each prefix once per access kind. */
export function mergeMedia(...grants: (MediaAccess | undefined)[]): Required<MediaAccess> {
  const merged: Required<MediaAccess> = { read: [], write: [], delete: [], listBucket: false };
  for (const grant of grants) {
    if (!grant) continue;
    for (const kind of ['read', 'write', 'delete'] as const) {
      for (const prefix of grant[kind] ?? []) if (!merged[kind].includes(prefix)) merged[kind].push(prefix);
    }
    merged.listBucket ||= grant.listBucket === true;
  }
  return merged;
}
