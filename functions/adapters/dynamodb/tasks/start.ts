import { GetCommand, UpdateCommand, type TransactWriteItem } from '@aws-sdk/lib-dynamodb';
import { AccountBusyError } from '#domain/shared/errors';
import type { StartRefusals, StartResult, StartWrite } from '#domain/tasks/ports';
import type { Task, TaskKind } from '#domain/tasks/task';
import type { MonthlyKeySpend } from '#domain/accounts/spending-key';
import { PENDING_STARTS } from '../account-repository';
import { isConditionFailure, type Db } from '../dynamo-client';
import { fromIdempotencyItem, toIdempotencyItem } from '../idempotency-repository';
import { accountKey, endUserSpendKey, IDEMPOTENCY_SK, keySpendKey, ledgerEntryKey, ledgerPositionKey, taskHistoryKey, taskKey } from '../keys';
import { LEDGER_COUNT, PENDING_CHARGES } from '../ledger-positions';
import { toLedgerItem } from '../ledger-repository';
import { toTaskItem } from '../task-item';
import { AGAIN, RetriesExhaustedError, withRetries } from '../retry';
import { transact, TransactionRefused } from '../transaction';
import { usageParts, type UsagePart } from '../usage/usage-parts';
import { endUserHistoryPart, endUserSettle, readEndUserNote } from './end-user-history';

const COUNT_ATTRIBUTE: Record<TaskKind, string> = { video: 'video_count', image: 'image_count' };
/** A discarded draft (its charge was refused) is deleted by TTL a day later. */
const DISCARDED_DRAFT_TTL_SECONDS = 24 * 60 * 60;

type StartPart = 'claim' | 'keySpend' | 'endUserSpend' | 'account' | 'task' | 'charge' | 'endUserHistory' | UsagePart;
/** An end user's month of spend through a key is kept 15 months after that month starts. */
const END_USER_SPEND_KEPT_MONTHS = 15;

/**
 * A start in ONE transaction (issue 32, docs/data-model.md "Starting a task"), its admission
 * rules as the parts' conditions, so a refused start writes nothing:
 *   claim    the Idempotency-Key's record, unless a live one holds the key;
 *   keySpend the key's month takes the price, within its limit;
 *   endUserSpend  the month of the end user it names, through that key, takes the price, within
 *            the key's limit per end user;
 *   account  the price off the balance (credits >= price, and paid access when asked), the next
 *            history and ledger positions allocated and noted under the task id
 *            (`pending_starts`, `pending_charges`): a transaction cannot return a counter;
 *   task     the task, `claimed`, without its position;
 *   charge   its ledger entry, without its position;
 *   usage:*  the charge in the usage roll-ups (usage-parts.ts), unconditional.
 *   endUserHistory  the next position in the history of the end user it names, noted (end-user-history.ts).
 * The ledger sums to the balance at every instant. `settlePositions` then moves the noted
 * positions onto the task and the charge (the sweeper does it for a start cut short).
 * Refusals are read by part name with each failed part's item as it stood (ALL_OLD). Another
 * transaction on the account (TransactionConflict) is retried (retry.ts); past the bound, 429.
 */
export async function startTask(db: Db, write: StartWrite, notesOpened = false): Promise<StartResult> {
  const parts = startParts(db, write);
  try {
    return await withRetries('start', async () => {
      try {
        await transact(db, parts);
        return { type: 'started', task: { ...write.task, seq: 0, usageCounted: true } as Task } as const;
      } catch (error) {
        if (!(error instanceof TransactionRefused)) throw error;
        const refused = error as TransactionRefused<StartPart>;
        if (refused.anyFailed) return { type: 'refused', refusals: refusalsOf(refused, write) } as const;
        if (refused.conflict) return AGAIN;
        throw error;
      }
    }).catch(async (error: unknown) => {
      // An account written before the notes existed: give it the (empty) maps once, then again.
      if (notesOpened || !(error instanceof Error && error.name === 'ValidationException')) throw error;
      await openNotes(db, write.task.partitionId);
      return startTask(db, write, true);
    });
  } catch (error) {
    if (error instanceof RetriesExhaustedError) throw new AccountBusyError();
    throw error;
  }
}

function startParts(db: Db, write: StartWrite): [StartPart, TransactWriteItem][] {
  const { task, charge, keySpend, idempotency } = write;
  const price = -charge.amount;
  const nowEpoch = Math.floor(Date.parse(task.createdAt) / 1000);
  const parts: [StartPart, TransactWriteItem][] = [];
  if (idempotency) {
    parts.push([
      'claim',
      {
        Put: {
          TableName: db.tableName,
          Item: toIdempotencyItem(idempotency),
          // An expired (or released) record that TTL has not deleted yet may be taken over
          // (the same rule as DynamoIdempotencyStore.get), judged on the request's own instant.
          ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :nowEpoch',
          ExpressionAttributeValues: { ':nowEpoch': nowEpoch },
        },
      },
    ]);
  }
  if (keySpend) {
    const most = keySpend.limit === undefined ? undefined : keySpend.limit - price;
    parts.push([
      'keySpend',
      {
        Update: {
          TableName: db.tableName,
          Key: keySpendKey(keySpend.keyId, keySpend.month),
          UpdateExpression: 'ADD spent :price SET key_id = :key',
          // A price above the limit itself fails even on a month with no spend yet.
          ...(most !== undefined && {
            ConditionExpression: most >= 0 ? '(attribute_not_exists(spent) OR spent <= :most)' : 'spent <= :most',
          }),
          ExpressionAttributeValues: { ':price': price, ':key': keySpend.keyId, ...(most !== undefined && { ':most': most }) },
        },
      },
    ]);
  }
  if (keySpend?.endUser !== undefined) parts.push(['endUserSpend', endUserSpendPart(db, keySpend, keySpend.endUser, price)]);
  parts.push([
    'account',
    {
      Update: {
        TableName: db.tableName,
        Key: accountKey(task.partitionId),
        // Operands read the item before the update, so the notes hold the new positions.
        UpdateExpression:
          'SET credits = credits - :price, #count = if_not_exists(#count, :zero) + :one, #pending.#task = if_not_exists(#count, :zero) + :one, #ledgerCount = if_not_exists(#ledgerCount, :zero) + :one, #charges.#task = if_not_exists(#ledgerCount, :zero) + :one, updated_at = :now',
        ConditionExpression: `attribute_exists(pk) AND credits >= :price${write.paidAccess ? ' AND paid_access = :true AND subscription_status = :active' : ''}`,
        ExpressionAttributeNames: {
          '#count': COUNT_ATTRIBUTE[task.kind],
          '#pending': PENDING_STARTS,
          '#task': task.taskId,
          '#ledgerCount': LEDGER_COUNT,
          '#charges': PENDING_CHARGES,
        },
        ExpressionAttributeValues: {
          ':price': price,
          ':zero': 0,
          ':one': 1,
          ':now': task.createdAt,
          ...(write.paidAccess && { ':true': true, ':active': 'active' }),
        },
      },
    },
  ]);
  parts.push([
    'task',
    {
      // Names its charge, so the settle (and the sweeper's) finds the entry to position.
      Put: { TableName: db.tableName, Item: { ...toTaskItem({ ...task, seq: 0, usageCounted: true } as Task), charge_entry_id: charge.entryId }, ConditionExpression: 'attribute_not_exists(pk)' },
    },
  ]);
  const { seq: _seq, lsi1sk: _lsi1sk, ...unpositioned } = toLedgerItem(charge, 0);
  parts.push(['charge', { Put: { TableName: db.tableName, Item: unpositioned, ConditionExpression: 'attribute_not_exists(pk)' } }]);
  parts.push(...usageParts(db, task, 'charge'));
  const endUserHistory = endUserHistoryPart(db, task);
  if (endUserHistory) parts.push(endUserHistory);
  return parts;
}

/** One end user's month through the key takes the price: exact for the reason the key's month is (one condition, in T). */
function endUserSpendPart(db: Db, keySpend: MonthlyKeySpend, endUser: string, price: number): TransactWriteItem {
  const most = keySpend.endUserLimit === undefined ? undefined : keySpend.endUserLimit - price;
  const [year, month] = keySpend.month.split('-').map(Number) as [number, number];
  const expiresAt = Math.floor(Date.UTC(year, month - 1 + END_USER_SPEND_KEPT_MONTHS, 1) / 1000);
  return {
    Update: {
      TableName: db.tableName,
      Key: endUserSpendKey(keySpend.keyId, keySpend.month, endUser),
      UpdateExpression: 'ADD spent :price SET key_id = :key, end_user = :endUser, expires_at = if_not_exists(expires_at, :expires)',
      // As the key's part: a price above the limit itself fails even on a month with no spend yet.
      ...(most !== undefined && {
        ConditionExpression: most >= 0 ? '(attribute_not_exists(spent) OR spent <= :most)' : 'spent <= :most',
      }),
      ExpressionAttributeValues: {
        ':price': price,
        ':key': keySpend.keyId,
        ':endUser': endUser,
        ':expires': expiresAt,
        ...(most !== undefined && { ':most': most }),
      },
    },
  };
}

/** Every rule that refused the start, from the failed parts and their items as they stood. */
function refusalsOf(refused: TransactionRefused<StartPart>, write: StartWrite): StartRefusals {
  const price = -write.charge.amount;
  const refusals: StartRefusals = {};
  const holder = refused.old('claim');
  if (refused.failed('claim') && holder && write.idempotency) refusals.claim = fromIdempotencyItem(holder, write.idempotency);
  if (refused.failed('keySpend')) refusals.spend = { spent: Number(refused.old('keySpend')?.spent ?? 0) };
  if (refused.failed('endUserSpend')) refusals.endUserSpend = { spent: Number(refused.old('endUserSpend')?.spent ?? 0) };
  if (refused.failed('account')) {
    const account = refused.old('account');
    if (!account) refusals.noAccount = true;
    else {
      if (write.paidAccess && !(account.paid_access === true && account.subscription_status === 'active')) refusals.paidAccess = true;
      if (Number(account.credits) < price) refusals.credits = { available: Number(account.credits) };
    }
  }
  if (refused.failed('task') || refused.failed('charge')) throw new Error(`Start of ${write.task.taskId}: its task or charge exists already.`, { cause: refused });
  if (Object.keys(refusals).length === 0) throw new Error(`Start of ${write.task.taskId} refused for no known rule.`, { cause: refused });
  return refusals;
}

/** The maps the start's notes go in, on an account item written before they existed. */
async function openNotes(db: Db, accountId: string): Promise<void> {
  try {
    await db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: accountKey(accountId),
        UpdateExpression: 'SET #pending = if_not_exists(#pending, :empty), #charges = if_not_exists(#charges, :empty)',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(#pending) OR attribute_not_exists(#charges))',
        ExpressionAttributeNames: { '#pending': PENDING_STARTS, '#charges': PENDING_CHARGES },
        ExpressionAttributeValues: { ':empty': {} },
      }),
    );
  } catch (error) {
    // Already there (a concurrent start opened them), or no account: the next try tells.
    if (!isConditionFailure(error)) throw error;
  }
}

/**
 * The follow-up of a start (design 5.3): the history position the start allocated goes on the
 * task, the ledger position on its charge, and the notes go, in one transaction conditioned on
 * the note, so a start is settled once whoever races (the request, the sweeper, a refund).
 * Idempotent: a task already settled is returned as stored.
 */
export async function settlePositions(db: Db, task: Task): Promise<Task> {
  if (task.seq > 0) return task;
  return withRetries('settle positions', async () => {
    const [{ Item: account }, { Item: stored }, endUserSeq] = await Promise.all([
      db.doc.send(
        new GetCommand({
          TableName: db.tableName,
          Key: accountKey(task.partitionId),
          ConsistentRead: true,
          ProjectionExpression: '#pending.#task, #charges.#task',
          ExpressionAttributeNames: { '#pending': PENDING_STARTS, '#charges': PENDING_CHARGES, '#task': task.taskId },
        }),
      ),
      db.doc.send(
        new GetCommand({
          TableName: db.tableName,
          Key: taskKey(task.partitionId, task.taskId),
          ConsistentRead: true,
          ProjectionExpression: 'seq, charge_entry_id',
        }),
      ),
      // Beside the others: the end user's position costs no round of its own.
      readEndUserNote(db, task),
    ]);
    if (stored?.seq !== undefined) return { ...task, seq: Number(stored.seq) };
    const seq = (account?.[PENDING_STARTS] as Record<string, unknown> | undefined)?.[task.taskId];
    const ledgerPosition = (account?.[PENDING_CHARGES] as Record<string, unknown> | undefined)?.[task.taskId];
    const chargeId = stored?.charge_entry_id as string | undefined;
    if (seq === undefined || ledgerPosition === undefined || chargeId === undefined) {
      // Another settle may have committed between the two reads (its note gone, its position not
      // yet seen): the task, read again, says whether it is settled.
      const { Item: again } = await db.doc.send(
        new GetCommand({ TableName: db.tableName, Key: taskKey(task.partitionId, task.taskId), ConsistentRead: true, ProjectionExpression: 'seq' }),
      );
      if (again?.seq !== undefined) return { ...task, seq: Number(again.seq) };
      throw new Error(`Task ${task.taskId} has no positions to settle.`);
    }
    const endUser = endUserSeq === undefined ? undefined : endUserSettle(db, task, endUserSeq);
    try {
      await transact(db, [
        [
          'task',
          {
            Update: {
              TableName: db.tableName,
              Key: taskKey(task.partitionId, task.taskId),
              UpdateExpression: ['SET seq = :seq, lsi1sk = :position', ...(endUser?.set ?? [])].join(', '),
              ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(seq)',
              ExpressionAttributeValues: { ':seq': Number(seq), ':position': taskHistoryKey(task.kind, Number(seq)), ...endUser?.values },
            },
          },
        ],
        [
          'charge',
          {
            Update: {
              TableName: db.tableName,
              Key: ledgerEntryKey(task.partitionId, chargeId),
              UpdateExpression: 'SET seq = :seq, lsi1sk = :position',
              ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(lsi1sk)',
              ExpressionAttributeValues: { ':seq': Number(ledgerPosition), ':position': ledgerPositionKey(Number(ledgerPosition)) },
            },
          },
        ],
        [
          'account',
          {
            Update: {
              TableName: db.tableName,
              Key: accountKey(task.partitionId),
              UpdateExpression: 'REMOVE #pending.#task, #charges.#task',
              ConditionExpression: '#pending.#task = :seq',
              ExpressionAttributeNames: { '#pending': PENDING_STARTS, '#charges': PENDING_CHARGES, '#task': task.taskId },
              ExpressionAttributeValues: { ':seq': Number(seq) },
            },
          },
        ],
        endUser?.part,
      ]);
      return { ...task, seq: Number(seq) };
    } catch (error) {
      if (!(error instanceof TransactionRefused)) throw error;
      // Settled elsewhere meanwhile (its condition failed), or another writer held an item: read again.
      return AGAIN;
    }
  });
}

/** A draft whose charge was refused (or never taken) leaves the work list and expires; its key claim is released. */
export async function discardDraft(db: Db, draft: Task, nowMs: number, claimPk?: string): Promise<boolean> {
  const discard = {
    TableName: db.tableName,
    Key: taskKey(draft.partitionId, draft.taskId),
    UpdateExpression: 'SET expires_at = :expires REMOVE gsi2pk, gsi2sk',
    ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(seq)',
    ExpressionAttributeValues: { ':expires': Math.floor(nowMs / 1000) + DISCARDED_DRAFT_TTL_SECONDS },
  };
  try {
    if (!claimPk) {
      await db.doc.send(new UpdateCommand(discard));
      return true;
    }
    await transact(db, [
      ['draft', { Update: discard }],
      [
        'claim',
        {
          // Expired now: the next request with this key starts afresh (nothing was charged).
          Update: {
            TableName: db.tableName,
            Key: { pk: claimPk, sk: IDEMPOTENCY_SK },
            UpdateExpression: 'SET expires_at = :zero',
            ConditionExpression: 'task_id = :task',
            ExpressionAttributeValues: { ':zero': 0, ':task': draft.taskId },
          },
        },
      ],
    ]);
    return true;
  } catch (error) {
    if (isConditionFailure(error) || (error instanceof TransactionRefused && error.failed('draft'))) return false;
    if (error instanceof TransactionRefused && error.failed('claim')) {
      // The claim was already taken over (it can only be by a later request): just discard.
      return discardDraft(db, draft, nowMs);
    }
    throw error;
  }
}

