import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Db } from './dynamo-client';
import { accountKey } from './keys';
import { AGAIN, withRetries } from './retry';
import type { TransactionRefused } from './transaction';

/**
 * Ledger positions. Every ledger entry of a scope has a position 1..n (lsi1 `LEDGER#<n>`) and the
 * scope's account item counts them in `ledger_count`, so GET /credits/transactions reads one
 * exact range per page, as the history lists do (position-page.ts).
 *
 * A start's charge takes its position in the start's single account update (step 2: the
 * update returns it). Other entries (refunds, grants) are written in a transaction with the
 * balance change, and a transaction cannot return a counter it increments; so those read the
 * count first and append on the condition that it has not moved, retrying after the count a
 * refusal hands back when another ledger write got there first. Positions therefore have no
 * gaps and no duplicates.
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
 * An attempt's answer when another writer held one of its items (a TransactionConflict): the
 * same position again after the pause, with no read; the next try's own conditions say whether
 * the count (or anything else) moved meanwhile.
 */
export const SAME_POSITION = Symbol('same position');

/** An attempt's answer when another ledger write took its position: the count that write left. */
export class LedgerMoved {
  constructor(readonly movedTo: number) {}
}

/**
 * Why an append's account part was refused, from the item the refusal hands back (ALL_OLD):
 * the count moved (append after it, without reading it again), or anything else (AGAIN: read it again).
 */
export function ledgerMoved<N extends string>(refused: TransactionRefused<N>, accountPart: N): LedgerMoved | typeof AGAIN {
  const count = refused.old(accountPart)?.[LEDGER_COUNT];
  return typeof count === 'number' ? new LedgerMoved(count) : AGAIN;
}

/**
 * Runs `attempt` with the current count until it stops answering AGAIN or a LedgerMoved
 * (another ledger write took its position first): concurrent writers of one scope's ledger
 * queue here, under the one retry policy (retry.ts, its jittered pause included: it spreads a
 * burst of writers). A moved count comes with the refusal, so the next try needs no read: one
 * round trip a try, which is what bounds a burst of appends to one account (a refund waits
 * for every charge of the burst before it).
 */
export function appendWithRetries<T>(
  db: Db,
  accountId: string,
  attempt: (seen: number | undefined) => Promise<T | LedgerMoved | typeof SAME_POSITION | typeof AGAIN>,
  /** The count if already read (alongside the task, for a cancel): the first try reads nothing. */
  alreadySeen?: number,
): Promise<T> {
  let known: number | undefined = alreadySeen;
  return withRetries(`ledger append of ${accountId}`, async () => {
    const seen = known ?? (await readLedgerCount(db, accountId));
    known = undefined;
    const result = await attempt(seen);
    if (result === AGAIN) return AGAIN;
    if (result === SAME_POSITION) {
      known = seen;
      return AGAIN;
    }
    if (!(result instanceof LedgerMoved)) return result;
    // The same count again means the refusal was about something else: read it next time.
    if (result.movedTo !== seen) known = result.movedTo;
    return AGAIN;
  });
}
