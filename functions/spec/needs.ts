import type { TABLE_DEFINITION } from '#adapters/dynamodb/table-definition';
import type { QueueName } from '#adapters/queues/queue-names';
import type { MEDIA_PREFIXES } from '#adapters/s3/media-layout';

/*
 * What a function may do, read off the adapters it uses. The stack's binders (lib/binders/) turn
 * these into IAM statements and environment together; nothing else grants a function anything.
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
  readonly read?: readonly MediaPrefix[];
  /** s3:PutObject and s3:AbortMultipartUpload (multipart uploads, CopyObject destination). */
  readonly write?: readonly MediaPrefix[];
  readonly delete?: readonly MediaPrefix[];
  /**
   * s3:ListBucket on the bucket. Without it S3 answers 403 instead of 404 for a missing key, so
   * "is it there?" checks (HeadObject, GetObject of an optional key) fail instead of answering no.
   * It is not narrowed by an s3:prefix condition: that key is absent from the implicit check S3
   * makes for a missing object, so a narrowed grant would not turn the 403 into a 404. It lists
   * key names only; reading objects still needs `read` on their prefix.
   */
  readonly listBucket?: boolean;
}

export type StripeSecretName = 'secretKey' | 'webhookSecret';

/** What a function may do and reach: each field is one binder in the stack (environment and grant together). */
export interface Needs {
  readonly table?: { readonly actions: readonly TableAction[]; readonly query?: readonly QueryTarget[] };
  readonly media?: MediaAccess;
  /** Queues it sends to: the queue's URL variable and sqs:SendMessage. */
  readonly queues?: readonly QueueName[];
  /**
   * Calls the generation providers: their settings and secrets (GetSecretValue), the simulated
   * provider's media (it keeps its jobs and outputs in provider-sim/, reads reference images from
   * uploads/; test mode runs on it on every stage), its sample outputs beside the bundle, the
   * task lifecycle's settings, the circuit breakers and the media bucket.
   */
  readonly providers?: true;
  /** Copies finished outputs into videos/ and images/; with the simulated provider the source is provider-sim/. */
  readonly copiesResults?: true;
  /** Makes video thumbnails with ffmpeg: the layer and FFMPEG_PATH, on its architecture, and reads the copied videos back. */
  readonly thumbnails?: true;
  /** Functions (by handler name) it invokes asynchronously: COPY_WORKER_FUNCTION and lambda:InvokeFunction on each. */
  readonly invokes?: readonly string[];
  /** Bills through Stripe: the billing settings, and exactly these of Stripe's secrets (their ARNs, GetSecretValue). */
  readonly stripe?: readonly StripeSecretName[];
  /** Checks sessions: the user pool (issuer, app client) and what a new holder's account opens with. */
  readonly identity?: true;
  /** Sends the service's mail: MAIL_FROM and CONSOLE_URL, and ses:SendEmail on the stage's SES identity from that address only (none without one: the mail is logged). */
  readonly mail?: true;
}

/** Every API handler counts the request in its caller's rate window first. */
export const RATE_LIMITED: readonly TableAction[] = ['UpdateItem'];

const union = <T>(...lists: (readonly T[] | undefined)[]): T[] => [...new Set(lists.flatMap((list) => list ?? []))];

/**
 * What a function that can end a task needs to publish the ending: the account's webhook
 * endpoints (Query lsi1), a delivery record (GetItem, UpdateItem on the endpoint's counter,
 * PutItem) and the delivery queue.
 */
export function endsTasks(needs: Needs): Needs {
  return {
    ...needs,
    table: { actions: union(needs.table?.actions, ['GetItem', 'UpdateItem', 'PutItem', 'Query']), query: union(needs.table?.query, ['lsi1']) },
    queues: union(needs.queues, ['webhook-deliveries']),
  };
}

/**
 * What a function that sends creates to the provider needs: the provider, a turn in its budget
 * (UpdateItem on the rate counters) and the submission queue, where creates wait their turn.
 */
export function startsTasks(needs: Needs): Needs {
  return {
    ...needs,
    table: { ...needs.table, actions: union(needs.table?.actions, ['UpdateItem']) },
    providers: true,
    queues: union(needs.queues, ['submissions']),
  };
}

/** Everything each of `parts` may do, as one function's needs (the MCP function runs other routes' use cases). */
export function mergeNeeds(parts: readonly Needs[]): Needs {
  const media: { -readonly [K in keyof MediaAccess]: MediaAccess[K] } = {};
  for (const key of ['read', 'write', 'delete'] as const) {
    const values = union(...parts.map((needs) => needs.media?.[key]));
    if (values.length > 0) media[key] = values;
  }
  if (parts.some((needs) => needs.media?.listBucket)) media.listBucket = true;
  const actions = union(...parts.map((needs) => needs.table?.actions));
  const query = union(...parts.map((needs) => needs.table?.query));
  const queues = union(...parts.map((needs) => needs.queues));
  const invokes = union(...parts.map((needs) => needs.invokes));
  const stripe = union(...parts.map((needs) => needs.stripe));
  return {
    ...(actions.length > 0 && { table: { actions, ...(query.length > 0 && { query }) } }),
    ...(Object.keys(media).length > 0 && { media }),
    ...(queues.length > 0 && { queues }),
    ...(parts.some((needs) => needs.providers) && { providers: true as const }),
    ...(parts.some((needs) => needs.copiesResults) && { copiesResults: true as const }),
    ...(parts.some((needs) => needs.thumbnails) && { thumbnails: true as const }),
    ...(invokes.length > 0 && { invokes }),
    ...(stripe.length > 0 && { stripe }),
    ...(parts.some((needs) => needs.identity) && { identity: true as const }),
    ...(parts.some((needs) => needs.mail) && { mail: true as const }),
  };
}
