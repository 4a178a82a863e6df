import { ScanCommand, type ScanCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { Account } from '#domain/accounts/account';
import type { AccountDirectory } from '#domain/accounts/ports';
import { fromAccountItem } from './account-repository';
import type { Db } from './dynamo-client';
import { ACCOUNT_SK } from './keys';

/**
 * Every account item, by a Scan of the whole table filtered to them (no index lists accounts:
 * only operators ask, rarely). Its cost is a read of the whole table, tasks and ledgers included.
 */
export class DynamoAccountDirectory implements AccountDirectory {
  constructor(private readonly db: Db) {}

  async listAll(): Promise<Account[]> {
    const accounts: Account[] = [];
    let after: ScanCommandOutput['LastEvaluatedKey'];
    do {
      const page = await this.db.doc.send(
        new ScanCommand({
          TableName: this.db.tableName,
          FilterExpression: 'sk = :account',
          ExpressionAttributeValues: { ':account': ACCOUNT_SK },
          ...(after && { ExclusiveStartKey: after }),
        }),
      );
      for (const item of page.Items ?? []) accounts.push(fromAccountItem(item));
      after = page.LastEvaluatedKey;
    } while (after);
    return accounts;
  }
}
