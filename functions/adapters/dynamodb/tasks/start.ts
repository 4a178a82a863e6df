import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { KeySpend } from '#domain/accounts/spending-key';
import type { CreateTaskResult, IdempotencyClaim, IdempotencyRecord, NewTaskRequest } from '#domain/tasks/ports';
import type { Task, TaskKind } from '#domain/tasks/task';
import type { Telemetry } from '#domain/shared/telemetry';
import { PENDING_STARTS } from '../account-repository';
import { isConditionFailure, type Db } from '../dynamo-client';
import { fromIdempotencyItem, toIdempotencyItem } from '../idempotency-repository';
import { accountKey, IDEMPOTENCY_SK, keySpendKey, taskHistoryKey, taskKey } from '../keys';
import { LEDGER_COUNT, PENDING_CHARGES } from '../ledger-positions';
import { ledgerEntryPut } from '../ledger-repository';
import { toTaskItem } from '../task-item';
import { retryOnConflict } from '../retry';
import { transact, TransactionRefused } from '../transaction';

const COUNT_ATTRIBUTE: Record<TaskKind, string> = { video: 'video_count', image: 'image_count' };
/** A discarded draft (its charge was refused) is deleted by TTL a day later. */
const DISCARDED_DRAFT_TTL_SECONDS = 24 * 60 * 60;

/**
 * Four writes (five through an API key: 1b), none of them a transaction on the account item, so
 * concurrent starts of one account never conflict (docs/data-model.md, "Starting a task"):
 *   1. the draft task (no position yet) is put, in the in-flight index, with the
 *      Idempotency-Key claim if any: a start cut short after this is found and settled by
 *      the sweeper (start-repair.ts); a concurrent request with the same key stops here, with
 *      the record that holds the key (the domain waits for its answer, idempotency in one layer);
 *   1b. through an API key: its month's spend takes the price, within its limit (reserveKeySpend);
 *   2. ONE update of the account takes the price (if the balance allows) and the next
 *      position, and notes the position under the task id (`pending_starts`): the record
 *      that this start was charged until its ledger entry exists;
 *   3. one transaction (task and ledger: not the account) gives the task its position and
 *      writes the charge to the ledger;
 *   4. the note is removed.
 */
export async function startTask(db: Db, telemetry: Telemetry, request: NewTaskRequest): Promise<CreateTaskResult> {
  const { charge, idempotency } = request;
  const draft = { ...request.task, seq: 0 } as Task;
  const price = -charge.amount;
  // The request's own instant (the domain's clock), for the claim's expiry and a discard's TTL.
  const nowMs = Date.parse(draft.createdAt);
  const holder = await putDraft(db, draft, nowMs, idempotency);
  if (holder) return { type: 'idempotency_key_used', record: holder };

  const claimPk = idempotency && (toIdempotencyItem(idempotency).pk as string);
  if (request.keySpend) {
    const reserved = await reserveKeySpend(db, request.keySpend, draft.taskId, price);
    if (reserved.type === 'refused') {
      await discardDraft(db, draft, nowMs, claimPk);
      return { type: 'spend_limit_exceeded', spent: reserved.spent };
    }
  }
  const taken = await takePosition(db, draft, price);
  if (taken.type === 'refused') {
    if (request.keySpend) await releaseKeySpend(db, request.keySpend, price);
    await discardDraft(db, draft, nowMs, claimPk);
    return { type: 'insufficient_credits', available: taken.available };
  }
  const task = { ...draft, seq: taken.seq } as Task;

  await transact(db, [
    [
      'task',
      {
        Update: {
          TableName: db.tableName,
          Key: taskKey(task.partitionId, task.taskId),
          UpdateExpression: 'SET seq = :seq, lsi1sk = :position',
          ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(seq)',
          ExpressionAttributeValues: { ':seq': task.seq, ':position': taskHistoryKey(task.kind, task.seq) },
        },
      },
    ],
    ['charge', { Put: ledgerEntryPut(db, charge, taken.ledgerPosition) }],
  ]);

  await clearPendingStart(db, task).catch((error: unknown) =>
    // Harmless if left: the task has its position, so no repair ever reads this note.
    telemetry.warn('pending start note not cleared', { task_id: task.taskId, account_id: task.partitionId, error: String(error) }),
  );
  return { type: 'created', task };
}

/** Step 1. The record of the request that holds the Idempotency-Key, if another one does. */
async function putDraft(db: Db, draft: Task, nowMs: number, idempotency?: IdempotencyClaim): Promise<IdempotencyRecord | undefined> {
  const put = { TableName: db.tableName, Item: toTaskItem(draft), ConditionExpression: 'attribute_not_exists(pk)' };
  if (!idempotency) {
    await db.doc.send(new PutCommand(put));
    return undefined;
  }
  const claim = toIdempotencyItem(idempotency);
  try {
    await transact(db, [
      // The draft names its claim, so a repair can release it.
      ['draft', { Put: { ...put, Item: { ...put.Item, idempotency_pk: claim.pk } } }],
      [
        'claim',
        {
          Put: {
            TableName: db.tableName,
            Item: claim,
            // An expired (or released) record that TTL has not deleted yet may be taken over
            // (the same rule as DynamoIdempotencyStore.get, judged on the clock of this attempt).
            ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :nowEpoch',
            ExpressionAttributeValues: { ':nowEpoch': Math.floor(nowMs / 1000) },
          },
        },
      ],
    ]);
    return undefined;
  } catch (error) {
    // The claim as it stood (ALL_OLD): a live record, which the domain answers from.
    const holder = error instanceof TransactionRefused && error.failed('claim') ? error.old('claim') : undefined;
    if (holder) return fromIdempotencyItem(holder, idempotency);
    throw error;
  }
}

/**
 * Step 1b, for a start through an API key: its spend this month takes the price, within its
 * limit if it has one. One conditional update of the key's month item, before the account is
 * charged (the API checks the spend limit before the balance); given back if the charge is
 * refused. A start cut short between the two leaves the reservation (the key's room shrinks by
 * one price: the safe side of "never exceed"). The item names the last task it counted, so an
 * SDK retry after a lost answer finds its reservation instead of counting it twice.
 */
async function reserveKeySpend(
  db: Db,
  spend: KeySpend,
  taskId: string,
  price: number,
): Promise<{ type: 'reserved' } | { type: 'refused'; spent: number }> {
  const notSameTask = '(attribute_not_exists(last_task) OR last_task <> :task)';
  try {
    await retryOnConflict('start', () =>
      db.doc.send(
        new UpdateCommand({
          TableName: db.tableName,
          Key: keySpendKey(spend.keyId, spend.month),
          UpdateExpression: 'ADD spent :price SET key_id = :key, last_task = :task',
          ConditionExpression:
            spend.limit === undefined ? notSameTask : `(attribute_not_exists(spent) OR spent <= :most) AND ${notSameTask}`,
          ExpressionAttributeValues: {
            ':price': price,
            ':key': spend.keyId,
            ':task': taskId,
            ...(spend.limit !== undefined && { ':most': spend.limit - price }),
          },
        }),
      ),
    );
    return { type: 'reserved' };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const { Item } = await db.doc.send(
      new GetCommand({ TableName: db.tableName, Key: keySpendKey(spend.keyId, spend.month), ConsistentRead: true }),
    );
    if (Item?.last_task === taskId) return { type: 'reserved' };
    return { type: 'refused', spent: Number(Item?.spent ?? 0) };
  }
}

/** The charge was refused after the spend was reserved: the key gets its room back. */
async function releaseKeySpend(db: Db, spend: KeySpend, price: number): Promise<void> {
  await retryOnConflict('start', () =>
    db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keySpendKey(spend.keyId, spend.month),
        UpdateExpression: 'ADD spent :back',
        ExpressionAttributeValues: { ':back': -price },
      }),
    ),
  );
}

/** Step 2: price and position in one conditional update; nothing changes if the balance is too low. */
async function takePosition(
  db: Db,
  draft: Task,
  price: number,
): Promise<{ type: 'taken'; seq: number; ledgerPosition: number } | { type: 'refused'; available: number }> {
  const count = COUNT_ATTRIBUTE[draft.kind];
  const update = () =>
    db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: accountKey(draft.partitionId),
        // Operands read the item before the update, so the note holds the new position.
        // The charge's ledger position is taken (and noted) here too (ledger-positions.ts).
        UpdateExpression:
          'SET credits = credits - :price, #count = if_not_exists(#count, :zero) + :one, #pending.#task = if_not_exists(#count, :zero) + :one, #ledgerCount = if_not_exists(#ledgerCount, :zero) + :one, #charges.#task = if_not_exists(#ledgerCount, :zero) + :one, updated_at = :now',
        // The note also makes the update idempotent: an SDK retry after a lost answer finds it.
        ConditionExpression: 'attribute_exists(pk) AND credits >= :price AND attribute_not_exists(#pending.#task)',
        ExpressionAttributeNames: {
          '#count': count,
          '#pending': PENDING_STARTS,
          '#task': draft.taskId,
          '#ledgerCount': LEDGER_COUNT,
          '#charges': PENDING_CHARGES,
        },
        ExpressionAttributeValues: { ':price': price, ':zero': 0, ':one': 1, ':now': draft.createdAt },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
  try {
    let result;
    try {
      result = await retryOnConflict('start: price and position', update);
    } catch (error) {
      // An account written before pending_starts existed: give it the (empty) map once.
      if (!(error instanceof Error && error.name === 'ValidationException')) throw error;
      await db.doc.send(
        new UpdateCommand({
          TableName: db.tableName,
          Key: accountKey(draft.partitionId),
          UpdateExpression: 'SET #pending = if_not_exists(#pending, :empty), #charges = if_not_exists(#charges, :empty)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#pending': PENDING_STARTS, '#charges': PENDING_CHARGES },
          ExpressionAttributeValues: { ':empty': {} },
        }),
      );
      result = await retryOnConflict('start: price and position', update);
    }
    return { type: 'taken', seq: Number(result.Attributes?.[count]), ledgerPosition: Number(result.Attributes?.[LEDGER_COUNT]) };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const { Item: account } = await db.doc.send(new GetCommand({ TableName: db.tableName, Key: accountKey(draft.partitionId), ConsistentRead: true }));
    if (!account) throw new Error(`Account ${draft.partitionId} disappeared while creating a task.`, { cause: error });
    const noted = (account[PENDING_STARTS] as Record<string, unknown> | undefined)?.[draft.taskId];
    const ledgerPosition = (account[PENDING_CHARGES] as Record<string, unknown> | undefined)?.[draft.taskId];
    if (noted !== undefined) return { type: 'taken', seq: Number(noted), ledgerPosition: Number(ledgerPosition) };
    return { type: 'refused', available: Number(account.credits) };
  }
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

/** Step 4. */
async function clearPendingStart(db: Db, task: Task): Promise<void> {
  await retryOnConflict('start', () =>
    db.doc.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: accountKey(task.partitionId),
        UpdateExpression: 'REMOVE #pending.#task, #charges.#task',
        ExpressionAttributeNames: { '#pending': PENDING_STARTS, '#charges': PENDING_CHARGES, '#task': task.taskId },
      }),
    ),
  );
}
