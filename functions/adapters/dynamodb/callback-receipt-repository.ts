import { createHash } from 'node:crypto';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { CallbackReceipts } from '#domain/tasks/ports';
import { isConditionFailure, type Db } from './dynamo-client';
import { callbackReceiptKey } from './keys';

const hashId = (messageId: string) => createHash('sha256').update(messageId, 'utf8').digest('hex');
const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** One item per received callback message: a conditional put claims it; TTL removes it. */
export class DynamoCallbackReceipts implements CallbackReceipts {
  constructor(private readonly db: Db) {}

  async claim(provider: string, messageId: string, now: Date, keepUntil: Date): Promise<boolean> {
    try {
      await this.db.doc.send(
        new PutCommand({
          TableName: this.db.tableName,
          Item: { ...callbackReceiptKey(provider, hashId(messageId)), type: 'callback_receipt', expires_at: epochSeconds(keepUntil) },
          // TTL deletes lazily: an expired receipt is as good as none.
          ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :now',
          ExpressionAttributeValues: { ':now': epochSeconds(now) },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async release(provider: string, messageId: string): Promise<void> {
    await this.db.doc.send(new DeleteCommand({ TableName: this.db.tableName, Key: callbackReceiptKey(provider, hashId(messageId)) }));
  }
}
