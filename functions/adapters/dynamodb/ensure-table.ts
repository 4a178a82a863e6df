import {
  CreateTableCommand,
  DescribeTableCommand,
  ResourceNotFoundException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { Db } from './dynamo-client';
import { createTableInput, TABLE_DEFINITION } from './table-definition';

/**
 * Creates the application table from the shared definition when it does not exist yet.
 * For the local stack and tests only: on AWS the CDK stack owns the table.
 * A table from an older release (a developer's .data folder) gets the global indexes it lacks.
 * Returns true when it created the table.
 */
export async function ensureTable(db: Db): Promise<boolean> {
  const client = db.doc;
  try {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: db.tableName }));
    const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
    const wanted = createTableInput(db.tableName);
    for (const index of wanted.GlobalSecondaryIndexes ?? []) {
      if (present.has(index.IndexName)) continue;
      await client.send(
        new UpdateTableCommand({
          TableName: db.tableName,
          AttributeDefinitions: wanted.AttributeDefinitions,
          GlobalSecondaryIndexUpdates: [{ Create: index }],
        }),
      );
    }
    return false;
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  try {
    await client.send(new CreateTableCommand(createTableInput(db.tableName)));
  } catch (error) {
    // Another process created it between our describe and create.
    if (error instanceof Error && error.name === 'ResourceInUseException') return false;
    throw error;
  }
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: db.tableName,
      TimeToLiveSpecification: { AttributeName: TABLE_DEFINITION.timeToLiveAttribute, Enabled: true },
    }),
  );
  return true;
}
