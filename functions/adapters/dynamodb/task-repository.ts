import { GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { newLedgerEntryId } from '../../domain/ids';
import { refundReason, type LedgerEntry } from '../../domain/ledger';
import { AccountBusyError } from '../../domain/errors';
import type { CreateTaskResult, FailOptions, IdempotencyClaim, NewTaskRequest, StartRepair, TaskRef, TaskStore } from '../../domain/ports';
import type { ProviderJob, Task, TaskError, TaskKind } from '../../domain/task';
import type { Telemetry } from '../../domain/telemetry';
import { balanceCredit, DynamoAccountStore, PENDING_STARTS } from './account-repository';
import { cancellationReasons, isConditionFailure, type Db } from './dynamo-client';
import { DynamoIdempotencyStore, toIdempotencyItem } from './idempotency-repository';
import {
  accountKey,
  endedEntryValues,
  endedPartition,
  IDEMPOTENCY_SK,
  IN_FLIGHT_SHARDS,
  inFlightPartition,
  taskHistoryKey,
  taskKey,
  taskRefOf,
} from './keys';
import { appendWithRetries, LEDGER_COUNT, PENDING_CHARGES, pauseBeforeRetry, POSITION_TAKEN, slotAfter, type LedgerSlot } from './ledger-positions';
import { ledgerEntryPut } from './ledger-repository';
import { positionPage } from './position-page';
import { fromTaskItem, toTaskItem } from './task-item';
import { TABLE_DEFINITION } from './table-definition';

const COUNT_ATTRIBUTE: Record<TaskKind, string> = { video: 'video_count', image: 'image_count' };
/** A discarded draft (its charge was refused) is deleted by TTL a day later. */
const DISCARDED_DRAFT_TTL_SECONDS = 24 * 60 * 60;
/** How long a request waits for an earlier one holding its Idempotency-Key to get its position. */
const EARLIER_REQUEST_WAIT_MS = 10_000;
/** Keys per in-flight page (keys-only items: about 150 bytes each). */
const IN_FLIGHT_PAGE = 500;

export class DynamoTaskStore implements TaskStore {
  private readonly accounts: DynamoAccountStore;
  private readonly idempotency: DynamoIdempotencyStore;

  constructor(private readonly db: Db, private readonly telemetry: Telemetry) {
    this.accounts = new DynamoAccountStore(db);
    this.idempotency = new DynamoIdempotencyStore(db);
  }

  /**
   * Four writes, none of them a transaction on the account item, so concurrent starts of one
   * account never conflict (docs/data-model.md, "Starting a task"):
   *   1. the draft task (no position yet) is put, in the in-flight index, with the
   *      Idempotency-Key claim if any: a start cut short after this is found and settled by
   *      the sweeper (`repairStart`); a concurrent request with the same key stops here;
   *   2. ONE update of the account takes the price (if the balance allows) and the next
   *      position, and notes the position under the task id (`pending_starts`): the record
   *      that this start was charged until its ledger entry exists;
   *   3. one transaction (task and ledger: not the account) gives the task its position and
   *      writes the charge to the ledger;
   *   4. the note is removed.
   */
  async create(request: NewTaskRequest): Promise<CreateTaskResult> {
    const { charge, idempotency } = request;
    const draft = { ...request.task, seq: 0 } as Task;
    const price = -charge.amount;
    const claimDeadline = Date.now() + EARLIER_REQUEST_WAIT_MS;
    while (!(await this.putDraft(draft, idempotency))) {
      const earlier = await this.earlierRequest(idempotency!, claimDeadline);
      if (earlier) return earlier;
      // The earlier request released the key (its charge was refused): claim it ourselves.
    }

    const taken = await this.takePosition(draft, price);
    if (taken.type === 'refused') {
      await this.discardDraft(draft, idempotency && (toIdempotencyItem(idempotency).pk as string));
      return { type: 'insufficient_credits', available: taken.available };
    }
    const task = { ...draft, seq: taken.seq } as Task;

    await this.db.doc.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: this.db.tableName,
              Key: taskKey(task.accountId, task.taskId),
              UpdateExpression: 'SET seq = :seq, lsi1sk = :position',
              ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(seq)',
              ExpressionAttributeValues: { ':seq': task.seq, ':position': taskHistoryKey(task.kind, task.seq) },
            },
          },
          { Put: ledgerEntryPut(this.db, charge, taken.ledgerPosition) },
        ],
      }),
    );

    await this.clearPendingStart(task).catch((error: unknown) =>
      // Harmless if left: the task has its position, so no repair ever reads this note.
      this.telemetry.warn('pending start note not cleared', { task_id: task.taskId, account_id: task.accountId, error: String(error) }),
    );
    return { type: 'created', task };
  }

  /** Step 1. False when another request holds the Idempotency-Key. */
  private async putDraft(draft: Task, idempotency?: IdempotencyClaim): Promise<boolean> {
    const put = { TableName: this.db.tableName, Item: toTaskItem(draft), ConditionExpression: 'attribute_not_exists(pk)' };
    if (!idempotency) {
      await this.db.doc.send(new PutCommand(put));
      return true;
    }
    const claim = toIdempotencyItem(idempotency);
    try {
      await this.db.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            // The draft names its claim, so a repair can release it.
            { Put: { ...put, Item: { ...put.Item, idempotency_pk: claim.pk } } },
            {
              Put: {
                TableName: this.db.tableName,
                Item: claim,
                // An expired (or released) record that TTL has not deleted yet may be taken over
                // (the same rule as DynamoIdempotencyStore.get, judged on the clock of this attempt).
                ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :nowEpoch',
                ExpressionAttributeValues: { ':nowEpoch': Math.floor(Date.now() / 1000) },
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (cancellationReasons(error)[1] === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  /**
   * The answer of the request that holds our Idempotency-Key, once its task has its position
   * (milliseconds). Undefined if it released the key; AccountBusyError if it is not done in time.
   */
  private async earlierRequest(claim: IdempotencyClaim, deadline: number): Promise<CreateTaskResult | undefined> {
    while (Date.now() < deadline) {
      const record = await this.idempotency.get(claim.accountId, claim.key, new Date());
      if (!record) return undefined;
      const task = record.outcome ? undefined : await this.get(record.accountId, record.taskId);
      if (record.outcome || (task && task.seq > 0)) return { type: 'idempotency_key_used', record };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new AccountBusyError('An earlier request with this Idempotency-Key is still being processed. Retry in a second.');
  }

  /** Step 2: price and position in one conditional update; nothing changes if the balance is too low. */
  private async takePosition(
    draft: Task,
    price: number,
  ): Promise<{ type: 'taken'; seq: number; ledgerPosition: number } | { type: 'refused'; available: number }> {
    const count = COUNT_ATTRIBUTE[draft.kind];
    const update = () =>
      this.db.doc.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: accountKey(draft.accountId),
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
        result = await withConflictRetries(update);
      } catch (error) {
        // An account written before pending_starts existed: give it the (empty) map once.
        if (!(error instanceof Error && error.name === 'ValidationException')) throw error;
        await this.db.doc.send(
          new UpdateCommand({
            TableName: this.db.tableName,
            Key: accountKey(draft.accountId),
            UpdateExpression: 'SET #pending = if_not_exists(#pending, :empty), #charges = if_not_exists(#charges, :empty)',
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#pending': PENDING_STARTS, '#charges': PENDING_CHARGES },
            ExpressionAttributeValues: { ':empty': {} },
          }),
        );
        result = await withConflictRetries(update);
      }
      return { type: 'taken', seq: Number(result.Attributes?.[count]), ledgerPosition: Number(result.Attributes?.[LEDGER_COUNT]) };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const { Item: account } = await this.db.doc.send(
        new GetCommand({ TableName: this.db.tableName, Key: accountKey(draft.accountId), ConsistentRead: true }),
      );
      if (!account) throw new Error(`Account ${draft.accountId} disappeared while creating a task.`, { cause: error });
      const noted = (account[PENDING_STARTS] as Record<string, unknown> | undefined)?.[draft.taskId];
      const ledgerPosition = (account[PENDING_CHARGES] as Record<string, unknown> | undefined)?.[draft.taskId];
      if (noted !== undefined) return { type: 'taken', seq: Number(noted), ledgerPosition: Number(ledgerPosition) };
      return { type: 'refused', available: Number(account.credits) };
    }
  }

  /** A draft whose charge was refused leaves the work list and expires; its key claim is released. */
  private async discardDraft(draft: Task, claimPk?: string): Promise<boolean> {
    const discard = {
      TableName: this.db.tableName,
      Key: taskKey(draft.accountId, draft.taskId),
      UpdateExpression: 'SET expires_at = :expires REMOVE gsi2pk, gsi2sk',
      ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(seq)',
      ExpressionAttributeValues: { ':expires': Math.floor(Date.now() / 1000) + DISCARDED_DRAFT_TTL_SECONDS },
    };
    try {
      if (!claimPk) {
        await this.db.doc.send(new UpdateCommand(discard));
        return true;
      }
      await this.db.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            { Update: discard },
            {
              // Expired now: the next request with this key starts afresh (nothing was charged).
              Update: {
                TableName: this.db.tableName,
                Key: { pk: claimPk, sk: IDEMPOTENCY_SK },
                UpdateExpression: 'SET expires_at = :zero',
                ConditionExpression: 'task_id = :task',
                ExpressionAttributeValues: { ':zero': 0, ':task': draft.taskId },
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error) || cancellationReasons(error)[0] === 'ConditionalCheckFailed') return false;
      if (cancellationReasons(error)[1] === 'ConditionalCheckFailed') {
        // The claim was already taken over (it can only be by a later request): just discard.
        return this.discardDraft(draft);
      }
      throw error;
    }
  }

  private async clearPendingStart(task: Task): Promise<void> {
    await withConflictRetries(() =>
      this.db.doc.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: accountKey(task.accountId),
          UpdateExpression: 'REMOVE #pending.#task, #charges.#task',
          ExpressionAttributeNames: { '#pending': PENDING_STARTS, '#charges': PENDING_CHARGES, '#task': task.taskId },
        }),
      ),
    );
  }

  /**
   * A charged start whose task never got its position: in one transaction, the task takes it
   * as failed, the charge and its refund go to the ledger, the price goes back and the note is
   * removed. Conditioned on the note, so it happens at most once however many callers race.
   */
  private async settleAsFailed(
    task: Task,
    charge: LedgerEntry,
    error: TaskError,
    now: string,
    ledger: { chargePosition: number; refundPosition: number; slot: LedgerSlot },
  ): Promise<boolean | typeof POSITION_TAKEN> {
    const refund: LedgerEntry = {
      entryId: newLedgerEntryId(),
      accountId: task.accountId,
      kind: 'refund',
      amount: -charge.amount,
      reason: refundReason(task.kind, 'failed'),
      taskId: task.taskId,
      createdAt: now,
    };
    try {
      await this.db.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.db.tableName,
                Key: taskKey(task.accountId, task.taskId),
                UpdateExpression:
                  'SET seq = :seq, lsi1sk = :position, #status = :failed, #error = :error, completed_at = :now, updated_at = :now, gsi2pk = :endedPk, gsi2sk = :endedSk',
                ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(seq)',
                ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
                ExpressionAttributeValues: {
                  ':seq': task.seq,
                  ':position': taskHistoryKey(task.kind, task.seq),
                  ':failed': 'failed',
                  ':error': { code: error.code, message: error.message },
                  ':now': now,
                  ...endedEntryValues(now, task.taskId),
                },
              },
            },
            { Put: ledgerEntryPut(this.db, charge, ledger.chargePosition) },
            { Put: ledgerEntryPut(this.db, refund, ledger.refundPosition) },
            {
              Update: {
                TableName: this.db.tableName,
                Key: accountKey(task.accountId),
                UpdateExpression: `SET credits = credits + :price, updated_at = :now, ${ledger.slot.set} REMOVE #pending.#task, #charges.#task`,
                ConditionExpression: `#pending.#task = :seq AND ${ledger.slot.condition}`,
                ExpressionAttributeNames: { '#pending': PENDING_STARTS, '#charges': PENDING_CHARGES, '#task': task.taskId, ...ledger.slot.names },
                ExpressionAttributeValues: { ':price': -charge.amount, ':seq': task.seq, ':now': now, ...ledger.slot.values },
              },
            },
          ],
        }),
      );
      return true;
    } catch (caught) {
      const reasons = cancellationReasons(caught);
      if (reasons[0] === 'ConditionalCheckFailed') return false;
      // The ledger count moved, or the note went: the caller reads the account again.
      if (reasons[3] === 'ConditionalCheckFailed' || reasons.includes('TransactionConflict')) return POSITION_TAKEN;
      if (reasons.includes('ConditionalCheckFailed')) return false;
      throw caught;
    }
  }

  async repairStart(draft: Task, error: TaskError, now: string): Promise<StartRepair> {
    for (let round = 0; ; round += 1) {
      const repaired = await this.repairOnce(draft, error, now);
      if (repaired !== POSITION_TAKEN) return repaired;
      await pauseBeforeRetry(round, draft.accountId);
    }
  }

  private async repairOnce(draft: Task, error: TaskError, now: string): Promise<StartRepair | typeof POSITION_TAKEN> {
    const { Item } = await this.db.doc.send(
      new GetCommand({ TableName: this.db.tableName, Key: accountKey(draft.accountId), ConsistentRead: true }),
    );
    const seq = (Item?.[PENDING_STARTS] as Record<string, unknown> | undefined)?.[draft.taskId];
    // No note: the charge was never taken (a start that did take it notes it before anything else).
    if (seq === undefined) {
      const { Item: raw } = await this.db.doc.send(
        new GetCommand({ TableName: this.db.tableName, Key: taskKey(draft.accountId, draft.taskId), ConsistentRead: true }),
      );
      return (await this.discardDraft(draft, raw?.idempotency_pk as string | undefined)) ? 'discarded' : 'settled';
    }
    const seen = Number(Item?.[LEDGER_COUNT] ?? 0);
    const notedCharge = (Item?.[PENDING_CHARGES] as Record<string, unknown> | undefined)?.[draft.taskId];
    // The charge's position was taken with the start; a note from before ledger positions has none.
    const ledger =
      notedCharge === undefined
        ? { chargePosition: seen + 1, refundPosition: seen + 2, slot: slotAfter(seen, 2) }
        : { chargePosition: Number(notedCharge), refundPosition: seen + 1, slot: slotAfter(seen) };
    const charge: LedgerEntry = {
      entryId: newLedgerEntryId(),
      accountId: draft.accountId,
      kind: 'charge',
      amount: -draft.creditsUsed,
      reason: `${draft.kind} generation (${draft.params.model})`,
      taskId: draft.taskId,
      createdAt: draft.createdAt,
    };
    const settled = await this.settleAsFailed({ ...draft, seq: Number(seq) } as Task, charge, error, now, ledger);
    return settled === POSITION_TAKEN ? settled : settled ? 'refunded' : 'settled';
  }

  async get(accountId: string, taskId: string): Promise<Task | undefined> {
    const { Item } = await this.db.doc.send(
      new GetCommand({ TableName: this.db.tableName, Key: taskKey(accountId, taskId), ConsistentRead: true }),
    );
    // A discarded draft (its charge was refused) never existed as far as anyone else can tell.
    if (!Item || (Item.seq === undefined && Item.expires_at !== undefined)) return undefined;
    return fromTaskItem(Item);
  }

  async recordSubmission(task: Task, provider: ProviderJob, now: string): Promise<boolean> {
    return this.conditionalUpdate(task, {
      UpdateExpression:
        'SET provider_name = :name, provider_job_id = :job, provider_callbacks = :callbacks, last_checked_at = :now, updated_at = :now REMOVE queued_at, unsent',
      // A second record of the same job (a callback racing the create's answer) is harmless.
      ConditionExpression: '#status = :processing AND (attribute_not_exists(provider_job_id) OR provider_job_id = :job)',
      ExpressionAttributeValues: { ':name': provider.name, ':job': provider.jobId, ':callbacks': provider.callbacks === true, ':now': now },
    });
  }

  async markQueued(task: Task, now: string, attempts: number): Promise<boolean> {
    // Still as the caller saw it: unsent, or sent by the caller itself (its create was refused).
    const unchanged = task.unsent
      ? { condition: 'attribute_exists(unsent)', values: {} }
      : task.sentAt
        ? { condition: 'attribute_not_exists(unsent) AND sent_at = :sentAt', values: { ':sentAt': task.sentAt } }
        : { condition: 'attribute_not_exists(unsent) AND attribute_not_exists(sent_at)', values: {} };
    return this.conditionalUpdate(task, {
      UpdateExpression: 'SET queued_at = :now, submit_attempts = :attempts, unsent = :true, updated_at = :now',
      ConditionExpression: `#status = :processing AND attribute_not_exists(provider_job_id) AND attribute_not_exists(queued_at) AND ${unchanged.condition}`,
      ExpressionAttributeValues: { ':now': now, ':attempts': attempts, ':true': true, ...unchanged.values },
    });
  }

  async claimQueued(task: Task, now: string): Promise<boolean> {
    return this.conditionalUpdate(task, {
      // A task queued before the unsent mark existed gets it here: nothing of it was sent.
      UpdateExpression: 'SET unsent = :true, updated_at = :now REMOVE queued_at',
      ConditionExpression: '#status = :processing AND attribute_not_exists(provider_job_id) AND attribute_exists(queued_at)',
      ExpressionAttributeValues: { ':now': now, ':true': true },
    });
  }

  async markSent(task: Task, now: string): Promise<boolean> {
    return this.conditionalUpdate(task, {
      UpdateExpression: 'SET sent_at = :now, updated_at = :now REMOVE unsent',
      ConditionExpression:
        '#status = :processing AND attribute_exists(unsent) AND attribute_not_exists(queued_at) AND attribute_not_exists(provider_job_id)',
      ExpressionAttributeValues: { ':now': now },
    });
  }

  async claimCheck(task: Task, now: Date, minIntervalMs: number): Promise<boolean> {
    const cutoff = new Date(now.getTime() - minIntervalMs).toISOString();
    return this.conditionalUpdate(task, {
      UpdateExpression: 'SET last_checked_at = :now',
      ConditionExpression: '#status = :processing AND (attribute_not_exists(last_checked_at) OR last_checked_at <= :cutoff)',
      ExpressionAttributeValues: { ':now': now.toISOString(), ':cutoff': cutoff },
    });
  }

  async recordOutputs(task: Task, outputUrls: string[], now: string): Promise<boolean> {
    return this.conditionalUpdate(task, {
      UpdateExpression: 'SET pending_outputs = :urls, updated_at = :now',
      ConditionExpression: '#status = :processing AND attribute_not_exists(pending_outputs)',
      ExpressionAttributeValues: { ':urls': outputUrls, ':now': now },
    });
  }

  async recordCopyFailure(task: Task, now: string): Promise<number | undefined> {
    try {
      const { Attributes } = await this.db.doc.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: taskKey(task.accountId, task.taskId),
          UpdateExpression: 'ADD copy_attempts :one SET updated_at = :now',
          // A final task never changes again, not even its copy counter.
          ConditionExpression: '#status = :processing',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':one': 1, ':now': now, ':processing': 'processing' },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.copy_attempts ?? 0);
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  async complete(task: Task, outputUrls: string[], now: string): Promise<boolean> {
    return this.conditionalUpdate(task, {
      UpdateExpression:
        'SET #status = :completed, output_urls = :urls, completed_at = :now, updated_at = :now, gsi2pk = :endedPk, gsi2sk = :endedSk REMOVE pending_outputs',
      ConditionExpression: '#status = :processing',
      ExpressionAttributeValues: { ':completed': 'completed', ':urls': outputUrls, ':now': now, ...endedEntryValues(now, task.taskId) },
    });
  }

  async failAndRefund(
    task: Task,
    error: TaskError,
    refund: LedgerEntry,
    now: string,
    options: FailOptions = {},
  ): Promise<boolean> {
    // The refund's ledger position is appended to on the condition that the count has not moved.
    return appendWithRetries(this.db, task.accountId, (seen) => this.failAndRefundAt(task, error, refund, now, options, slotAfter(seen ?? 0)));
  }

  private async failAndRefundAt(
    task: Task,
    error: TaskError,
    refund: LedgerEntry,
    now: string,
    options: FailOptions,
    slot: LedgerSlot,
  ): Promise<boolean | typeof POSITION_TAKEN> {
    try {
      await this.db.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.db.tableName,
                Key: taskKey(task.accountId, task.taskId),
                // The in-flight entry becomes an outbox entry until the task's events are published.
                UpdateExpression: `SET #status = :failed, #error = :error, completed_at = :now, updated_at = :now, gsi2pk = :endedPk, gsi2sk = :endedSk${
                  options.progress === undefined ? '' : ', progress = :progress'
                } REMOVE pending_outputs`,
                ConditionExpression: [
                  '#status = :processing',
                  ...(options.onlyIfUnsubmitted ? ['attribute_not_exists(provider_job_id)'] : []),
                  ...(options.onlyBeforeOutputs ? ['attribute_not_exists(pending_outputs)'] : []),
                ].join(' AND '),
                ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
                ExpressionAttributeValues: {
                  ':failed': 'failed',
                  ':processing': 'processing',
                  ':error': { code: error.code, message: error.message },
                  ':now': now,
                  ...endedEntryValues(now, task.taskId),
                  ...(options.progress !== undefined && { ':progress': options.progress }),
                },
              },
            },
            { Update: balanceCredit(this.db, task.accountId, refund.amount, now, slot) },
            { Put: ledgerEntryPut(this.db, refund, slot.position) },
          ],
        }),
      );
      return true;
    } catch (caught) {
      const reasons = cancellationReasons(caught);
      if (reasons[0] === 'ConditionalCheckFailed') return false;
      // Another ledger write took the position: append again after it.
      if (reasons[1] === 'ConditionalCheckFailed') return POSITION_TAKEN;
      // Lost a race with another writer of the same task: whoever won decided its fate.
      if (reasons.includes('TransactionConflict')) {
        const latest = await this.get(task.accountId, task.taskId);
        if (latest && latest.status !== 'processing') return false;
        // A writer of the account item (a start, another refund) held it: try again.
        return POSITION_TAKEN;
      }
      throw caught;
    }
  }

  async recordProgress(task: Task, progress: number): Promise<void> {
    await this.conditionalUpdate(task, {
      UpdateExpression: 'SET progress = :progress',
      ConditionExpression: '#status = :processing AND (attribute_not_exists(progress) OR progress < :progress)',
      ExpressionAttributeValues: { ':progress': progress },
    });
  }

  async listPage(accountId: string, kind: TaskKind, page: number, limit: number) {
    const account = await this.accounts.get(accountId);
    const total = account?.taskCounts[kind] ?? 0;
    const items = await positionPage(this.db, accountId, (seq) => taskHistoryKey(kind, seq), { total, page, limit });
    return { tasks: items.map(fromTaskItem), total };
  }

  listProcessing(): AsyncIterable<TaskRef>[] {
    return Array.from({ length: IN_FLIGHT_SHARDS }, (_, shard) => this.indexShard(inFlightPartition(shard)));
  }

  listUnannounced(): AsyncIterable<TaskRef>[] {
    return Array.from({ length: IN_FLIGHT_SHARDS }, (_, shard) => this.indexShard(endedPartition(shard)));
  }

  async markAnnounced(task: Task): Promise<void> {
    try {
      await this.db.doc.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: taskKey(task.accountId, task.taskId),
          UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
          ConditionExpression: '#status <> :processing',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':processing': 'processing' },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  private async *indexShard(partition: string): AsyncGenerator<TaskRef> {
    const { gsi2 } = TABLE_DEFINITION;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.doc.send(
        new QueryCommand({
          TableName: this.db.tableName,
          IndexName: gsi2.indexName,
          KeyConditionExpression: `${gsi2.partitionKey} = :pk`,
          ExpressionAttributeValues: { ':pk': partition },
          ExclusiveStartKey: startKey,
          Limit: IN_FLIGHT_PAGE,
        }),
      );
      for (const item of page.Items ?? []) yield taskRefOf(item as { pk: string; sk: string });
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }

  private async conditionalUpdate(
    task: Task,
    update: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> },
  ): Promise<boolean> {
    try {
      // A transaction on the task (a cancel's or a timeout's refund) refuses this write while it runs.
      await withConflictRetries(() =>
        this.db.doc.send(
          new UpdateCommand({
            TableName: this.db.tableName,
            Key: taskKey(task.accountId, task.taskId),
            ...update,
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':processing': 'processing' },
          }),
        ),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}


/**
 * A single write to the account item is refused (TransactionConflictException, which the SDK
 * does not retry) while a transaction on it is in progress (a refund, a grant): try again shortly.
 */
async function withConflictRetries<T>(write: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof Error && error.name === 'TransactionConflictException') || attempt >= 4) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
    }
  }
}
