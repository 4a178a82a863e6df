import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { traced } from '../../observability/client-tracing';

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
}

export function createDb({ tableName, region, endpoint }: DbOptions): Db {
  const client = new DynamoDBClient({
    region,
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

/** Reason codes of a cancelled transaction, one per action ("None" where it passed). */
export function cancellationReasons(error: unknown): string[] {
  if (!(error instanceof Error) || error.name !== 'TransactionCanceledException') return [];
  const reasons = (error as Error & { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
  return (reasons ?? []).map((reason) => reason.Code ?? 'None');
}
