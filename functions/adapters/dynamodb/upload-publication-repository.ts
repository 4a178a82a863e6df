import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { PublishedUpload, UploadPublications } from '#domain/uploads/ports';
import { isConditionFailure, type Db } from './dynamo-client';
import { uploadPublicationKey } from './keys';

/** Kept as long as an incoming upload may still be completed (the bucket drops those after a day). */
const RECORD_TTL_SECONDS = 24 * 60 * 60;
const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** One item per direct upload: a conditional put claims it, the answer is added once published. */
export class DynamoUploadPublications implements UploadPublications {
  constructor(private readonly db: Db) {}

  async get(accountId: string, uploadId: string): Promise<{ answer?: PublishedUpload } | undefined> {
    const { Item } = await this.db.doc.send(
      new GetCommand({ TableName: this.db.tableName, Key: uploadPublicationKey(accountId, uploadId), ConsistentRead: true }),
    );
    if (!Item) return undefined;
    return Item.url === undefined
      ? {}
      : { answer: { url: Item.url, contentType: Item.content_type, size: Item.size } };
  }

  async claim(accountId: string, uploadId: string, now: Date, staleAfterSeconds: number): Promise<boolean> {
    try {
      await this.db.doc.send(
        new PutCommand({
          TableName: this.db.tableName,
          Item: {
            ...uploadPublicationKey(accountId, uploadId),
            type: 'upload_publication',
            claimed_at: epochSeconds(now),
            expires_at: epochSeconds(now) + RECORD_TTL_SECONDS,
          },
          ConditionExpression: 'attribute_not_exists(pk) OR (attribute_not_exists(#url) AND claimed_at <= :stale)',
          ExpressionAttributeNames: { '#url': 'url' },
          ExpressionAttributeValues: { ':stale': epochSeconds(now) - staleAfterSeconds },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async recordAnswer(accountId: string, uploadId: string, answer: PublishedUpload, now: Date): Promise<void> {
    await this.db.doc.send(
      new UpdateCommand({
        TableName: this.db.tableName,
        Key: uploadPublicationKey(accountId, uploadId),
        UpdateExpression: 'SET #url = :url, content_type = :type, #size = :size, expires_at = :expires',
        ExpressionAttributeNames: { '#url': 'url', '#size': 'size' },
        ExpressionAttributeValues: {
          ':url': answer.url,
          ':type': answer.contentType,
          ':size': answer.size,
          ':expires': epochSeconds(now) + RECORD_TTL_SECONDS,
        },
      }),
    );
  }

  async release(accountId: string, uploadId: string): Promise<void> {
    await this.db.doc.send(
      new DeleteCommand({ TableName: this.db.tableName, Key: uploadPublicationKey(accountId, uploadId) }),
    );
  }
}
