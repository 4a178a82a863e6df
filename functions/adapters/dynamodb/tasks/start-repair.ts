import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { chargeEntry, refundEntry } from '#domain/tasks/charges';
import type { StartRepair } from '#domain/tasks/ports';
import type { Task, TaskError } from '#domain/tasks/task';
import { PENDING_STARTS } from '../account-repository';
import type { Db } from '../dynamo-client';
import { accountKey, taskKey } from '../keys';
import { LEDGER_COUNT, PENDING_CHARGES, slotAfter } from '../ledger-positions';
import { AGAIN, withRetries } from '../retry';
import { refusalOf, writeFailedEnding } from './refund-transaction';
import { discardDraft } from './start';
import { readEndUserNote } from './end-user-history';

/**
 * Settles a draft whose start was cut short (start.ts): without the start's note on the account
 * its charge was never taken, and the draft is discarded; with it, the task takes its reserved
 * position as failed and is refunded (the charge written to the ledger with its refund).
 */
export async function repairStart(db: Db, draft: Task, error: TaskError, now: string): Promise<StartRepair> {
  return withRetries('start repair', () => repairOnce(db, draft, error, now));
}

async function repairOnce(db: Db, draft: Task, error: TaskError, now: string): Promise<StartRepair | typeof AGAIN> {
  const [{ Item }, endUserSeq] = await Promise.all([
    db.doc.send(new GetCommand({ TableName: db.tableName, Key: accountKey(draft.partitionId), ConsistentRead: true })),
    readEndUserNote(db, draft),
  ]);
  const seq = (Item?.[PENDING_STARTS] as Record<string, unknown> | undefined)?.[draft.taskId];
  // No note: the charge was never taken (a start that did take it notes it before anything else).
  if (seq === undefined) {
    const { Item: raw } = await db.doc.send(
      new GetCommand({ TableName: db.tableName, Key: taskKey(draft.partitionId, draft.taskId), ConsistentRead: true }),
    );
    return (await discardDraft(db, draft, Date.parse(now), raw?.idempotency_pk as string | undefined)) ? 'discarded' : 'settled';
  }
  const seen = Number(Item?.[LEDGER_COUNT] ?? 0);
  const notedCharge = (Item?.[PENDING_CHARGES] as Record<string, unknown> | undefined)?.[draft.taskId];
  // The charge's position was taken with the start; a note from before ledger positions has none.
  const ledger =
    notedCharge === undefined
      ? { chargePosition: seen + 1, refundPosition: seen + 2, slot: slotAfter(seen, 2) }
      : { chargePosition: Number(notedCharge), refundPosition: seen + 1, slot: slotAfter(seen) };
  const task = { ...draft, seq: Number(seq) } as Task;
  // The charge first: entry ids sort by time, and the ledger lists the charge before its refund.
  const charge = chargeEntry(task);
  try {
    await writeFailedEnding(db, {
      task,
      error,
      refund: refundEntry(task, now, error),
      refundPosition: ledger.refundPosition,
      now,
      slot: ledger.slot,
      guard: { condition: 'attribute_exists(pk) AND attribute_not_exists(seq)' },
      start: { charge, chargePosition: ledger.chargePosition, ...(endUserSeq !== undefined && { endUserSeq }) },
    });
    return 'refunded';
  } catch (caught) {
    const refused = refusalOf(caught);
    if (refused?.task) return 'settled';
    // The ledger count moved, or the note went: read the account again.
    if (refused?.account || refused?.conflict) return AGAIN;
    if (refused?.ledger) return 'settled';
    throw caught;
  }
}
