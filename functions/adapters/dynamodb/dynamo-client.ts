import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { traced } from '#observability/client-tracing';
import { ServiceBusyError } from '#domain/shared/errors';
import { boundedClientConfig, DYNAMODB_BOUNDS, LOCAL_DYNAMODB_BOUNDS, type ClientBounds } from '../aws-client-options';

/** The document client plus the table it works on: what every repository is built from. */
export interface Db {
  doc: DynamoDBDocumentClient;
  tableName: string;
}

export interface DbOptions {
  tableName: string;
  region: string;
  /** Set for DynamoDB Local; unset on AWS. */
  endpoint?: string;
  /** Timeouts and attempts; by default DYNAMODB_BOUNDS on AWS, LOCAL_DYNAMODB_BOUNDS with an endpoint. */
  bounds?: ClientBounds;
}

export function createDb({ tableName, region, endpoint, bounds }: DbOptions): Db {
  bounds ??= endpoint ? LOCAL_DYNAMODB_BOUNDS : DYNAMODB_BOUNDS;
  const client = new DynamoDBClient({
    region,
    ...boundedClientConfig(bounds),
    ...(endpoint && {
      endpoint,
      // DynamoDB Local accepts any credentials; fixed ones keep a developer's AWS profile out of it.
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  });
  const doc = DynamoDBDocumentClient.from(traced(client), {
    marshallOptions: { removeUndefinedValues: true },
  });
  doc.middlewareStack.add(
    (next) => async (args) => {
      try {
        return await next(args);
      } catch (error) {
        throw busyOrAsIs(error);
      }
    },
    // Around the SDK's retries: only what is left once every attempt failed.
    { step: 'initialize', priority: 'high', name: 'busyOrAsIs' },
  );
  return { doc, tableName };
}

/**
 * Errors that say DynamoDB was too slow or too loaded (after the SDK's own retries), not that
 * anything is wrong with the request or with us: the SDK's request timeout (`throwOnRequestTimeout`,
 * aws-client-options.ts) and throttling.
 */
const BUSY = new Set(['TimeoutError', 'ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded']);

/** A busy DynamoDB as the typed error the API answers 503 (docs/decisions.md, "A busy dependency"). */
export function busyOrAsIs(error: unknown): unknown {
  if (!(error instanceof Error) || !BUSY.has(error.name)) return error;
  return Object.assign(new ServiceBusyError(), { cause: error });
}

/** True when a write was refused by its condition expression. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}
