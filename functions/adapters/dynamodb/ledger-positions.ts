import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from './dynamo-client';
import { accountKey } from './keys';
import { AGAIN, withRetries } from './retry';

/**
 * Ledger positions. Every ledger entry of a scope has a position 1..n (lsi1 `LEDGER#<n>`) and the
 * scope's account item counts them in `ledger_count`, so GET /credits/transactions reads one
 * exact range per page, as the history lists do (position-page.ts).
 *
 * A start's charge takes its position in the start's single account update (step 2: the
 * update returns it). Other entries (refunds, grants) are written in a transaction with the
 * balance change, and a transaction cannot return a counter it increments; so those read the
 * count first and append on the condition that it has not moved, retrying when another
 * ledger write got there first. Positions therefore have no gaps and no duplicates.
 */
export const LEDGER_COUNT = 'ledger_count';
/**
 * Map on the account item: task id -> ledger position of a start's charge, noted with the
 * start's position (`pending_starts`) until the charge is in the ledger.
 */
export const PENDING_CHARGES = 'pending_charges';

/** Where `count` entries go after the `seen` already there, and the guard that keeps it true. */
export interface LedgerSlot {
  /** The first new entry's position. */
  position: number;
  /** `SET` clause to add to the account update (uses `#ledgerCount`). */
  set: string;
  /** Condition to AND into the account update. */
  condition: string;
  names: Record<string, string>;
  values: Record<string, number>;
}

export function slotAfter(seen: number, count = 1): LedgerSlot {
  return {
    position: seen + 1,
    set: '#ledgerCount = :ledgerNext',
    // An account written before positions existed has no count: it starts from zero.
    condition: seen === 0 ? '(attribute_not_exists(#ledgerCount) OR #ledgerCount = :ledgerSeen)' : '#ledgerCount = :ledgerSeen',
    names: { '#ledgerCount': LEDGER_COUNT },
    values: { ':ledgerSeen': seen, ':ledgerNext': seen + count },
  };
}

/** The scope's ledger count as it stands (strongly consistent); undefined without an account item. */
export async function readLedgerCount(db: Db, accountId: string): Promise<number | undefined> {
  const { Item } = await db.doc.send(
    new GetCommand({
      TableName: db.tableName,
      Key: accountKey(accountId),
      ConsistentRead: true,
      ProjectionExpression: '#ledgerCount, pk',
      ExpressionAttributeNames: { '#ledgerCount': LEDGER_COUNT },
    }),
  );
  return Item ? Number(Item[LEDGER_COUNT] ?? 0) : undefined;
}

/**
 * Runs `attempt` with the current count until it stops answering AGAIN (another ledger write
 * took its position first): concurrent writers of one scope's ledger queue here for a few
 * milliseconds each, under the one retry policy (retry.ts).
 */
export function appendWithRetries<T>(
  db: Db,
  accountId: string,
  attempt: (seen: number | undefined) => Promise<T | typeof AGAIN>,
): Promise<T> {
  return withRetries(`ledger append of ${accountId}`, async () => attempt(await readLedgerCount(db, accountId)));
}
