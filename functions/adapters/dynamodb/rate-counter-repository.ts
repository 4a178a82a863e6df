import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateCounter, RateWindow } from '#domain/shared/counter';
import { isConditionFailure, type Db } from './dynamo-client';
import { rateWindowKey } from './keys';

/** Keep a window's counter a few minutes past its end; TTL removes it after that. */
const EXPIRY_GRACE_SECONDS = 300;

/**
 * One conditional UpdateItem per request: the ADD happens only while the count is below the
 * limit, so concurrent requests can never push a window past it (exact under any race).
 */
export class DynamoRateCounter implements RateCounter {
  constructor(private readonly db: Db) {}

  async increment(keyId: string, window: RateWindow, limit: number): Promise<number | undefined> {
    try {
      const { Attributes } = await this.db.doc.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: rateWindowKey(keyId, window.id),
          UpdateExpression: 'ADD request_count :one SET expires_at = if_not_exists(expires_at, :expires)',
          ConditionExpression: 'attribute_not_exists(request_count) OR request_count < :limit',
          ExpressionAttributeValues: {
            ':one': 1,
            ':limit': limit,
            ':expires': window.resetAt + EXPIRY_GRACE_SECONDS,
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.request_count);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async claimAt(keyId: string, window: RateWindow, ticket: number): Promise<boolean> {
    try {
      await this.db.doc.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: rateWindowKey(keyId, window.id),
          UpdateExpression: 'SET request_count = :ticket, expires_at = if_not_exists(expires_at, :expires)',
          ConditionExpression: 'attribute_not_exists(request_count) OR request_count < :ticket',
          ExpressionAttributeValues: { ':ticket': ticket, ':expires': window.resetAt + EXPIRY_GRACE_SECONDS },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
