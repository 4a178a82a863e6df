import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { traced } from '#observability/client-tracing';
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
  return { doc, tableName };
}

/** True when a write was refused by its condition expression. */
export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}
