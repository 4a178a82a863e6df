import type { TABLE_DEFINITION } from '#adapters/dynamodb/table-definition';
import type { QueueName } from '#adapters/queues/queue-names';
import type { MEDIA_PREFIXES } from '#adapters/s3/media-layout';

/**
 * What each function may do, keyed by its handler (functions/handlers/<name>.ts): the functions
 * behind a route and those behind none alike. lib/function-permissions.ts turns these into what
 * the house construct grants; the route table (functions/http/routes/) says only how a function
 * is reached and documented.
 */

/*
 * Needs are read off the adapters a function uses. The house CDK construct turns them into IAM
 * statements; nothing else grants a function anything.
 *
 * DynamoDB transactions have no IAM action of their own: each Put/Update/ConditionCheck inside
 * a TransactWriteItems needs PutItem/UpdateItem/ConditionCheckItem on the table.
 *   rate limit (every API handler) ....... UpdateItem RATE#
 *   start a task (generate*) .............. GetItem (idempotency, account, KEYSPEND#), PutItem (draft task),
 *                                           UpdateItem (KEYSPEND# reserve, account charge and position,
 *                                           note removal, CIRCUIT#, budget), TransactWriteItems
 *                                           [Update task, Put ledger, Put idempotency], UpdateItem (sent,
 *                                           job id, idempotency outcome); docs/data-model.md has the order
 *   fail and refund ....................... TransactWriteItems [Update task, Update account, Put ledger]
 *   poll / complete / count copy failure .. UpdateItem on the task
 *   history page .......................... GetItem account + Query lsi1
 *   sweeper work list ..................... Query gsi2 (the in-flight shards)
 *   publish a direct upload once .......... GetItem, PutItem (claim), UpdateItem (answer), DeleteItem UPLOAD#
 *   a key's spend this month .............. BatchGetItem / GetItem KEYSPEND#
 *   create / revoke a key ................. TransactWriteItems [Update APIKEYCOUNT, Put or Update APIKEY#]
 */
export type TableAction = 'GetItem' | 'BatchGetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem' | 'Query';
/** Where a Query runs: the base table or one of its indexes. */
export type QueryTarget =
  | 'table'
  | typeof TABLE_DEFINITION.gsi1.indexName
  | typeof TABLE_DEFINITION.gsi2.indexName
  | typeof TABLE_DEFINITION.lsi1.indexName;
/** A folder of the media bucket (functions/adapters/s3/media-layout.ts owns the layout). */
export type MediaPrefix = (typeof MEDIA_PREFIXES)[keyof typeof MEDIA_PREFIXES];

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
   * Calls the generation providers: Replicate and fal need their API token secrets; the simulated provider
   * (test mode on every stage) keeps its jobs and outputs in provider-sim/ and reads reference
   * images from uploads/; on AWS the function's bundle carries its sample outputs.
   */
  provider?: boolean;
  /** Copies finished outputs into videos/ and images/; with the simulated provider the source is provider-sim/. */
  copiesResults?: boolean;
  /**
   * Makes video thumbnails with ffmpeg: the ffmpeg layer (lib/constructs/ffmpeg-layer.ts) and
   * FFMPEG_PATH, on its architecture, and reads the copied videos back from videos/.
   */
  makesThumbnails?: boolean;
  /** Hands copies to the copy worker: COPY_WORKER_FUNCTION and lambda:InvokeFunction on it. */
  queuesCopies?: boolean;
  /**
   * Bills through Stripe: the billing settings in its environment, and secretsmanager:GetSecretValue
   * on the Stripe secrets it reads (the API key to call Stripe, the signing secret to verify its events).
   */
  stripe?: StripeSecretName[];
  /** Queues it sends to (its URL in the environment, sqs:SendMessage) and the one it consumes. */
  queues?: { send?: QueueName[]; consume?: QueueName };
}

export type StripeSecretName = 'secretKey' | 'webhookSecret';

/** Every API handler counts the request in its caller's rate window first. */
export const RATE_LIMITED: TableAction[] = ['UpdateItem'];

/**
 * What a function that can end a task needs to publish the ending: the account's webhook
 * endpoints (Query lsi1), a delivery record (GetItem, UpdateItem on the endpoint's counter,
 * PutItem) and the delivery queue.
 */
function endsTasks(needs: FunctionNeeds): FunctionNeeds {
  const actions = [...new Set<TableAction>([...needs.table.actions, 'GetItem', 'UpdateItem', 'PutItem', 'Query'])];
  const query = [...new Set([...(needs.table.query ?? []), 'lsi1' as const])];
  const send = [...new Set([...(needs.queues?.send ?? []), 'webhook-deliveries' as const])];
  return { ...needs, table: { actions, query }, queues: { ...needs.queues, send } };
}

/**
 * What a function that sends creates to the provider needs: the provider, a turn in its budget
 * (UpdateItem on the rate counters) and the submission queue, where creates wait their turn.
 */
function submitsTasks(needs: FunctionNeeds): FunctionNeeds {
  const actions = [...new Set<TableAction>([...needs.table.actions, 'UpdateItem'])];
  const send = [...new Set([...(needs.queues?.send ?? []), 'submissions' as const])];
  return { ...needs, table: { ...needs.table, actions }, provider: true, queues: { ...needs.queues, send } };
}

/** The needs of a task kind's four functions (start, list, get, cancel), the same for videos and images. */
function taskKindNeeds(kind: 'video' | 'image', article: 'a' | 'an') {
  const a = `${article} ${kind}`;
  return {
    start: submitsTasks(
      endsTasks({
        purpose: `charges, creates and submits ${a} task`,
        table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
      }),
    ),
    list: {
      purpose: `reads a page of the ${kind} history`,
      table: { actions: [...RATE_LIMITED, 'GetItem', 'Query'], query: ['lsi1'] },
    } satisfies FunctionNeeds,
    get: endsTasks({
      purpose: `reads ${a} task and refreshes it from the provider`,
      table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
      provider: true,
      queuesCopies: true,
    }),
    cancel: endsTasks({
      purpose: `cancels ${a} task, refunds it and stops the upstream job`,
      table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
      provider: true,
    }),
  };
}
/** Everything each of `parts` may do, as one function's needs. */
function mergedNeeds(purpose: string, parts: FunctionNeeds[]): FunctionNeeds {
  const union = <T>(pick: (needs: FunctionNeeds) => T[] | undefined): T[] | undefined => {
    const values = [...new Set(parts.flatMap((needs) => pick(needs) ?? []))];
    return values.length > 0 ? values : undefined;
  };
  const media: MediaAccess = {};
  for (const key of ['read', 'write', 'delete'] as const) {
    const values = union((needs) => needs.media?.[key]);
    if (values) media[key] = values;
  }
  if (parts.some((needs) => needs.media?.listBucket)) media.listBucket = true;
  const query = union((needs) => needs.table.query);
  const send = union((needs) => needs.queues?.send);
  return {
    purpose,
    table: { actions: union((needs) => needs.table.actions) ?? [], ...(query && { query }) },
    ...(Object.keys(media).length > 0 && { media }),
    ...(parts.some((needs) => needs.provider) && { provider: true }),
    ...(parts.some((needs) => needs.copiesResults) && { copiesResults: true }),
    ...(parts.some((needs) => needs.queuesCopies) && { queuesCopies: true }),
    ...(send && { queues: { send } }),
  };
}

const VIDEOS = taskKindNeeds('video', 'a');
const IMAGES = taskKindNeeds('image', 'an');

/** The functions behind a route, by handler. */
const ROUTE_FUNCTIONS: Readonly<Record<string, FunctionNeeds>> = {
  generate: VIDEOS.start,
  'list-videos': VIDEOS.list,
  'get-video': VIDEOS.get,
  'cancel-video': VIDEOS.cancel,
  'generate-image': IMAGES.start,
  'list-images': IMAGES.list,
  'get-image': IMAGES.get,
  'cancel-image': IMAGES.cancel,
  // The catalogue is code: nothing to read but the caller's rate window.
  'list-models': { purpose: 'lists the models and their prices', table: { actions: [...RATE_LIMITED] } },
  quote: {
    purpose: 'prices a start and says whether it would go ahead (a test key opens its test balance on first use)',
    // The account (GetItem; PutItem opens a test balance) and the first bytes of our own reference files.
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
    media: { read: ['uploads/', 'videos/', 'images/'], listBucket: true },
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
    // The upload's publication (UPLOAD#): get, claim (Put), answer (Update, as RATE_LIMITED), release.
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem', 'DeleteItem'] },
    media: { read: ['incoming/'], delete: ['incoming/'], write: ['uploads/'], listBucket: true },
  },
  'get-credits': {
    purpose: 'reads the caller account (a test key opens its test balance on first use)',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
  },
  'get-account': {
    purpose: 'reads the caller account, both balances (opens the test balance on first use)',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
  },
  'list-transactions': {
    purpose: 'reads a page of the caller ledger (a test key opens its test balance on first use)',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem', 'Query'], query: ['lsi1'] },
  },
  'create-webhook': {
    purpose: 'registers a webhook endpoint (at most ten per account)',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
  },
  'list-webhooks': {
    purpose: "lists the caller's webhook endpoints",
    table: { actions: [...RATE_LIMITED, 'Query'], query: ['lsi1'] },
  },
  'test-webhook': {
    purpose: 'sends a test event to one webhook endpoint',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
    queues: { send: ['webhook-deliveries'] },
  },
  'list-deliveries': {
    purpose: "reads a page of an endpoint's deliveries",
    table: { actions: [...RATE_LIMITED, 'GetItem', 'Query'], query: ['lsi1'] },
  },
  'list-events': {
    purpose: "reads a page of the caller's events feed",
    table: { actions: [...RATE_LIMITED, 'GetItem', 'Query'], query: ['lsi1'] },
  },
  'retry-delivery': {
    // The delivery reopened (Update) or, for an event never sent to the endpoint, created
    // (GetItem of the counter, TransactWriteItems [Update endpoint, Put delivery]).
    purpose: 'sends an event to a webhook endpoint again',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
    queues: { send: ['webhook-deliveries'] },
  },
  'list-keys': {
    purpose: "lists the account's API keys and what each spent this month",
    table: { actions: [...RATE_LIMITED, 'BatchGetItem', 'Query'], query: ['gsi1'] },
  },
  'create-key': {
    purpose: 'makes an API key (counted against the per-account limit)',
    table: { actions: [...RATE_LIMITED, 'PutItem'] },
  },
  'update-key': {
    purpose: "changes an API key's name, scopes or spend limit",
    table: { actions: [...RATE_LIMITED, 'GetItem', 'BatchGetItem'] },
  },
  'revoke-key': {
    purpose: 'revokes an API key',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'BatchGetItem'] },
  },
  'delete-webhook': {
    purpose: 'deletes a webhook endpoint',
    table: { actions: [...RATE_LIMITED, 'DeleteItem'] },
  },
  'provider-callback': endsTasks({
    purpose: "applies a provider's signed callback to its task",
    // DeleteItem: a message's receipt is given up when it could not be handled (so its retry is taken).
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
    provider: true,
    queuesCopies: true,
  }),
  // The MCP tools call the use cases of the routes above: what those functions may do, together.
  mcp: mergedNeeds('serves the Model Context Protocol: the task, upload and credit tools', [
    VIDEOS.start, VIDEOS.list, VIDEOS.get, VIDEOS.cancel, IMAGES.start, IMAGES.list, IMAGES.get, IMAGES.cancel,
    { purpose: '', table: { actions: [...RATE_LIMITED] }, media: { write: ['uploads/'], read: ['uploads/', 'videos/', 'images/'], listBucket: true } },
    { purpose: '', table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] } },
  ]),
  // Billing (functions/domain/billing*.ts): the account item (balance, customer, subscription),
  // a payment customer's and a purchase's items, ledger entries; transactions of Update and Put.
  'stripe-webhook': {
    purpose: "applies Stripe's signed events: purchases, subscription status, paid access, reversals",
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem'] },
    stripe: ['webhookSecret'],
  },
  // The API reference: nothing to read or write (documents built in memory).
  'get-openapi': { purpose: 'serves the OpenAPI document', table: { actions: [] } },
  'get-docs': { purpose: 'serves the API reference page', table: { actions: [] } },
  'get-docs-asset': { purpose: 'serves the reference page script (copied next to its bundle)', table: { actions: [] } },
};

/** The holder's billing endpoints (session routes, functions/http/routes/billing.ts). */
const BILLING_SESSION_FUNCTIONS: Readonly<Record<string, FunctionNeeds>> = {
  'get-billing': {
    purpose: 'reads the packs, the plan and the caller account',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
    stripe: [],
  },
  'create-checkout': {
    purpose: "opens a Stripe Checkout for a pack or the plan, making the account's Stripe customer once",
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
    stripe: ['secretKey'],
  },
  'create-portal': {
    purpose: "opens the Stripe customer portal for the account's customer",
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
    stripe: ['secretKey'],
  },
  'add-test-credits': {
    purpose: 'adds test credits to the test balance',
    table: { actions: [...RATE_LIMITED, 'GetItem', 'PutItem'] },
  },
};

/** The functions that are not behind a route. */
export const BACKGROUND_FUNCTIONS: Readonly<Record<string, FunctionNeeds>> = {
  'authorizer': {
    purpose: "looks up the presented API key, or a session's holder; opens a holder's account on their first sign-in",
    // The first sign-in: TransactWriteItems [Put holder, Put account, Put ledger (sign-up credits)].
    table: { actions: ['GetItem', 'PutItem'] },
  },
  'sweeper': submitsTasks(
    endsTasks({
      purpose: 'times out, refreshes and finishes tasks still processing',
      table: { actions: ['GetItem', 'PutItem', 'UpdateItem', 'Query'], query: ['gsi2'] },
      copiesResults: true,
      queuesCopies: true,
    }),
  ),
  'copy-output': endsTasks({
    purpose: 'copies provider outputs into the bucket, makes video thumbnails and completes the task',
    table: { actions: ['GetItem', 'PutItem', 'UpdateItem'] },
    // A copy whose task ended meanwhile (canceled, timed out) or whose output is refused is removed again.
    media: { delete: ['videos/', 'images/'] },
    copiesResults: true,
    makesThumbnails: true,
  }),
  'submission-consumer': submitsTasks(
    endsTasks({
      purpose: "submits queued creates at the provider budget's pace, backing off while the provider refuses for load",
      table: { actions: ['GetItem', 'PutItem', 'UpdateItem'] },
      queues: { consume: 'submissions' },
    }),
  ),
  'webhook-delivery': {
    purpose: 'makes one attempt of a webhook delivery and schedules the next',
    table: { actions: ['GetItem', 'UpdateItem'] },
    queues: { send: ['webhook-deliveries'], consume: 'webhook-deliveries' },
  },
};

export const FUNCTION_NEEDS: Readonly<Record<string, FunctionNeeds>> = { ...BACKGROUND_FUNCTIONS, ...ROUTE_FUNCTIONS, ...BILLING_SESSION_FUNCTIONS };
