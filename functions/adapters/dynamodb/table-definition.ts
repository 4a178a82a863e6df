import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * The one description of the application table. The local stack and the tests create their
 * tables from `createTableInput`; the CDK stack builds its table from the same object, so the
 * three cannot drift. docs/data-model.md lists every item type and access pattern.
 */
export const TABLE_DEFINITION = {
  partitionKey: 'pk',
  sortKey: 'sk',
  /** Overloaded global index: API keys by account. */
  gsi1: { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  /**
   * Sparse in-flight index: tasks still processing, sharded (keys.ts, IN_FLIGHT_SHARDS), keys
   * only: the sweeper reads each task itself, and updates of a processing task (check claims,
   * job ids) then cost no index write.
   */
  gsi2: { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk', projection: 'KEYS_ONLY' },
  /**
   * Local index on the account partition: tasks by per-account sequence number, so a history
   * page is one range read of exactly the items it returns, strongly consistent.
   */
  lsi1: { indexName: 'lsi1', sortKey: 'lsi1sk' },
  /** Unix seconds; DynamoDB deletes expired items (rate-limit windows, idempotency records). */
  timeToLiveAttribute: 'expires_at',
} as const;

export function createTableInput(tableName: string): CreateTableCommandInput {
  const { partitionKey, sortKey, gsi1, gsi2, lsi1 } = TABLE_DEFINITION;
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      partitionKey,
      sortKey,
      gsi1.partitionKey,
      gsi1.sortKey,
      gsi2.partitionKey,
      gsi2.sortKey,
      lsi1.sortKey,
    ].map((name) => ({
      AttributeName: name,
      AttributeType: 'S',
    })),
    KeySchema: [
      { AttributeName: partitionKey, KeyType: 'HASH' },
      { AttributeName: sortKey, KeyType: 'RANGE' },
    ],
    LocalSecondaryIndexes: [
      {
        IndexName: lsi1.indexName,
        KeySchema: [
          { AttributeName: partitionKey, KeyType: 'HASH' },
          { AttributeName: lsi1.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
    ],
    GlobalSecondaryIndexes: [
      {
        IndexName: gsi1.indexName,
        KeySchema: [
          { AttributeName: gsi1.partitionKey, KeyType: 'HASH' },
          { AttributeName: gsi1.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      },
      {
        IndexName: gsi2.indexName,
        KeySchema: [
          { AttributeName: gsi2.partitionKey, KeyType: 'HASH' },
          { AttributeName: gsi2.sortKey, KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: gsi2.projection },
      },
    ],
  };
}
