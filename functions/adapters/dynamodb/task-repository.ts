import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { AccountBusyError } from '../../domain/errors';
import type { LedgerEntry } from '../../domain/ledger';
import type { CreateTaskResult, FailOptions, IdempotencyClaim, NewTaskRequest, TaskStore } from '../../domain/ports';
import type { Task, TaskError, TaskKind } from '../../domain/task';
import { balanceCredit, DynamoAccountStore } from './account-repository';
import { cancellationReasons, isConditionFailure, type Db } from './dynamo-client';
import { DynamoIdempotencyStore, toIdempotencyItem } from './idempotency-repository';
import { accountKey, PROCESSING_GSI1_PK, taskHistoryKey, taskKey } from './keys';
import { ledgerEntryPut } from './ledger-repository';
import { fromTaskItem, toTaskItem } from './task-item';
import { TABLE_DEFINITION } from './table-definition';

/**
 * How long a start may keep retrying after losing races for the account (every start of one
 * account updates its item, so they serialise). Past it the caller is told to retry: 429.
 */
const CREATE_BUDGET_MS = 10_000;

const COUNT_ATTRIBUTE: Record<TaskKind, string> = { video: 'video_count', image: 'image_count' };

export class DynamoTaskStore implements TaskStore {
  private readonly accounts: DynamoAccountStore;
  private readonly idempotency: DynamoIdempotencyStore;

  constructor(private readonly db: Db) {
    this.accounts = new DynamoAccountStore(db);
    this.idempotency = new DynamoIdempotencyStore(db);
  }

  async create(request: NewTaskRequest): Promise<CreateTaskResult> {
    const { task: draft, charge, idempotency } = request;
    let expectedCount = request.expectedCount;
    const deadline = Date.now() + CREATE_BUDGET_MS;
    for (let attempt = 1; Date.now() < deadline; attempt += 1) {
      const task = { ...draft, seq: expectedCount + 1 } as Task;
      try {
        await this.db.doc.send(
          new TransactWriteCommand({ TransactItems: this.createItems(task, charge, expectedCount, idempotency) }),
        );
        return { type: 'created', task };
      } catch (error) {
        const reasons = cancellationReasons(error);
        if (reasons.length === 0) throw error;
        // Whatever cancelled us, a concurrent request with our Idempotency-Key may have won:
        // then its answer is ours, even if it spent the last credits.
        if (idempotency) {
          const record = await this.idempotency.get(idempotency.accountId, idempotency.key, new Date());
          if (record) return { type: 'idempotency_key_used', record };
        }
        // Either the balance is too low or another task took our position: read and decide.
        const account = await this.accounts.get(draft.accountId);
        if (!account) throw new Error(`Account ${draft.accountId} disappeared while creating a task.`, { cause: error });
        if (account.credits < -charge.amount) return { type: 'insufficient_credits', available: account.credits };
        expectedCount = account.taskCounts[draft.kind];
        await backoff(attempt);
      }
    }
    throw new AccountBusyError();
  }

  private createItems(task: Task, charge: LedgerEntry, expectedCount: number, idempotency?: IdempotencyClaim) {
    const table = this.db.tableName;
    const price = -charge.amount;
    const countMatches = expectedCount === 0 ? '(attribute_not_exists(#count) OR #count = :expected)' : '#count = :expected';
    return [
      {
        Update: {
          TableName: table,
          Key: accountKey(task.accountId),
          UpdateExpression: 'SET credits = credits - :price, #count = :next, updated_at = :now',
          ConditionExpression: `attribute_exists(pk) AND credits >= :price AND ${countMatches}`,
          ExpressionAttributeNames: { '#count': COUNT_ATTRIBUTE[task.kind] },
          ExpressionAttributeValues: {
            ':price': price,
            ':expected': expectedCount,
            ':next': task.seq,
            ':now': task.createdAt,
          },
        },
      },
      { Put: { TableName: table, Item: toTaskItem(task), ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: ledgerEntryPut(this.db, charge) },
      ...(idempotency
        ? [
            {
              Put: {
                TableName: table,
                Item: toIdempotencyItem(idempotency),
                // An expired record that TTL has not deleted yet may be taken over (the same
                // rule as DynamoIdempotencyStore.get, judged on the clock of this attempt).
                ConditionExpression: 'attribute_not_exists(pk) OR expires_at <= :nowEpoch',
                ExpressionAttributeValues: { ':nowEpoch': Math.floor(Date.now() / 1000) },
              },
            },
          ]
        : []),
    ];
  }

  async get(accountId: string, taskId: string): Promise<Task | undefined> {
    const { Item } = await this.db.doc.send(
      new GetCommand({ TableName: this.db.tableName, Key: taskKey(accountId, taskId), ConsistentRead: true }),
    );
    return Item ? fromTaskItem(Item) : undefined;
  }

  async recordSubmission(task: Task, provider: { name: string; jobId: string }, now: string): Promise<boolean> {
    return this.conditionalUpdate(task, {
      UpdateExpression: 'SET provider_name = :name, provider_job_id = :job, last_checked_at = :now, updated_at = :now',
      ConditionExpression: '#status = :processing',
      ExpressionAttributeValues: { ':name': provider.name, ':job': provider.jobId, ':now': now },
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
        'SET #status = :completed, output_urls = :urls, completed_at = :now, updated_at = :now REMOVE gsi1pk, gsi1sk, pending_outputs',
      ConditionExpression: '#status = :processing',
      ExpressionAttributeValues: { ':completed': 'completed', ':urls': outputUrls, ':now': now },
    });
  }

  async failAndRefund(
    task: Task,
    error: TaskError,
    refund: LedgerEntry,
    now: string,
    options: FailOptions = {},
  ): Promise<boolean> {
    try {
      await this.db.doc.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.db.tableName,
                Key: taskKey(task.accountId, task.taskId),
                UpdateExpression: `SET #status = :failed, #error = :error, completed_at = :now, updated_at = :now${
                  options.progress === undefined ? '' : ', progress = :progress'
                } REMOVE gsi1pk, gsi1sk, pending_outputs`,
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
                  ...(options.progress !== undefined && { ':progress': options.progress }),
                },
              },
            },
            { Update: balanceCredit(this.db, task.accountId, refund.amount, now) },
            { Put: ledgerEntryPut(this.db, refund) },
          ],
        }),
      );
      return true;
    } catch (caught) {
      const reasons = cancellationReasons(caught);
      if (reasons[0] === 'ConditionalCheckFailed') return false;
      // Lost a race with another writer of the same task: whoever won decided its fate.
      if (reasons.includes('TransactionConflict')) {
        const latest = await this.get(task.accountId, task.taskId);
        if (latest && latest.status !== 'processing') return false;
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
    // Positions are 1..total with no gaps, so page p (newest first) is one exact range.
    const newest = total - (page - 1) * limit;
    const oldest = Math.max(1, newest - limit + 1);
    if (newest < 1) return { tasks: [], total };
    const { lsi1, partitionKey } = TABLE_DEFINITION;
    const { Items } = await this.db.doc.send(
      new QueryCommand({
        TableName: this.db.tableName,
        IndexName: lsi1.indexName,
        KeyConditionExpression: `${partitionKey} = :pk AND ${lsi1.sortKey} BETWEEN :from AND :to`,
        ExpressionAttributeValues: {
          ':pk': accountKey(accountId).pk,
          ':from': taskHistoryKey(kind, oldest),
          ':to': taskHistoryKey(kind, newest),
        },
        ScanIndexForward: false,
        ConsistentRead: true,
      }),
    );
    return { tasks: (Items ?? []).map(fromTaskItem), total };
  }

  async listProcessing(limit: number): Promise<Task[]> {
    const { gsi1 } = TABLE_DEFINITION;
    const { Items } = await this.db.doc.send(
      new QueryCommand({
        TableName: this.db.tableName,
        IndexName: gsi1.indexName,
        KeyConditionExpression: `${gsi1.partitionKey} = :pk`,
        ExpressionAttributeValues: { ':pk': PROCESSING_GSI1_PK },
        Limit: limit,
      }),
    );
    return (Items ?? []).map(fromTaskItem);
  }

  private async conditionalUpdate(
    task: Task,
    update: { UpdateExpression: string; ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> },
  ): Promise<boolean> {
    try {
      await this.db.doc.send(
        new UpdateCommand({
          TableName: this.db.tableName,
          Key: taskKey(task.accountId, task.taskId),
          ...update,
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ...update.ExpressionAttributeValues, ':processing': 'processing' },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

/** Exponential backoff with full jitter (capped), so racing writers spread out. */
function backoff(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(250, 10 * 2 ** Math.min(attempt, 5));
  return new Promise((resolve) => setTimeout(resolve, ms));
}
