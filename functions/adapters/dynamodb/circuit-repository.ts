import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { CircuitRecord, CircuitStore } from '#domain/providers/ports';
import { isConditionFailure, type Db } from './dynamo-client';
import { circuitKey } from './keys';

/**
 * Providers' circuit breakers in the table (one item each: `failures`, `open_until`,
 * `probe_until`, times in ms since the epoch). Every change is one UpdateItem whose condition
 * holds the rule, so instances racing to open a circuit or to probe it agree on one winner.
 */
export class DynamoCircuitStore implements CircuitStore {
  constructor(private readonly db: Db) {}

  async read(provider: string): Promise<CircuitRecord> {
    const { Item } = await this.db.doc.send(new GetCommand({ TableName: this.db.tableName, Key: circuitKey(provider), ConsistentRead: true }));
    return Item ? recordOf(Item) : { failures: 0 };
  }

  async addFailure(provider: string): Promise<CircuitRecord> {
    const { Attributes } = await this.db.doc.send(
      new UpdateCommand({
        TableName: this.db.tableName,
        Key: circuitKey(provider),
        UpdateExpression: 'ADD failures :one',
        ExpressionAttributeValues: { ':one': 1 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return recordOf(Attributes ?? {});
  }

  async open(provider: string, seenOpenUntil: number | undefined, until: number): Promise<boolean> {
    const unchanged =
      seenOpenUntil === undefined
        ? { condition: 'attribute_not_exists(open_until)', values: {} }
        : { condition: 'open_until = :seen', values: { ':seen': seenOpenUntil } };
    return this.conditional({
      Key: circuitKey(provider),
      UpdateExpression: 'SET open_until = :until REMOVE probe_until',
      ConditionExpression: unchanged.condition,
      ExpressionAttributeValues: { ':until': until, ...unchanged.values },
    });
  }

  async claimProbe(provider: string, openUntil: number, now: number, probeUntil: number): Promise<boolean> {
    return this.conditional({
      Key: circuitKey(provider),
      UpdateExpression: 'SET probe_until = :probeUntil',
      ConditionExpression: 'open_until = :openUntil AND (attribute_not_exists(probe_until) OR probe_until <= :now)',
      ExpressionAttributeValues: { ':probeUntil': probeUntil, ':openUntil': openUntil, ':now': now },
    });
  }

  async close(provider: string): Promise<void> {
    await this.db.doc.send(new PutCommand({ TableName: this.db.tableName, Item: { ...circuitKey(provider), failures: 0 } }));
  }

  private async conditional(update: Omit<ConstructorParameters<typeof UpdateCommand>[0], 'TableName'>): Promise<boolean> {
    try {
      await this.db.doc.send(new UpdateCommand({ TableName: this.db.tableName, ...update }));
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

function recordOf(item: Record<string, unknown>): CircuitRecord {
  return {
    failures: Number(item.failures ?? 0),
    ...(item.open_until !== undefined && { openUntil: Number(item.open_until) }),
    ...(item.probe_until !== undefined && { probeUntil: Number(item.probe_until) }),
  };
}
