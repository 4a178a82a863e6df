import type { LedgerEntry } from '#domain/accounts/ledger';
import type { CreateTaskResult, FailOptions, NewTaskRequest, StartRepair, TaskRef, TaskStore } from '#domain/tasks/ports';
import type { ProviderJob, Task, TaskError, TaskKind } from '#domain/tasks/task';
import type { Telemetry } from '#domain/shared/telemetry';
import type { Db } from './dynamo-client';
import { getTask, listProcessing, listTaskPage, listUnannounced } from './tasks/queries';
import { startTask } from './tasks/start';
import { repairStart } from './tasks/start-repair';
import * as transitions from './tasks/transitions';
import { transition } from './tasks/transition';
import type { Phase } from '#domain/tasks/phase';
import type { TaskPatch } from '#domain/tasks/transitions';

/**
 * The TaskStore on DynamoDB, one concern per module under tasks/: the charged start
 * (start.ts) and its repair (start-repair.ts), the state transitions (transitions.ts) with
 * the one fail-and-refund transaction (refund-transaction.ts), and the reads (queries.ts).
 */
export class DynamoTaskStore implements TaskStore {
  constructor(private readonly db: Db, private readonly telemetry: Telemetry) {}

  create(request: NewTaskRequest): Promise<CreateTaskResult> {
    return startTask(this.db, this.telemetry, request);
  }

  repairStart(draft: Task, error: TaskError, now: string): Promise<StartRepair> {
    return repairStart(this.db, draft, error, now);
  }

  get(accountId: string, taskId: string): Promise<Task | undefined> {
    return getTask(this.db, accountId, taskId);
  }

  listPage(accountId: string, kind: TaskKind, page: number, limit: number): Promise<{ tasks: Task[]; total: number }> {
    return listTaskPage(this.db, accountId, kind, page, limit);
  }

  listProcessing(): AsyncIterable<TaskRef>[] {
    return listProcessing(this.db);
  }

  listUnannounced(): AsyncIterable<TaskRef>[] {
    return listUnannounced(this.db);
  }

  transition(task: Task, from: readonly Phase[], to: Phase | 'same', patch: TaskPatch): Promise<Task | undefined> {
    return transition(this.db, task, from, to, patch);
  }

  recordSubmission(task: Task, provider: ProviderJob, now: string): Promise<boolean> {
    return transitions.recordSubmission(this.db, task, provider, now);
  }

  markQueued(task: Task, now: string, attempts: number): Promise<boolean> {
    return transitions.markQueued(this.db, task, now, attempts);
  }

  claimQueued(task: Task, now: string): Promise<boolean> {
    return transitions.claimQueued(this.db, task, now);
  }

  markSent(task: Task, now: string): Promise<boolean> {
    return transitions.markSent(this.db, task, now);
  }

  claimCheck(task: Task, now: Date, minIntervalMs: number): Promise<boolean> {
    return transitions.claimCheck(this.db, task, now, minIntervalMs);
  }

  recordOutputs(task: Task, outputUrls: string[], now: string): Promise<boolean> {
    return transitions.recordOutputs(this.db, task, outputUrls, now);
  }

  claimCopy(task: Task, now: Date, leaseMs: number): Promise<boolean> {
    return transitions.claimCopy(this.db, task, now, leaseMs);
  }

  recordCopyFailure(task: Task, now: string): Promise<number | undefined> {
    return transitions.recordCopyFailure(this.db, task, now);
  }

  complete(task: Task, outputUrls: string[], now: string, thumbnailUrl?: string): Promise<boolean> {
    return transitions.complete(this.db, task, outputUrls, now, thumbnailUrl);
  }

  failAndRefund(task: Task, error: TaskError, refund: LedgerEntry, now: string, options?: FailOptions): Promise<boolean> {
    return transitions.failAndRefund(this.db, task, error, refund, now, options);
  }

  recordProgress(task: Task, progress: number): Promise<void> {
    return transitions.recordProgress(this.db, task, progress);
  }

  markAnnounced(task: Task): Promise<void> {
    return transitions.markAnnounced(this.db, task);
  }
}
