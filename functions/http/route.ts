import type { ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { TABLE_DEFINITION } from '../adapters/dynamodb/table-definition';
import type { MEDIA_PREFIXES } from '../adapters/s3/media-layout';
import type { ErrorStatus } from '../contract/errors';

/** What the local server and API Gateway need to send a request to its function. */
export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  /** API Gateway resource path, with {name} for path parameters. */
  path: string;
  /** The file name under functions/handlers/ (each exports `handler`). */
  handler: string;
  /** Who may call it (one kind, or several a request may present any of). */
  callers: Caller | readonly Caller[];
}

/**
 * A kind of caller. `apiKey`: a developer's `Authorization: Bearer <key>`, checked by the API-key
 * authorizer. `session`: an account holder signed in to the console (a JWT); no authorizer
 * recognises one yet, so no route may declare it until one exists. `public`: anyone; the route
 * has nothing to guard (the API reference) or checks its own credential (a provider's signature).
 */
export type Caller = 'apiKey' | 'session' | 'public';

/** How the gateway admits a route's callers: nobody checked, or the API-key authorizer first. */
export type GatewayAccess = 'public' | 'apiKey';

/**
 * The one reading of a route's `callers` that the local gateway, the CDK REST API and the
 * OpenAPI document share. Throws, naming the route, for a declaration they cannot build.
 */
export function gatewayAccess(route: Route): GatewayAccess {
  const callers: readonly Caller[] = typeof route.callers === 'string' ? [route.callers] : route.callers;
  const name = `${route.method} ${route.path}`;
  if (callers.length === 0) throw new Error(`${name} declares no callers: say 'apiKey', 'public' or 'session'.`);
  if (callers.includes('session')) {
    throw new Error(
      `${name} accepts 'session' callers, but no authorizer recognises a session yet (the console's JWT authorizer comes with the accounts work); declare 'apiKey' or 'public' until it exists.`,
    );
  }
  if (callers.includes('public')) {
    if (callers.length > 1) throw new Error(`${name} is 'public' and also names other callers: a public route checks no credential, so declare 'public' alone.`);
    return 'public';
  }
  return 'apiKey';
}

/** A route of the API with everything else it needs: its documentation and its permissions. */
export interface ApiRoute extends Route {
  doc: OperationDoc;
  needs: FunctionNeeds;
}

/** How the API reference describes an operation. */
export interface OperationDoc {
  operationId: string;
  summary: string;
  description: string;
  tag: 'Videos' | 'Images' | 'Uploads' | 'Account' | 'Webhooks' | 'Reference' | 'Internal';
  request?: RouteConfig['request'];
  success: ResponseConfig;
  /** The error statuses this operation answers; their codes come from the contract's error table. */
  errors: ErrorStatus[];
  /** This operation's wording of an error status, where the general one does not fit. */
  errorNotes?: Partial<Record<ErrorStatus, { description?: string; example?: string }>>;
  /** A runnable shell example; `{BASE}` becomes the server URL. Uses $KEY and the ids named in it. */
  curl: string;
}

/*
 * What a function may do, read off the adapters it uses. The house CDK construct turns these
 * into IAM statements; nothing else grants a function anything.
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
 *   publish a direct upload once .......... GetItem, PutItem (claim), UpdateItem (answer), DeleteItem UPLOAD#
 */
export type TableAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem' | 'Query';
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
   * Calls the generation provider: Replicate needs the API token secret; the simulated provider
   * (test mode on every stage) keeps its jobs and outputs in provider-sim/ and reads reference
   * images from uploads/; on AWS the function's bundle carries its sample outputs.
   */
  provider?: boolean;
  /** Copies finished outputs into videos/ and images/; with the simulated provider the source is provider-sim/. */
  copiesResults?: boolean;
  /** Hands copies to the copy worker: COPY_WORKER_FUNCTION and lambda:InvokeFunction on it. */
  queuesCopies?: boolean;
  /** Queues it sends to (its URL in the environment, sqs:SendMessage) and the one it consumes. */
  queues?: { send?: QueueName[]; consume?: QueueName };
}

/** The SQS queues of the event pipeline (each with a DLQ). */
export type QueueName = 'webhook-deliveries' | 'submissions';

/** The environment variable that gives a function a queue's URL (functions/config.ts reads it). */
export const QUEUE_URL_VARIABLES = { 'webhook-deliveries': 'WEBHOOK_QUEUE_URL', submissions: 'SUBMISSION_QUEUE_URL' } as const satisfies Record<QueueName, string>;
